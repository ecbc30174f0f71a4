"""The iteration's outcome on the device (solver/reduce.py) against its host twin, and what breaks it.

Runs under the CUDA simulator at small sizes (the GPU host runs the real kernels).
"""
import math

import numpy as np
import pytest
from numba import config, cuda

from gpubench import functions
from gpubench.methods.solver import reduce as red
from gpubench.methods.solver import solve

pytestmark = pytest.mark.skipif(not config.ENABLE_CUDASIM,
                                reason="runs under the CUDA simulator; a real GPU is covered by the GPU host runs")


def _arrays(rng, count):
    lb = rng.normal(size=count)
    ub = rng.normal(size=count) + 1.0
    grad = rng.integers(0, 2, count).astype(np.int8)
    lb[rng.random(count) < 0.3] = math.inf  # ruled out
    lb[rng.random(count) < 0.02] = -math.inf  # undecided (f undefined there)
    ub[rng.random(count) < 0.1] = math.nan  # a sample where f is undefined
    return lb, ub, grad


def _device(reduction, lb, ub, grad, gub):
    return reduction(cuda.to_device(lb), cuda.to_device(ub), cuda.to_device(grad), gub)


def _same(a, b):
    assert (a.best_ub, a.best_index, a.njev) == (b.best_ub, b.best_index, b.njev)
    assert a.sidx.dtype == b.sidx.dtype == np.int64
    np.testing.assert_array_equal(a.sidx, b.sidx)
    np.testing.assert_array_equal(a.lb, b.lb)


def test_device_outcome_equals_host_outcome(monkeypatch):
    """Sizes around a block, GUB above, inside and below the samples; one reduction reused, as in a
    search, so its counters must reset themselves between calls.  32-thread blocks: the kernels
    only see a block's size through TPB and blockDim, and the simulator runs every thread in
    Python, so 31/32/33 and 90 (three blocks) stand for 255/256/257 and 700 at TPB = 256 at an
    eighth of the cost (the other tests here run at TPB = 256)."""
    monkeypatch.setattr(red, "TPB", 32)
    rng = np.random.default_rng(1)
    reduction = red.DeviceReduction()
    for count, gub in ((1, math.inf), (31, 0.5), (32, math.inf), (33, -5.0), (90, 1.0), (90, 0.2)):
        lb, ub, grad = _arrays(rng, count)
        host = red.reduce_host(lb, ub, grad, gub)
        _same(_device(reduction, lb, ub, grad, gub), host)
        if gub == -5.0:
            assert host.best_ub > gub and np.all(host.lb <= gub)  # no update: the old GUB prunes
        if count == 90:
            assert 0 < host.sidx.size < count


def test_ties_go_to_the_first_index_across_blocks(monkeypatch):
    """Two blocks of a grid-stride loop (MAX_BLOCKS = 2 over 188 entries, 32-thread blocks): the
    smallest upper bound at indices 175 (block 1, third stride), 112 (block 1, second stride) and 3
    (block 0, first) is reported at 3, as np.argmin does.  (Once 1,500 entries at TPB = 256 with ties
    at 1,400, 900 and 3: the same blocks and strides at eight times the simulated threads;
    test_nothing_bounded_nothing_kept runs at TPB = 256.)"""
    monkeypatch.setattr(red, "TPB", 32)
    monkeypatch.setattr(red, "MAX_BLOCKS", 2)
    lb = np.zeros(188)
    ub = np.ones(188)
    grad = np.ones(188, dtype=np.int8)
    ub[[175, 112, 3]] = -2.0
    out = _device(red.DeviceReduction(), lb, ub, grad, math.inf)
    assert (out.best_ub, out.best_index, out.njev) == (-2.0, 3, 188)
    _same(out, red.reduce_host(lb, ub, grad, math.inf))


def test_nothing_bounded_nothing_kept():
    """Every sample undefined and every subregion ruled out: GUB stays, no survivor."""
    n = 300
    out = _device(red.DeviceReduction(), np.full(n, math.inf), np.full(n, math.nan), np.zeros(n, np.int8), 3.0)
    assert out.best_ub == math.inf and out.best_index == 0 and out.njev == 0 and out.sidx.size == 0
    _same(out, red.reduce_host(np.full(n, math.inf), np.full(n, math.nan), np.zeros(n, np.int8), 3.0))


