"""Compiling before timing, for a typed-in run (``gpubench minimize``) and a runner's case alike."""
import time


def warm_up(fn, dim, method, settings):
    """Compile before timing: the point forms, then whatever the method declares as its warm-up.

    Each function's code is compiled by numba on first use (seconds per
    function and backend, cached on disk afterwards).  Warming up first makes
    the recorded ``seconds`` measure the method, not the compiler; the warm-up
    is stored apart (``warmup_seconds``).  Returns the seconds spent.
    """
    import numpy as np
    t0 = time.perf_counter()
    if hasattr(fn, "points"):           # a constrained problem has no point forms: its method compiles
        lo, hi = fn.bounds(dim)
        x = np.where(np.isfinite(lo) & np.isfinite(hi), 0.5 * (lo + hi), 0.0)
        fn.point(x)
        fn.gradient(x)
        fn.points(x[None, :])
    if method.warmup is not None:
        method.warmup(fn, dim, settings)
    return time.perf_counter() - t0
