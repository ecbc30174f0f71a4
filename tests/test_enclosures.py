"""The interval forms of every library function enclose the exact values.

For each function, and separately for the interval form and the interval
gradient form, at least 10^4 random boxes (dimensions 1..6, mostly 1..4) are
drawn from these families:

- tiny: a few ulps wide (0 ulps = point boxes), some a few ulps from x*;
- wide: 5% .. 100% of the domain per coordinate;
- medium: log-uniform widths 1e-12 .. 1 of the domain;
- edge: touching the domain bounds (point boxes on them too);
- extremum: straddling points where an inner sin/cos argument crosses a
  multiple of pi/2 (extrema and zeros of the sin/cos in f and in its gradient),
  located along random lines by bisection;
- huge: coordinates of magnitude 1e8 .. 1e15 (positive only where f needs it);
- huge_extremum: one coordinate at 1e8 .. 1e15 and the box straddling an exact
  crossing of a sin/cos argument through a multiple of pi/2, located between
  two adjacent doubles with arb;
- spike (levy_delta only): in, across and near the spike box.

(Functions without sin/cos get medium and huge boxes for the two extremum families.)

At three points per box (midpoint, a corner, a random interior double), plus
for the extremum families the double next to the crossing, the exact
value/derivative, evaluated with arb from the sympy definition (see
``tests/oracles.py``), must be provably inside the enclosure.  The same
checker is shown to catch forms built from primitives that round to nearest
without stepping outward.
"""
import math
import types
import zlib

import numpy as np
import pytest
from numba import njit

import gpubench.functions as F
from gpubench.forms import cards as formcache
from gpubench.interval import backends, ops, rounding_cpu

import oracles as O

NAMES = F.names()
SAMPLES = 3  # plus the point at the extremum for the extremum families
# boxes per family and dimension: 7 families x (4 x 330 + 2 x 100) = 10640 boxes per form
PER_DIM = {1: 330, 2: 330, 3: 330, 4: 330, 5: 100, 6: 100}
FAMILIES = ("tiny", "wide", "medium", "edge", "extremum", "huge", "huge_extremum")
MIN_BOXES = 10_000
NONNEGATIVE = {"alpine02"}  # sqrt(x_i): defined for x_i >= 0 only
def _rng(*key):
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def boxes(fn, family, n, count, rng):
    """(lo, hi, at): ``at`` is None or, per box, an extra sample point (at an extremum)."""
    if family == "tiny":
        return O.tiny_boxes(fn, n, count, rng, centers=[fn.xstar(n), np.zeros(n), np.ones(n)]) + (None,)
    if family == "wide":
        return O.wide_boxes(fn, n, count, rng) + (None,)
    if family == "medium":
        return O.medium_boxes(fn, n, count, rng) + (None,)
    if family == "edge":
        return O.edge_boxes(fn, n, count, rng) + (None,)
    if family == "extremum":
        return O.extremum_boxes(fn, n, count, rng)
    if family == "huge":
        return O.huge_boxes(fn, n, count, rng, nonnegative=fn.name in NONNEGATIVE) + (None,)
    if family == "huge_extremum":
        return O.huge_extremum_boxes(fn, n, count, rng, nonnegative=fn.name in NONNEGATIVE)
    if family == "spike":
        return O.spike_boxes(fn, n, count, rng) + (None,)
    raise ValueError(family)


def families(fn):
    return FAMILIES + (("spike",) if fn.definition.spike is not None else ())


def all_boxes(fn, form):
    """Yield (family, n, LO, HI, AT) for one function and form, deterministically."""
    for family in families(fn):
        for n, count in PER_DIM.items():
            rng = _rng(fn.name, form, family, n)
            lo, hi, at = boxes(fn, family, n, count, rng)
            assert lo.shape == hi.shape == (count, n)
            assert np.all(lo <= hi) and np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))
            yield family, n, lo, hi, at


