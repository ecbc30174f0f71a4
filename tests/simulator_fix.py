"""A lock around the CUDA simulator's shared-array allocation (numba-cuda 0.30.4).

The simulator runs a block as one Python thread per CUDA thread, and ``cuda.shared.array`` finds a
block's array by checking a dict and, when the key is missing, allocating and storing it: not
atomic.  A thread switch between the check and the store gives two threads of one block two
different arrays, and a block reduction then sums only part of its values (tests/test_tron.py's
``test_block_reductions_span_warps`` gave 16.6 for 27.0 once in four full runs; conftest's 1 ms
switch interval makes such a switch more likely).  The real GPU has no such race.  The lock makes
the check and the store one step; ``tests/test_simulator_fix.py`` widens the window to show the race
and the fix.  (numba-cuda PR #690 fixed the simulator's other race of this kind, the swap of the
``cuda`` module in a device function's globals.)
"""
import sys
import threading

import numpy as np
from numba.core import types
from numba.np import numpy_support

_LOCK = threading.Lock()


def install():
    """Wrap ``FakeCUDAShared.array`` once (no-op if the simulator is not importable or already wrapped)."""
    try:
        from numba.cuda.simulator import kernelapi
    except ImportError:
        return
    shared = kernelapi.FakeCUDAShared
    if getattr(shared.array, "_gpubench_locked", False):
        return
    unlocked = shared.array

    def array(self, shape, dtype):
        if shape == 0:  # the dynamic shared buffer: one per block already, no lookup
            return unlocked(self, shape, dtype)
        if isinstance(dtype, types.Type):
            dtype = numpy_support.as_dtype(dtype)
        # The simulator's key: the calling line, (file, line number), as its own lookup takes it
        caller = sys._getframe(1)
        key = (caller.f_code.co_filename, caller.f_lineno)
        with _LOCK:
            res = self._allocations.get(key)
            if res is None:
                res = self._allocations[key] = np.empty(shape, dtype)
        return res

    array._gpubench_locked = True
    shared.array = array
