"""The one device layer: backend names, GPU detection, launch buffers and timing, atomic writes,
and the start-up phases of a process (``GPUBENCH_PHASES``).

Every method and command speaks of backends with the same three words:

* ``"cpu"``: numba on the host;
* ``"cuda"``: numba-cuda on an NVIDIA GPU (or numba's CUDA simulator when
  ``NUMBA_ENABLE_CUDASIM=1``, which is how CI runs GPU code);
* ``"auto"``: ``"cuda"`` when a real GPU is present, else ``"cpu"``.

Nothing here imports numba at module import time, so ``gpubench --help`` stays fast.
"""
import contextlib
import errno
import os
import stat
import subprocess
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from ..errors import InputError

BACKENDS = ("auto", "cpu", "cuda")

_GPU = {}


def simulator():
    """True when numba's CUDA simulator stands in for a GPU (``NUMBA_ENABLE_CUDASIM=1``)."""
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


def device_limits():
    """The current CUDA device's launch limits, with defaults where a value is missing (numba's
    simulator has no MULTIPROCESSOR_COUNT: one SM): de-gpu's launch geometry, lbfgsb-gpu's lanes."""
    from numba import cuda
    dev = cuda.get_current_device()

    def attr(name, default):
        try:
            v = getattr(dev, name)
            return int(v) if v else default
        except Exception:
            return default
    name = getattr(dev, "name", "simulator")
    return {"name": name.decode() if isinstance(name, bytes) else str(name),
            "max_threads_per_block": attr("MAX_THREADS_PER_BLOCK", 1024),
            "max_shared_memory_per_block": attr("MAX_SHARED_MEMORY_PER_BLOCK", 49152),
            "max_registers_per_block": attr("MAX_REGISTERS_PER_BLOCK", 65536),
            "multiprocessors": attr("MULTIPROCESSOR_COUNT", 1),
            "max_threads_per_multiprocessor": attr("MAX_THREADS_PER_MULTI_PROCESSOR", 2048)}


def gpu_available():
    """True when a real CUDA GPU is here (never the simulator).  Computed once per process.

    The driver is asked through ctypes (:func:`gpubench.device.driver.sees_gpu`), without importing
    numba-cuda: a run that never launches (a typed-in interval solve whose root stays whole) then
    never pays numba-cuda's import.  Where the driver cannot answer so, numba-cuda answers."""
    if "real" not in _GPU:
        ok = False
        if not simulator():
            with phase("cuda.driver"):  # initialising the driver (and importing numba-cuda, where asked)
                from . import driver
                ok = driver.sees_gpu()
                if ok is None:
                    ok = _numba_sees_gpu()
        _GPU["real"] = ok
    return _GPU["real"]


def _numba_sees_gpu():
    try:
        from numba import cuda
        return bool(cuda.is_available())
    except Exception:  # no driver, no toolkit: no GPU
        return False


def visible_gpus():
    """The GPUs this process may use, as CUDA names them for a child process.

    ``CUDA_VISIBLE_DEVICES``, when set, is the list (a user who hides GPUs from gpubench expects
    its workers to stay inside what is left; ``""`` hides them all); otherwise every GPU of
    ``nvidia-smi -L``, so that no CUDA context is created here and a process that starts one
    worker per GPU (the runner's Dask path) leaves every GPU to its workers."""
    env = os.environ.get("CUDA_VISIBLE_DEVICES")
    if env is not None:
        return [d.strip() for d in env.split(",") if d.strip()]
    out = run_quietly(["nvidia-smi", "-L"])
    return [str(i) for i, line in enumerate(line for line in (out or "").splitlines() if line.startswith("GPU "))]



