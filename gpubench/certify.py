"""Certify a library's stated minima with a rigorous method (issue 30).

:func:`certify` solves each function with the rigorous ``interval`` method and judges the
library's own statement (f* and its minimisers) against the certified enclosure [GLB, GUB]
of the true minimum and the output regions, which hold every global minimiser:

- ``agrees``: f* lies in [GLB, GUB] and every stated minimiser lies in an output region;
- ``value wrong``: f* lies outside [GLB, GUB] (when f* < GLB nothing in the domain reaches it;
  when f* > GUB a point does better; the evidence is a point's value enclosed in
  outward-rounded arithmetic, the interval form on the point box);
- ``minimiser wrong``: f* is inside [GLB, GUB] but a stated minimiser lies in no output
  region (so it is not a global minimiser); the evidence is the interval value at it;
- ``not certified``: the method stopped (budget) before GUB - GLB <= tol.

:func:`symbolic_value` evaluates a definition's own expression in mpmath, with no compiled
form, for cheap independent point checks.
"""
import math
import time
from dataclasses import asdict, dataclass, field
from typing import Optional

import numpy as np

VERDICTS = ("agrees", "value wrong", "minimiser wrong", "not certified")


# ---------------------------------------------------------------- symbolic evaluation
_LAMBDIFIED = {}


def _modules():
    import mpmath
    return [{"sigmoid": lambda u: 1 / (1 + mpmath.exp(-u)),
             "softplus": lambda u: mpmath.log(1 + mpmath.exp(u)),
             "sign": mpmath.sign}, "mpmath"]


def _compiled(defn):
    import sympy as sp

    from .definition import i, n, variables, x, x1, xn, y
    key = id(defn)
    if key not in _LAMBDIFIED:
        if defn.params:
            raise ValueError(f"{defn.name}: symbolic_value does not take parameters")
        aggs = list(defn.terms)
        terms = [(type(spec).__name__, defn.window(a),
                  sp.lambdify([x, y, i, n], spec.term, modules=_modules()))
                 for a, spec in defn.terms.items()]
        if defn.dim is not None:
            outer = sp.lambdify(variables(defn.dim), defn.expr, modules=_modules())
        else:
            outer = sp.lambdify(aggs + [x1, xn, n], defn.expr, modules=_modules())
        _LAMBDIFIED[key] = (defn, terms, outer)
    return _LAMBDIFIED[key][1:]


def symbolic_value(defn, point):
    """``defn``'s expression at ``point``, evaluated in mpmath at its working precision.

    The decimal value of each coordinate (a double) is taken exactly.  Sums and products are
    taken over their windows (i = 1..n, or 1..n-1 where a term reads x_{i+1}).
    """
    import mpmath
    p = [mpmath.mpf(float(v)) for v in np.asarray(point, dtype=np.float64)]
    terms, outer = _compiled(defn)
    if defn.dim is not None:
        return outer(*p)
    dim = len(p)
    values = []
    for kind, window, term in terms:
        last = dim if window == 1 else dim - 1
        acc = mpmath.mpf(0) if kind == "Sum" else mpmath.mpf(1)
        for k in range(1, last + 1):
            t = term(p[k - 1], p[k] if window == 2 else mpmath.mpf(0), k, dim)
            acc = acc + t if kind == "Sum" else acc * t
        values.append(acc)
    return outer(*values, p[0], p[-1], dim)


# ---------------------------------------------------------------- certification
@dataclass
class Row:
    """One certification: a function at one dimension."""
    name: str
    n: int
    stated_fstar: float
    stated_minimisers: list
    glb: float
    gub: float
    verdict: str
    minimisers_in_regions: Optional[bool]
    regions: int
    iterations: int
    seconds: float
    tol: float
    budget: dict
    evidence: dict = field(default_factory=dict)
    reason: str = ""

    def as_dict(self):
        return asdict(self)


def _in_regions(v, regions):
    for lo, hi in regions:
        if np.all(lo <= v) and np.all(v <= hi):
            return True
    return False


def _point_enclosure(fn, v):
    lo, hi = fn.interval(v, v)
    return [lo, hi]


