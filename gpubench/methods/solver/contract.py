"""Box contraction on the level set f <= GUB (``contract = True``; off by default, paper 000 has none).

Two contractors run in turn (:func:`contract`): HC4-revise through the definition's expression
(:mod:`gpubench.forms.levelset`), then the mean value form described here.

Every global minimiser x* satisfies f(x*) <= GUB.  On a box X with a point c in it, the mean
value form gives, for every x in X, f(x) in f(c) + G(X).(x - c), G(X) an enclosure of the
(Clarke generalised) gradient on X.  So a point x of X with f(x) <= GUB satisfies, for each
coordinate k,

    g_k (x_k - c_k) <= GUB - f(c) - sum_{j != k} G_j (X_j - c_j)   for some g_k in G_k,

using the lowest value of every other term.  Solving that one-dimensional inequality for
t = x_k - c_k narrows X_k to the part where it can hold; the rest of the box holds no point
with f <= GUB, hence no global minimiser, and is dropped before the box is cut (E. Hansen,
G. W. Walster, *Global Optimization Using Interval Analysis*, 2nd ed., Marcel Dekker 2004,
Ch. 12, "using the upper bound to delete points": the linear, mean value form of the
constraint f(x) <= f-bar; R. B. Kearfott, *Rigorous Global Search*, Kluwer 1996, Sec. 5.1,
constraint propagation on the objective's level set).  When no x_k can satisfy it, the whole
box is dropped.

Rigor: every operation is rounded outward (round to nearest, then one ulp away, as the CPU
interval backend does), the bound b is taken from the lower end of f(c)'s enclosure on the
point box, a NaN anywhere (f undefined) or an unbounded gradient (a jump, a spike) leaves the
box as it is, and the result is intersected with X.  ``tests/test_contract.py`` checks that no
point of the box with f <= GUB (proved by its own enclosure) is ever dropped, and that a
contraction with the point gradient at c in place of G(X) is caught.
"""
import math

import numpy as np

INF = math.inf


def _dn(v):
    return np.nextafter(v, -INF)


def _up(v):
    return np.nextafter(v, INF)


def _mul_lo(alo, ahi, blo, bhi):
    """The lower end of [alo, ahi] * [blo, bhi] (arrays), rounded down; 0 * inf counts as 0."""
    with np.errstate(invalid="ignore", over="ignore"):
        p = np.stack([alo * blo, alo * bhi, ahi * blo, ahi * bhi])
    p = np.where(np.isnan(p), 0.0, p)
    return _dn(p.min(axis=0))


def _div(b, g, up):
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        q = b / g
    return _up(q) if up else _dn(q)


def _solve(gl, gh, b, tlo, thi):
    """The hull of {t in [tlo, thi] : g t <= b for some g in [gl, gh]} as (lo, hi), or None if empty.

    For t >= 0 the smallest g t is gl t, for t <= 0 it is gh t; each half is an interval."""
    pieces = []
    # t >= 0: gl t <= b
    a, z = max(tlo, 0.0), thi
    if a <= z:
        if gl > 0.0:
            z = min(z, _div(b, gl, up=True))
        elif gl < 0.0:
            if b < 0.0:
                a = max(a, _div(b, gl, up=False))
        elif b < 0.0:  # gl == 0: 0 <= b fails for every t >= 0
            a, z = 1.0, 0.0
        if a <= z:
            pieces.append((a, z))
    # t <= 0: gh t <= b
    a, z = tlo, min(thi, 0.0)
    if a <= z:
        if gh < 0.0:
            a = max(a, _div(b, gh, up=False))
        elif gh > 0.0:
            if b < 0.0:
                z = min(z, _div(b, gh, up=True))
        elif b < 0.0:
            a, z = 1.0, 0.0
        if a <= z:
            pieces.append((a, z))
    if not pieces:
        return None
    return min(p[0] for p in pieces), max(p[1] for p in pieces)


def levelset(fn, dim, maximise=False):
    """The HC4-revise contractor of ``fn``'s objective (-f for ``maximise``) at ``dim``, built once
    per function object and kept on it."""
    from ...forms.levelset import LevelSet
    cache = fn.__dict__.setdefault("_levelsets", {})
    key = (dim, bool(maximise))
    if key not in cache:
        cache[key] = LevelSet(levelset_program(fn, maximise), dim, fn.params(dim))
    return cache[key]


def levelset_program(fn, maximise=False):
    """The level set's program of ``fn`` (-f for ``maximise``; :func:`gpubench.forms.exprtree.program`):
    from the function's card where a process recorded it (no sympy in a second process), else
    made from the definition and recorded."""
    from ...forms.exprtree import program, version
    make = (lambda d: program(d.negated() if maximise else d))
    if hasattr(fn, "fact"):
        return fn.fact(f"levelset{'-max' if maximise else ''}-{version()}", make)
    return make(fn.definition)


def contract(fn, lo, hi, gub, maximise=False):
    """(lo, hi) narrowed to the points where f <= ``gub`` can hold (of -f for ``maximise``), or
    None when no point of the box can; the box itself where nothing can be proved.

    First HC4-revise through the definition's expression (:mod:`gpubench.forms.levelset`: on a
    sum of terms it narrows every coordinate at once), then the mean value form below on what
    is left (it sees the whole function's slope, which HC4's term-by-term view does not)."""
    return contract_floor(fn, lo, hi, gub, maximise)[0]


