"""``gpubench reproduce EXPERIMENT``: run an experiment's cases and store one record each.

An experiment (``experiments/*.toml``, see :mod:`gpubench.workflow.experiments_loader`)
expands into cases: function x dimension x method entry x repetition.  Each
case is run by ``gpubench.methods`` and stored as one JSON record,
``results/<experiment>/<case-id>.json``, by the one writer of records
(:mod:`gpubench.records.write`: a temporary file in the same folder renamed into
place, so a record is either complete or absent; its schema: :mod:`gpubench.records.schema`).  A rerun skips every case already stored: an interrupted
sweep resumes where it stopped, and a resumable case within itself, from its checkpoint
(:mod:`gpubench.workflow.resume`).  The case id names the method entry, function,
n, variant and repetition, plus a hash of the method and its settings, so a
changed setting is a new case; the backend it ran on is recorded, not part of its id.

Scale-out (Dask distributed): ``--workers N`` starts a LocalCluster of N
single-threaded worker processes (one per GPU on a GPU host:
``dask_cuda.LocalCUDACluster`` when installed, otherwise one Nanny per worker
with its own ``CUDA_VISIBLE_DEVICES``); ``--scheduler tcp://HOST:PORT`` uses a
running cluster.  Workers only compute; records travel back and this process
writes them, so a remote worker needs no shared disk.

Records of the experiments of Zhang, Shan & Cagan (2026), PNAS Nexus 5(4)
pgag103, hold what their tables print (iterations, output regions, time) and
more: GLB, GUB, best value, evaluations, success against f*, the settings, and
the environment (CPU, GPU and driver, Python and package versions, commit, date).
"""
import contextlib
import os
import sys
import time
from dataclasses import dataclass, field
from . import claims, resume
from .resume import CHECKPOINT_EVERY
from .progress import progress
from .warmup import warm_up  # noqa: F401  (a case's warm-up; scripts call it here too)
from ..device.gpu import check_writable_dir, visible_gpus
from ..errors import InputError
from ..methods.monitor import catch_interrupts, on_interrupt
# records are made, stored and read by gpubench.records (load_records and success: this module's API too)
from ..records.read import load_records, read_record, results_dir, stored_cases  # noqa: F401
from ..records.schema import case_id, json_ready, success  # noqa: F401
from ..records.write import clean_partial, make_record, procedure_record, write_record


@dataclass(frozen=True)
class Case:
    experiment: str
    variant: str
    function: str
    dim: int
    key: str
    method: str
    label: str
    settings: dict = field(hash=False)
    repetition: int = 0
    success_tol: float = 1e-6
    # layout "certify": the judge's tolerances ((key, value) pairs); the record then carries the
    # library's statement judged against the rigorous result (gpubench.workflow.certify.judgement)
    certify: tuple = field(default=(), hash=False, compare=False)

    @property
    def case_id(self):
        return case_id(self.key, self.function, self.dim, self.variant, self.repetition,
                       self.method, self.settings)

    def describe(self):
        return f"{self.key} {self.function} n={self.dim}" + (f" rep {self.repetition}" if self.repetition else "")


def plan(experiment, quick=False, backend=None):
    """The cases of one variant of ``experiment``, in run order.

    ``backend`` (auto/cpu/cuda) replaces the ``backend`` setting of every method
    entry that has one.
    """
    if experiment.not_implemented:
        return []
    v = experiment.variant(quick)
    # a fixed problem is a "function" at its size n, with settings of its own
    axis = ([(p.problem, p.n, p.settings) for p in v.problems] if v.problems else
            [(function, dim, {}) for dim in v.dims for function in v.functions] if v.dims else
            # a library's functions, each at its own dimensions (experiment without dims)
            [(function, dim, {}) for function in v.functions for dim in _own_dims(function)])
    judged = tuple(sorted(experiment.certify.items())) if experiment.layout == "certify" else ()
    cases = []
    for function, dim, own in axis:
        for spec in v.methods:
            settings = {**spec.settings, **own}
            if backend is not None and "backend" in settings:
                settings["backend"] = backend
            for rep in range(v.repetitions):
                cases.append(Case(experiment.id, v.name, function, dim, spec.key, spec.method,
                                  spec.label, settings, rep, experiment.success_tol, judged))
    return cases


