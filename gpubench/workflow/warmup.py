"""Compiling before timing, for a typed-in run (``gpubench minimize``) and a runner's case alike.

A typed-in run skips the warm-up when an earlier process already ran it for the same method,
function card, dimension and settings with the same code and caches (:func:`warm_marker`): its
kernels are then in numba's disk cache, and the warm-up would only load them, then run the method
once more (seconds on a GPU: issue 42, item 4).  A runner's case always warms up: its recorded
``seconds`` must not hold even a kernel's load from disk.
"""
import hashlib
import json
import os
import sys
import time
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]


def _code_stamp():
    """The names, sizes and modification times of gpubench's own files: a changed method, kernel or
    generator is a new stamp (the kernels it compiles may be new)."""
    h = hashlib.sha256()
    for root, dirs, files in os.walk(_PACKAGE):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for f in sorted(files):
            if f.endswith(".py"):
                st = os.stat(os.path.join(root, f))
                h.update(f"{root}/{f} {st.st_size} {st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def warm_marker(fn, dim, method, settings):
    """The file whose presence says that this warm-up ran to its end in an earlier process, or None
    where that cannot be told (a function without a card: defined in this process, or cards off)."""
    card = getattr(fn, "_card", None)
    if card is None or getattr(card, "data", None) is None:
        return None
    from ..forms.cache import folder
    values = {k: v for k, v in settings.as_dict().items() if k not in ("time_limit", "seed")}
    what = json.dumps([method.name, card.name, card.key, int(dim), repr(sorted(values.items())),
                       os.environ.get("NUMBA_CACHE_DIR", ""), os.environ.get("NUMBA_ENABLE_CUDASIM", ""),
                       sys.version_info[:2], _code_stamp()])
    return folder() / "warm" / f"{method.name}-{hashlib.sha256(what.encode()).hexdigest()[:32]}"


def warm_up(fn, dim, method, settings, skip_when_warm=False):
    """Compile before timing: the point forms, then whatever the method declares as its warm-up.

    Each function's code is compiled by numba on first use (seconds per
    function and backend, cached on disk afterwards).  Warming up first makes
    the recorded ``seconds`` measure the method, not the compiler; the warm-up
    is stored apart (``warmup_seconds``).  Returns the seconds spent.

    ``skip_when_warm`` (a typed-in run): only the method's ``preload`` (what its first calls
    load) when :func:`warm_marker` is there, and the marker written after a warm-up that ran
    to its end.
    """
    import numpy as np
    t0 = time.perf_counter()
    marker = warm_marker(fn, dim, method, settings) if skip_when_warm else None
    if marker is not None and marker.exists():
        # the kernels are on disk: no method run, only the loads its first calls would make inside
        # its clock (issue 42: 0.15 s of variant strong's 0.2 s at Levy n = 50, SciPy's import and
        # four kernels' loads, after the warm-up was skipped)
        if getattr(method, "preload", None) is not None:
            method.preload(fn, dim, settings)
        return time.perf_counter() - t0
    if hasattr(fn, "points"):           # a constrained problem has no point forms: its method compiles
        lo, hi = fn.bounds(dim)
        x = np.where(np.isfinite(lo) & np.isfinite(hi), 0.5 * (lo + hi), 0.0)
        fn.point(x)
        fn.gradient(x)
        fn.points(x[None, :])
    if method.warmup is not None:
        method.warmup(fn, dim, settings)
    if marker is not None:
        from ..device.gpu import atomic_write
        try:
            marker.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(marker, "", fsync=False)
        except Exception:  # a cache that cannot be written costs the next process its warm-up, nothing else
            pass
    return time.perf_counter() - t0
