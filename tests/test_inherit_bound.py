"""Variant strong's children start from their parent's bound (gpubench/methods/solver/core.py, INHERIT_BOUND;
issue 41): the selected region's lower bound in L (its sweep's, raised by the host bounds: the batched
contraction, the coupled least-squares bound) is a lower bound of f over its box, so over every subregion,
and the sweep's children are raised to it.  Without it a child's own sweep bound could fall below its
parent's and GLB went down: Thurber n = 7 on the H200 at b3a8034, GLB 2,204.8 after the first iteration and
196.1 after the second, whose children's host bounds the time limit cut short.

Thurber n = 7 at split_dims 2 on the CPU twin (16 subregions a sweep, 60 iterations: ~7 s, but about 100 s
in a fresh checkout, where its forms compile first, so marked slow: ``make test-slow``): no child
is ever appended below the bound its parent was selected with, GLB never goes down, and GLB stays at or
under SciPy's stated f* (and GUB).  Broken once: INHERIT_BOUND = False, three iterations' children fell
below their parents (by ~1e-5) and GLB went down three times (this test fails); restored.

The fast test runs SixHumpCamel (whose forms the suite compiles anyway) with each selected region's bound lifted
to just under GUB as it leaves L, a bound its children's own sweeps do not reach (a probe of the mechanism, not a
true bound): every child must still carry it.  Broken once: INHERIT_BOUND = False, the children of 9 of the 10
iterations that made any fell below it (this test fails); restored."""
import math

import numpy as np
import pytest

from gpubench import functions
from gpubench.methods import interval
from gpubench.methods.solver import core, region_list


def _watch(monkeypatch, lift=None):
    """[parent's bound, [its children's bounds]] an iteration; ``lift(search, lb)``: the bound the popped
    region leaves L with."""
    rl = region_list.RegionList
    pop, append, iterate = rl.pop_best_open, rl.append, core.Search._iterate
    seen, search = [], []

    def iterating(self):
        search[:] = [self]
        return iterate(self)

    def popped(self):
        entry = pop(self)
        if lift is not None and search:
            entry = (*entry[:3], lift(search[0], entry[3]))
        seen.append([entry[3], []])
        return entry

    def appended(self, itr, cyc, open_, sidx, lb):
        if seen:
            seen[-1][1].extend(np.asarray(lb, dtype=np.float64).tolist())
        return append(self, itr, cyc, open_, sidx, lb)

    monkeypatch.setattr(core.Search, "_iterate", iterating)
    monkeypatch.setattr(rl, "pop_best_open", popped)
    monkeypatch.setattr(rl, "append", appended)
    return seen


def test_children_carry_the_bound_their_parent_left_the_list_with(monkeypatch):
    def near_gub(search, lb):   # a bound the children's own sweeps do not reach (not a true one: a probe)
        gub = search.state.gub
        return max(lb, gub - 1e-6 * (1 + abs(gub))) if math.isfinite(lb) and math.isfinite(gub) else lb

    seen = _watch(monkeypatch, near_gub)
    settings = interval.METHOD.make_settings(dict(backend="cpu", variant="strong", split_dims=2, parts=4,
                                                  tol=1e-7, gap_tol=1e-9, max_iterations=12, time_limit=None))
    core.run_search(functions.get("scipy_go.SixHumpCamel"), 2, settings, method_name="interval")
    with_children = [(p, c) for p, c in seen if c]
    assert len(with_children) >= 3
    assert [(p, min(c)) for p, c in with_children if min(c) < p] == []


@pytest.mark.slow
def test_children_never_fall_below_their_parents_bound(monkeypatch):
    seen = _watch(monkeypatch)
    fn = functions.get("scipy_go.Thurber")
    method = interval.METHOD
    settings = method.make_settings(dict(backend="cpu", variant="strong", split_dims=2, parts=4, tol=1e-7,
                                         gap_tol=1e-9, max_iterations=60, time_limit=None))
    result = core.run_search(fn, 7, settings, method_name="interval")
    assert len(seen) >= 30
    below = [(p, min(c)) for p, c in seen if c and min(c) < p]
    assert below == []
    glb = np.asarray(result.history["glb"])
    assert np.all(np.diff(glb) >= 0)
    assert glb[-1] <= fn.fstar(7) <= result.history["gub"][-1]
    assert sum(1 for p, c in seen if c) >= 3   # children were appended in several iterations
