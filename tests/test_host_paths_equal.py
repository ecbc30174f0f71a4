"""The host loop's faster paths (issue 41: the contraction, the level set's walks and the coupled
least-squares bound run on the host between GPU sweeps) give the old paths' results bit for bit: each
is compared with a copy of the code it replaced, on random intervals and boxes of Kowalik and Watson.

- interval.arrays' mul and add, which skip their NaN fix-ups where nothing is NaN (values and types);
- levelset_tree._all_but_each, the sums and products of all arguments but one made at once;
- levelset_batch._contract, whose later passes walk only the boxes the previous pass changed;
- lsq_floor._pieces' one walk over several trees with one memo.
"""
import math

import numpy as np
import pytest

from gpubench import functions
from gpubench.forms import levelset_batch as LB
from gpubench.forms import levelset_tree as tree
from gpubench.forms.levelset import N_SYM, LevelSet
from gpubench.forms.lsq import cleared_least_squares, least_squares
from gpubench.interval import arrays as A

INF = math.inf


def _bits(x):
    return np.asarray(x, dtype=np.float64).view(np.int64)


def _same(a, b):
    """Bit for bit (NaN payloads included), the same shape and the same kind (0-d array or scalar)."""
    return (np.shape(a) == np.shape(b) and type(a) is type(b) and np.array_equal(_bits(a), _bits(b)))


# ---------------------------------------------------------------- the replaced code, as it was
def _old_add(a, b):
    with np.errstate(invalid="ignore", over="ignore"):
        return A._fix(A._dn(a[0] + b[0]), A._up(a[1] + b[1]))


def _old_mul(a, b):
    with np.errstate(invalid="ignore", over="ignore"):
        p = [a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]]
    p = [np.where(np.isnan(v), 0.0, v) for v in p]
    lo = np.minimum(np.minimum(p[0], p[1]), np.minimum(p[2], p[3]))
    hi = np.maximum(np.maximum(p[0], p[1]), np.maximum(p[2], p[3]))
    return A._dn(lo), A._up(hi)


def _old_contract(ls, lo, hi, level):
    count = lo.shape[0]
    batch = LB._Batch(count)
    floor = None
    saved = getattr(tree.LOCAL, "batch", None)
    tree.LOCAL.batch = batch
    try:
        for r in range(LB.ROUNDS):
            env = {s: (lo[:, k], hi[:, k]) for s, k in ls.coords.items()}
            env[N_SYM] = (float(ls.dim), float(ls.dim))
            vals = {}
            with np.errstate(all="ignore"):
                try:
                    f = tree._forward(ls.expr, env, vals)
                except A.Undefined:
                    if r == 0:
                        raise
                    break
                flo = np.broadcast_to(f[0], (count,))
                if floor is None:
                    floor = flo.copy()
                batch.empty |= flo > level
                narrowed = {}
                tree._backward(ls.expr, (-INF, level), vals, narrowed)
            new_lo, new_hi = lo.copy(), hi.copy()
            for s, k in ls.coords.items():
                if s in narrowed:
                    new_lo[:, k] = np.maximum(new_lo[:, k], np.broadcast_to(narrowed[s][0], (count,)))
                    new_hi[:, k] = np.minimum(new_hi[:, k], np.broadcast_to(narrowed[s][1], (count,)))
            batch.empty |= np.any(new_lo > new_hi, axis=1)
            new_lo = np.where(batch.empty[:, None], lo, new_lo)
            new_hi = np.where(batch.empty[:, None], hi, new_hi)
            if np.array_equal(new_lo, lo) and np.array_equal(new_hi, hi):
                break
            lo, hi = new_lo, new_hi
    finally:
        tree.LOCAL.batch = saved
    return lo, hi, batch.empty, floor


