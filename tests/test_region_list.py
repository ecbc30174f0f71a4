"""The segmented region list behaves as the paper's flat list."""
import math

import numpy as np

from gpubench.methods.solver.region_list import RegionList


def _flat_reference(entries, gub=None):
    return [e for e in entries if gub is None or not e[3] > gub]


def test_selection_pruning_and_order_match_a_flat_list():
    rng = np.random.default_rng(7)
    L, flat = RegionList(), []
    for it in range(30):
        k = int(rng.integers(0, 50))
        sidx = np.sort(rng.choice(1000, k, replace=False))
        lb = np.round(rng.normal(size=k), 1)  # many ties
        is_open = bool(rng.random() < 0.8)
        L.append(it, it % 7, is_open, sidx, lb)
        flat += [(it, it % 7, int(s), float(b), is_open) for s, b in zip(sidx, lb)]
        if flat and any(e[4] for e in flat) and it % 3 == 0:
            # the flat rule: first open entry with the smallest bound
            best = min((e for e in flat if e[4]), key=lambda e: e[3])
            j = next(q for q, e in enumerate(flat) if e[4] and e[3] == best[3])
            assert L.pop_best_open() == flat.pop(j)[:4]
        if it % 5 == 4:
            gub = float(rng.normal())
            L.prune(gub)
            flat = _flat_reference(flat, gub)
        sidx_f, itr_f, cyc_f, lb_f, open_f = L.flat()
        assert list(zip(itr_f.tolist(), cyc_f.tolist(), sidx_f.tolist(), lb_f.tolist(), open_f.tolist())) == flat
        assert len(L) == len(flat)
        assert L.min_lb() == (min(e[3] for e in flat) if flat else math.inf)


def test_flat_round_trip_keeps_segments():
    L = RegionList()
    L.append(-1, 0, True, [0], [-math.inf])
    L.append(3, 10, False, [5, 9], [0.5, 0.25])
    L.append(4, 10, True, [1], [0.0])
    again = RegionList.from_flat(*L.flat())
    assert [(s.itr, s.cyc, s.open, s.sidx.tolist(), s.lb.tolist()) for s in again.segments] == \
           [(s.itr, s.cyc, s.open, s.sidx.tolist(), s.lb.tolist()) for s in L.segments]


def test_pruning_everything_empties_the_list():
    L = RegionList()
    L.append(0, 0, True, [1, 2], [3.0, 4.0])
    L.prune(1.0)
    assert len(L) == 0 and not L.any_open() and L.min_lb() == math.inf
