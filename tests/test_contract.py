"""Contraction on the level set f <= GUB (``contract = True``, gpubench/methods/solver/contract.py).

- On random boxes of smooth, kinked and stepped functions, with GUB the value at a point of
  the box, no point whose own enclosure proves f <= GUB is ever outside the contracted box (nor
  is the box dropped while one exists), and the contraction does narrow a fair share of boxes.
- A broken variant, the point gradient at the box's centre in place of the interval gradient
  (a linearisation, not an enclosure), is caught dropping such points.
- The interval solver with ``contract = True`` still encloses f* and keeps the minimisers.
"""
import numpy as np
import pytest

from gpubench import functions as F
from gpubench.methods import minimize
from gpubench.methods.solver import contract as C

# smooth, a sqrt kink, |x| kinks, a step function (its gradient is unbounded across jumps)
NAMES = ["scipy_go.SixHumpCamel", "scipy_go.Bukin06", "scipy_go.Price01", "scipy_go.Step2"]


def _cases(fn, n, count, rng):
    lo0, hi0 = fn.bounds(n)
    for _ in range(count):
        w = (hi0 - lo0) * rng.choice([1e-3, 1e-2, 0.05, 0.2], n)
        lo = lo0 + (hi0 - lo0 - w) * rng.random(n)
        hi = lo + w
        p = lo + (hi - lo) * rng.random(n)
        gub = float(fn.interval(p, p)[1]) + float(rng.choice([0.0, 1e-9, 1e-3]))
        yield lo, hi, gub


def violations(fn, n, count, rng, points=60):
    """(violations, narrowed): points proved in the level set but outside the contracted box."""
    bad, narrowed = [], 0
    for lo, hi, gub in _cases(fn, n, count, rng):
        box = C.contract(fn, lo, hi, gub)
        if box is not None and (np.any(box[0] > lo) or np.any(box[1] < hi)):
            narrowed += 1
        pts = lo + (hi - lo) * rng.random((points, n))
        pts = np.vstack([pts, lo, hi])
        for x in pts:
            if fn.interval(x, x)[1] <= gub:  # f(x) <= GUB, proved
                if box is None or np.any(x < box[0]) or np.any(x > box[1]):
                    bad.append((lo.tolist(), hi.tolist(), gub, x.tolist()))
    return bad, narrowed


@pytest.mark.parametrize("name", NAMES)
def test_contraction_keeps_every_point_of_the_level_set(name):
    fn = F.get(name)
    n = fn.definition.dim or 2
    bad, narrowed = violations(fn, n, 60, np.random.default_rng(1))
    assert bad == [], bad[:3]
    if name != "scipy_go.Step2":  # a step's boxes straddle jumps: nothing to conclude there
        assert narrowed >= 10, narrowed


def test_a_point_gradient_contraction_is_caught(monkeypatch):
    fn = F.get("scipy_go.SixHumpCamel")

    def point_gradient(lo, hi):  # the linearisation at the centre: not an enclosure on the box
        g = np.asarray(fn.gradient(0.5 * (lo + hi)), dtype=np.float64)
        return g, g

    monkeypatch.setattr(fn, "interval_gradient", point_gradient)
    bad, _ = violations(fn, 2, 60, np.random.default_rng(1))
    assert len(bad) >= 5, len(bad)


def test_contraction_leaves_undefined_or_unbounded_boxes_alone():
    fn = F.get("scipy_go.Step2")
    lo, hi = np.array([-0.5, 0.25]), np.array([0.5, 0.75])  # a jump at 0 inside
    assert [a.tolist() for a in C.contract(fn, lo, hi, 0.5)] == [lo.tolist(), hi.tolist()]
    f = F.get("scipy_go.SixHumpCamel")
    assert [a.tolist() for a in C.contract(f, lo, hi, float("inf"))] == [lo.tolist(), hi.tolist()]
    # a box far above the level set is dropped
    assert C.contract(f, np.array([2.5, 1.5]), np.array([2.6, 1.6]), -1.0) is None


def test_solver_with_contraction_encloses_the_minimum():
    fn = F.get("scipy_go.SixHumpCamel")
    xs = [np.array([0.0898, -0.7126]), np.array([-0.0898, 0.7126])]
    kw = dict(method="interval", backend="cpu", split_dims=2, parts=4, tol=1e-7, inclusion="best",
              evaluation="full", max_iterations=200)
    r = minimize(fn, 2, contract=True, **kw)
    assert r.glb <= -1.0316284534898774 <= r.gub and r.gub - r.glb <= 1e-6
    assert r.options["contract"] and r.options["contracted"]["narrowed"] >= 1
    lo, hi = np.asarray(r.regions_lo), np.asarray(r.regions_hi)
    for v in xs:
        assert np.any(np.all((lo - 1e-4 <= v) & (v <= hi + 1e-4), axis=1))


