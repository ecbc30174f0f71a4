"""Two-coordinate pieces of a chained sum (gpubench.forms.chain), against exact oracles.

A chained sum S = sum_i t(x_i, x_{i+1}) is bounded below by the least sum of its terms' lower ends
over paths of cells, and a coordinate's cell is dropped where the least sum through it exceeds the
level.  On random and adversarial boxes (the domain, degenerate coordinates, narrow boxes, boxes
whose points sit on the cells' shared ends) every sampled point's exact value (Fraction for the
polynomials, mpmath at 50 digits, an independent transcription, for the trigonometric ones) must
be at least the chain's bound, at least the bound of a cell holding each of its coordinates, and
in the level set's forward enclosure; contraction keeps every point whose exact value meets the
level.  A broken variant (the terms' values at the cells' centres taken for their lower ends) is
caught by the same checks.
"""
from fractions import Fraction
import math

import mpmath
import numpy as np
import pytest

from gpubench import functions
from gpubench.forms import chain
from gpubench.methods.solver import contract as C

DIM = 4
CELLS = 8


def _egg(x):
    s = mpmath.mpf(0)
    for a, b in zip(x[:-1], x[1:]):
        s += -(b + 47) * mpmath.sin(mpmath.sqrt(abs(b + a / 2 + 47))) - a * mpmath.sin(mpmath.sqrt(abs(a - (b + 47))))
    return s


def _rana(x):
    s = mpmath.mpf(0)
    for a, b in zip(x[:-1], x[1:]):
        s += ((b + 1) * mpmath.cos(mpmath.sqrt(abs(b - a + 1))) * mpmath.sin(mpmath.sqrt(abs(b + a + 1)))
              + a * mpmath.cos(mpmath.sqrt(abs(b + a + 1))) * mpmath.sin(mpmath.sqrt(abs(b - a + 1))))
    return s


def _rosenbrock(x):
    return sum(100 * (b - a * a) ** 2 + (1 - a) ** 2 for a, b in zip(x[:-1], x[1:]))


def _trid(x):
    return sum((a - 1) ** 2 for a in x) - sum(a * b for a, b in zip(x[:-1], x[1:]))


# name: (exact f at a float point, whether f is the chained sum itself)
ORACLES = {"scipy_go.EggHolder": (lambda p: _exact(_egg, p, mp=True), True),
           "scipy_go.Rana": (lambda p: _exact(_rana, p, mp=True), True),
           "scipy_go.Rosenbrock": (lambda p: _exact(_rosenbrock, p), True),
           "scipy_go.Trid": (lambda p: _exact(_trid, p), False)}


def _exact(f, p, mp=False):
    if mp:
        with mpmath.workdps(50):
            return f([mpmath.mpf(float(v)) for v in p])
    return f([Fraction(float(v)) for v in p])


@pytest.fixture
def cells(monkeypatch):
    monkeypatch.setattr(chain, "CELLS", CELLS)


def _boxes(fn, rng):
    """The domain, random boxes of widths from 1e-9 to the domain's, one with degenerate coordinates,
    and one whose ends are cells' ends of the domain (points on shared ends)."""
    lo, hi = fn.bounds(DIM)
    yield lo.copy(), hi.copy()
    for width in (1e-9, 1e-3, 1.0, 50.0, 400.0):
        w = np.minimum(width, hi - lo)
        a = lo + rng.random(DIM) * (hi - lo - w)
        yield a, a + w
    a = lo + rng.random(DIM) * (hi - lo)
    b = np.minimum(a + rng.random(DIM) * 30.0, hi)
    b[::2] = a[::2]
    yield a, b
    ca, cb = chain.edges(lo, hi)
    yield ca[:, 2].copy(), cb[:, 5].copy()


def _points(lo, hi, rng, k=40):
    """Random points, the corners along the diagonal, the centre, and the cells' shared ends."""
    pts = [lo + rng.random(lo.size) * (hi - lo) for _ in range(k)]
    pts += [lo.copy(), hi.copy(), 0.5 * lo + 0.5 * hi]
    a, b = chain.edges(lo, hi)
    pts += [a[:, j].copy() for j in range(a.shape[1])] + [b[:, -1].copy()]
    mixed = [np.where(rng.random(lo.size) < 0.5, a[:, j], b[:, j]) for j in range(a.shape[1])]
    return pts + mixed


