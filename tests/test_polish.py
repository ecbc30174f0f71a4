"""Derivative-free polish of the upper bound (``polish = True``, gpubench/methods/solver/local.py, issue 30):
rigor against exact oracles, and broken variants caught.

The polish moves the point that holds GUB (snap to binary grids, then a compass search) and
takes as GUB the upper end of the outward-rounded enclosure on the point box.  Two oracles:

- a Bukin06-like function plus 2/3, whose minimum is exactly 2/3 at (-10, 1): the polish must
  reach it from a descent's end point a few ulps away (GUB - 2/3 <= 1e-15) without ever going
  below 2/3; valued by the float point value instead (a natural slip), GUB is the double
  0.666...6 < 2/3, and the check catches it;
- Styblinski-Tang on random boxes, its minimum over the box exact (tests/test_local_search.py's
  oracle): the polish's bound is never below it, its point stays in the box, and the bound is
  at least the exact value there (python-flint arb, tests/oracles.py).  A polish that forgets
  the box (no clip) steps out of boxes whose minimum lies on their edge, below their minimum.
"""
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from gpubench import functions as F
from gpubench.forms.definition import Abs, Definition, Max, Rational, sqrt, variables
from gpubench.forms.function import TestFunction
from gpubench.methods.solver import local
from gpubench.methods.solver.core import run_search
from gpubench.methods.solver.settings import Settings
from oracles import IN, oracle, value_inside
from test_local_search import Boxed, boxes, enclosure_problems
from test_local_search import oracle as styblinski_minimum

X = variables(2)
BUKIN_LIKE = Definition(
    name="polish_bukin_like", title="Bukin06 (as scipy_go writes it) + 2/3", source="tests/test_polish.py",
    expr=10 * sqrt(Abs(100 * Max(X[1] - 1, -4) - (X[0] - 10) * (X[0] + 10))) + Rational(1, 100) * Abs(X[0] + 10)
    + Rational(2, 3),
    dim=2, domain=lambda n: (np.array([-15.0, -3.0]), np.array([-5.0, 3.0])),
    xstar=lambda n: np.array([-10.0, 1.0]), fstar=lambda n: 2 / 3)
FSTAR = Fraction(2, 3)
# where L-BFGS-B ends from the search's samples (a CPU probe): a few ulps off the curve x2 = x1^2/100
DESCENT_END = np.array([-9.999999981373549, 0.9999999962747097])


FN = TestFunction(BUKIN_LIKE)


def bukin_like():
    return FN


def problems_at(fn, found, lo, hi, fstar, n=2):
    """What is wrong with a polish result (x, ub) on the box [lo, hi] whose minimum is fstar."""
    x, ub = found
    out = []
    if Fraction(ub) < Fraction(fstar):
        out.append(f"GUB {ub!r} is below the minimum {float(fstar)!r}")
    if not (np.all(lo <= x) and np.all(x <= hi)):
        out.append(f"the point {x} is outside the box")
    if value_inside(oracle(fn, n), np.asarray(x, dtype=np.float64), -math.inf, ub) != IN:
        out.append(f"GUB {ub!r} is below the exact f at {x}")
    return out


def test_polish_reaches_the_exact_minimiser_and_stays_above_it():
    fn = bukin_like()
    lo, hi = fn.bounds(2)
    found = local.polish(fn, DESCENT_END, lo, hi)
    assert problems_at(fn, found, lo, hi, FSTAR) == []
    assert np.array_equal(found[0], [-10.0, 1.0])       # the snap finds it
    assert Fraction(found[1]) - FSTAR <= Fraction(1e-15)
    # where it started, the enclosure's upper end is 1.9e-7 above f*: the polish is what closes it
    assert fn.interval(DESCENT_END, DESCENT_END)[1] - 2 / 3 > 1e-7


def test_a_polish_valued_by_the_float_point_value_is_caught(monkeypatch):
    fn = bukin_like()
    lo, hi = fn.bounds(2)
    # the polish values its candidates through _upper_at (the compiled interval form, bound once)
    monkeypatch.setattr(local, "_upper_at", lambda fn, n, maximise: lambda v: float(fn.point(v)))
    found = local.polish(fn, DESCENT_END, lo, hi)
    assert any("below the minimum" in p for p in problems_at(fn, found, lo, hi, FSTAR))


def test_polish_for_a_maximiser_bounds_minus_f():
    fn = bukin_like()
    lo, hi = fn.bounds(2)
    x, ub = local.polish(fn, np.array([-14.9, 2.9]), lo, hi, maximise=True)
    flo, _ = fn.interval(x, x)
    assert ub == -flo and np.all(lo <= x) and np.all(x <= hi)


def _styblinski_problems(seed, count, lo_range):
    fn = F.get("styblinski_tang")
    found_any = []
    for lo, hi in boxes(seed, count, lo_range=lo_range):
        fstar, xstar = styblinski_minimum(lo, hi)
        # start at the box's minimiser rounded to a double, and at the box's centre
        for start in (xstar, (lo + hi) / 2):
            found = local.polish(Boxed(fn, lo, hi), start, lo, hi)
            probs = problems_at(fn, found, lo, hi, Fraction(mpmath.nstr(fstar, 40)))
            found_any.append(probs)
    return found_any


def test_polish_never_goes_below_the_minimum_on_random_boxes():
    assert all(p == [] for p in _styblinski_problems(40, 6, (-5.0, 4.0)))


