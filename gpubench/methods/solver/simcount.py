"""What a search asks of the CUDA driver, counted under numba's CUDA simulator (a counter, not a timer).

``with counting() as c: solve(...)`` counts, while numba's simulator stands in for the GPU
(``NUMBA_ENABLE_CUDASIM=1``), each kernel launch, each host-to-device and device-to-host copy
(``cuda.to_device``, ``copy_to_device``, ``copy_to_host``) and each event or stream call
(record, synchronize, elapsed time).  A device-to-host copy of a result is a host wait: the
host cannot go on before the queue has run.  The counts are what a real GPU would be asked
(the simulator takes the same API calls); how long each takes is measured on the GPU host
(docs/solver-scaling.md).
"""
import contextlib
from collections import Counter


@contextlib.contextmanager
def counting():
    """Patch the simulator's API for the block; yields a Counter of launches, h2d, d2h and events."""
    from numba import config
    if not config.ENABLE_CUDASIM:
        raise RuntimeError("counting() needs numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1)")
    from numba import cuda
    from numba.cuda.simulator import api, kernel
    from numba.cuda.simulator.cudadrv import devicearray
    counts = Counter()
    saved = []

    def patch(owner, name, key, top_level_only=False):
        real = getattr(owner, name)

        def counted(*args, **kw):
            if not (top_level_only and (args[0]._device or kernel._kernel_context)):
                counts[key] += 1
            return real(*args, **kw)
        saved.append((owner, name, real))
        setattr(owner, name, counted)

    patch(kernel.FakeCUDAKernel, "__call__", "launches", top_level_only=True)
    patch(devicearray.FakeCUDAArray, "copy_to_device", "h2d")
    patch(devicearray.FakeCUDAArray, "copy_to_host", "d2h")
    real_to_device = devicearray.to_device
    for owner in (devicearray, cuda):
        if getattr(owner, "to_device", None) is real_to_device:
            patch(owner, "to_device", "h2d")
    for name in ("record", "synchronize", "elapsed_time"):
        patch(api.Event, name, "events")
    patch(api.stream, "synchronize", "events")
    try:
        yield counts
    finally:
        for owner, name, real in reversed(saved):
            setattr(owner, name, real)


@contextlib.contextmanager
def interval_operations(module):
    """Count the interval operations (``iadd``, ``isin`` ...) that the generated ``module``'s code
    calls while the block runs, by name (under the simulator, where device code is Python and looks
    its operations up in the module at each call).  Yields the Counter."""
    import threading
    from numba import config
    if not config.ENABLE_CUDASIM:
        raise RuntimeError("interval_operations() needs numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1)")
    from ...interval import backends
    counts = Counter()
    lock = threading.Lock()  # the simulator runs a block's threads as Python threads
    names = [k for k in backends.namespace("cuda") if k.startswith("i") and k in vars(module)]
    saved = {k: getattr(module, k) for k in names}

    def wrap(name, real):
        def counted(*args):
            with lock:
                counts[name] += 1
            return real(*args)
        return counted
    for k, real in saved.items():
        setattr(module, k, wrap(k, real))
    try:
        yield counts
    finally:
        for k, real in saved.items():
            setattr(module, k, real)


def subregion_operations(function, n, split_dims=10, parts=4, samples=10, tables=None, counts=(16, 48)):
    """(interval operations a subregion calls, those of the iteration's cut tables), by name: one
    sweep of the whole domain as the first iteration cuts it, GUB = inf (every subregion runs the
    gradient test too), on the simulated GPU forms, over ``counts`` subregions (16, then 48); the
    difference divided by theirs is a subregion's, the rest the tables' (filled once, whatever the count).
    ``tables(tb)`` may change the iteration's tables first (a test's broken layout)."""
    import numpy as np
    from ... import functions
    from . import sweep, uncut
    from .settings import sample_fractions
    from .partition import PartitionRule
    fn = functions.get(function)
    defn = fn.definition.negated() if fn.sense == "max" else fn.definition
    lo, hi = fn.bounds(n)
    plan = PartitionRule(n, split_dims=split_dims, parts=parts).plan(0)
    shift, den = sample_fractions("inside", samples)
    gpu = sweep.make("cuda", defn, n, fn.params(n), lo, hi, split_dims=split_dims)
    tb = uncut.prepare_split(uncut.UncutTerms(defn, n, fn.params(n)), lo, hi, plan, samples, shift, den, lo, hi)
    if tables is not None:
        tables(tb)
    runs = []
    for count in counts:
        with interval_operations(gpu.module) as ops:
            gpu.split(lo, hi, plan.dims, plan.parts, samples, shift, den, np.inf, count, tb)
        runs.append(ops)
    names = set(runs[0]) | set(runs[1])
    each = Counter({k: (runs[1][k] - runs[0][k]) / (counts[1] - counts[0]) for k in names})
    return +each, +Counter({k: runs[0][k] - counts[0] * each[k] for k in names}), plan, tb