def run_quietly(cmd):
    """A command's standard output, stripped; None when it cannot run, fails to start or is empty
    (``nvidia-smi`` on a host without a driver).  Here, below :mod:`.environment`, which uses it too."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def gpu_count():
    """How many GPUs this process may use (:func:`visible_gpus`)."""
    return len(visible_gpus())


def cuda_usable():
    """True when CUDA kernels can run here: a real GPU or the simulator."""
    return gpu_available() or simulator()


def resolve_backend(backend, supported=("cpu", "cuda"), what="backend"):
    """The concrete backend (``"cpu"`` or ``"cuda"``) for a requested one; one-line errors.

    ``supported`` lists the concrete backends the caller has.  ``auto`` picks
    ``cuda`` when a real GPU is present and the caller supports it.
    """
    if backend not in BACKENDS:
        raise InputError(f"unknown {what} {backend!r}; expected one of {', '.join(BACKENDS)}")
    if backend == "auto":
        return "cuda" if ("cuda" in supported and gpu_available()) else supported[0]
    if backend not in supported:
        raise InputError(f"{what} {backend!r} is not available for this method (it has: {', '.join(supported)})")
    if backend == "cuda" and not cuda_usable():
        raise InputError(f"{what} cuda: no CUDA GPU is available here (try cpu)")
    return backend


# ---------------------------------------------------------------- launches
class Buffers:
    """Grow-only device and pinned host buffers, reused across launches.

    ``device(name, shape, dtype)`` and ``pinned(name, shape, dtype)`` return an
    array of at least the requested size (a view of exactly the shape); memory
    is only reallocated when a larger one is asked for.
    """

    def __init__(self):
        self._dev = {}
        self._host = {}

    @staticmethod
    def _size(shape):
        n = 1
        for s in (shape if isinstance(shape, tuple) else (shape,)):
            n *= int(s)
        return n

    def device(self, name, shape, dtype):
        from numba import cuda
        n = self._size(shape)
        buf = self._dev.get(name)
        if buf is None or buf.size < n or buf.dtype != dtype:
            buf = cuda.device_array(max(n, 1), dtype=dtype)
            self._dev[name] = buf
        return buf[:n].reshape(shape)

    def pinned(self, name, shape, dtype):
        from numba import cuda
        n = self._size(shape)
        buf = self._host.get(name)
        if buf is None or buf.size < n or buf.dtype != dtype:
            buf = cuda.pinned_array(max(n, 1), dtype=dtype)
            self._host[name] = buf
        return buf[:n].reshape(shape)


class Timer:
    """Accumulates GPU time between CUDA events (or host time on the CPU) under named keys."""

    def __init__(self, cuda=False):
        self.cuda = cuda
        self.seconds = {}

    @contextmanager
    def time(self, key, stream=0):
        if self.cuda:
            from numba import cuda as nc
            start, stop = nc.event(), nc.event()
            start.record(stream)
            yield
            stop.record(stream)
            stop.synchronize()
            dt = start.elapsed_time(stop) / 1000.0
        else:
            t0 = time.perf_counter()
            yield
            dt = time.perf_counter() - t0
        self.seconds[key] = self.seconds.get(key, 0.0) + dt


def bound_launch(kernel, griddim, blockdim, args, stream=0, sharedmem=0, bind=True):
    """A function of no argument that launches ``kernel[griddim, blockdim, stream, sharedmem](*args)``.

    A numba-cuda launch types every argument, looks the overload up and marshals the arrays on
    each call (tens of microseconds of host time, during which the GPU idles).  Here that is done
    once: the overload is compiled (or loaded from the disk cache) for the arguments' types, bound
    to the context, its argument words built, and each call is the driver launch alone (numba's
    own, ``numba.cuda.dispatcher.launch``).  The function's ``path`` says which way it launches:
    "bound", or "dispatcher" (the ordinary configured call: under the simulator, or where the
    installed numba-cuda lacks what binding uses; or ``bind`` false: a launch made once, where
    binding would cost more than it saves).  ``args`` must stay the same device arrays."""
    configured = kernel[griddim, blockdim, stream, sharedmem]

    def dispatched():
        configured(*args)
    dispatched.path = "dispatcher"
    if simulator() or not bind:
        return dispatched
    try:
        from numba.cuda import dispatcher as nd
        overload = kernel.compile(tuple(kernel.typeof_pyval(a) for a in args))
        if overload.debug or overload.extensions:
            return dispatched
        overload.bind()
        words, retr = [], []
        for ty, v in zip(overload.argument_types, args):
            overload._prepare_args(ty, v, configured.stream, retr, words)
        if retr:            # a host array copied per call: not a bound launch
            return dispatched
        # a cooperative kernel (grid syncs) is launched cooperatively, as numba's own launch does
        coop = {}
        if overload.cooperative:
            from numba.cuda._compat import CUDA_CORE_GE_1_0
            coop = {"is_cooperative" if CUDA_CORE_GE_1_0 else "cooperative_launch": True}
        cfg = nd.LaunchConfig(grid=configured.griddim, block=configured.blockdim, shmem_size=sharedmem, **coop)
        fn, go, where = overload._codelibrary.get_cufunc().kernel, nd.launch, configured.stream
    except Exception as exc:    # noqa: BLE001 - the ordinary launch still works; the record says why
        dispatched.why = f"{type(exc).__name__}: {exc}"[:200]
        return dispatched

    def bound():
        go(where, cfg, fn, *words)
    bound.path = "bound"
    bound.keep = args       # the arrays whose pointers the words hold
    return bound


def capture_graph(body):
    """A function of no argument that replays ``body``'s device work as one CUDA graph launch.

    ``body(stream)`` is called once, while a private non-blocking CuPy stream captures: it must put
    all its work on that stream (CuPy's operations go there by themselves, the stream being current;
    numba launches take ``stream``, numba's handle of it) and neither read the device back nor change
    host state that later code relies on, since a replay runs its device work only.  Its CuPy
    allocations come from a memory pool of the graph's own, kept with it: a replay writes the
    addresses the capture saw, and no other array is ever given them.  What ``body`` returns is
    kept alive with the graph (the arrays the replays write).  Each call of the result launches the
    graph on the legacy default stream, so it is ordered with every launch made there before and
    after, as the launches it replaces were.  Raises whatever the capture raised (an operation that
    cannot be captured, a synchronisation); the stream's capture is ended either way."""
    import gc

    import cupy
    from numba import cuda
    s = cupy.cuda.Stream(non_blocking=True)
    pool = cupy.cuda.MemoryPool()
    ns = cuda.external_stream(s.ptr)
    # a collection during the capture could free a numba array: its cuMemFree would break it
    collecting = gc.isenabled()
    gc.disable()
    try:
        with cupy.cuda.using_allocator(pool.malloc), s:
            s.begin_capture()           # relaxed mode (CuPy's default): the pool may grow meanwhile
            try:
                kept = body(ns)
            finally:
                graph = s.end_capture()     # raises for a capture the body invalidated
    finally:
        if collecting:
            gc.enable()
    null = cupy.cuda.Stream.null

    def replay():
        graph.launch(null)
    replay.keep = (s, pool, graph, ns, kept)
    return replay


# ---------------------------------------------------------------- start-up phases
# GPUBENCH_PHASES=FILE: phase() records when each named phase of this process began and ended, and
# the list is written to FILE at exit (benchmarks/profiling/startup_profile.py sets it and reads FILE).  Read
# once, here: unset, phase() returns one shared null context and records nothing.
_PHASES_FILE = os.environ.get("GPUBENCH_PHASES") or None
_PHASES = []
_WATCHED = set()
_NULL = contextlib.nullcontext()


def phase(name):
    """``with phase("codegen.source"): ...`` records the block's wall-clock interval (see above)."""
    return _NULL if _PHASES_FILE is None else _record(name)


def _write_at_exit():
    if "atexit" not in _WATCHED:
        import atexit
        atexit.register(_write_phases)
        _WATCHED.add("atexit")


@contextmanager
def _record(name):
    _write_at_exit()
    start = time.time()  # wall clock, not perf_counter: the profiler compares it with its own launch time
    try:
        yield
    finally:
        _PHASES.append({"phase": name, "start": start, "end": time.time()})


def watch_compiles(cuda=False):
    """Record, as phases ``numba.compile_or_load``, the intervals in which numba holds its compiler
    lock: a dispatcher compiling, or loading a kernel from its disk cache, on its first call.

    Only with ``GPUBENCH_PHASES`` set; numba (and with ``cuda``, numba-cuda) is imported here, so call
    it where the caller imports it anyway.
    """
    if _PHASES_FILE is None:
        return
    sources = [("numba", "numba.core.event", "numba:compiler_lock")]
    if cuda:  # numba-cuda has its own lock and events (it also takes numba's while numba is installed)
        sources.append(("numba-cuda", "numba.cuda.core.event", "numba-cuda:compiler_lock"))
    for key, module, kind in sources:
        if key in _WATCHED:
            continue
        try:
            import importlib
            event = importlib.import_module(module)
            event.register(kind, _lock_listener(event.Listener))
        except (ImportError, AttributeError, ValueError):  # an older numba without these events
            continue
        _WATCHED.add(key)


def _lock_listener(base):
    class LockHeld(base):
        # the lock is re-entrant: only the outermost acquire and release bound an interval
        depth = 0
        start = 0.0

        def on_start(self, event):
            if self.depth == 0:
                self.start = time.time()
            self.depth += 1

        def on_end(self, event):
            self.depth -= 1
            if self.depth == 0:
                _PHASES.append({"phase": "numba.compile_or_load", "start": self.start, "end": time.time()})

    _write_at_exit()
    return LockHeld()


def _write_phases():
    import json
    atomic_write(_PHASES_FILE, json.dumps({"pid": os.getpid(), "phases": _PHASES}), fsync=False)


def write_phases_now():
    """Write the recorded phases now (a process about to leave by ``os._exit`` runs no atexit)."""
    if _PHASES_FILE is not None and "atexit" in _WATCHED:
        _write_phases()


# ---------------------------------------------------------------- files
def check_writable_file(path, what="output file"):
    """Fail early, in one line, when ``path`` cannot be written as a file."""
    p = Path(path)
    if p.exists() and p.is_dir():
        raise InputError(f"{what} {str(path)!r} is a directory, not a file")
    _refuse_special(os.path.realpath(p), what, shown=path)
    parent = p.parent if str(p.parent) else Path(".")
    if parent.exists() and not parent.is_dir():
        raise InputError(f"{what} {str(path)!r}: {str(parent)!r} is not a directory")
    if not parent.exists():
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"{what} {str(path)!r}: cannot create {str(parent)!r}: {exc.strerror}") from None
    if not os.access(parent, os.W_OK):
        raise InputError(f"{what} {str(path)!r}: {str(parent)!r} is not writable")
    return p