def test_a_polish_that_forgets_the_box_is_caught(monkeypatch):
    """Boxes away from the unconstrained minimiser (-2.90, -2.90): their minimum is on an edge,
    and a polish that does not clip steps over it."""
    monkeypatch.setattr(local, "_clip", lambda x, lo, hi: x)
    caught = _styblinski_problems(41, 3, (-2.5, 1.0))
    assert sum(any("below the minimum" in q for q in p) for p in caught) >= 2, caught


@pytest.mark.parametrize("local_search", [False, True])
def test_search_with_polish_keeps_the_minimum(local_search):
    """The solver with polish (alone, or after the descent) encloses the box's minimum, keeps its
    minimiser in a region and reaches it; the options say so."""
    lo, hi = np.array([-4.7, -1.3]), np.array([3.1, 4.4])
    fstar, xstar = styblinski_minimum(lo, hi)
    fn = Boxed(F.get("styblinski_tang"), lo, hi)
    r = run_search(fn, 2, Settings(backend="cpu", split_dims=2, parts=4, tol=1e-4, max_iterations=40,
                                   polish=True, local_search=local_search))
    assert mpmath.mpf(r.glb) <= fstar <= mpmath.mpf(r.gub)
    assert any(np.all(a - 1e-12 <= xstar) and np.all(xstar <= b + 1e-12) for a, b in zip(r.regions_lo, r.regions_hi))
    assert r.gub - float(fstar) <= 1e-9
    assert r.options.get("polish") is True


def test_polish_is_off_by_default_and_served_by_the_device_loop():
    """The device loop stops a launch after an iteration that lowered GUB, and the host polishes
    from it before the next (tests/test_devloop_strong.py): polish no longer needs the host loop."""
    from gpubench.methods.solver.settings import host_loop_reasons
    assert Settings().polish is False
    s = Settings(backend="cuda", loop="device", polish=True)
    s.check("interval solver")
    assert s.polish and not any("polish" in why for why in host_loop_reasons(s))


# ---------------------------------------------------------------- multistart (local_starts)
def _multistart_problems(seed, count, lo_range):
    """What is wrong with the search with local_starts = 8 (one iteration after the multistart) on
    random boxes of Styblinski-Tang, against the exact minimum over each box."""
    fn = F.get("styblinski_tang")
    out = []
    for lo, hi in boxes(seed, count, lo_range=lo_range):
        fstar, xstar = styblinski_minimum(lo, hi)
        try:
            r = run_search(Boxed(fn, lo, hi), 2, Settings(backend="cpu", split_dims=2, parts=4, tol=1e-4,
                                                           max_iterations=1, local_starts=8))
        except RuntimeError as exc:          # every region ruled out: GUB below the box's minimum
            out.append([f"misses f*: {exc}"])
            continue
        probs = enclosure_problems(r, fstar, xstar)
        if not r.gub - float(fstar) <= 1e-9:      # the multistart found the box's minimum at once
            probs.append(f"GUB {r.gub!r} is not within 1e-9 of f* = {float(fstar)!r}")
        if r.options.get("local_starts") != 8:
            probs.append("the options do not say local_starts = 8")
        out.append(probs)
    return out


def test_multistart_keeps_the_minimum_and_finds_it_on_random_boxes():
    assert all(p == [] for p in _multistart_problems(42, 4, (-5.0, 4.0)))


def test_a_multistart_whose_descents_forget_the_box_is_caught(monkeypatch):
    monkeypatch.setattr(local, "_bounds", lambda lo, hi: None)
    monkeypatch.setattr(local, "_clip", lambda x, lo, hi: x)
    caught = _multistart_problems(43, 3, (-2.5, 1.0))
    assert sum(any("misses f*" in q for q in p) for p in caught) >= 2, caught


def test_multistart_points_cover_the_box_and_reach_the_global_basin():
    """Halton points over [-5, 5]^2 start a descent in each of Styblinski-Tang's four basins; the best
    end point is the global minimiser (-2.9035, -2.9035), not one of the three local ones."""
    fn = F.get("styblinski_tang")
    lo, hi = np.full(2, -5.0), np.full(2, 5.0)
    pts = local.starts(lo, hi, 8)
    assert pts.shape == (8, 2) and np.all(lo <= pts) and np.all(pts <= hi)
    assert np.array_equal(pts, local.starts(lo, hi, 8))                # reproducible
    assert {tuple(np.sign(p)) for p in pts} >= {(-1, -1), (-1, 1), (1, -1), (1, 1)}
    fstar, _ = styblinski_minimum(lo, hi)
    best = min(local.descend(fn, p, lo, hi)[1] for p in pts)
    assert 0 <= best - float(fstar) <= 1e-9
    assert local.starts(lo, hi, 0).shape == (0, 2)


def test_descents_run_blas_on_one_thread(monkeypatch):
    """L-BFGS-B's tiny BLAS calls with a spinning thread pool took 4 ms each on a shared 2-core CPU
    (8 descents on Trid n = 6: 4.3 s, against 0.02 s on one thread): descend limits BLAS to one
    thread while it runs, and gives the pool back."""
    import threadpoolctl
    import scipy.optimize
    seen = []
    real = scipy.optimize.minimize

    def spy(*a, **k):
        seen.append({i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"})
        return real(*a, **k)
    monkeypatch.setattr(scipy.optimize, "minimize", spy)
    before = {i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"}
    fn = F.get("styblinski_tang")
    local.descend(fn, np.array([0.3, -0.7]), np.full(2, -5.0), np.full(2, 5.0))
    assert seen == [{1}]
    assert {i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"} == before
