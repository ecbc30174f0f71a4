"""Local search for upper bounds (``local_search = True``; off by default, paper 000 has none).

Interval branch and bound takes its upper bound GUB from points where f is evaluated; every
region whose lower bound exceeds GUB is discarded, so the sooner GUB is near f*, the fewer
regions the search keeps.  The field's standard remedy is a local optimiser started from the
best point found so far, its end point's value being a valid upper bound once it is evaluated
rigorously (E. Hansen, G. W. Walster, *Global Optimization Using Interval Analysis*, 2nd ed.,
Marcel Dekker 2004, Sec. 12.5 "Using a local method"; R. B. Kearfott, *Rigorous Global Search:
Continuous Problems*, Kluwer 1996, Sec. 5.2; paper 001, Sec. 2.3, uses the same idea with a
local solver for its upper bounds).

:func:`descend` runs SciPy's L-BFGS-B (bounded to the domain, the function's own point and
gradient forms) from a point and returns its end point with an upper bound of f there: the
upper end of the interval form on the degenerate box [x, x], outward rounded.  Rigor rests on
two facts, each tested (``tests/test_local_search.py``): the end point lies in the domain (it is
clipped to it whatever the optimiser returns), and the bound is the rigorous enclosure's upper
end, never the float point value.
"""
import math

import numpy as np

# L-BFGS-B iterations per descent: a descent refines a sample near a minimiser, it does not search
LOCAL_ITERATIONS = 100


def _bounds(lo, hi):
    return list(zip(lo.tolist(), hi.tolist()))


def _clip(x, lo, hi):
    return np.minimum(np.maximum(x, lo), hi)


def descend(fn, x0, lo, hi, maximise=False, maxiter=LOCAL_ITERATIONS):
    """(x, ub): a local minimiser of f (of -f when ``maximise``) in the box [lo, hi] reached from
    ``x0``, and a rigorous upper bound of that objective at x; None where the descent fails or
    the bound is not finite (f undefined or unbounded there)."""
    from scipy.optimize import minimize
    sign = -1.0 if maximise else 1.0

    def value(v):
        f = sign * float(fn.point(v))
        return f if math.isfinite(f) else 1e300

    def gradient(v):
        g = sign * np.asarray(fn.gradient(v), dtype=np.float64)
        return np.where(np.isfinite(g), g, 0.0)

    x0 = _clip(np.asarray(x0, dtype=np.float64), lo, hi)
    try:
        with np.errstate(all="ignore"):
            r = minimize(value, x0, jac=gradient, method="L-BFGS-B", bounds=_bounds(lo, hi),
                         options={"maxiter": maxiter})
        x = _clip(np.asarray(r.x, dtype=np.float64), lo, hi)
    except (ValueError, ArithmeticError):
        return None
    flo, fhi = fn.interval(x, x)
    ub = -float(flo) if maximise else float(fhi)
    if not math.isfinite(ub):
        return None
    return x, ub
