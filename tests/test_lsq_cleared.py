"""The coupled least-squares bound of a fit with its denominators cleared (gpubench/forms/lsq.cleared_program,
methods/solver/lsq_floor._weights): f = sum_i w_i (N_i / D_i)^2 >= sum_i (w_i / max_X D_i^2) N_i^2 on a box X.

- Found for the rational fits only (Kowalik, Thurber), not for Watson (no denominator) nor Ratkowsky02
  (an exponential in its denominator).
- Never above f: exact values (mpmath at 50 digits, every rational constant exact) at random points,
  corners, centres and the stated minimiser of random, narrow, degenerate and minimiser-centred boxes of
  Kowalik and Thurber, and of boxes across their models' poles, where the bound stays finite; at most 0
  on boxes around an exact common zero of rational residuals with inexact binary coefficients.
- The solver's hook keeps every subregion of a box around Kowalik's minimiser that holds a point at or
  below GUB.
"""
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp

from gpubench import functions as F
from gpubench.forms.definition import Definition, variables
from gpubench.forms.lsq import LeastSquares, cleared_least_squares, cleared_program, least_squares
from gpubench.methods.solver import lsq_floor as M
from gpubench.methods.solver.partition import PartitionRule
from oracles import fit_boxes, lsq_hook_keeps_children, mp_value


# boxes across a pole: Kowalik's a = 4 denominator 16 + 4 x3 + x4 and a = 0.25's; Thurber's at t = -3.067,
# 1 - 3.067 x5 + 9.406 x6 - 28.85 x7, zero near x5 = 1, x6 = 0.5, x7 = 0.092
POLES = {"scipy_go.Kowalik": [([0.1, 0.1, -4.2, -0.5], [0.3, 0.3, -3.8, 0.5]),
                              ([0.15, 0.1, -0.6, 0.05], [0.25, 0.3, -0.4, 0.1])],
         "scipy_go.Thurber": [([1200, 1400, 500, 70, 0.95, 0.45, 0.05], [1300, 1500, 600, 80, 1.05, 0.55, 0.15]),
                              ([1288, 1491, 583, 75, 0.96, 0.39, 0.04], [1289, 1492, 584, 76, 1.0, 0.4, 0.1])]}


def test_found_for_rational_fits_only():
    assert cleared_least_squares(F.get("scipy_go.Kowalik")).den
    assert cleared_program(F.get("scipy_go.Watson").definition) is None
    assert cleared_program(F.get("scipy_go.Ratkowsky02").definition) is None


@pytest.mark.parametrize("name", ["scipy_go.Kowalik", "scipy_go.Thurber"])
def test_bound_never_above_exact_values(name):
    rng = np.random.default_rng(47)
    fn = F.get(name)
    lsq = cleared_least_squares(fn)
    n = lsq.n
    value = mp_value(fn)
    lo0, hi0 = fn.bounds(n)
    xs = np.asarray(fn.definition.xstar(n), dtype=np.float64)
    boxes = list(fit_boxes(lo0, hi0, rng, 30, centre=xs)) + [(np.array(a, float), np.array(b, float)) for a, b in POLES[name]]
    lo, hi = np.array([b[0] for b in boxes]), np.array([b[1] for b in boxes])
    bounds = M.coupled_floor(lsq, lo, hi)
    checked = 0
    for (blo, bhi), b in zip(boxes, bounds):
        pts = [blo, bhi, 0.5 * blo + 0.5 * bhi] + [np.where(rng.random(n) < 0.5, blo, bhi) for _ in range(2)]
        pts += [blo + (bhi - blo) * rng.random(n) for _ in range(5)]
        if np.all(blo <= xs) and np.all(xs <= bhi):
            pts.append(xs)
        for p in pts:
            try:
                v = value(p)
            except ZeroDivisionError:
                continue
            checked += 1
            assert mpmath.mpf(float(b)) <= v, (name, blo, bhi, p, b, v)
    assert checked > 250
    assert np.sum(bounds > 0) >= 3    # not vacuous
    # across the poles: the residuals' own bound gets nothing there, the cleared one a positive bound
    plain = M.coupled_floor(least_squares(fn), lo[-2:], hi[-2:])
    assert np.all(bounds[-2:] > np.maximum(plain, 0.0))


def test_at_most_zero_around_an_exact_common_zero():
    # x0 / x1 - 1/3, x0 - 1/7 and (x0 + x1) / (x1 - x0) - 2 all vanish at (1/7, 3/7)
    X = variables(2)
    expr = (X[0] / X[1] - sp.Rational(1, 3))**2 + (X[0] - sp.Rational(1, 7))**2 \
        + ((X[0] + X[1]) / (X[1] - X[0]) - 2)**2
    d = Definition(name="t", title="t", source="test", expr=expr, dim=2, domain=(0.1, 1),
                   xstar=lambda n: np.zeros(n), fstar=lambda n: 0.0)
    lsq = LeastSquares(cleared_program(d))
    z = [Fraction(1, 7), Fraction(3, 7)]
    rng = np.random.default_rng(11)
    for _ in range(40):
        w = rng.random(2) * rng.choice([0.1, 1e-6, 1e-12])
        t = rng.random(2)
        lo = np.nextafter(np.array([float(z[0]) - w[0] * t[0], float(z[1]) - w[1] * t[1]]), -np.inf)
        hi = np.nextafter(np.nextafter(lo + w, np.inf), np.inf) + 4 * np.spacing(np.array([float(v) for v in z]))
        assert lo[0] <= z[0] <= hi[0] and lo[1] <= z[1] <= hi[1]
        assert M.coupled_floor(lsq, lo, hi)[0] <= 0.0


