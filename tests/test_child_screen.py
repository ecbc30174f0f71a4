"""The survivors' finer screen (gpubench/methods/solver/child_screen.py; docs/scipy_go.md "cert41e"): each
survivor cut in halves along its widest coordinates, the pieces contracted at GUB, LEVELS times; a survivor
whose pieces are all emptied is dropped.  Its soundness rests on (1) the pieces covering their box, checked
on random, degenerate, huge and subnormal boxes (every random point and corner of a box lies in a piece,
every piece inside the box), and (2) the batched contraction, tested in tests/test_levelset_batch.py; here
the hook end to end (:func:`screen_keeps_every_child_with_a_point_below_gub`, run from
tests/test_levelset_batch.py, which builds Kowalik's level set already): on Kowalik's children around its
minimiser with GUB just above f*, every child holding a point with f <= GUB (50 digits) is kept and some
are dropped.  Broken once each: the upper halves starting a tenth of the width above the midpoint (the
cover test fails), a survivor dropped where any one of its pieces is emptied rather than all (the hook
test fails); restored."""
from types import SimpleNamespace

import numpy as np

from gpubench import functions
from gpubench.methods.solver import child_screen as CS
from gpubench.methods.solver.partition import PartitionRule, child_boxes
from oracles import check_children_kept, mp_value

GUB = 3.0749e-4


def _boxes(rng, count, n):
    scale = rng.choice([1.0, 1e-300, 1e300, 1e-9], size=(count, 1))
    a = rng.normal(size=(count, n)) * scale
    b = a + np.abs(rng.normal(size=(count, n))) * scale * rng.choice([1.0, 0.0, 1e-15], size=(count, n))
    return np.minimum(a, b), np.maximum(a, b)


def test_the_pieces_cover_their_box_and_lie_inside_it():
    rng = np.random.default_rng(11)
    for n in (1, 3, 4, 6):
        lo, hi = _boxes(rng, 40, n)
        plo, phi, parent = CS.halves(lo, hi)
        assert np.all(plo <= phi) and np.all(plo >= lo[parent]) and np.all(phi <= hi[parent])
        for k in range(lo.shape[0]):
            mine = parent == k
            pts = [lo[k], hi[k]] + [lo[k] + (hi[k] - lo[k]) * rng.random(n) for _ in range(20)]
            pts += [np.where(rng.random(n) < 0.5, lo[k], hi[k]) for _ in range(4)]
            for p in pts:
                p = np.minimum(np.maximum(p, lo[k]), hi[k])
                assert np.any(np.all((plo[mine] <= p) & (p <= phi[mine]), axis=1))


def screen_keeps_every_child_with_a_point_below_gub():
    fn = functions.get("scipy_go.Kowalik")
    xs = np.asarray(fn.xstar(4), dtype=np.float64)
    sel_lo, sel_hi = xs - 0.02, xs + 0.03
    plan = PartitionRule(4, 4, 3).plan(0)
    sidx = np.arange(plan.count)
    lb = np.zeros(plan.count)
    search = SimpleNamespace(fn=fn, dim=4, maximise=False, state=SimpleNamespace(gub=GUB), host_seconds=0.0,
                             contract_stats={}, sweep_cost=[1e6, 1], _child_contract_cost=[1.0, 1])
    kept, same = CS.screen_children(search, sel_lo, sel_hi, plan, sidx, lb)
    assert 0 < search.contract_stats["screen_dropped"] < sidx.size
    assert np.array_equal(same, lb[kept])
    clo, chi = child_boxes(sel_lo, sel_hi, plan, sidx)
    assert check_children_kept(mp_value(fn), clo, chi, sidx, kept, same, xs, GUB, np.random.default_rng(4), 3) > 0