def judge(fn, n, fstar, minimisers, result, tol):
    """The verdict on a statement (f*, minimisers) given a rigorous result.

    Returns (verdict, minimisers_in_regions, evidence, reason)."""
    glb, gub = float(result.glb), float(result.gub)
    regions = [(np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64))
               for lo, hi in result.regions()]
    evidence = {}
    if not (math.isfinite(glb) and math.isfinite(gub)) or gub - glb > tol:
        inside = None
        if math.isfinite(glb) and fstar < glb:  # even an unfinished enclosure proves this
            ev = {"glb": glb}
            return "value wrong", inside, ev, f"stated f* {fstar!r} < GLB {glb!r}"
        return "not certified", inside, evidence, (f"GUB - GLB = {gub - glb:.3g} > {tol:g} "
                                                   f"when the budget ran out")
    lo_box, hi_box = fn.bounds(n)
    fitting = [v for v in minimisers if v.size == n and np.all(lo_box <= v) and np.all(v <= hi_box)]
    inside = bool(fitting) and all(_in_regions(v, regions) for v in fitting)
    if fstar < glb or fstar > gub:
        if fstar > gub:
            best = np.asarray(result.x, dtype=np.float64)
            evidence = {"point": best.tolist(), "enclosure": _point_enclosure(fn, best)}
        else:
            evidence = {"glb": glb}
        return "value wrong", inside, evidence, f"stated f* {fstar!r} outside [{glb!r}, {gub!r}]"
    if not inside:
        outside = [v for v in fitting if not _in_regions(v, regions)]
        if outside:
            evidence = {"minimiser": outside[0].tolist(),
                        "enclosure": _point_enclosure(fn, outside[0])}
            return "minimiser wrong", False, evidence, "a stated minimiser lies in no output region"
        return "agrees", None, evidence, "no stated minimiser of this dimension to check"
    return "agrees", True, evidence, ""


def certify(names, dims=None, *, library="scipy_go", tol=1e-6, max_iterations=20_000,
            max_regions=200_000, time_limit=10.0, split_dims=None, parts=2, **options):
    """Certify each of ``names`` (library names such as "scipy_go.Ackley02") at each of its
    dimensions (``dims``: a dict name -> list of n; default: the library's own list).

    Runs the rigorous ``interval`` method on the CPU with the stated budget
    (``max_iterations``, ``time_limit`` seconds, ``max_regions``) and returns one :class:`Row`
    per (function, n).  ``tol`` is the enclosure width GUB - GLB that counts as certified.
    """
    from . import functions as F
    from .methods import minimize
    entries = _entries(library)
    rows = []
    for name in names:
        fn = F.get(name)
        entry = entries(name)
        for n in (dims or {}).get(name, entry.dims):
            budget = {"max_iterations": max_iterations, "time_limit": time_limit,
                      "max_regions": max_regions, "tol": tol}
            t0 = time.perf_counter()
            sd = min(n, split_dims or n)
            result = minimize(fn, n, method="interval", backend="cpu", split_dims=sd, parts=parts,
                              tol=tol, max_iterations=max_iterations, time_limit=time_limit,
                              max_regions=max_regions, **options)
            seconds = time.perf_counter() - t0
            fstar, mins = entry.fglob(n), entry.minimisers(n)
            verdict, inside, evidence, reason = judge(fn, n, fstar, mins, result, tol)
            rows.append(Row(name=name, n=n, stated_fstar=fstar,
                            stated_minimisers=[v.tolist() for v in mins],
                            glb=float(result.glb), gub=float(result.gub), verdict=verdict,
                            minimisers_in_regions=inside, regions=len(result.regions()),
                            iterations=int(getattr(result, "iterations", 0) or 0),
                            seconds=seconds, tol=tol, budget=budget, evidence=evidence,
                            reason=reason))
    return rows


def _entries(library):
    if library != "scipy_go":
        raise ValueError(f"no stated optima known for library {library!r}")
    from .functions import scipy_go
    return scipy_go.entry


def quick_names(library="scipy_go", max_dim=3):
    """The fixed-dimension functions of ``library`` with n <= ``max_dim`` (the quick variant)."""
    from .functions import scipy_go
    return sorted(e.name for e in scipy_go.ENTRIES.values()
                  if not e.scalable and e.dims[0] <= max_dim)