def _check(name, rng, broken=False):
    """The checks on every box; returns the violations found (an empty list when sound)."""
    fn = functions.get(name)
    exact, is_sum = ORACLES[name]
    ls = C.levelset(fn, DIM)
    bad = []
    for lo, hi in _boxes(fn, rng):
        pts = _points(lo, hi, rng)
        vals = [exact(p) for p in pts]
        f_lo, f_hi = ls.enclose(lo, hi)
        bad += [("enclosure", name, p) for p, v in zip(pts, vals) if not f_lo <= v <= f_hi]
        if is_sum:
            _, _, terms = ls._forward(lo, hi)
            (chained,) = [t[4] for t in terms.values() if t[4] is not None]
            total, each, (ca, cb), _ = chained
            for p, v in zip(pts, vals):
                if not total <= v:
                    bad.append(("total", name, p))
                for k in range(DIM):
                    holds = (ca[k] <= p[k]) & (p[k] <= cb[k])
                    if not holds.any() or not each[k][holds].min() <= v:
                        bad.append(("cell", name, k, p))
        # contraction at a level met by a point: every point meeting it stays in the box
        level = float(sorted(vals)[len(vals) // 3])
        box = ls.contract(lo, hi, level)
        keep = [p for p, v in zip(pts, vals) if v <= level]
        if box is None:
            bad += [("emptied", name, p) for p in keep]
        else:
            bad += [("dropped", name, p) for p in keep if not np.all((box[0] <= p) & (p <= box[1]))]
    return bad


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "numpy"])
@pytest.mark.parametrize("name", sorted(ORACLES))
def test_the_chain_bounds_and_contraction_hold_every_exact_value(name, compiled, cells, monkeypatch):
    """The cells enclosed by the compiled kernel (forms/chain_cells.py, the default) and by the numpy walk."""
    monkeypatch.setattr(chain, "COMPILED", compiled)
    assert _check(name, np.random.default_rng(41)) == []


@pytest.mark.slow   # about 28 s on 2 cores: the broken kernel is compiled afresh (not disk-cached)
def test_a_kernel_over_a_sine_without_its_peaks_is_caught(cells, monkeypatch):
    """Broken: the cells' kernel compiled over a sine enclosed by its ends' values alone.  The cells'
    own bounds catch it; the chain's total (a sum over coordinates of each coordinate's least cell
    bound) is too loose for this breakage to show at these points (it failed the same way at 2348217,
    where this test, marked slow, was not run by `make test`), so only the cell check is asserted."""
    from numba import njit

    from gpubench.forms import chain_cells
    from gpubench.forms.levelset import LevelSet
    from gpubench.interval.backends import namespace
    ns = dict(namespace("cpu"))
    sin_enc = ns["sin_enc"]

    @njit
    def isin(alo, ahi):
        a, b = sin_enc(alo), sin_enc(ahi)
        return min(a[0], b[0]), max(a[1], b[1])
    ns["isin"] = isin
    monkeypatch.setattr(LevelSet, "_compiled", lambda self, spec: (
        chain_cells.kernel(spec, self.param_names, namespace=ns), self.params, self.dim))
    bad = _check("scipy_go.EggHolder", np.random.default_rng(41))
    assert "cell" in {b[0] for b in bad}


def test_the_chain_sharpens_eggholders_bound(monkeypatch):
    fn = functions.get("scipy_go.EggHolder")
    lo, hi = fn.bounds(DIM)
    monkeypatch.setattr(chain, "CELLS", 64)
    with_chain = C.levelset(fn, DIM).enclose(lo, hi)[0]
    monkeypatch.setattr(chain, "CELLS", 0)
    without = C.levelset(fn, DIM).enclose(lo, hi)[0]
    assert with_chain > without + 250            # on [-512.1, 512]^4: -2,921.3 against -3,213.3