@pytest.mark.parametrize("name", NAMES)
def test_interval_form_encloses_exact_values(name):
    fn = F.get(name)
    module = fn.module("cpu")
    total_boxes = total_points = 0
    misses = []
    per_family = {}
    for family, n, lo, hi, at in all_boxes(fn, "interval"):
        m, checked = O.interval_misses(fn, module, lo, hi, _rng(name, "pts", family, n), SAMPLES,
                                       extra=at)
        misses += [(family, n) + mm for mm in m]
        total_boxes += lo.shape[0]
        total_points += checked
        per_family[family] = per_family.get(family, 0) + lo.shape[0]
    assert total_boxes >= MIN_BOXES
    assert total_points >= SAMPLES * total_boxes
    print(f"{name}: interval form, {total_boxes} boxes, {total_points} points, {per_family}")
    assert len(misses) == 0, (f"{len(misses)} misses, e.g.\n"
                              + O.format_misses([m[2:] for m in misses]) + f"\nfamilies {misses[0][:2]}")


@pytest.mark.parametrize("name", NAMES)
def test_interval_gradient_encloses_exact_derivatives(name):
    fn = F.get(name)
    module = fn.module("cpu")
    total_boxes = total_points = 0
    misses, undefined = [], []
    for family, n, lo, hi, at in all_boxes(fn, "gradient"):
        m, checked, u = O.interval_gradient_misses(fn, module, lo, hi,
                                                   _rng(name, "gpts", family, n), SAMPLES, extra=at)
        misses += [(family, n) + mm for mm in m]
        undefined += u
        total_boxes += lo.shape[0]
        total_points += checked
    assert total_boxes >= MIN_BOXES
    print(f"{name}: interval gradient, {total_boxes} boxes, {total_points} points, "
          f"{len(undefined)} points without a derivative")
    assert len(misses) == 0, (f"{len(misses)} misses, e.g.\n"
                              + O.format_misses([m[2:] for m in misses]) + f"\nfamilies {misses[0][:2]}")
    # the only points where the oracle finds no derivative are the known kinks
    for x in undefined:
        assert O.near_kink(fn, x), (name, x)
    # levy_delta: only the spike boxes are skipped, so most points were checked
    assert total_points >= 0.9 * SAMPLES * total_boxes or fn.definition.spike is not None
    assert total_points >= 0.5 * SAMPLES * total_boxes


@pytest.mark.parametrize("name", NAMES)
def test_interval_gradient_contains_point_gradients(name):
    """The generated point gradient at random points of a box lies in its interval gradient.

    (The point gradient is plain floating point, not rigorous; it must still land
    inside, since the interval form widens every operation by at least its rounding.)
    """
    fn = F.get(name)
    module = fn.module("cpu")
    bad = []
    total = 0
    for family in ("tiny", "wide", "medium", "edge", "extremum", "huge"):
        for n in (1, 2, 3, 5, 8):
            rng = _rng(name, "pg", family, n)
            lo, hi, _ = boxes(fn, family, n, 1000, rng)
            glo, ghi = O.run_interval_gradients(fn, module, lo, hi)
            for c in range(3):
                X = O.sample_points(lo, hi, rng, 3)[:, c]
                G = np.empty_like(X)
                module.gradients(X, fn.params(n), G, np.empty_like(X))
                ok = (glo <= G) & (G <= ghi)
                # at (or within underflow of) a kink the double gradient may be NaN: 0/0
                nan_ok = np.array([O.near_kink(fn, xr, 1e-150) for xr in X])
                ok |= ~np.isfinite(G) & nan_ok[:, None]
                total += X.shape[0]
                if not ok.all():
                    r = np.nonzero(~ok.all(axis=1))[0][0]
                    bad.append((family, n, lo[r], hi[r], X[r], G[r], glo[r], ghi[r]))
    assert total >= 50_000
    assert not bad, f"{len(bad)} point gradients outside the interval gradient, e.g. {bad[0]}"


