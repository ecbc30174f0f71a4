"""The lock of tests/simulator_fix.py: a block's threads share one shared array even when a thread
switch falls between the simulator's lookup and its store (widened here by a slow lookup)."""
import os
import time

import numpy as np
import pytest
from numba import cuda, float64

pytestmark = pytest.mark.skipif(os.environ.get("NUMBA_ENABLE_CUDASIM") != "1",
                                reason="the simulator's own race")


class _SlowLookup(dict):
    """The allocation table with a pause after each lookup: a thread switch there is then certain."""

    def get(self, key, default=None):
        found = dict.get(self, key, default)
        time.sleep(0.0002)
        return found


@cuda.jit
def _block_sum(a, out):
    tid = cuda.threadIdx.x
    red = cuda.shared.array(64, float64)
    red[tid] = a[tid]
    cuda.syncthreads()
    if tid == cuda.blockDim.x - 1:
        s = 0.0
        for i in range(cuda.blockDim.x):
            s += red[i]
        out[0] = s


def test_conftest_installs_the_lock():
    from numba.cuda.simulator import kernelapi
    assert getattr(kernelapi.FakeCUDAShared.array, "_gpubench_locked", False)


def test_one_shared_array_a_block_under_thread_switches(monkeypatch):
    from numba.cuda.simulator import kernelapi
    init = kernelapi.FakeCUDAShared.__init__

    def slow_init(self, *args):
        init(self, *args)
        self._allocations = _SlowLookup()

    monkeypatch.setattr(kernelapi.FakeCUDAShared, "__init__", slow_init)
    a = np.arange(1.0, 33.0)
    for _ in range(3):
        out = np.zeros(1)
        _block_sum[1, 32](a, out)
        assert out[0] == a.sum()
