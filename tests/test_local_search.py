"""Local search for upper bounds (gpubench/methods/solver/local.py, issue 30): rigor against an exact
oracle on random boxes, and a broken variant caught.

Styblinski-Tang is separable, so its minimum over a box is exact: per coordinate, the least of
(t^4 - 16 t^2 + 5 t)/2 over the box's two ends and the real roots of 4 t^3 - 32 t + 5 inside it
(mpmath, 40 digits).  On each random box the search with local_search must still enclose that
minimum (GLB <= f* <= GUB), keep the exact minimiser inside an output region, and reach an
upper bound within 1e-9 of f* (the descent does its job).  A descent that forgets the box (no
bounds, no clip: a natural slip) reaches the unconstrained minimiser outside it, a GUB below the
box's minimum, and the checks catch it.
"""
import mpmath
import numpy as np
import pytest

from gpubench import functions as F
from gpubench.methods.solver import local
from gpubench.methods.solver.core import run_search
from gpubench.methods.solver.settings import Settings


class Boxed:
    """A library function on another box (the compiled forms take the box as data)."""

    def __init__(self, fn, lo, hi):
        self._fn, self.lo, self.hi = fn, np.asarray(lo, float), np.asarray(hi, float)

    def __getattr__(self, k):
        return getattr(self._fn, k)

    def bounds(self, n):
        return self.lo.copy(), self.hi.copy()


def _g(t):
    return (t**4 - 16 * t**2 + 5 * t) / 2


def oracle(lo, hi):
    """(f*, x*) of Styblinski-Tang over the box, exactly (40 digits); x* rounded to doubles."""
    with mpmath.workdps(40):
        xs, total = [], mpmath.mpf(0)
        for a, b in zip(lo, hi):
            cands = [mpmath.mpf(float(a)), mpmath.mpf(float(b))]
            cands += [r.real for r in mpmath.polyroots([4, 0, -32, 5])
                      if abs(r.imag) < 1e-30 and a <= r.real <= b]
            t = min(cands, key=_g)
            xs.append(float(t))
            total += _g(t)
        return total, np.array(xs)



def enclosure_problems(r, fstar, xstar):
    """What a search result ``r`` gets wrong about the exact minimum ``fstar`` (an mpmath number) at
    ``xstar``: [GLB, GUB] must hold it and some output region the minimiser."""
    out = []
    if not (mpmath.mpf(r.glb) <= fstar <= mpmath.mpf(r.gub)):
        out.append(f"[GLB, GUB] = [{r.glb!r}, {r.gub!r}] misses f* = {mpmath.nstr(fstar, 17)}")
    if not any(np.all(lo_ - 1e-12 <= xstar) and np.all(xstar <= hi_ + 1e-12)
               for lo_, hi_ in zip(r.regions_lo, r.regions_hi)):
        out.append(f"the minimiser {xstar} lies in no output region")
    return out

def problems(lo, hi, local_search=True):
    """What is wrong with the search on the box [lo, hi] (empty when rigorous and effective)."""
    fn = Boxed(F.get("styblinski_tang"), lo, hi)
    fstar, xstar = oracle(lo, hi)
    settings = Settings(backend="cpu", split_dims=2, parts=4, tol=1e-4, local_search=local_search,
                        max_iterations=400)
    try:
        r = run_search(fn, 2, settings)
    except RuntimeError as exc:          # every region ruled out
        return [str(exc)]
    out = enclosure_problems(r, fstar, xstar)
    if local_search and not r.gub - float(fstar) <= 1e-9:
        out.append(f"GUB {r.gub!r} is not within 1e-9 of f* = {float(fstar)!r}")
    if local_search and not (np.all(lo <= r.x) and np.all(r.x <= hi)):
        out.append(f"the best point {r.x} is outside the box")
    return out


def boxes(seed, count, lo_range=(-5.0, 4.0)):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        lo = rng.uniform(*lo_range, size=2)
        hi = np.minimum(lo + rng.uniform(0.3, 6.0, size=2), 5.0)
        yield lo, hi


def test_local_search_keeps_the_minimum_on_random_boxes():
    for lo, hi in boxes(30, 6):
        assert problems(lo, hi) == [], (lo, hi)


def test_local_search_lowers_gub_sooner():
    """At the same iteration budget the descent's GUB is at f*, the samples' is not."""
    lo, hi = np.array([-4.7, -1.3]), np.array([3.1, 4.4])
    fstar, _ = oracle(lo, hi)
    fn = Boxed(F.get("styblinski_tang"), lo, hi)
    plain = run_search(fn, 2, Settings(backend="cpu", split_dims=2, parts=4, tol=1e-4, max_iterations=3))
    found = run_search(fn, 2, Settings(backend="cpu", split_dims=2, parts=4, tol=1e-4, max_iterations=3,
                                       local_search=True))
    assert found.gub - float(fstar) <= 1e-9 < plain.gub - float(fstar)
    assert found.options.get("local_search") is True and "local_search" not in plain.options


def test_a_descent_that_leaves_the_box_is_caught(monkeypatch):
    """Boxes away from the unconstrained minimiser (-2.90, -2.90): the broken descent reaches it."""
    monkeypatch.setattr(local, "_bounds", lambda lo, hi: None)
    monkeypatch.setattr(local, "_clip", lambda x, lo, hi: x)
    caught = [problems(lo, hi) for lo, hi in boxes(31, 4, lo_range=(-2.5, 1.0))]
    # (on a box whose best sample lies in a basin of its own the unbounded descent stays inside)
    assert sum(map(bool, caught)) >= 3, caught


@pytest.mark.parametrize("maximise", [False, True])
def test_descent_bound_is_the_rigorous_upper_end(maximise):
    fn = F.get("styblinski_tang")
    lo, hi = np.full(2, -5.0), np.full(2, 5.0)
    x, ub = local.descend(fn, np.array([0.3, -0.7]), lo, hi, maximise)
    flo, fhi = fn.interval(x, x)
    assert ub == (-flo if maximise else fhi)
    assert np.all(lo <= x) and np.all(x <= hi)
