"""The level set's projections through an inverse power and through sigmoid and softplus (issue 41):
a quotient P / D^m in T projects onto D's base as D^m in P / T (finite wherever T excludes 0, even where
D's enclosure holds a pole), and the two logistic operations are walked as 1/(1 + e^-u) and
log(1 + e^u).  Checked against f at 50 digits (mpmath) on random, narrow, pole-crossing and
minimiser-centred boxes of the fixed-dimension fits whose models hold them, and a deliberately wrong
projection is caught."""
import math

import mpmath
import numpy as np
import sympy as sp

import gpubench.forms.levelset as ls
import gpubench.forms.levelset_tree as ls_tree
from gpubench import functions
from gpubench.forms.definition import variables

# Kowalik: x1 (a^2 + a x2) / (a^2 + a x3 + x4), poles inside [-5, 5]^4; Ratkowsky02: b1 / (1 + e^(b2 - b3 t));
# Ratkowsky01: softplus inside exp(-./x4); Xor: sigmoids of sigmoids
NAMES = ["scipy_go.Kowalik", "scipy_go.Ratkowsky02", "scipy_go.Ratkowsky01", "scipy_go.Xor"]
_KOW_A = [4, 2, 1, 1 / 2, 1 / 4, 1 / 6, 1 / 8, 1 / 10, 1 / 12, 1 / 14, 1 / 16]


class Oracle:
    """f of a fixed-dimension definition at a float point, at 50 digits (every rational constant exact)."""

    def __init__(self, fn):
        d = fn.definition
        self.X = variables(d.dim)
        mods = {"sigmoid": lambda u: 1 / (1 + mpmath.exp(-u)), "softplus": lambda u: mpmath.log(1 + mpmath.exp(u))}
        self.f = sp.lambdify(self.X, d.expr, modules=[mods, "mpmath"])

    def __call__(self, p):
        with mpmath.workdps(50):
            try:
                return self.f(*(mpmath.mpf(float(v)) for v in p))
            except ZeroDivisionError:   # on a pole: f undefined there, no point of any level set
                return mpmath.inf


def _boxes(fn, rng, count):
    lo0, hi0 = (np.asarray(v, dtype=np.float64) for v in fn.bounds(fn.definition.dim))
    n = lo0.size
    xs = np.asarray(fn.xstar(n), dtype=np.float64)
    out = [(lo0, hi0), (xs, xs.copy()), (np.maximum(xs - 1e-3 * (hi0 - lo0), lo0), np.minimum(xs + 1e-3 * (hi0 - lo0), hi0))]
    for _ in range(count):
        a, b = rng.uniform(lo0, hi0), rng.uniform(lo0, hi0)
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        if rng.random() < 0.4:   # narrow
            hi = np.minimum(lo + (hi0 - lo0) * rng.uniform(0, 0.05, size=n), hi0)
        out.append((lo, hi))
    if fn.name == "scipy_go.Kowalik":   # across a pole: x4 around -a^2 - a x3 for one a
        for _ in range(count):
            a = rng.choice(_KOW_A)
            lo, hi = rng.uniform(-5, 0, size=4), rng.uniform(0, 5, size=4)
            w = rng.choice([2.0, 0.3, 1e-3])
            lo[2], hi[2] = sorted(rng.uniform(-5, 5, size=2))
            x4 = -a * a - a * 0.5 * (lo[2] + hi[2])
            lo[3], hi[3] = max(x4 - w, -5.0), min(x4 + w, 5.0)
            if lo[3] <= hi[3]:
                out.append((lo, hi))
    return out


def _points(lo, hi, rng, k):
    return [lo, hi, 0.5 * (lo + hi)] + [rng.uniform(lo, hi) for _ in range(k)]