@pytest.mark.parametrize("name", ["scipy_go.Qing", "levy", "scipy_go.Rastrigin"])
def test_strong_variant_keeps_every_known_minimiser(name):
    """variant strong (HC4 and mean-value contraction, descents, polish): f* enclosed and every
    known minimiser inside an output region (Qing at n = 3: 2^3 of them, at +-sqrt(i))."""
    from gpubench.workflow.certify import _entries
    fn = F.get(name)
    n = 3
    if name.startswith("scipy_go."):
        e = _entries("scipy_go")(name)
        fstar, mins = e.fglob(n), e.minimisers(n)
    else:
        fstar, mins = fn.fstar(n), [fn.xstar(n)]
    if name == "scipy_go.Qing":
        mins = [np.array([a, b * np.sqrt(2), c * np.sqrt(3)]) for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)]
    r = minimize(fn, n, method="interval", backend="cpu", variant="strong", split_dims=3, parts=4, tol=1e-6,
                 max_iterations=150)
    assert r.glb <= fstar + 1e-12 and fstar <= r.gub + 1e-12
    lo, hi = np.asarray(r.regions_lo), np.asarray(r.regions_hi)
    for v in mins:
        assert np.any(np.all((lo - 1e-9 <= v) & (v <= hi + 1e-9), axis=1)), v


# one-coordinate terms whose pieces are refined: a kinked zigzag, many equal minima, a product, smooth
FLOOR_NAMES = ["scipy_go.Deceptive", "scipy_go.Shubert03", "scipy_go.Shubert01", "scipy_go.XinSheYang03",
               "levy"]


def floor_violations(names, n=3, count=4, seed=11, points=20):
    """Points of a contracted box whose value is proved below the box's floor (the lower bound the
    search gives every subregion of it: contract_floor), for random boxes and levels."""
    rng = np.random.default_rng(seed)
    bad = []
    for name in names:
        fn = F.get(name)
        for lo, hi, gub in _cases(fn, n, count, rng):
            box, floor = C.contract_floor(fn, lo, hi, gub)
            if box is None:
                continue
            pts = box[0] + (box[1] - box[0]) * rng.random((points, n))
            for x in np.vstack([pts, box[0], box[1]]):
                if fn.interval(x, x)[1] < floor:   # f(x) < floor, proved
                    bad.append((name, floor, x.tolist()))
    return bad


def test_floor_is_below_every_value_of_the_box():
    """The level set's floor (refined pieces) never exceeds f anywhere in the contracted box; a
    variant that encloses each refined piece by its centre's value alone (a sample, not an
    enclosure) is caught."""
    assert floor_violations(FLOOR_NAMES) == []
    import gpubench.forms.levelset as ls
    real = ls.LevelSet._enclose_pieces

    def centre_only(self, agg, spec, base, a, b):
        plo, phi, fc = real(self, agg, spec, base, a, b)
        return (fc[0], fc[1], fc) if fc is not None else (plo, phi, fc)
    try:
        ls.LevelSet._enclose_pieces = centre_only
        for fn in (F.get(k) for k in FLOOR_NAMES):
            fn.__dict__.pop("_levelsets", None)
        assert len(floor_violations(FLOOR_NAMES)) > 0
    finally:
        ls.LevelSet._enclose_pieces = real
        for fn in (F.get(k) for k in FLOOR_NAMES):
            fn.__dict__.pop("_levelsets", None)


def convex_floor_violations(names, n=4, count=8, seed=13, points=20):
    """(points of a box whose value is proved below its convexity floor, boxes proved convex): boxes
    of every width, the floor taken at a random point of the box."""
    rng = np.random.default_rng(seed)
    bad, proved = [], 0
    for name in names:
        fn = F.get(name)
        for lo, hi, _ in _cases(fn, n, count, rng):
            x = lo + (hi - lo) * rng.random(n)
            floor = C.convex_floor(fn, lo, hi, x)
            if floor == -np.inf:
                continue
            proved += 1
            for y in np.vstack([lo + (hi - lo) * rng.random((points, n)), lo, hi]):
                if fn.interval(y, y)[1] < floor:   # f(y) < floor, proved
                    bad.append((name, floor, y.tolist()))
    return bad, proved


CONVEX_NAMES = ["scipy_go.Trid", "rastrigin", "scipy_go.Sphere", "scipy_go.Rosenbrock"]