def _old_div(a, b):
    blo, bhi = np.broadcast_arrays(*b)
    zero = (blo <= 0.0) & (bhi >= 0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        rb = (np.where(zero, -INF, A._dn(1.0 / bhi)), np.where(zero, INF, A._up(1.0 / blo)))
    lo, hi = _old_mul(a, (np.where(zero, -1.0, rb[0]), np.where(zero, 1.0, rb[1])))
    return np.where(zero, -INF, lo), np.where(zero, INF, hi)


def _old_pow_nonneg(v, k, up):
    r = np.ones_like(v)
    for _ in range(k):
        with np.errstate(over="ignore"):
            r = r * v
        r = A._up(r) if up else A._dn(r)
    return np.maximum(r, 0.0)


# ---------------------------------------------------------------- inputs
SPECIAL = np.array([0.0, -0.0, INF, -INF, 1e-320, -1e-320, 1e308, -1e308, 1.0, -1.0, 0.1, 3.0])


def _intervals(rng, shape):
    """Random intervals lo <= hi with the special values (0, -0, +-inf, subnormals, huge) mixed in."""
    a = rng.standard_normal(shape) * 10.0 ** rng.integers(-5, 5, shape)
    b = rng.standard_normal(shape) * 10.0 ** rng.integers(-5, 5, shape)
    pick = rng.random(shape) < 0.3
    a = np.where(pick, rng.choice(SPECIAL, shape), a)
    pick = rng.random(shape) < 0.3
    b = np.where(pick, rng.choice(SPECIAL, shape), b)
    return np.minimum(a, b), np.maximum(a, b)


def _boxes(name, count, seed):
    """Boxes of the function's domain: a quarter anywhere, the rest near its stated minimiser, widths
    1e-6 to 0.3 of the domain."""
    fn = functions.get(name)
    n = fn.definition.dim
    dlo, dhi = fn.bounds(n)
    span = dhi - dlo
    rng = np.random.default_rng(seed)
    c = dlo + span * rng.random((count, n))
    xs = np.asarray(fn.xstar(n), dtype=np.float64).reshape(-1, n)[0]
    near = count - count // 4
    c[count // 4:] = xs + span * 10.0 ** rng.uniform(-5, -1, (near, 1)) * rng.standard_normal((near, n))
    w = span * 10.0 ** rng.uniform(-6, -0.5, (count, 1))
    return fn, np.maximum(c - w / 2, dlo), np.minimum(c + w / 2, dhi)


# ---------------------------------------------------------------- the tests
def test_mul_add_bit_for_bit_as_before():
    rng = np.random.default_rng(41)
    for shape in [(), (7,), (300,)]:
        for _ in range(200 if shape == () else 20):
            a, b = _intervals(rng, shape), _intervals(rng, shape)
            if shape == ():
                a, b = tuple(float(v) for v in a), tuple(np.float64(v) for v in b)
            if shape != ():   # b away from 0 in some entries: div's path without the extended steps
                pos = rng.random(shape) < 0.5
                b = (np.where(pos, np.abs(b[0]) + 0.5, b[0]), np.where(pos, np.abs(b[1]) + 1.0, b[1]))
            for new, old in ((A.mul, _old_mul), (A.add, _old_add), (A.div, _old_div)):
                got, want = new(a, b), old(a, b)
                assert _same(got[0], want[0]) and _same(got[1], want[1]), (new.__name__, a, b, got, want)


def test_div_without_zero_and_powers_bit_for_bit_as_before():
    rng = np.random.default_rng(43)
    for shape in [(), (9,), (200,)]:
        for _ in range(100 if shape == () else 10):
            a = _intervals(rng, shape)
            lo, hi = _intervals(rng, shape)
            with np.errstate(over="ignore"):
                b = (np.abs(lo) + 0.25, np.abs(lo) + np.abs(hi) + 0.5)   # no 0 in b: div's short path
            if shape == ():
                a, b = tuple(float(v) for v in a), tuple(np.float64(v) for v in b)
            got, want = A.div(a, b), _old_div(a, b)
            assert _same(got[0], want[0]) and _same(got[1], want[1]), (a, b, got, want)
            v = np.abs(np.asarray(lo)) if shape else abs(float(lo))
            for k in (0, 1, 2, 3, 4):
                for up in (False, True):
                    assert _same(A._pow_nonneg(v, k, up), _old_pow_nonneg(v, k, up)), (v, k, up)


@pytest.mark.parametrize("op,start", [(A.add, 0.0), (A.mul, 1.0)])
def test_all_but_each_is_the_loop(op, start):
    rng = np.random.default_rng(7)
    for k in (3, 4, 11):
        for skip in ((), (1,), (0, k - 1)):
            vals = [_intervals(rng, (50,)) for _ in range(k)]
            vals[2] = (np.float64(0.5), np.float64(2.0))   # a constant among arrays (broadcast)
            got = tree._all_but_each(vals, op, start, skip)
            for j in range(k):
                acc = (start, start)
                for m, v in enumerate(vals):
                    if m != j and m not in skip:
                        acc = op(acc, v)
                want = np.broadcast_arrays(*acc, np.zeros(50))[:2]
                assert np.array_equal(_bits(got[j][0]), _bits(want[0])) and np.array_equal(_bits(got[j][1]), _bits(want[1]))


@pytest.mark.parametrize("name", ["scipy_go.Kowalik", "scipy_go.Watson"])
def test_batched_contraction_bit_for_bit_as_before(name):
    fn, lo, hi = _boxes(name, 256, 3)
    L = LevelSet(fn.definition, fn.definition.dim)
    fstar = fn.fstar(fn.definition.dim)
    changed = 0
    for level in (fstar * (1 + 1e-6), 10 * fstar, 1000 * fstar):
        got = LB.contract(L, lo, hi, level)
        want = _old_contract(L, lo.copy(), hi.copy(), level)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and np.array_equal(g.view(np.uint8), w.view(np.uint8))
        changed += int(np.any((got[0] != lo) | (got[1] != hi), axis=1).sum())
    assert changed > 0   # some boxes narrowed (more than one pass ran)


@pytest.mark.parametrize("make", [least_squares, cleared_least_squares])
def test_one_walk_of_several_trees_is_the_separate_walks(make):
    fn, lo, hi = _boxes("scipy_go.Kowalik", 128, 5)
    lsq = make(fn)
    trees = [lsq.value, lsq.rest, lsq.weights, lsq.den, lsq.hess]
    with np.errstate(all="ignore"):
        together = lsq.enclose(lo, hi, trees)
        apart = [lsq.enclose(lo, hi, t) for t in trees]

    def flat(x):
        return [x] if isinstance(x, np.ndarray) else [v for e in x for v in flat(e)]
    a, b = flat(together), flat(apart)
    assert len(a) == len(b) and all(np.array_equal(_bits(u), _bits(v)) for u, v in zip(a, b))