# ---------------------------------------------------------------- levy + delta
def test_levy_delta_spike_enclosures():
    fn = F.get("levy_delta")
    module = fn.module("cpu")
    s = fn.definition.spike
    c, h = float(s.center), float(s.halfwidth)
    inside = outside = meets = 0
    for n in (1, 2, 3, 4):
        rng = _rng("spike-explicit", n)
        lo, hi = O.spike_boxes(fn, n, 3000, rng)
        flo, fhi = O.run_intervals(fn, module, lo, hi)
        glo, ghi = O.run_interval_gradients(fn, module, lo, hi)
        orc = O.oracle(fn, n)
        for r in range(lo.shape[0]):
            if orc.box_in_spike(lo[r], hi[r]):
                inside += 1
                assert flo[r] == -1.0 and fhi[r] == -1.0, (lo[r], hi[r], flo[r], fhi[r])
            if orc.box_meets_spike(lo[r], hi[r]):
                meets += 1
                assert flo[r] <= -1.0 <= fhi[r], (lo[r], hi[r], flo[r], fhi[r])
                assert np.all(glo[r] == -np.inf) and np.all(ghi[r] == np.inf)
            else:
                outside += 1
                assert np.all(np.isfinite(glo[r])) and np.all(np.isfinite(ghi[r]))
        # the Levy values at points of the box (outside the spike) are enclosed too
        m, _ = O.interval_misses(fn, module, lo, hi, rng, samples=4)
        assert not m, O.format_misses(m)
    assert inside > 500 and outside > 500 and meets - inside > 500

    # the spike's edges are exact: the smallest double in the spike, and the one below it
    lo_edge = math.nextafter(c - h, math.inf)
    assert fn.point([lo_edge, c]) == -1.0
    below = math.nextafter(lo_edge, -math.inf)
    assert fn.point([below, c]) > 0.0
    levy = F.get("levy")
    assert fn.point([below, c]) == levy.point([below, c])
    assert fn.interval([below, c], [below, c]) == levy.interval([below, c], [below, c])
    flo, fhi = fn.interval([below, c], [lo_edge, c])
    assert flo <= -1.0 and fhi >= levy.point([below, c])
    assert fn.interval([c] * 3, [c] * 3) == (-1.0, -1.0)
    glo, ghi = fn.interval_gradient([below, c], [lo_edge, c])
    assert np.all(glo == -np.inf) and np.all(ghi == np.inf)
    glo, ghi = fn.interval_gradient([below, c], [below, c])
    assert np.all(np.isfinite(glo)) and np.all(np.isfinite(ghi))


# ---------------------------------------------------------------- the oracle catches broken forms
_jit = njit(error_model="numpy")


def _sin_pair(a):
    v = math.sin(a)
    return v, v


def _cos_pair(a):
    v = math.cos(a)
    return v, v


def _tanh_pair(a):
    v = math.tanh(a)
    return v, v


_NEAREST = {
    "add_dn": lambda a, b: a + b, "add_up": lambda a, b: a + b,
    "mul_dn": lambda a, b: a * b, "mul_up": lambda a, b: a * b,
    "div_dn": lambda a, b: a / b, "div_up": lambda a, b: a / b,
    "sqrt_dn": lambda a: math.sqrt(a), "sqrt_up": lambda a: math.sqrt(a),
    "exp_dn": lambda a: math.exp(a), "exp_up": lambda a: math.exp(a),
    "log_dn": lambda a: math.log(a), "log_up": lambda a: math.log(a),
    "sin_dn": lambda a: math.sin(a), "sin_up": lambda a: math.sin(a),
    "cos_dn": lambda a: math.cos(a), "cos_up": lambda a: math.cos(a),
    "sin_enc": _sin_pair, "cos_enc": _cos_pair,  # (lo, hi) around sin(a) in one call
    "tanh_enc": _tanh_pair, "log1p_dn": lambda a: math.log1p(a), "log1p_up": lambda a: math.log1p(a),
}


def _round_to_nearest_primitives():
    """The CPU primitives without their outward step: every bound rounds to nearest."""
    p = dict(rounding_cpu.PRIMITIVES)
    for name in ops.PRIMITIVE_NAMES:
        if name in ("next_up", "next_dn"):
            continue
        assert name in _NEAREST, f"primitive {name} is new: add its non-stepping version here"
        p[name] = _jit(_NEAREST[name])
    return p