def contraction_failures(names, count=10, seed=3):
    """Points with f <= level that a contraction removed, the level a sampled point's value (so that
    some points of each box meet it and some do not), and the boxes the contraction emptied."""
    rng = np.random.default_rng(seed)
    bad = emptied = 0
    for name in names:
        fn = functions.get(name)
        L = ls.LevelSet(fn.definition, fn.definition.dim)
        f = Oracle(fn)
        for lo, hi in _boxes(fn, rng, count):
            pts = _points(lo, hi, rng, 6)
            vals = [f(p) for p in pts]
            finite = sorted(v for v in vals if mpmath.isfinite(v))
            if not finite:
                continue
            level = float(np.nextafter(float(finite[len(finite) // 3]), math.inf))
            out = L.contract(lo, hi, level)
            emptied += out is None
            for p, v in zip(pts, vals):
                if v <= level and (out is None or not (np.all(out[0] <= p) and np.all(p <= out[1]))):
                    bad += 1
    return bad, emptied


def test_contraction_through_quotients_and_logistics_keeps_every_point():
    assert contraction_failures(NAMES)[0] == 0


def test_forward_encloses_the_logistic_operations():
    """Xor's and Ratkowsky01's enclosures (sigmoid, softplus walked as exp, inverse, log) hold f at 50
    digits at random points of random boxes, and are finite (the whole line before)."""
    rng = np.random.default_rng(4)
    for name in ("scipy_go.Xor", "scipy_go.Ratkowsky01"):
        fn = functions.get(name)
        L = ls.LevelSet(fn.definition, fn.definition.dim)
        f = Oracle(fn)
        for lo, hi in _boxes(fn, rng, 8):
            elo, ehi = L.enclose(lo, hi)
            assert math.isfinite(elo) and math.isfinite(ehi)
            for p in _points(lo, hi, rng, 4):
                assert elo <= f(p) <= ehi


def test_a_box_across_poles_is_emptied(monkeypatch):
    """Kowalik at its GUB: the box x1, x2 in [-5, -3.75], x3 in [-2.5, -1.25], x4 in [0, 1.25] holds the
    poles a^2 + a x3 + x4 = 0 of ten of the eleven residuals; every model x1 N / D must lie in
    [b - s, b + s] (s^2 = GUB, b - s > 0), so D in x1 N / [b - s, b + s], and the passes leave no point:
    emptied.  Projected through 1/D's enclosure (the whole line across a pole), as before, the box
    is only narrowed."""
    fn = functions.get("scipy_go.Kowalik")
    L = ls.LevelSet(fn.definition, 4)
    lo, hi = np.array([-5.0, -5.0, -2.5, 0.0]), np.array([-3.75, -3.75, -1.25, 1.25])
    assert sum(a * a + a * lo[2] + lo[3] <= 0 <= a * a + a * hi[2] + hi[3] for a in _KOW_A) == 10
    assert L.contract(lo, hi, 3.0749e-4) is None
    monkeypatch.setattr(ls_tree, "_is_inv", lambda node: False)
    monkeypatch.setattr(ls_tree, "_denominator_target", lambda rest, t, w: (-math.inf, math.inf))
    assert L.contract(lo, hi, 3.0749e-4) is not None


def test_ratkowsky01_s_root_is_narrowed():
    """Ratkowsky01 (softplus in its model) at its certified minimum's level: the root is narrowed (the
    operation enclosed the whole line before and nothing reached a coordinate) and keeps NIST's minimiser."""
    fn = functions.get("scipy_go.Ratkowsky01")
    lo, hi = (np.asarray(v, dtype=np.float64) for v in fn.bounds(4))
    out = ls.LevelSet(fn.definition, 4).contract(lo, hi, 8786.405)
    assert out is not None and np.prod((out[1] - out[0]) / (hi - lo)) < 0.5
    xs = np.asarray(fn.xstar(4), dtype=np.float64)
    assert np.all(out[0] <= xs) and np.all(xs <= out[1])


def test_a_denominator_projected_as_a_factor_is_caught(monkeypatch):
    """The inverse power's projection taken as if D^m were a factor of the product (D^m in T / P, the
    rule for u in u P in T) removes points of the level set: the oracle check catches it."""
    right = ls_tree._denominator_target

    def broken(rest, cur, w):
        return right(cur, rest, w)
    monkeypatch.setattr(ls_tree, "_denominator_target", broken)
    assert contraction_failures(["scipy_go.Ratkowsky02"], count=4)[0] > 0