def test_a_chain_of_centre_values_is_caught(cells, monkeypatch):
    """Broken: the terms' values at the cells' centres taken for their lower ends."""
    real = chain.lower_ends

    def centres(*args, **kwargs):
        ends = real(*args, **dict(kwargs, centres=True))
        return None if ends is None else (np.where(np.isnan(ends[1]), -np.inf, ends[1]), ends[1])

    monkeypatch.setattr(chain, "lower_ends", centres)
    bad = _check("scipy_go.EggHolder", np.random.default_rng(41))
    assert "cell" in {b[0] for b in bad}


def _children_violations(name, rng):
    """Children of boxes (two coordinates cut into 4 parts: 16 children): every sampled point of a
    child whose exact value is below that child's chain bound."""
    from gpubench.methods.solver.partition import Plan, child_boxes
    fn = functions.get(name)
    exact, _ = ORACLES[name]
    ls = C.levelset(fn, DIM)
    plan = Plan(dims=(1, 2), parts=4)
    bad = []
    for lo, hi in _boxes(fn, rng):
        clo, chi = child_boxes(lo, hi, plan, np.arange(plan.count))
        bound = ls.children_floor(lo, hi, clo, chi)
        assert bound is not None and bound.shape == (plan.count,)
        for k in range(plan.count):
            for p in _points(clo[k], chi[k], rng, k=6)[:12]:
                if not bound[k] <= exact(p):
                    bad.append((name, k, p))
    return bad


@pytest.mark.parametrize("name", ["scipy_go.EggHolder", "scipy_go.Rosenbrock"])
def test_every_childs_chain_bound_holds_its_exact_values(name, cells):
    assert _children_violations(name, np.random.default_rng(7)) == []


@pytest.mark.parametrize("steps", [1 << 30, 1])
def test_every_childs_chain_bound_holds_when_cells_are_merged(steps, cells, monkeypatch):
    """The children's pass on the cells themselves, and merged MERGE by MERGE."""
    monkeypatch.setattr(chain, "CHILD_STEPS", steps)
    assert _children_violations("scipy_go.Rana", np.random.default_rng(5)) == []


def test_merged_cells_taking_the_highest_lower_end_are_caught(cells, monkeypatch):
    """Broken: each pair of cells merged to the highest of their lower ends instead of the lowest."""
    def children(L, ca, cb, clo, chi):
        m, k = L.shape[0], L.shape[1]
        g = k // 2
        hi = L.reshape(m, g, 2, g, 2).max(axis=(2, 4))
        # the same pass on the wrong blocks: repeat each merged value over its block
        return real_children(np.repeat(np.repeat(hi, 2, axis=1), 2, axis=2), ca, cb, clo, chi)

    real_children = chain.children
    monkeypatch.setattr(chain, "children", children)
    assert _children_violations("scipy_go.EggHolder", np.random.default_rng(7))


def _strong_search(fn):
    from gpubench.methods.solver.core import Search
    from gpubench.methods.solver.settings import Settings
    return Search(fn, 3, settings=Settings.build("interval solver", dict(
        backend="cpu", variant="strong", split_dims=3, parts=4, tol=1e-6, max_iterations=20)))


def _holds(r, x):
    lo, hi = np.asarray(r.regions_lo), np.asarray(r.regions_hi)
    return bool(np.any(np.all((lo <= x) & (x <= hi), axis=1)))


@pytest.mark.slow   # about 19 s on 2 cores (a strong search of EggHolder with the chain on; the chain is off by default)
def test_the_strong_search_with_the_chain_keeps_its_best_point(monkeypatch):
    """The host loop with the chain on (the selected box's contraction and floor, every surviving
    child raised to its own chain bound: core.Search._chained), EggHolder n = 3: the GUB point x has
    f(x) <= GUB, so a region holding it has a lower bound <= GUB and is never dropped; GLB stays below
    f there.  A chain bound raised by 1 drops it and is caught."""
    from gpubench.methods.solver.core import Search
    monkeypatch.setattr(chain, "CELLS", 16)
    fn = functions.get("scipy_go.EggHolder")
    calls = []
    real = Search._chained
    monkeypatch.setattr(Search, "_chained", lambda self, *a: calls.append(1) or real(self, *a))
    r = _strong_search(fn).run()
    assert calls and r.glb <= _exact(_egg, r.x, mp=True) and _holds(r, r.x)
    raised = chain.children
    monkeypatch.setattr(chain, "children", lambda *a: raised(*a) + 1.0)
    try:
        broken = _strong_search(fn).run()
        assert not (_holds(broken, broken.x) and broken.glb <= _exact(_egg, broken.x, mp=True))
    except RuntimeError as e:   # or every region ruled out
        assert "ruled out" in str(e)


