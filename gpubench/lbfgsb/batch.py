"""Many small L-BFGS-B problems at once: one start per CUDA thread, or per loop turn on the CPU.

The same scalar source runs on both backends: it is appended to the generated
module of a library function (``gpubench.codegen.load(..., extensions=...)``)
and calls that module's ``point`` and ``gradient`` forms directly, so a start's
whole run, every iteration included, is one launch on the GPU (one thread per
start) and one compiled loop on the CPU.  The algorithm is the one of
:mod:`gpubench.lbfgsb.core` (Byrd, Lu, Nocedal & Zhu 1995, with Fei et al.'s
approximate Cauchy point as an option), written for one start at a time: the
Cauchy point is BLNZ's sequential breakpoint search (algorithm CP, section 4),
which for the small n of a multi-start run costs less than a sort; the small
2k x 2k systems are solved by Gaussian elimination with partial pivoting.

Status per start: 0 converged (pgtol or factr), 1 iteration or evaluation limit,
2 abnormal (line search failed twice, or no descent direction).
"""
import numpy as np

from .. import codegen, kernels
from ..errors import InputError

VROWS = 12      # n-vectors per start
SROWS = 6       # 2m x 2m matrices per start
WROWS = 6       # 2m vectors per start

# The kernel (gpubench/kernels/lbfgsb.py) and its drivers are real modules, appended to the
# function's generated module so that numba caches them on disk.
KERNEL_SOURCE = kernels.splice("lbfgsb")


_DRIVER = {"cpu": kernels.splice("lbfgsb_cpu"), "gpu": kernels.splice("lbfgsb_gpu")}


def module(fn, backend):
    """The generated module of ``fn`` with the batch kernel appended (``backend`` 'cpu' or 'gpu')."""
    return codegen.load(fn.definition, backend, extensions=(KERNEL_SOURCE + _DRIVER[backend],))


def work_arrays(nstarts, n, m, backend):
    """Zeroed work arrays in the layout the backend's driver expects."""
    mm, m2 = max(m, 1), 2 * max(m, 1)
    shapes = [(VROWS, n), (2, mm, n), (SROWS, m2, m2), (WROWS, m2)]
    if backend == "cpu":
        return [np.zeros((nstarts,) + s) for s in shapes]
    from numba import cuda
    return [cuda.to_device(np.zeros(s + (nstarts,))) for s in shapes]


def solve(fn, X0, lo, hi, *, m=5, pgtol=1e-5, factr=1e7, maxiter=15000, maxfun=15000,
          cauchy="exact", step="project", backend="cpu", threads=32, sign=1.0):
    """Run L-BFGS-B from every row of ``X0`` in the box; (X, f, nit, nfev, status, pg) per start.

    ``sign=-1`` maximises.  On ``backend="cuda"`` the whole batch is one launch.
    """
    X0 = np.ascontiguousarray(X0, dtype=np.float64)
    if X0.ndim != 2:
        raise InputError(f"lbfgsb batch: starts must have shape (N, n), got {X0.shape}")
    N, n = X0.shape
    lo = np.ascontiguousarray(lo, dtype=np.float64)
    hi = np.ascontiguousarray(hi, dtype=np.float64)
    p = fn.params(n)
    approx = cauchy == "approximate"
    project = step == "project"
    args = (float(sign), int(m), float(pgtol), float(factr), int(maxiter), int(maxfun), approx, project)
    if backend == "cpu":
        mod = module(fn, "cpu")
        V, SYb, SM, SV = work_arrays(N, n, m, "cpu")
        XOUT = np.zeros((N, n))
        RES = np.zeros((N, 5))
        mod.lbfgsb_starts(X0, lo, hi, np.ascontiguousarray(p), *args, V, SYb, SM, SV, XOUT, RES)
    else:
        from numba import cuda
        mod = module(fn, "gpu")
        V, SYb, SM, SV = work_arrays(N, n, m, "cuda")
        dX0 = cuda.to_device(X0)
        dlo, dhi, dp = cuda.to_device(lo), cuda.to_device(hi), cuda.to_device(np.ascontiguousarray(p))
        dX = cuda.device_array((N, n))
        dR = cuda.device_array((N, 5))
        blocks = (N + threads - 1) // threads
        mod.lbfgsb_starts[blocks, threads](dX0, dlo, dhi, dp, *args, V, SYb, SM, SV, dX, dR)
        cuda.synchronize()
        XOUT, RES = dX.copy_to_host(), dR.copy_to_host()
    return XOUT, RES[:, 0], RES[:, 1].astype(int), RES[:, 2].astype(int), RES[:, 3].astype(int), RES[:, 4]
