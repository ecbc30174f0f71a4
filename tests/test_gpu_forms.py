"""The GPU forms (numba-cuda kernels, here under the CUDA simulator) agree with the CPU forms.

The simulator runs kernels in Python, with exact directed-rounding fallbacks
for the libdevice intrinsics, so sizes are tiny: 8 points and 8 boxes in
dimension 3 per function.  Point values and gradients must match the CPU to a
relative 1e-13; interval results must contain the arb value (the same checker
as ``test_enclosures.py``) and differ from the CPU's by a small multiple of the
rounding of their intermediate terms (VALUE_RTOL, GRADIENT_RTOL below).  (The simulator cannot check ulp margins or FMA
contraction; ``tests/test_ptx.py`` and real-GPU runs do.)
"""
import zlib

import numpy as np
import pytest
from numba import config

import gpubench.functions as F

import oracles as O
from constructs import one_per_construct

NAMES = F.names()
N_ITEMS, DIM = 8, 3
# CPU bounds are round-to-nearest then one ulp out (3 for sin/cos/exp/log) even for
# exact operations such as 2*x; the simulator's are exactly rounded (4 ulps for sin/cos).
# So they drift apart by ulps of the *intermediate* terms, which after cancellation
# (e.g. 2x - 2o + 20 pi sin(2 pi x - 2 pi o) at x = o) is many ulps of the result:
# measured up to 4e-14 (values) and 3.6e-11 (gradients, Fu) relative to max(|bound|, 1).
VALUE_RTOL = 2e-13
GRADIENT_RTOL = 2e-10


def _rng(*key):
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


class GpuForms:
    """The batched drivers of a 'cuda' module, launched as kernels with the CPU drivers' signatures."""

    def __init__(self, fn):
        self.m = fn.module("cuda")

    def _launch(self, kernel, rows, *args):
        threads = 4
        blocks = (rows + threads - 1) // threads
        # the simulator copies every argument back, so none may be read-only
        args = [np.array(a) if not a.flags.writeable else a for a in args]
        kernel[blocks, threads](*args)

    def points(self, X, p, out):
        self._launch(self.m.points, X.shape[0], X, p, out)

    def gradients(self, X, p, G, W):
        self._launch(self.m.gradients, X.shape[0], X, p, G, W)

    def intervals(self, LO, HI, p, flo, fhi):
        self._launch(self.m.intervals, LO.shape[0], LO, HI, p, flo, fhi)

    def interval_gradients(self, LO, HI, p, glo, ghi, wlo, whi):
        self._launch(self.m.interval_gradients, LO.shape[0], LO, HI, p, glo, ghi, wlo, whi)


def test_running_under_the_simulator_or_a_gpu():
    # conftest.py enables the simulator when there is no GPU; either way the kernels run
    from numba import cuda
    assert config.ENABLE_CUDASIM or cuda.is_available()


def boxes(fn, rng):
    lo_d, hi_d = fn.bounds(DIM)
    c = rng.uniform(lo_d, hi_d, (N_ITEMS, DIM))
    w = (hi_d - lo_d) * 10.0 ** rng.uniform(-12, -0.5, (N_ITEMS, DIM))
    lo, hi = c - w / 2, c + w / 2
    lo[0] = hi[0] = fn.xstar(DIM)  # a point box at x*
    lo[1], hi[1] = lo_d, hi_d  # the whole domain
    lo[2] = hi[2] = c[2]  # a point box
    if fn.definition.spike is not None:  # across and inside the spike
        s = float(fn.definition.spike.center)
        lo[3], hi[3] = s - 1e-6, s + 2e-7
        lo[4], hi[4] = s - 1e-7, s + 1e-7
    return np.clip(lo, lo_d, hi_d), np.clip(hi, lo_d, hi_d)