@pytest.mark.parametrize("steps", [1 << 30, 1])
def test_the_compiled_childrens_pass_is_the_numpy_pass(steps, monkeypatch):
    """chain_cells.children_pass sums only the cells a child meets: bit for bit the numpy pass's bounds
    on random lower ends with -inf among them, on the cells themselves and merged."""
    from gpubench.methods.solver.partition import Plan, child_boxes
    rng = np.random.default_rng(3)
    lo = -5.0 * rng.random(DIM)
    hi = lo + 10.0 * rng.random(DIM)
    L = 100.0 * rng.normal(size=(DIM - 1, CELLS, CELLS))
    L[0, 3, 4] = L[2, 0, 7] = -np.inf
    ca, cb = chain.edges(lo, hi, CELLS)
    plan = Plan(dims=(0, 1, 2), parts=4)
    clo, chi = child_boxes(lo, hi, plan, np.arange(plan.count))
    monkeypatch.setattr(chain, "CHILD_STEPS", steps)
    got = {}
    for compiled in (True, False):
        monkeypatch.setattr(chain, "COMPILED", compiled)
        got[compiled] = chain.children(L, ca, cb, clo, chi)
    assert np.array_equal(got[True], got[False]) and np.isneginf(got[True]).any()


def _irpow(ns):
    """chain_cells' generated scalar rational power, compiled over the namespace ``ns``."""
    from gpubench.forms.chain_cells import _RPOW
    glb = dict(ns, math=math)
    exec(compile(_RPOW, "<irpow>", "exec"), glb)
    from numba import njit
    return njit(error_model="numpy")(glb["irpow"])    # as chain_cells compiles it (pow overflows to inf)


def _rpow_encloses(f):
    """Every x^r (arb, proven) inside f's interval on random and adversarial boxes of a >= 0."""
    import flint
    rng = np.random.default_rng(7)
    ends = [0.0, 5e-324, 1e-300, 1e-8, 0.5, 1.0, 1.0 + 2.0 ** -52, 3.0, 1e12, 1e300]
    boxes = [tuple(sorted(p)) for p in zip(ends, ends[1:])] + [(e, e) for e in ends]
    boxes += [tuple(sorted(rng.uniform(0.0, 10.0, 2))) for _ in range(60)]
    old = flint.ctx.prec
    flint.ctx.prec = 256
    try:
        for r in (0.5, 1.5, 1.0 / 3.0, 2.5, -0.5, -1.5):
            for alo, ahi in boxes:
                lo, hi = f(alo, ahi, r)
                for x in {alo, ahi, 0.5 * (alo + ahi)}:
                    if x == 0.0 and r < 0:
                        continue          # x^r unbounded at 0: the form's upper end is inf there
                    v = flint.arb(x) ** flint.arb(r)
                    if not ((lo == -math.inf or flint.arb(lo) <= v) and (hi == math.inf or v <= flint.arb(hi))):
                        return False
    finally:
        flint.ctx.prec = old
    return True


def test_the_cells_rational_power_encloses_every_exact_value():
    """The chain's compiled rational power (chain_cells' irpow) holds x^r, decided by arb, at the ends
    and middle of random and adversarial boxes, for r of both signs; without its outward steps it
    does not (a power rounded to nearest misses the exact value on some box)."""
    from gpubench.interval.backends import namespace
    ns = namespace("cpu")
    assert _rpow_encloses(_irpow(ns))
    from numba import njit
    same = njit(lambda v: v)
    assert not _rpow_encloses(_irpow(dict(ns, next_dn=same, next_up=same)))