def broken_module(fn, monkeypatch):
    """``fn``'s generated CPU source, executed with interval ops over non-stepping primitives.

    The generated module binds its globals with ``globals().update(_namespace('cpu'))``
    and ``device, kernel = _decorators('cpu')``; here those names resolve to the
    broken namespace and to uncached njit, and nothing is written to the cache.
    """
    ns = backends.build_namespace(_round_to_nearest_primitives(), _jit)
    text = fn.source_code("cpu")
    assert "globals().update(_namespace('cpu'))" in text
    assert "device, kernel = _decorators('cpu')" in text
    with monkeypatch.context() as mp:
        mp.setattr(backends, "namespace", lambda backend: ns)
        mp.setattr(formcache, "decorators", lambda backend: (_jit, _jit))  # what generated code imports
        module = types.ModuleType(f"broken_{fn.name}")
        exec(compile(text, f"<{fn.name}, non-stepping primitives>", "exec"), module.__dict__)
    assert module.iadd is ns["iadd"] and module.isin is ns["isin"]
    return module


@pytest.mark.parametrize("name", ["rastrigin", "griewank", "levy", "styblinski_tang", "alpine02"])
def test_checker_catches_missing_outward_step(name, monkeypatch):
    fn = F.get(name)
    broken = broken_module(fn, monkeypatch)
    n = 3
    rng = _rng("broken", name)
    lo, _ = O.tiny_boxes(fn, n, 300, rng)
    hi = lo.copy()  # point boxes: the enclosure is all rounding error
    # the same checkers as above, on the broken and on the real forms
    bad, checked = O.interval_misses(fn, broken, lo, hi, _rng("b1", name), samples=1, limit=10**6)
    bad_g, checked_g, _ = O.interval_gradient_misses(fn, broken, lo, hi, _rng("b2", name),
                                                     samples=1, limit=10**6)
    good, _ = O.interval_misses(fn, fn.module("cpu"), lo, hi, _rng("b1", name), samples=1)
    good_g, _, _ = O.interval_gradient_misses(fn, fn.module("cpu"), lo, hi, _rng("b2", name), samples=1)
    assert checked == checked_g == 300
    assert len(bad) >= 30, f"only {len(bad)} of 300 point boxes missed without the outward step"
    assert len(bad_g) >= 30, f"only {len(bad_g)} of 300 gradient boxes missed without the outward step"
    assert good == [] and good_g == []


# ---------------------------------------------------------------- oracle pitfalls
def test_oracle_comparisons_are_rigorous():
    from flint import arb
    with O.precision(96):
        assert O.classify(arb(0.1), 0.1, 0.1) == O.IN  # arb(0.1) is the double exactly
        assert O.classify(arb("0.1"), 0.1, 0.1) == O.OUT  # the decimal 0.1 is not
        assert O.classify(arb(1) + arb("1e-20"), 1.0, 1.0) == O.OUT
        assert O.classify(arb.pi(), ops.PI_LO, ops.PI_HI) == O.IN
        assert O.classify(arb.pi(), math.pi, math.pi) == O.OUT
        undecided = arb(1) + arb(0).union(arb("1e-200"))  # [1, 1 + 1e-200]: touches the bound
        assert O.classify(undecided, 0.0, 1.0) == O.UNDECIDED
        assert O.classify(arb(2), -math.inf, math.inf) == O.IN
        assert O.classify(arb(2), math.nan, math.nan) == O.OUT
    # a value too close to a bound for 96 bits is decided at a higher precision:
    # griewank(1e-160) = 1e-320/4000 + 1 - cos(1e-160) ~ 5e-321 needs ~1100 bits
    fn = F.get("griewank")
    orc = O.oracle(fn, 1)
    x = [1e-160]
    with O.precision(96):
        assert O.classify(orc.value(x, 96), 0.0, 1e-300) == O.UNDECIDED
    assert O.value_inside(orc, x, 0.0, 1e-300) == O.IN
    assert O.value_inside(orc, x, 1e-300, 1.0) == O.OUT
    assert O.value_inside(orc, x, 5.1e-321, 1.0) == O.OUT


def test_interval_constants_enclose_pi():
    from flint import arb
    with O.precision(200):
        pi = arb.pi()
        for lo, hi, v in [(ops.PI_LO, ops.PI_HI, pi), (ops.HALF_PI_LO, ops.HALF_PI_HI, pi / 2),
                          (ops.TWO_PI_LO, ops.TWO_PI_HI, 2 * pi),
                          (ops.INV_TWO_PI_LO, ops.INV_TWO_PI_HI, 1 / (2 * pi))]:
            assert O.classify(v, lo, hi) == O.IN
            assert math.nextafter(lo, math.inf) == hi  # tight: adjacent doubles