# one function per construct in `make test`, the repeats in `make test-slow` (tests/constructs.py), as for
# the device loop's search (tests/test_devloop.py), whose tables are built from these forms: the GPU
# forms are generated from the same expression tree as the CPU forms, which tests/test_enclosures.py
# checks for every library function in `make test` (the six repeats: 14 CPU seconds with a cold cache)
@pytest.mark.parametrize("name", one_per_construct(NAMES))
def test_gpu_forms_agree_with_cpu(name):
    fn = F.get(name)
    cpu, gpu = fn.module("cpu"), GpuForms(fn)
    p = fn.params(DIM)
    rng = _rng("gpu", name)
    lo, hi = boxes(fn, rng)
    lo_d, hi_d = fn.bounds(DIM)
    X = rng.uniform(lo_d, hi_d, (N_ITEMS, DIM))  # generic points, where f is differentiable

    # point values (also at x*) and gradients
    Xv = np.vstack([X, fn.xstar(DIM)])
    vc, vg = np.empty(N_ITEMS + 1), np.full(N_ITEMS + 1, np.nan)
    cpu.points(Xv, p, vc)
    gpu.points(Xv, p, vg)
    assert np.all(np.abs(vg - vc) <= 1e-13 * np.maximum(np.abs(vc), 1e-300)), (vc, vg)
    Gc, Gg = np.empty_like(X), np.full_like(X, np.nan)
    cpu.gradients(X, p, Gc, np.empty_like(X))
    gpu.gradients(X, p, Gg, np.empty_like(X))
    gscale = np.abs(Gc) + 1e-6 * np.max(np.abs(Gc), axis=1, keepdims=True)
    assert np.all(np.abs(Gg - Gc) <= 1e-13 * gscale), (Gc, Gg)

    # interval forms: both enclose the exact values, and they nearly coincide
    for forms in (cpu, gpu):
        misses, checked = O.interval_misses(fn, forms, lo, hi, _rng("pts", name), samples=4)
        assert checked == 4 * N_ITEMS and misses == [], O.format_misses(misses)
        misses, checked, _ = O.interval_gradient_misses(fn, forms, lo, hi, _rng("gpts", name), samples=4)
        assert misses == [], O.format_misses(misses)
    flo_c, fhi_c = O.run_intervals(fn, cpu, lo, hi)
    flo_g, fhi_g = O.run_intervals(fn, gpu, lo, hi)
    scale = np.maximum(np.maximum(np.abs(flo_c), np.abs(fhi_c)), 1.0)
    assert np.all(np.abs(flo_g - flo_c) <= VALUE_RTOL * scale), (flo_g - flo_c) / scale
    assert np.all(np.abs(fhi_g - fhi_c) <= VALUE_RTOL * scale), (fhi_g - fhi_c) / scale
    glo_c, ghi_c = O.run_interval_gradients(fn, cpu, lo, hi)
    glo_g, ghi_g = O.run_interval_gradients(fn, gpu, lo, hi)
    # a point box on a kink (no derivative): the CPU's outward steps make the 0/0 there
    # [-tiny, tiny]/[-tiny, tiny] = (-inf, inf), exact rounding makes it [0, 0]/[0, 0] = empty
    kink = np.array([np.array_equal(lo[r], hi[r]) and O.near_kink(fn, lo[r]) for r in range(N_ITEMS)])
    glo_c, ghi_c, glo_g, ghi_g = glo_c[~kink], ghi_c[~kink], glo_g[~kink], ghi_g[~kink]
    assert not np.isnan(glo_g).any() and not np.isnan(ghi_g).any()
    assert np.array_equal(np.isinf(glo_c), np.isinf(glo_g)) and np.array_equal(np.isinf(ghi_c), np.isinf(ghi_g))
    fin = np.isfinite(glo_c) & np.isfinite(ghi_c)
    scale = np.maximum(np.maximum(np.abs(glo_c), np.abs(ghi_c)), 1.0)[fin]
    dlo, dhi = glo_g[fin] - glo_c[fin], ghi_g[fin] - ghi_c[fin]
    assert fin.sum() >= N_ITEMS  # most enclosures are finite
    assert np.all(np.abs(dlo) <= GRADIENT_RTOL * scale), dlo / scale
    assert np.all(np.abs(dhi) <= GRADIENT_RTOL * scale), dhi / scale
