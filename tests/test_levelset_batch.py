"""The level set's contraction of many boxes at once (forms/levelset_batch.py) and the solver's hook that
runs it on a sweep's survivors (methods/solver/child_contract.py; issue 41): each box's result is the
one-box contraction's, no point with f <= level is removed (f at 50 digits), a batch that marks every
box empty when one is (a mask not kept per box) is caught, and the hook keeps every subregion holding
a point below GUB."""
import math
from types import SimpleNamespace

import mpmath
import numpy as np

from gpubench import functions
from gpubench.forms import levelset_batch as LB
from gpubench.forms.levelset import LevelSet
from gpubench.methods.solver import child_contract as CC
from gpubench.methods.solver.partition import PartitionRule, child_boxes
from oracles import check_children_kept
from test_levelset_quotients import Oracle, _boxes

NAMES = ["scipy_go.Kowalik", "scipy_go.Ratkowsky01", "scipy_go.Watson"]


def _batch(name, count, seed):
    fn = functions.get(name)
    rng = np.random.default_rng(seed)
    boxes = _boxes(fn, rng, count)
    return fn, np.array([b[0] for b in boxes]), np.array([b[1] for b in boxes]), rng


def test_each_box_gets_the_one_box_contraction():
    """Per box: emptied exactly where LevelSet.contract empties it, else the same box, bit for bit, at
    levels that empty some boxes and keep others (f at the stated minimiser and 100x it)."""
    emptied = kept = 0
    for name in NAMES[:2]:
        fn, lo, hi, _ = _batch(name, 5, 6)
        L = LevelSet(fn.definition, fn.definition.dim)
        fstar = fn.fstar(fn.definition.dim)
        for level in (fstar * (1 + 1e-6), 100 * fstar):
            blo, bhi, empty, floor = LB.contract(L, lo, hi, level)
            emptied, kept = emptied + int(empty.sum()), kept + int((~empty).sum())
            for k in range(lo.shape[0]):
                one = L.contract(lo[k], hi[k], level)
                assert (one is None) == bool(empty[k])
                if one is not None:
                    assert np.array_equal(one[0], blo[k]) and np.array_equal(one[1], bhi[k])
                assert floor[k] == L.enclose(lo[k], hi[k])[0]   # the first pass: f's enclosure on the box
    assert emptied > 0 and kept > 0