def contract_floor(fn, lo, hi, gub, maximise=False):
    """(:func:`contract`'s box or None, a lower bound of the objective over that box): the level
    set's forward enclosure of the boxes its passes started from (:meth:`LevelSet.contract_floor`),
    -inf where it gives none.  Every sub-box has the bound too (the search raises its subregions'
    bounds to it: :meth:`.core.Search._floored`)."""
    lo = np.asarray(lo, dtype=np.float64)
    hi = np.asarray(hi, dtype=np.float64)
    floor = -INF
    if math.isfinite(gub) and np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)):
        box, floor = levelset(fn, lo.size, maximise).contract_floor(lo, hi, gub)
        if box is None:
            return None, INF
        lo, hi = box
    return mean_value(fn, lo, hi, gub, maximise), floor


def convex_floor(fn, lo, hi, x, maximise=False):
    """A lower bound of the objective (f, or -f for ``maximise``) over the box [lo, hi] where it is
    proved convex there (:func:`gpubench.forms.convexity.convex`): f(y) >= f(x) + g(x).(y - x)
    for every y of the box, x a point of it (``x`` clipped into the box), so the bound is the lower
    end of f(x)'s enclosure plus the least of g(x).(y - x) over the box, every step rounded down.
    At a minimiser of f over the box the first-order term is >= 0 up to the gradient's residual,
    so the bound is f* to within it however wide the box (Trid n = 10 on [-20, 20]^10, a convex
    quadratic whose minimiser has four coordinates on the bound: the root's bound is f* - 1e-9,
    where the natural and mean value forms left a gap of 900 after 30 s).  -inf where convexity
    is not proved or a value is not finite."""
    lo = np.asarray(lo, dtype=np.float64)
    hi = np.asarray(hi, dtype=np.float64)
    if x is None or not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        return -INF
    from ...forms.convexity import convex
    if not convex(levelset(fn, lo.size, maximise), lo, hi):
        return -INF
    x = np.minimum(np.maximum(np.asarray(x, dtype=np.float64), lo), hi)
    flo, fhi = fn.interval(x, x)
    glo, ghi = (np.asarray(v, dtype=np.float64) for v in fn.interval_gradient(x, x))
    if maximise:
        flo, fhi = -fhi, -flo
        glo, ghi = -ghi, -glo
    if not math.isfinite(flo) or not (np.all(np.isfinite(glo)) and np.all(np.isfinite(ghi))):
        return -INF
    terms = _mul_lo(glo, ghi, _dn(lo - x), _up(hi - x))   # the least g_k (y_k - x_k) over the box
    total = _sum_dn(np.append(terms, flo), -1)
    return float(total) if math.isfinite(total) else -INF


def mean_value(fn, lo, hi, gub, maximise=False):
    """The mean value form's contraction of the level set (the module's docstring)."""
    lo = np.asarray(lo, dtype=np.float64)
    hi = np.asarray(hi, dtype=np.float64)
    if not math.isfinite(gub) or not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        return lo, hi
    c = np.minimum(np.maximum(0.5 * lo + 0.5 * hi, lo), hi)
    flo, fhi = fn.interval(c, c)
    glo, ghi = (np.asarray(v, dtype=np.float64) for v in fn.interval_gradient(lo, hi))
    if maximise:  # the objective is -f
        flo, fhi = -fhi, -flo
        glo, ghi = -ghi, -glo
    if not math.isfinite(flo) or np.isnan(glo).any() or np.isnan(ghi).any():
        return lo, hi
    dlo, dhi = _dn(lo - c), _up(hi - c)  # X - c, enclosed
    terms = _mul_lo(glo, ghi, dlo, dhi)  # the lowest G_j (X_j - c_j), each rounded down
    new_lo, new_hi = lo.copy(), hi.copy()
    with np.errstate(invalid="ignore", over="ignore"):
        rests = _dn(flo + _sums_but_each_dn(terms))  # f(c) + sum_{j != k} G_j (X_j - c_j), their lower ends
    for k in range(lo.size):
        rest = rests[k]
        if not math.isfinite(rest):  # an unbounded gradient elsewhere: nothing to conclude
            continue
        b = _up(gub - rest)
        t = _solve(glo[k], ghi[k], b, dlo[k], dhi[k])
        if t is None:
            return None
        new_lo[k] = max(lo[k], _dn(c[k] + t[0]))
        new_hi[k] = min(hi[k], _up(c[k] + t[1]))
        if new_lo[k] > new_hi[k]:
            return None
    return new_lo, new_hi


def _sum_dn(terms, k):
    """sum_{j != k} terms[j], rounded down at every step."""
    s = 0.0
    for j, v in enumerate(terms):
        if j != k:
            s = _dn(s + v)
    return s


def _sums_but_each_dn(terms):
    """:func:`_sum_dn` (terms, k) for every k at once: the same sums in the same order, each step
    rounded down, one array operation a term (the loop over k was n^2 scalar steps: a fifth of
    variant strong's contraction at Levy n = 50)."""
    terms = np.asarray(terms, dtype=np.float64)
    s = np.zeros(terms.size)
    skip = np.arange(terms.size)
    for j in range(terms.size):
        s = np.where(skip != j, _dn(s + terms[j]), s)
    return s