def test_convexity_floor_is_below_every_value_of_the_box(monkeypatch):
    """Where the interval Hessian is proved positive semidefinite (scaled diagonal dominance), the
    tangent plane at a point of the box is below f on the whole box: no sampled value is below the
    floor, on convex (Trid, Sphere) and non-convex functions (Rastrigin, Rosenbrock: proved only on
    small boxes); Trid n = 10's root floor at its minimiser is f* = -190 to 1e-9.  A test that
    takes every Hessian for positive semidefinite is caught."""
    bad, proved = convex_floor_violations(CONVEX_NAMES)
    assert bad == [] and proved >= 10
    fn = F.get("scipy_go.Trid")
    lo, hi = fn.bounds(10)
    x = np.array([8, 14, 18, 20, 20, 20, 20, 18, 14, 8.0])
    assert -190.0 - 1e-9 <= C.convex_floor(fn, lo, hi, x) <= -190.0
    # Rastrigin's tangent plane at (0.5, ...), a local maximum, lies above f(0) = 0: not convex there
    ras = F.get("rastrigin")
    rlo, rhi = ras.bounds(4)
    assert C.convex_floor(ras, rlo, rhi, np.full(4, 0.5)) == -np.inf
    import gpubench.forms.convexity as cx
    monkeypatch.setattr(cx, "_dominant", lambda hlo, hhi: True)
    ras.__dict__.pop("_levelsets", None)
    try:
        assert C.convex_floor(ras, rlo, rhi, np.full(4, 0.5)) > ras.interval(np.zeros(4), np.zeros(4))[1]
    finally:
        ras.__dict__.pop("_levelsets", None)


def test_sums_but_each_are_the_scalar_sums_bit_for_bit():
    """mean_value's n sums but one, formed as one array step a term, equal the one-k sums rounded
    down at every step (:func:`contract._sum_dn`), overflow, infinities and NaN included."""
    rng = np.random.default_rng(5)
    for trial in range(60):
        n = int(rng.integers(1, 30))
        t = rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300, n)
        if trial % 4 == 0:
            t[rng.integers(0, n)] = rng.choice([np.inf, -np.inf, np.nan])
        if trial % 5 == 0:
            t[:] = 1.7e308
        with np.errstate(over="ignore", invalid="ignore"):
            want = np.array([C._sum_dn(t, k) for k in range(n)], dtype=np.float64)
            got = C._sums_but_each_dn(t)
        assert np.array_equal(want, got, equal_nan=True), (t, want, got)


def test_strong_starts_end_where_the_first_contraction_proves_the_root(monkeypatch):
    """variant strong: the first start's end point polished and the root contracted at that GUB
    (Search._root_proved); where the box left is narrower than tol the other starts are skipped, and
    the answer (bounds, region) is the full multistart's: every point with f <= GUB is in that box."""
    from gpubench.methods.solver import core, local
    fn = F.get("levy")
    kw = dict(method="interval", backend="cpu", variant="strong", split_dims=3, parts=4)
    real, calls = local.descend, []
    monkeypatch.setattr(local, "descend", lambda *a, **k: calls.append(1) or real(*a, **k))
    r = minimize(fn, 10, **kw)
    early = len(calls)
    monkeypatch.setattr(core.Search, "_root_proved", lambda self: False)   # every start descends
    calls.clear()
    full = minimize(fn, 10, **kw)
    assert early == 2 and len(calls) >= 9, (early, len(calls))   # the first start's and the polish's
    assert r.iterations == full.iterations == 1 and r.options["contracted"]["kept_whole"] == 1
    assert (r.glb, r.gub) == (full.glb, full.gub) and r.glb <= 0.0 <= r.gub
    assert np.array_equal(r.regions_lo, full.regions_lo) and np.array_equal(r.regions_hi, full.regions_hi)


def test_a_contraction_costlier_than_a_sweep_is_skipped_after_the_probe():
    """Variant strong contracts the first CONTRACT_PROBE selected boxes, then only while a contraction
    costs no more than a sweep (mean seconds of each in the search): Colville n = 4 on CUDA (no split
    sweep: the host loop) spent ~4x a sweep on each and did not close its gap in 10 s."""
    from gpubench.methods.solver.core import CONTRACT_PROBE, Search
    from gpubench.methods.solver.settings import Settings
    s = Search(F.get("scipy_go.Colville"), 4, settings=Settings.build("interval solver", dict(
        backend="cpu", variant="strong", split_dims=2, parts=2, tol=1e-6, max_iterations=1)))
    s.contract_cost, s.sweep_cost = [1.0, CONTRACT_PROBE - 1], [0.001, CONTRACT_PROBE]
    assert s._contraction_pays()                       # still probing
    s.contract_cost = [1.0, CONTRACT_PROBE]
    assert not s._contraction_pays() and s.contract_stats["skipped"] == 1
    s.contract_cost = [0.001, CONTRACT_PROBE]
    assert s._contraction_pays()                       # no dearer than a sweep
    s.contract_cost, s.sweep_cost = [0.0, 0], [0.0, 0]
    s.run()
    assert s.contract_cost[1] == 1 and s.sweep_cost[1] == 1   # each timed where it runs


