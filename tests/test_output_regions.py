"""The output regions of a stopped search, read from L's segments (gpubench.methods.solver.output).

On the H200, MultiModal and Mishra11 at n = 10 ran more than 200 s past their 30 s limit: L held
about 10^9 regions, and the result sorted all of them and the certification's judge built every
box to find the one nearest SciPy's stated minimiser.  The distance is now found iteration by
iteration, nearest selected box first: these tests hold it equal to the brute-force distance over
every box, and hold the work to the few iterations near the point.
"""
import numpy as np

from gpubench.methods.solver import core, output, solve
from gpubench.methods.solver.region_list import RegionList
from gpubench.methods.solver.settings import Settings
from gpubench.workflow.certify import _distance

# Rosenbrock n = 4 after 12 iterations: 13 open regions from several iterations, of several sizes
SETTINGS = dict(backend="cpu", split_dims=2, parts=4, tol=1e-3, max_iterations=12)


def _brute(v, lo, hi):
    return float(np.max(np.maximum(0.0, np.maximum(lo - v, v - hi)), axis=1).min())


def test_the_distance_to_the_nearest_region_is_exact_and_builds_few_boxes(monkeypatch):
    monkeypatch.setattr(core, "EAGER_REGION_BYTES", 1 << 40)
    eager = solve("rosenbrock", 4, Settings(**SETTINGS))
    monkeypatch.setattr(core, "EAGER_REGION_BYTES", 0)
    # the result reads L segment by segment: never flattened (nor sorted) whole
    monkeypatch.setattr(RegionList, "flat", lambda self: (_ for _ in ()).throw(AssertionError("L flattened")))
    lazy = solve("rosenbrock", 4, Settings(**SETTINGS))
    assert lazy.regions_lo is None and lazy.region_distance is not None
    assert lazy.n_regions == eager.n_regions >= 10 and len(set(lazy.history["list_size"])) >= 5
    built = []
    make = output.child_boxes
    monkeypatch.setattr(output, "child_boxes", lambda *a, **k: (built.append(len(a[3])), make(*a, **k))[1])
    rng = np.random.default_rng(1)
    lo_d, hi_d = np.full(4, -5.0), np.full(4, 10.0)
    # points in regions, on their faces and corners, near and far outside, and the minimiser
    corners = eager.regions_lo[rng.integers(0, eager.n_regions, 6)]
    points = [np.ones(4), *corners, corners[0] - 1e-9, *rng.uniform(lo_d, hi_d, (8, 4)),
              np.full(4, 30.0), np.array([-7.0, 1.0, 1.0, 12.0])]
    snap = lazy.region_distance.__self__   # the result's OutputRegions
    sel = np.array([b[0] for b in snap.boxes_of]), np.array([b[1] for b in snap.boxes_of])
    sizes = np.array([s.size for s in snap.sidx])
    skipped = 0
    for v in points:
        built.clear()
        d = lazy.region_distance(v)
        assert d == _brute(v, eager.regions_lo, eager.regions_hi), v
        # only the iterations whose selected box is no farther than the answer are built
        near = np.max(np.maximum(0.0, np.maximum(sel[0] - v, v - sel[1])), axis=1)
        assert sum(built) <= sizes[near <= d].sum(), (v, built)
        skipped += sum(built) < eager.n_regions
        assert _distance(v, lazy) == d and _distance(v, eager) == d
    assert skipped >= len(points) // 2


def test_lazy_boxes_come_in_iteration_order_from_any_segment_order(monkeypatch):
    """Slices of the boxes equal the eager ones, also where an iteration's indices are out of order
    (the device loop's list) or one iteration has several segments."""
    monkeypatch.setattr(core, "EAGER_REGION_BYTES", 0)
    search = core.Search(__import__("gpubench.functions", fromlist=["get"]).get("rosenbrock"), 4,
                         Settings(**SETTINGS))
    search.run(answer=False)
    ref = output.OutputRegions(search).boxes(0, len(search.state.regions))
    segs = search.state.regions.segments
    big = max(segs, key=lambda s: s.sidx.size)
    assert big.sidx.size >= 3
    big.sidx, big.lb = big.sidx[::-1], big.lb[::-1]
    out = output.OutputRegions(search)
    n = out.count
    for a, b in ((0, n), (0, 1), (3, n - 2), (n - 1, n), (5, 5)):
        lo, hi = out.boxes(a, b)
        np.testing.assert_array_equal(lo, ref[0][a:b])
        np.testing.assert_array_equal(hi, ref[1][a:b])
