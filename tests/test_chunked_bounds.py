"""A sweep's survivors bounded in chunks (gpubench/methods/solver/gate.py: ``lowest_first``, ``chunk_paid``;
docs/scipy_go.md "cert41e"): the batched contraction (child_contract) and the coupled least-squares bound
(lsq_floor) take MAX_BOXES survivors at a time, the lowest bounds first, and go on to the next chunk while
the last paid for itself at a mean sweep a drop.  No bound changes: each box gets the bound it got in one
batch, so the chunked hooks must drop and raise exactly what one batch of all the survivors does, and keep
every child holding a point with f <= GUB (50 digits); the first chunk is the old single call's boxes."""
from types import SimpleNamespace

import numpy as np
from gpubench import functions
from gpubench.methods.solver import gate
from gpubench.methods.solver.partition import PartitionRule, child_boxes
from oracles import check_children_kept, mp_value

GUB = 3.0749e-4   # just above Kowalik's f* 3.0748610e-4


def test_lowest_first_covers_every_survivor_once_lowest_first():
    rng = np.random.default_rng(3)
    lb = rng.integers(0, 9, 50).astype(float)   # ties: the stable order decides
    chunks = list(gate.lowest_first(lb, 7))
    assert np.array_equal(chunks[0], np.argsort(lb, kind="stable")[:7])   # the old single call's boxes
    assert np.array_equal(np.sort(np.concatenate(chunks)), np.arange(50))
    assert all(lb[a].max() <= lb[b].min() for a, b in zip(chunks, chunks[1:]))
    assert [c.tolist() for c in gate.lowest_first(lb[:7], 7)] == [list(range(7))]
    # growing chunks (child_screen's): first, then twice the last up to cap, the same lowest-first order
    grown = list(gate.lowest_first(lb, 16, first=4))
    assert [c.size for c in grown] == [4, 8, 16, 16, 6]
    assert np.array_equal(np.concatenate(grown), np.argsort(lb, kind="stable"))


def test_a_chunk_pays_at_a_mean_sweep_a_drop():
    s = SimpleNamespace(sweep_cost=[1.0, 10])   # a mean sweep 0.1 s
    assert gate.chunk_paid(s, 0.3, 3) and not gate.chunk_paid(s, 0.3 * (1 + 2 ** -40), 3)
    assert not gate.chunk_paid(SimpleNamespace(sweep_cost=[0.0, 0]), 0.0, 5)   # no sweep yet: no value
    s._late = lambda: True
    assert not gate.chunk_paid(s, 0.0, 100)   # the time limit: the host work stops


def _search(fn, swept):
    return SimpleNamespace(fn=fn, dim=4, maximise=False, state=SimpleNamespace(gub=GUB), host_seconds=0.0,
                           contract_stats={}, sweep_cost=[swept, 1])


def _kowalik_children(parts, half):
    fn = functions.get("scipy_go.Kowalik")
    xs = np.asarray(fn.xstar(4), dtype=np.float64)
    plan = PartitionRule(4, 4, parts).plan(0)
    sidx = np.arange(plan.count)
    # distinct input bounds far below f (>= f* > 1e-4), shuffled: the chunks are not index ranges
    lb = np.random.default_rng(5).permutation(plan.count) * 1e-12
    return fn, xs, xs - half[0], xs + half[1], plan, sidx, lb


def chunks_drop_and_raise_what_one_batch_does(hook, module, stat, parts, half, monkeypatch):
    """Kowalik's children around its minimiser through ``hook`` (child_contract.contract_children or
    lsq_floor.raise_children, ``module`` its module): in chunks of 17 where every chunk pays, exactly
    what one batch of all gives, every child with a point at or below GUB kept (50 digits); where none
    pays, the first chunk alone bounded.  Called from the files that load the hook's forms already
    (tests/test_levelset_batch.py, tests/test_lsq_cleared.py: seconds of a cold build each)."""
    fn, xs, lo, hi, plan, sidx, lb = _kowalik_children(parts, half)
    one = _search(fn, 1e6)
    monkeypatch.setattr(module, "MAX_BOXES", sidx.size)
    kept1, raised1 = hook(one, lo, hi, plan, sidx, lb)
    monkeypatch.setattr(module, "MAX_BOXES", 17)
    many = _search(fn, 1e6)   # a sweep worth a million seconds: every chunk pays
    kept, raised = hook(many, lo, hi, plan, sidx, lb)
    assert one.contract_stats[stat] > 0
    assert np.array_equal(kept, kept1) and np.array_equal(raised, raised1)
    clo, chi = child_boxes(lo, hi, plan, sidx)
    assert check_children_kept(mp_value(fn), clo, chi, sidx, kept, raised, xs, GUB,
                               np.random.default_rng(2), 2) > 0
    # a sweep worth nothing: only the first chunk (the 17 lowest input bounds) is bounded
    first = set(np.argsort(lb, kind="stable")[:17].tolist())
    kept0, raised0 = hook(_search(fn, 0.0), lo, hi, plan, sidx, lb)
    rest = np.array([k for k in sidx if k not in first])
    assert np.all(np.isin(rest, kept0))
    assert np.array_equal(raised0[np.isin(kept0, rest)], lb[kept0[np.isin(kept0, rest)]])
    assert np.array_equal(np.setdiff1d(sidx, kept0), np.setdiff1d(sorted(first), kept1))
