"""The CUDA driver asked directly, through ctypes, without importing numba-cuda (issue 42, item 4).

Every run on ``--backend cuda`` or ``auto`` first asks whether a real GPU is here, before anything
shows that a launch will follow.  numba-cuda's answer (``cuda.is_available()``) costs its import:
``from numba import cuda`` took 1.02 s of a bare process on the H200 host, ``cuInit`` through
ctypes 0.11 s (``results/gpu/solve-f3c7052/cuda_driver.txt``).  A typed-in interval solve whose
root contraction keeps the root whole (Levy n <= 100) never launches, so it need not import
numba-cuda at all; a method that launches imports it when it does.

The library is looked for by the names and in the folders numba-cuda uses
(``numba/cuda/cudadrv/driver.py:locate_driver_and_loader`` on Linux), so a driver this module
cannot load is one numba-cuda cannot load either, and ``NUMBA_DISABLE_CUDA`` is honoured as
numba-cuda honours it.  One difference is left: numba-cuda also asks for libNVVM (its compiler);
a host with a driver but without libNVVM is taken to have a GPU here, and its first compile fails.

Light: ctypes, os and threading only.
"""
import ctypes
import os
import sys
import threading

NAMES = ("libcuda.so", "libcuda.so.1")
FOLDERS = ("/usr/lib", "/usr/lib64")
_LIB = {}


def library():
    """The driver library (loaded once per process), or None where none loads."""
    if "lib" not in _LIB:
        lib = None
        for name in NAMES + tuple(os.path.join(d, n) for d in FOLDERS for n in NAMES):
            try:
                lib = ctypes.CDLL(name)
                break
            except OSError:
                continue
        _LIB["lib"] = lib
    return _LIB["lib"]


def disabled():
    return os.environ.get("NUMBA_DISABLE_CUDA", "0") not in ("", "0")


def sees_gpu():
    """True where the driver initialises and counts a device; False where it does not load, does not
    initialise (no device: ``CUDA_ERROR_NO_DEVICE``) or counts none, or CUDA is disabled; None
    where numba-cuda must answer (not Linux, or a library without these entry points)."""
    if not sys.platform.startswith("linux"):
        return None
    if disabled():
        return False
    lib = library()
    if lib is None:
        return False
    count = ctypes.c_int(0)
    try:
        if lib.cuInit(0) != 0:
            return False
        if lib.cuDeviceGetCount(ctypes.byref(count)) != 0:
            return False
    except AttributeError:
        return None
    return count.value > 0


def total_memory(ordinal=0):
    """Bytes of memory of device ``ordinal`` (0: the device numba-cuda uses unless told otherwise),
    asked without creating a context; None where the driver cannot say."""
    lib = library() if sys.platform.startswith("linux") and not disabled() else None
    if lib is None:
        return None
    device, size = ctypes.c_int(0), ctypes.c_size_t(0)
    try:
        if lib.cuInit(0) != 0 or lib.cuDeviceGet(ctypes.byref(device), ordinal) != 0:
            return None
        if lib.cuDeviceTotalMem_v2(ctypes.byref(size), device) != 0:
            return None
    except AttributeError:
        return None
    return int(size.value)


class EarlyContext:
    """Device ``ordinal``'s primary context, retained in a thread of its own while the caller goes on
    (``GPUBENCH_EARLY_CONTEXT=1``, :func:`gpubench.commands.minimize.run`; issue 42, item 4).

    A second process of a method that launches spends, before its first launch, its time importing
    numpy, numba and numba-cuda (0.7-0.8 s on the H200 host), then makes the CUDA context (part of
    ``method.run``'s 0.14-0.16 s there).  The driver's calls hold no Python lock (ctypes releases it),
    so made here the context is made during those imports; numba-cuda's first launch retains the same
    primary context (``Device.set_current``) and finds it made.  :meth:`close` waits for the thread
    and gives this hold back: a context numba-cuda made current keeps its own, one it never used goes.
    """

    def __init__(self, lib, ordinal=0):
        self.lib, self.ordinal, self.device = lib, ordinal, None
        self.thread = threading.Thread(target=self._retain, name="gpubench-early-context", daemon=True)
        self.thread.start()

    def _retain(self):
        device, context = ctypes.c_int(0), ctypes.c_void_p(None)
        try:
            if self.lib.cuInit(0) != 0 or self.lib.cuDeviceGet(ctypes.byref(device), self.ordinal) != 0:
                return
            if self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(context), device) == 0:
                self.device = device
        except AttributeError:  # a library without these entry points: numba-cuda makes it, as without
            return

    def close(self):
        self.thread.join()
        if self.device is None:
            return
        release = getattr(self.lib, "cuDevicePrimaryCtxRelease_v2", None) or self.lib.cuDevicePrimaryCtxRelease
        release(self.device)
        self.device = None


def start_primary_context(ordinal=0):
    """An :class:`EarlyContext` of device ``ordinal``, or None where the driver cannot be asked so
    (not Linux, CUDA disabled, no library)."""
    if not sys.platform.startswith("linux") or disabled():
        return None
    lib = library()
    return None if lib is None else EarlyContext(lib, ordinal)