def removed_points(names, seed=7):
    """Points with f <= level (a sampled point's value, boxes of one batch) the batched contraction removed."""
    bad = 0
    for name in names:
        fn, lo, hi, rng = _batch(name, 10, seed)
        L = LevelSet(fn.definition, fn.definition.dim)
        f = Oracle(fn)
        pts = [[lo[k], hi[k], 0.5 * (lo[k] + hi[k])] + [rng.uniform(lo[k], hi[k]) for _ in range(5)]
               for k in range(lo.shape[0])]
        vals = [[f(p) for p in row] for row in pts]
        finite = sorted(v for row in vals for v in row if mpmath.isfinite(v))
        level = float(np.nextafter(float(finite[len(finite) // 4]), math.inf))
        blo, bhi, empty, _ = LB.contract(L, lo, hi, level)
        for k in range(lo.shape[0]):
            for p, v in zip(pts[k], vals[k]):
                if v <= level and (empty[k] or not (np.all(blo[k] <= p) and np.all(p <= bhi[k]))):
                    bad += 1
    return bad


def test_batched_contraction_keeps_every_point_of_the_level_set():
    assert removed_points(NAMES) == 0


def test_a_mask_shared_by_the_batch_is_caught(monkeypatch):
    """A batch whose empty projection marks every box (the mask not kept per box) drops boxes holding
    points of the level set: caught."""
    def broken(self, a, lo, hi):
        bad = lo > hi
        self.empty |= bool(np.any(bad))
        return np.where(bad, a[0], lo), np.where(bad, a[1], hi)
    monkeypatch.setattr(LB._Batch, "mark", broken)
    assert removed_points(NAMES) > 0


def test_hook_keeps_every_subregion_with_a_point_below_gub():
    """Kowalik, a box around its minimiser cut into 4^4 subregions, GUB just above f*: every subregion
    where a sampled point (or the stated minimiser) has f <= GUB (50 digits) is kept, some are dropped,
    and a kept one's bound never exceeds the least sampled value in it; off, nothing is dropped."""
    fn = functions.get("scipy_go.Kowalik")
    xs = np.asarray(fn.xstar(4), dtype=np.float64)
    gub = 3.0749e-4
    sel_lo, sel_hi = xs - 0.02, xs + 0.03
    plan = PartitionRule(4, 4, 4).plan(0)
    sidx = np.arange(plan.count)
    lb = np.zeros(plan.count)
    search = SimpleNamespace(fn=fn, dim=4, maximise=False, state=SimpleNamespace(gub=gub), host_seconds=0.0,
                             contract_stats={}, sweep_cost=[0.0, 0])
    kept, raised = CC.contract_children(search, sel_lo, sel_hi, plan, sidx, lb)
    assert search.contract_stats["children_dropped"] > 0
    f = Oracle(fn)
    clo, chi = child_boxes(sel_lo, sel_hi, plan, sidx)
    rng = np.random.default_rng(8)
    assert check_children_kept(f, clo, chi, sidx, kept, raised, xs, gub, rng, 4) > 0
    CC.ENABLED = False
    try:
        assert CC.contract_children(search, sel_lo, sel_hi, plan, sidx, lb)[0].size == sidx.size
    finally:
        CC.ENABLED = True


def test_the_gate_stops_a_contraction_that_drops_nothing():
    """After the probe, the survivors' contraction runs while its seconds stay within a mean sweep per
    subregion it dropped (8 besides): one that drops nothing stops (Xor), one that drops many goes on."""
    def search(spent, dropped):
        s = SimpleNamespace(sweep_cost=[10.0, 100], contract_stats={"children_dropped": dropped})
        s._child_contract_cost = [spent, CC.PROBE]
        return s
    assert CC._pays(search(0.5, 0)) and not CC._pays(search(1.0, 0))
    assert CC._pays(search(50.0, 1000)) and not CC._pays(search(101.0, 1000))
    fresh = SimpleNamespace(sweep_cost=[0.0, 0], contract_stats={})
    assert CC._pays(fresh)


def test_a_batch_mask_is_its_own_threads():
    """While a batched walk runs on one thread, a one-box walk on another (a GPU thread's search beside
    a host chunk's) still finds an empty projection empty (raises), and marks no box of the batch."""
    import threading
    from gpubench.forms import levelset_tree as tree
    batch = LB._Batch(3)
    tree.LOCAL.batch = batch
    seen = []

    def other():
        try:
            tree._meet((np.zeros(3), np.ones(3)), (np.full(3, 2.0), np.full(3, 3.0)))
            seen.append("marked")
        except tree._Empty:
            seen.append("empty")

    try:
        t = threading.Thread(target=other)
        t.start()
        t.join()
    finally:
        tree.LOCAL.batch = None
    assert seen == ["empty"] and not batch.empty.any()


def test_chunked_contraction_drops_and_raises_what_one_batch_does(monkeypatch):
    """child_contract in chunks of MAX_BOXES (gate.lowest_first, gate.chunk_paid): tests/test_chunked_bounds.py."""
    from test_chunked_bounds import chunks_drop_and_raise_what_one_batch_does
    chunks_drop_and_raise_what_one_batch_does(CC.contract_children, CC, "children_dropped", 4, (0.02, 0.03), monkeypatch)


def test_the_finer_screen_keeps_every_child_with_a_point_below_gub():
    """child_screen on Kowalik's children (cut, contracted, LEVELS times): tests/test_child_screen.py."""
    from test_child_screen import screen_keeps_every_child_with_a_point_below_gub
    screen_keeps_every_child_with_a_point_below_gub()