def check_writable_dir(path, what="output folder"):
    """Fail early, in one line, when ``path`` cannot be used as an output folder."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise InputError(f"{what} {str(path)!r} is a file, not a folder")
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"{what} {str(path)!r}: cannot create it: {exc.strerror}") from None
    if not os.access(p, os.W_OK):
        raise InputError(f"{what} {str(path)!r} is not writable")
    return p


def _refuse_special(path, what="output file", shown=None):
    """A device, FIFO or socket is never replaced by a regular file (``--regions /dev/full``)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise InputError(f"{what} {str(shown or path)!r} is a special file (a device, FIFO or socket), "
                         f"not a regular file")


def _new_file_mode(path):
    """The mode a plain ``open(path, "w")`` would give: the old file's, else 0666 less the umask."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        umask = os.umask(0o022)
        os.umask(umask)
        return 0o666 & ~umask


def atomic_write(path, data, fsync=True):
    """Write ``data`` (str, bytes, or a callable taking a binary file) to ``path`` atomically.

    The data goes to a temporary file in the same folder, is flushed and
    fsynced, and is renamed into place with ``os.replace``: a reader (or a
    resume after ``kill -9``) sees the old file or the new one, never a part.
    The temporary file is removed if writing fails.  A symlink is followed
    (its target is written, the link stays), a special file is refused, and the
    file gets the mode ``open`` would give it (mkstemp's is 0600).  A full or
    read-only disk is one line naming the file.
    """
    path = os.path.realpath(os.fspath(path))
    _refuse_special(path)
    directory = os.path.dirname(path)
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise _disk_error(path, exc) from None
    try:
        os.fchmod(fd, _new_file_mode(path))
        with os.fdopen(fd, "wb") as fh:
            if callable(data):
                data(fh)
            else:
                fh.write(data.encode() if isinstance(data, str) else data)
            fh.flush()
            if fsync:
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError) and exc.errno in _DISK_ERRORS:
            raise _disk_error(path, exc) from None
        raise
    return path


# the machine's state, not a bug: one line (`reproduce --results DIR` on a full disk)
_DISK_ERRORS = (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EFBIG)


def _disk_error(path, exc):
    if exc.errno not in _DISK_ERRORS:
        return exc
    return InputError(f"cannot write {path}: {exc.strerror or exc}")


def remove_stale_temporaries(path):
    """Delete temporary files that a killed :func:`atomic_write` of ``path`` left behind."""
    directory = os.path.dirname(os.path.abspath(os.fspath(path)))
    prefix = f".{os.path.basename(os.fspath(path))}."
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        if name.startswith(prefix) and name.endswith(".tmp"):
            try:
                os.remove(os.path.join(directory, name))
            except OSError:
                pass