def _kinked_function():
    """f = sum(x^2 / 10 - 3 |x|): a concave kink at every x_i = 0, Hessian 0.2 I everywhere else."""
    from gpubench.forms.definition import Abs, Definition, Rational, Sum, symbols, x
    from gpubench.forms.function import TestFunction
    S = symbols("S")
    return TestFunction(Definition(name="convexity_kink", title="convexity_kink", source="tests/test_contract.py",
                                   terms={S: Sum(Rational(1, 10) * x**2 - 3 * Abs(x))}, expr=S, domain=(-2, 2),
                                   xstar=lambda n: np.full(n, 2.0), fstar=lambda n: -5.6 * n))


def test_convexity_through_abs_holds_off_the_kink_only(monkeypatch):
    """|u| and sign(u) in the trees (their kink is DiracDelta(u) in the second derivative, enclosed as 0
    only where u's enclosure excludes 0): EggHolder n = 5 is proved convex on a box of width 2e-3 at its
    minimiser, the floor within 1e-6 of f there, and not on a box of width 0.2; a concave kink is never
    proved convex on a box that holds it, and is off it; no sampled value lies below a floor.  A delta
    taken for 0 everywhere is caught: the floor then lies above f's values across the kink."""
    from gpubench.forms import levelset_tree
    egg = F.get("scipy_go.EggHolder")
    xs = np.array([485.58983, 436.1237, 451.08319, 466.4312, 421.9585])
    floor = C.convex_floor(egg, xs - 1e-3, xs + 1e-3, xs)
    assert egg.interval(xs, xs)[0] - 1e-6 <= floor <= egg.interval(xs, xs)[0]
    assert C.convex_floor(egg, xs - 0.1, xs + 0.1, xs) == -np.inf
    kink = _kinked_function()
    lo, hi, x = np.array([-2.0, -2.0]), np.array([0.6, 0.6]), np.array([0.5, 0.5])
    assert C.convex_floor(kink, lo, hi, x) == -np.inf                      # the box holds the kink
    assert C.convex_floor(kink, lo + 2.1, hi + 1.0, x + 0.5) > -np.inf       # [0.1, 1.6]^2: off it
    rng = np.random.default_rng(5)
    for fn, (blo, bhi) in ((kink, (lo + 2.1, hi + 1.0)), (egg, (xs - 1e-3, xs + 1e-3))):
        for _ in range(3):
            px = blo + (bhi - blo) * rng.random(blo.size)
            fl = C.convex_floor(fn, blo, bhi, px)
            for y in blo + (bhi - blo) * rng.random((50, blo.size)):
                assert fn.interval(y, y)[1] >= fl
    monkeypatch.setattr(levelset_tree, "_delta", lambda u, env, vals: (0.0, 0.0))
    kink.__dict__.pop("_levelsets", None)
    bad = C.convex_floor(kink, lo, hi, x)
    assert bad > kink.interval(lo, lo)[1]                                  # f(-2, -2) = -11.2 below it


def test_sign_and_delta_enclose_every_value():
    """The forward rules of sign(u) ([sign(lo), sign(hi)]) and DiracDelta(u) (0 where u's enclosure
    excludes 0, else the whole line) on random boxes, against sign at sampled points."""
    from gpubench.forms.exprtree import Node
    from gpubench.forms.levelset_tree import _forward
    rng = np.random.default_rng(8)
    u = Node("add", [Node("sym", name="x"), Node("const", value=[-0.5, -0.5])])
    sgn, delta = Node("sign", [u]), Node("any", [u], value=["delta"])
    for _ in range(200):
        a, b = np.sort(rng.uniform(-2, 2, 2))
        env = {"x": (np.array([a]), np.array([b]))}
        slo, shi = _forward(sgn, env, {})
        dlo, dhi = _forward(delta, env, {})
        for t in np.r_[a, b, rng.uniform(a, b, 20)]:
            assert slo[0] <= np.sign(t - 0.5) <= shi[0]
        assert (dlo[0], dhi[0]) == ((0.0, 0.0) if (a > 0.5 or b < 0.5) else (-np.inf, np.inf))
