"""Batched Cholesky of 10^4 small SPD matrices on the GPU, one launch (paper 003, Table 1).

``left`` and ``right`` are the paper's kernels (a block per matrix, the matrix in shared
memory): their ratio at n = 32 is what Table 1 judges (issue 37; the paper's right/left over
n = 1..32 is 1.21).  ``auto`` is the register kernel of :mod:`gpubench.kernels.chol_small`,
its n = 32 the latency case of issue 43.  The batch is restored from a device copy before
each sample (a factor in place is not SPD twice), outside the timing.
"""
from . import _common as C

BATCH = 10_000
_STATE = {}     # (variant, n) -> (source on the device, work copy, launch): built once per process


def _state(variant, n):
    if (variant, n) not in _STATE:
        import numpy as np
        from numba import cuda
        from gpubench.methods import tron
        from gpubench.methods.tron import kernels
        M = np.random.default_rng(n).standard_normal((BATCH, n, n))
        A = M @ M.transpose(0, 2, 1) + n * np.eye(n)
        d0 = cuda.to_device(np.ascontiguousarray(A.transpose(0, 2, 1).reshape(BATCH, n * n)))
        work = cuda.device_array_like(d0)
        ok = cuda.device_array(BATCH, dtype=np.int32)
        launch = kernels.linalg_launcher("cholesky", work, n, variant=tron.LINALG_CHOLESKY[variant], ok=ok)
        work.copy_to_device(d0)
        launch()            # compiles, or loads from the disk cache, outside the timing
        _STATE[variant, n] = d0, work, launch
    return _STATE[variant, n]


class CudaCholesky:
    """One factorization of 10^4 matrices of order n in place, the inputs on the device."""
    params = (["left", "right", "auto"], [16, 32])
    param_names = ["variant", "n"]
    number = 1
    timeout = 300
    rounds = 1
    repeat = (3, 20, 10.0)
    warmup_time = 0.0

    def setup(self, variant, n):
        C.require_cuda()
        d0, self.work, self.launch = _state(variant, n)
        self.work.copy_to_device(d0)
        C.synchronize()

    def time_factor(self, variant, n):
        self.launch()
        C.synchronize()
