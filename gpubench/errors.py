"""User errors and the checks every layer shares.

Kept apart from code generation so that raising an error never imports sympy or numba; numpy is
imported by the checks that use it, so that the command line (every command imports this module)
starts without it: ``gpubench --help`` and the commands that never touch an array skip numpy's
import (0.14 s on this project's CPU, 0.26-0.31 s on the H200 host with ``-X importtime``).
"""


class InputError(ValueError):
    """Bad input from a user: reported as one line, never a traceback."""


def _as_vector(name, v, allow_inf=False):
    import numpy as np
    a = np.ascontiguousarray(v, dtype=np.float64)
    if a.ndim != 1:
        raise InputError(f"{name} must be a 1-D array, got shape {a.shape}")
    if a.size < 1:
        raise InputError(f"{name} must have at least one coordinate")
    if np.isnan(a).any():
        raise InputError(f"{name} contains NaN")
    if not allow_inf and not np.isfinite(a).all():
        raise InputError(f"{name} contains an infinite value")
    return a


def did_you_mean(name, choices):
    """`` (did you mean 'levy'?)`` for a near-miss ``name`` among ``choices``, else "": a name that
    differs only in case first (``Levy``, ``scipy_go.beale``), then the closest by difflib
    (``rastrgin``); in the error of every registry (functions, methods, experiments)."""
    import difflib
    choices = [str(c) for c in choices]
    folded = {c.lower(): c for c in choices}
    hit = folded.get(str(name).lower())
    if hit is None:
        close = difflib.get_close_matches(str(name).lower(), list(folded), n=1, cutoff=0.75)
        hit = folded[close[0]] if close else None
    return f" (did you mean {hit!r}?)" if hit is not None and hit != name else ""


def check_box(lo, hi):
    lo = _as_vector("lo", lo, allow_inf=True)
    hi = _as_vector("hi", hi, allow_inf=True)
    if lo.shape != hi.shape:
        raise InputError(f"lo and hi differ in length ({lo.size} and {hi.size})")
    import numpy as np
    bad = np.nonzero(lo > hi)[0]
    if bad.size:
        k = int(bad[0])
        raise InputError(f"box is empty in coordinate {k + 1}: lo={float(lo[k])!r} > hi={float(hi[k])!r}")
    return lo, hi


def _numpy_integer(v):
    """True for a numpy integer scalar; numpy is not imported for it (a value of numpy's type means
    numpy is imported already)."""
    import sys
    np = sys.modules.get("numpy")
    return np is not None and isinstance(v, np.integer)


def check_dim(dim):
    if isinstance(dim, bool) or (not isinstance(dim, int) and not _numpy_integer(dim)):
        raise InputError(f"dimension must be an integer, got {dim!r}")
    if dim < 1:
        raise InputError(f"dimension must be at least 1, got {int(dim)}")
    return int(dim)