def test_hook_keeps_every_subregion_with_a_point_below_gub():
    fn = F.get("scipy_go.Kowalik")
    xs = np.asarray(fn.definition.xstar(4))
    sel_lo, sel_hi = xs - np.array([0.01, 0.02, 0.05, 0.04]), xs + np.array([0.012, 0.03, 0.04, 0.05])
    lsq_hook_keeps_children(fn, 4, 3.0749e-4, sel_lo, sel_hi, PartitionRule(4, 4, 3).plan(0), mp_value(fn), xs, 2)


def test_active_set_reaches_the_bounded_least_squares_minimum():
    """lsq_floor._active_set (the multipliers' bounded least squares, all boxes at once) ends at scipy's BVLS
    objective on random ill-conditioned problems (columns of powers of t, as Thurber's), and on the cleared
    Thurber its multipliers drop a box that the projected Newton steps alone keep."""
    from scipy.optimize import lsq_linear
    rng = np.random.default_rng(13)
    B, m, n = 40, 30, 6
    t = rng.uniform(-3, 2, (B, m, 1))
    G = t ** np.arange(n) * rng.uniform(0.5, 2, (B, 1, n)) * rng.choice([1.0, 100.0], (B, 1, n))
    y = rng.normal(0, 50, (B, m))
    Q = np.einsum("bmn,bmk->bnk", G, G)
    c = np.einsum("bmn,bm->bn", G, y)
    u = M._active_set(Q, c, np.eye(n))
    assert np.all(np.abs(u) <= 1.0)
    for b in range(B):
        ref = lsq_linear(G[b], -y[b], bounds=(-1, 1), method="bvls").x
        got, want = np.sum((G[b] @ u[b] + y[b]) ** 2), np.sum((G[b] @ ref + y[b]) ** 2)
        assert got <= want * (1 + 1e-7) + 1e-9, (b, got, want)
    # a box of Thurber's list after 20 s of search (CPU twin): relaxation minimum 1.9e4 > GUB
    lsq = cleared_least_squares(F.get("scipy_go.Thurber"))
    lo = np.array([[1250.0, 1437.5, 493.75, 62.5, 0.8125, 0.325, 0.1]])
    hi = lo + np.array([[93.75, 93.75, 56.25, 8.75, 0.11875, 0.225, 0.05]])
    M.ACTIVE_SET = False
    try:
        newton = M.coupled_floor(lsq, lo, hi)[0]
    finally:
        M.ACTIVE_SET = True
    assert M.coupled_floor(lsq, lo, hi)[0] > max(newton, 5642.7082397)


def test_chunked_bound_drops_and_raises_what_one_batch_does(monkeypatch):
    """lsq_floor.raise_children in chunks of MAX_BOXES (gate.lowest_first, gate.chunk_paid):
    tests/test_chunked_bounds.py."""
    from test_chunked_bounds import chunks_drop_and_raise_what_one_batch_does
    chunks_drop_and_raise_what_one_batch_does(M.raise_children, M, "lsq_dropped", 3,
                                              (np.array([0.01, 0.02, 0.05, 0.04]), np.array([0.012, 0.03, 0.04, 0.05])),
                                              monkeypatch)


def test_cleared_first_keeps_and_raises_what_both_bounds_do():
    """lsq_floor._chunk_bound (the cleared bound first, the fit's own only on the boxes it leaves at or under
    GUB; docs/scipy_go.md cert41f): the same boxes kept, with the same bounds bit for bit, as the max of both
    bounds over every box, on Kowalik's children around its minimiser and across a pole at GUB levels that
    drop all, some or half; a dropped box's bound stays above GUB."""
    fn = F.get("scipy_go.Kowalik")
    lsq, cleared = least_squares(fn), cleared_least_squares(fn)
    xs = np.asarray(fn.definition.xstar(4))
    plan = PartitionRule(4, 4, 3).plan(0)
    from gpubench.methods.solver.partition import child_boxes
    for sel_lo, sel_hi in [(xs - 0.3, xs + 0.25), tuple(np.asarray(b, dtype=float) for b in POLES["scipy_go.Kowalik"][0])]:
        lo, hi = child_boxes(sel_lo, sel_hi, plan, np.arange(plan.count))
        both = np.maximum(M.coupled_floor(lsq, lo, hi), M.coupled_floor(cleared, lo, hi))
        for gub in [-1.0, 3.0749e-4, float(np.median(both))]:
            got = M._chunk_bound(lsq, cleared, lo, hi, gub)
            kept = both <= gub
            assert np.array_equal(got <= gub, kept)
            assert np.array_equal(got[kept], both[kept])
            assert np.all(got[~kept] > gub)
    assert np.array_equal(M._chunk_bound(lsq, None, lo, hi, 0.0), M.coupled_floor(lsq, lo, hi))