OPTS = dict(split_dims=2, parts=2, tol=0.05, samples=2)


def _twin_and_rigorous(name, n):
    """Whether the simulated CUDA search equals the CPU one and encloses the known minimiser.

    Bounds are not compared: the simulator emulates directed rounding in Python and may differ
    from the CPU in the last bits (tests/test_solver.py); iterations, counts and regions may not."""
    fn = functions.get(name)
    cpu = solve(name, n, backend="cpu", **OPTS)
    try:
        gpu = solve(name, n, backend="cuda", loop="host", **OPTS)  # the host loop's reductions
    except RuntimeError:  # every region ruled out
        return False
    twin = (cpu.iterations == gpu.iterations and cpu.njev == gpu.njev
            and cpu.history["list_size"] == gpu.history["list_size"]
            and np.array_equal(cpu.regions_lo, gpu.regions_lo) and np.array_equal(cpu.regions_hi, gpu.regions_hi))
    x = fn.xstar(n)
    inside = np.any(np.all((gpu.regions_lo <= x) & (x <= gpu.regions_hi), axis=1))
    return twin and bool(inside) and gpu.glb <= fn.fstar(n) <= gpu.gub


def test_searches_are_twins_and_rigorous():
    assert _twin_and_rigorous("levy", 2)


def test_flipped_pruning_is_caught(monkeypatch):
    """The device's survivor test flipped (keep lb >= GUB): the regions that can hold the minimum
    are the ones dropped, and the twin and rigor checks must see it."""
    @cuda.jit(device=True)
    def flipped(v, header):
        return v >= header[red.GUB] and v != math.inf

    monkeypatch.setattr(red, "_kept", flipped)
    assert not _twin_and_rigorous("levy", 2)


def test_selection_ties_to_the_last_index_are_caught(monkeypatch):
    """The best sample's tie rule flipped (last index instead of first): the twin check fails.
    Three 32-thread blocks over 75 entries, the ties in blocks 0 and 1 (once 600 entries at
    TPB = 256 with ties at 5 and 400: the same blocks at eight times the simulated threads)."""
    @cuda.jit(device=True)
    def last_on_ties(v, i, bv, bi):
        return v < bv or (v == bv and i > bi)

    monkeypatch.setattr(red, "_better", last_on_ties)
    monkeypatch.setattr(red, "TPB", 32)
    lb = np.zeros(75)
    ub = np.ones(75)
    ub[[5, 50]] = 0.0
    grad = np.zeros(75, np.int8)
    out = _device(red.DeviceReduction(), lb, ub, grad, math.inf)
    assert out.best_index == 50 != red.reduce_host(lb, ub, grad, math.inf).best_index


def test_scan_over_more_blocks_than_threads(monkeypatch):
    """8-thread blocks over 180 entries: 23 blocks, so the last block scans three block counts
    per thread (its last thread two); survivors land at their rank, in subregion order.  (Once
    32-thread blocks over 3,000 entries, the same three counts a thread at 16 times the
    simulated threads; the kernels use no warp-level operation, so 8 threads a block is a block.)"""
    monkeypatch.setattr(red, "TPB", 8)
    rng = np.random.default_rng(7)
    count = 180
    lb, ub, grad = _arrays(rng, count)
    ub += 5.0  # no sample below GUB: about half the subregions survive
    out = _device(red.DeviceReduction(), lb, ub, grad, 0.3)
    assert out.sidx.size > count // 3
    _same(out, red.reduce_host(lb, ub, grad, 0.3))


def test_staging_round_trip():
    """Tables of several dtypes and shapes, a zero-size one among them, through the one staging
    copy; then again with one table grown (new layout) and with new values (same layout)."""
    from gpubench.methods.solver.sweep import Staging
    rng = np.random.default_rng(3)
    st = Staging(cuda)
    tables = [rng.normal(size=5), np.arange(3, dtype=np.int64), np.zeros(0), rng.normal(size=(4, 2)),
              np.array([[1, 0], [0, 1]], dtype=np.int8), rng.normal(size=1)]
    for step in range(3):
        if step == 1:
            tables[3] = rng.normal(size=(4, 7))
        if step == 2:
            tables = [t + 1 for t in tables]
        got = st.put(tables)
        for d, t in zip(got, tables):
            assert d.shape == t.shape and d.dtype == t.dtype
            np.testing.assert_array_equal(d.copy_to_host(), t)
