"""The partition rule: variable cycling, small-n parts, and exact coverage of children."""
import itertools
import math

import numpy as np
import pytest

from gpubench.methods.solver.partition import (
    PartitionRule,
    child_box,
    child_max_width,
    cut,
    parts_for_small_n,
)


def test_paper_cycling_for_n_multiple_of_s():
    rule = PartitionRule(30, split_dims=10, parts=4)
    assert rule.plan(0).dims == tuple(range(10))
    assert rule.next_cycling_index(0) == 10
    assert rule.plan(20).dims == tuple(range(20, 30))
    assert rule.next_cycling_index(20) == 0
    assert rule.plan(0).count == 4**10


def test_cycling_wraps_when_n_is_not_a_multiple_of_s():
    rule = PartitionRule(15, split_dims=10, parts=4)
    assert rule.plan(10).dims == (10, 11, 12, 13, 14, 0, 1, 2, 3, 4)
    assert rule.next_cycling_index(10) == 5


@pytest.mark.parametrize("n,expected", [(10, 4), (9, 4), (5, 16), (2, 1024), (1, 4**10)])
def test_small_n_keeps_about_p_to_the_s_subregions(n, expected):
    q = parts_for_small_n(n, 10, 4)
    assert q == expected
    assert q**n <= 4**10 < (q + 1) ** n
    rule = PartitionRule(n, split_dims=10, parts=4)
    assert rule.plan(0).dims == tuple(range(n)) and rule.parts == (4 if n == 10 else q)


def _random_intervals(rng, count):
    out = []
    for _ in range(count):
        scale = 10.0 ** rng.integers(-12, 12)
        a, b = np.sort(rng.uniform(-1, 1, 2) * scale)
        if a == b:
            b = math.nextafter(a, math.inf)
        out.append((float(a + rng.normal() * scale), float(b + abs(rng.normal()) * scale)))
    # awkward ones: ulp-wide, straddling zero, non-representable decimal bounds
    out += [(0.1, math.nextafter(0.1, 1.0)), (-0.3, 0.7), (-35.0, 40.0), (0.0, math.pi), (1e300, 1.7e308)]
    return [(min(a, b), max(a, b)) for a, b in out]


@pytest.mark.parametrize("parts", [2, 3, 4, 7, 1024])
def test_children_tile_the_parent_exactly(parts):
    rng = np.random.default_rng(parts)
    for lo, hi in _random_intervals(rng, 300):
        b = [cut(lo, hi, j, parts) for j in range(parts + 1)]
        assert b[0] == lo and b[-1] == hi
        assert all(b[j] <= b[j + 1] for j in range(parts)), (lo, hi, b)
        assert all(lo <= v <= hi for v in b)


def test_child_boxes_rebuild_and_cover_the_selected_region():
    rule = PartitionRule(3, split_dims=2, parts=3)
    sel_lo = np.array([-35.0, 0.1, 2.0])
    sel_hi = np.array([40.0, 0.7, 2.5])
    plan = rule.plan(2)  # dims (2, 0): wraps
    assert plan.dims == (2, 0)
    boxes = [child_box(sel_lo, sel_hi, plan, r) for r in range(plan.count)]
    # every child keeps the uncut coordinate whole
    assert all(lo[1] == 0.1 and hi[1] == 0.7 for lo, hi in boxes)
    # the cut coordinates form a grid whose cells share edges exactly
    edges = {d: sorted({lo[d] for lo, _ in boxes} | {hi[d] for _, hi in boxes}) for d in plan.dims}
    for d in plan.dims:
        assert edges[d][0] == sel_lo[d] and edges[d][-1] == sel_hi[d] and len(edges[d]) == 4
    cells = {(lo[2], hi[2], lo[0], hi[0]) for lo, hi in boxes}
    assert len(cells) == 9
    for (a, b), (c, d) in itertools.product(zip(edges[2], edges[2][1:]), zip(edges[0], edges[0][1:])):
        assert (a, b, c, d) in cells
    w = child_max_width(sel_lo, sel_hi, plan)
    assert w == max(max(hi - lo) for lo, hi in boxes)


def test_partition_rejects_nonsense():
    with pytest.raises(ValueError):
        PartitionRule(5, split_dims=0)
    with pytest.raises(ValueError):
        PartitionRule(5, parts=1)