def _own_dims(function):
    from .certify import own_dims
    return own_dims(function)


# ---------------------------------------------------------------- one case
_ENV = {}


def environment():
    """The environment of this process (computed once): machine, GPU, versions, commit."""
    if not _ENV:
        from importlib import metadata
        from ..device import environment as env
        e = env.capture()
        e.pop("argv", None)
        for pkg in ("dask", "distributed", "matplotlib", "rich"):
            try:
                e["versions"][pkg] = metadata.version(pkg)
            except metadata.PackageNotFoundError:
                e["versions"][pkg] = None
        e["numba_cuda_simulator"] = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
        _ENV.update(e)
    out = dict(_ENV)
    import datetime
    out["date"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    return out


def runnable(case):
    """Whether this runner can run ``case``: a method on a library function, or a procedure
    that has its run (the others still run through their papers' scripts)."""
    from .. import functions
    from ..problems import catalog
    if case.method in catalog.PROCEDURES:
        return bool(catalog.PROCEDURES[case.method].run)
    if case.function.split(".", 1)[0] in functions.LIBRARIES:
        return case.function in functions.names(case.function.split(".", 1)[0])
    return case.function in functions.names() or case.function.startswith("paper001:")


def run_procedure(case, folder=None, checkpoint_every=CHECKPOINT_EVERY):
    """A procedure's case (a fixed problem's table row): measured numbers and the table's own
    figures (``result``) in the one record format.  A resumable procedure's case with a ``folder``
    keeps its checkpoint there; Ctrl-C or SIGTERM saves it and ends the sweep (KeyboardInterrupt),
    no record written: a record is only ever of a finished case."""
    from ..methods.checkpoints import Interrupted
    from ..problems import catalog
    env = environment()
    proc = catalog.PROCEDURES[case.method]
    settings = {**proc.settings, **case.settings}
    ck = resume.checkpoint(case, proc, folder, checkpoint_every)
    t0 = time.perf_counter()
    try:
        # a resumable case stops at its next iteration on Ctrl-C or SIGTERM, its checkpoint saved
        with catch_interrupts() if ck is not None else contextlib.nullcontext():
            measured, result = proc.runner()(case.function, case.dim, settings,
                                             **({"checkpoint": ck} if ck is not None else {}))
    except Interrupted as stop:
        print(f"case {case.case_id}: stopped, its checkpoint saved in {stop}; the same command goes on "
              "from it", file=sys.stderr, flush=True)
        raise KeyboardInterrupt from None
    wall = time.perf_counter() - t0
    measured = {**measured, "wall_seconds": wall}
    if ck is not None:
        measured = resume.measured(measured, ck)
    return procedure_record(case, settings, measured, result, env)


def store(folder, record):
    """Write a case's record, then drop its checkpoint: the case is finished and stored."""
    write_record(folder, record)
    resume.checkpoint_path(folder, record["case"]).unlink(missing_ok=True)


def case_settings(case):
    """The method of ``case`` and its settings, as the run uses them."""
    from .. import methods
    method = methods.get(case.method)
    values = dict(case.settings)
    if case.repetition and "seed" in method.settings.names():
        # repetitions of a stochastic method are independent: repetition r adds r to the seed
        values["seed"] = values.get("seed", method.make_settings().seed) + case.repetition
    return method, method.make_settings(values)


def check_case(case, device=True):
    """The one resource check (:func:`gpubench.resources.check_method`, the command line's) for a
    case: before a sweep starts any (every case at once) and where a case starts (a Dask worker's
    too).  An experiment with an absurd dimension was started and killed by the system for
    memory after 84 s, where the command line refused the same dimension at once."""
    from ..problems import catalog
    from .resources import check_method
    if case.method in catalog.PROCEDURES:
        return None, None
    method, settings = case_settings(case)
    try:
        check_method(case.dim, settings, work=False, device=device)
    except InputError as exc:
        raise InputError(f"case {case.case_id}: {str(exc).replace(f'--dim {case.dim}', f'n = {case.dim}')}") from None
    return method, settings


def run_case(case, folder=None, checkpoint_every=CHECKPOINT_EVERY):
    """Run one case; returns its record (a JSON-ready dict).  Runs on Dask workers too.  ``folder``:
    where its record goes, and a resumable case's checkpoint (None: no checkpoint).

    With ``GPUBENCH_STALL_DUMP=S`` in the environment, a case still running after S seconds
    prints every thread's Python stack to stderr, and again every S seconds until it ends: how
    a case that hangs on a remote GPU host (where no debugger reaches) says where it hangs."""
    with _stall_dump(case):
        return _run_case(case, folder, checkpoint_every)


def _stall_dump(case):
    import contextlib
    given = os.environ.get("GPUBENCH_STALL_DUMP")
    if not given:
        return contextlib.nullcontext()
    try:
        seconds = float(given)
        if not seconds > 0:
            raise ValueError
    except ValueError:
        raise InputError(f"GPUBENCH_STALL_DUMP={given!r}: give the seconds after which a running case "
                         f"prints its stacks (a number > 0)") from None
    return _stacks_every(seconds, case.case_id)


@contextlib.contextmanager
def _stacks_every(seconds, case_id):
    """Print every other thread's Python stack to stderr every ``seconds`` until the block ends.

    A Python thread that reads ``sys._current_frames()`` holding the GIL, not faulthandler's
    ``dump_traceback_later``: that one walks the other threads' frames from a C watchdog without
    the GIL, and on the H200 host (Python 3.12) it crashed a subdomain-bnb case with a
    segmentation fault while that case's main thread was entering a frame.  What this loses: a
    thread that holds the GIL inside C code for good is not shown (the CUDA driver calls, through
    ctypes, release it)."""
    import threading
    import traceback
    print(f"[stall dump] case {case_id}: stacks every {seconds:g} s while it runs", file=sys.stderr, flush=True)
    done = threading.Event()
    started = time.monotonic()

    def watch():
        me = threading.get_ident()
        while not done.wait(seconds):
            names = {t.ident: t.name for t in threading.enumerate()}
            out = [f"[stall dump] case {case_id}: still running after {time.monotonic() - started:.0f} s"]
            for ident, frame in sys._current_frames().items():
                if ident != me:
                    out.append(f"Thread {ident:#x} ({names.get(ident, '?')}), most recent call last:")
                    out.extend(line.rstrip("\n") for line in traceback.format_stack(frame))
            print("\n".join(out), file=sys.stderr, flush=True)

    watcher = threading.Thread(target=watch, name="gpubench-stall-dump", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join(timeout=seconds + 1)


def _run_case(case, folder=None, checkpoint_every=CHECKPOINT_EVERY):
    from ..problems import catalog
    if case.method in catalog.PROCEDURES:
        return run_procedure(case, folder, checkpoint_every)
    from ..methods.checkpoints import Interrupted
    env = environment()
    fn = catalog.function_of(case.function)
    method, settings = check_case(case)
    # a resumable method's case (Method.resumable: subdomain-bnb's searches of hours) keeps its
    # checkpoint beside its record, as a resumable procedure's does
    ck = resume.checkpoint(case, method, folder, checkpoint_every)
    warm = warm_up(fn, case.dim, method, settings)
    t0 = time.perf_counter()
    try:
        with catch_interrupts() if ck is not None else contextlib.nullcontext():
            result = method.run(fn, case.dim, settings, **({"checkpoint": ck} if ck is not None else {}))
    except Interrupted as stop:
        print(f"case {case.case_id}: stopped, its checkpoint saved in {stop}; the same command goes on "
              "from it", file=sys.stderr, flush=True)
        raise KeyboardInterrupt from None
    wall = time.perf_counter() - t0
    record = make_record(case, fn, result, wall, warm, env)
    if ck is not None:
        record["measured"] = resume.measured(record["measured"], ck)
    if case.certify:
        from .certify import judgement
        record["certification"] = json_ready(judgement(case.function, case.dim, fn, result, **dict(case.certify)))
    return record


# ---------------------------------------------------------------- progress
def gpu_worker_spec(workers, gpus):
    """Per-worker environments for one worker per GPU (round-robin when workers > GPUs);
    ``gpus`` lists the visible GPUs' names (:func:`gpubench.device.gpu.visible_gpus`)."""
    return {f"gpu-{i}": {"CUDA_VISIBLE_DEVICES": gpus[i % len(gpus)], "NUMBA_NUM_THREADS": "1"}
            for i in range(workers)}


def start_client(workers=None, scheduler=None, processes=True):
    """A Dask client on a new LocalCluster (``workers``) or an existing scheduler; (client, cluster)."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise InputError("--workers and --scheduler need dask[distributed]: pip install 'gpubench[scale]'") from None
    if scheduler:
        try:
            return Client(scheduler, timeout="20s"), None
        except (OSError, TimeoutError, ValueError, TypeError) as exc:
            raise InputError(f"cannot reach the Dask scheduler {scheduler!r}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
    # Every service on loopback and no dashboard: a sweep is not a web service.  Dask starts an
    # HTTP server on the scheduler and on each worker whatever `dashboard` says (dashboard_address=None
    # still means port 8787, with the /info, /json and /metrics pages); it is bound to a free loopback
    # port and given no routes, so it serves nothing.
    import dask
    dask.config.set({"distributed.scheduler.http.routes": [], "distributed.worker.http.routes": []})
    local = {"dashboard_address": "127.0.0.1:0", "worker_dashboard_address": "127.0.0.1:0",
             "scheduler_kwargs": {"dashboard": False}}
    if processes:
        local["host"] = "127.0.0.1"  # the in-process cluster talks inproc://, no socket at all
    gpus = visible_gpus() if processes else []
    if gpus:
        try:
            from dask_cuda import LocalCUDACluster
            cluster = LocalCUDACluster(n_workers=min(workers, len(gpus)), threads_per_worker=1,
                                       interface="lo", **{k: v for k, v in local.items() if k != "host"})
        except ImportError:
            from distributed import Nanny, Scheduler, SpecCluster
            cluster = SpecCluster(
                scheduler={"cls": Scheduler, "options": {"host": "127.0.0.1", "dashboard": False,
                                                         "dashboard_address": "127.0.0.1:0"}},
                # memory_limit 0: Dask's "auto" gives a worker memory in proportion to its threads
                # (1 of the host's cores: 8 GB on a 32-core, 256 GB host) and restarts it above
                # that; a worker here owns a whole GPU and its share of the host, not one core's
                workers={name: {"cls": Nanny, "options": {"nthreads": 1, "env": env, "host": "127.0.0.1",
                                                          "dashboard_address": "127.0.0.1:0",
                                                          "memory_limit": 0}}
                         for name, env in gpu_worker_spec(workers, gpus).items()})
    elif processes:
        threads = max(1, (os.cpu_count() or 1) // workers)
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               env={"NUMBA_NUM_THREADS": str(threads), "OPENBLAS_NUM_THREADS": "1"}, **local)
    else:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=False, **local)
    return Client(cluster), cluster


# ---------------------------------------------------------------- the sweep
@dataclass
class Summary:
    experiment: str
    variant: str
    total: int
    skipped: int
    ran: int
    seconds: float
    folder: str


def sweep(experiment, quick=False, backend=None, results=None, workers=None, scheduler=None,
          processes=True, stream=None, fancy=None, shard=None, entries=None, checkpoint_every=CHECKPOINT_EVERY):
    """Run every case of ``experiment`` not yet stored under ``results/<experiment>/``; with
    ``shard = (k, N)`` only the cases of the k-th of N shares of its functions (1-based); with
    ``entries`` (method entry keys) only theirs.  A resumable case checkpoints every
    ``checkpoint_every`` seconds (and goes on from its checkpoint)."""
    stream = stream or sys.stdout
    if experiment.not_implemented:
        raise InputError(f"{experiment.id} is not implemented yet: {experiment.not_implemented}")
    cases = plan(experiment, quick, backend)
    if entries:
        keys = [m.key for m in experiment.variant(quick).methods]
        unknown = [k for k in entries if k not in keys]
        if unknown:
            raise InputError(f"{experiment.id} has no method entry {unknown[0]!r}; its entries: {', '.join(keys)}")
        cases = [c for c in cases if c.key in entries]
    other = sorted({f"{c.method} on {c.function}" for c in cases if not runnable(c)})
    if other:
        raise InputError(f"{experiment.id}: the runner cannot run {other[0]}")
    cases = _available(cases, experiment.id, stream)
    if shard is not None:
        cases = of_shard(cases, *shard)
    for case in cases:  # a case that cannot fit is refused before any starts (the GPU's memory: where it runs)
        check_case(case, device=False)
    folder = check_writable_dir(results_dir(results), "--results") / experiment.id
    check_writable_dir(folder, "results folder")
    clean_partial(folder)
    stored = stored_cases(folder)
    pending = [c for c in cases if c.case_id not in stored]
    variant = "quick" if quick else "full"
    t0 = time.perf_counter()
    skipped = len(cases) - len(pending)
    if skipped:
        print(f"{experiment.id} ({variant}): {skipped} of {len(cases)} case(s) already stored in {folder}, skipped",
              file=stream, flush=True)
    pending = claims.claim(folder, pending, read_record, stream)
    if not pending:
        return Summary(experiment.id, variant, len(cases), skipped, 0, 0.0, str(folder))
    bar = progress(f"{experiment.id} ({variant})", len(pending), stream, fancy)
    done = []

    def interrupted_line():
        # the case under way is not stored (a record is whole or absent); the same command resumes
        print(f"{experiment.id} ({variant}): interrupted; {len(done)} case(s) stored this time, "
              f"{skipped + len(done)} of {len(cases)} in all in {folder}; the same command runs the "
              f"other {len(cases) - skipped - len(done)}", file=stream, flush=True)

    def ended():  # Ctrl-C ends the process (gpubench.methods.monitor): say what is stored, free the claims
        interrupted_line()
        claims.release(folder, pending)
    try:
        with on_interrupt(ended):
            _run_pending(pending, folder, bar, workers, scheduler, processes, done, checkpoint_every)
    except KeyboardInterrupt:  # a library caller's Ctrl-C (the command line's ends as ended() says)
        interrupted_line()
        raise
    finally:
        bar.close()
        claims.release(folder, pending)
    return Summary(experiment.id, variant, len(cases), skipped, len(pending), time.perf_counter() - t0, str(folder))


def _run_pending(pending, folder, bar, workers, scheduler, processes, done, checkpoint_every=CHECKPOINT_EVERY):
    """Run and store every pending case (``done`` lists those stored, in order)."""
    if workers or scheduler:
        _run_dask(pending, folder, bar, workers, scheduler, processes, done, checkpoint_every)
    else:
        for case in pending:
            bar.start([case])
            record = run_case(case, folder, checkpoint_every)
            store(folder, record)
            done.append(case)
            bar.finish(case, record)


def of_shard(cases, k, n):
    """The cases of the k-th of n shares (1-based) of the functions, in the plan's order of first
    appearance: processes side by side (``--shard k/N``) each run whole functions, so a function's
    forms compile in one process only, and together they run every case once.  With fewer functions
    than shares (one problem at 13 sizes: paper 004's Table 4) the shares are of (function, n)
    instead, so that N processes still share the work."""
    unit = (lambda c: c.function) if len({c.function for c in cases}) >= n else (lambda c: (c.function, c.dim))
    order = list(dict.fromkeys(unit(c) for c in cases))
    mine = {u for i, u in enumerate(order) if i % n == k - 1}
    return [c for c in cases if unit(c) in mine]


def needs_gpu(case):
    """Whether a case's entry runs on a CUDA GPU only (``backend = "cuda"``, or the interval
    solver's ``loop = "device"``)."""
    return case.settings.get("backend") == "cuda" or case.settings.get("loop") == "device"


def _available(cases, experiment_id, stream):
    """``cases`` less those of an optional method whose package is missing here (a peer: one line
    says which and how to install it; nothing is stored for them, so a later run with the package
    installed runs them), and less those of an entry that needs a GPU where none is (or where
    ``--backend cpu`` asked for the CPU): their reports read "missing" until a GPU host runs them."""
    from .. import methods
    from ..device.gpu import cuda_usable
    from ..problems import catalog
    gpu_only = [c for c in cases if needs_gpu(c)
                and (c.settings.get("backend") == "cpu" or not cuda_usable())]
    for key in dict.fromkeys(c.key for c in gpu_only):
        n = sum(1 for c in gpu_only if c.key == key)
        print(f"{experiment_id}: {n} case(s) of {key} left out: it runs on a CUDA GPU only "
              f"(`gpubench reproduce {experiment_id} --backend cuda` on a GPU host)", file=stream, flush=True)
    left = {id(c) for c in gpu_only}
    cases = [c for c in cases if id(c) not in left]
    gone = {}
    for c in cases:
        if c.method in catalog.PROCEDURES or c.method in gone:
            continue
        m = methods.get(c.method)
        if m.requires and not m.available:
            gone[c.method] = m
    if not gone:
        return _expressible(cases, experiment_id, stream)
    for name, m in sorted(gone.items()):
        n = sum(1 for c in cases if c.method == name)
        print(f"{experiment_id}: {n} case(s) of {name} left out: {', '.join(m.missing())} not installed "
              f"({m.install})", file=stream, flush=True)
    return _expressible([c for c in cases if c.method not in gone], experiment_id, stream)


def _expressible(cases, experiment_id, stream):
    """``cases`` less those whose method refuses their function (``Method.refuses``: an operation
    its modelling language lacks), with one line per entry naming how many and the first reason."""
    from .. import methods
    from ..problems import catalog
    refused = {}
    for c in cases:
        m = None if c.method in catalog.PROCEDURES else methods.get(c.method)
        if m is not None and m.refuses is not None:
            why = m.refuses(catalog.function_of(c.function), c.dim)
            if why:
                refused.setdefault(c.key, []).append((c, why))
    for key, out in refused.items():
        print(f"{experiment_id}: {len(out)} case(s) of {key} left out: its method cannot express them "
              f"(first: {out[0][1]})", file=stream, flush=True)
    left = {id(c) for out in refused.values() for c, _ in out}
    return [c for c in cases if id(c) not in left]


def _run_dask(pending, folder, bar, workers, scheduler, processes, done, checkpoint_every=CHECKPOINT_EVERY):
    from dask.distributed import as_completed
    client, cluster = start_client(workers, scheduler, processes)
    # a local cluster's workers share this disk: a resumable case keeps its checkpoint there
    # (a remote scheduler's workers may not: no checkpoint)
    where = None if scheduler else str(folder)
    try:
        futures = {client.submit(run_case, c, where, checkpoint_every, key=f"gpubench-{c.case_id}-{time.time_ns()}",
                                 pure=False): c
                   for c in pending}
        bar.start(pending)
        for fut in as_completed(futures):
            case = futures[fut]
            record = fut.result()
            store(folder, record)
            done.append(case)
            bar.finish(case, record)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


__all__ = ["Case", "plan", "run_case", "sweep", "write_record", "load_records", "success", "start_client"]
