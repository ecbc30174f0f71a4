"""GPU kernels: one thread block per problem (paper 003, Section 4.1).

Every kernel takes the core's device functions (``load_core("cuda", ...)``)
and adds only the block's bookkeeping: thread ids, the layout (1-D: a row of
threads; 2-D: a ``bx x by`` tile, Figure 3) and where the problem's data live
(dynamic shared memory, or a row of a global array: Table 3).  The reduction
scratch (one double per thread) is always in shared memory.
"""
from functools import lru_cache

import numpy as np
from numba import cuda, float64

from .loader import load_core


def layout_of(tid, nt, tx, ty, bx, by, layout2d):
    """(c0, cs, r0, rs) of this thread: see core.py."""
    if layout2d:
        return ty, by, tx, bx
    return 0, 1, tid, nt


@lru_cache(maxsize=None)
def linalg_kernels():
    """(cholesky kernel, back-substitution kernel, forward-substitution kernel)."""
    core = load_core("cuda", "hs45")
    chol_left, chol_right = core.chol_left, core.chol_right
    store_transpose, backward, forward = core.store_transpose, core.backward, core.forward
    lay = cuda.jit(device=True)(layout_of)

    @cuda.jit
    def cholesky(A, n, variant, layout2d, shared, OK):
        """A[b] (n*n, column-major) <- its Cholesky factor (lower triangle), in place."""
        b = cuda.blockIdx.x
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        bx, by = cuda.blockDim.x, cuda.blockDim.y
        tid = tx + ty * bx
        nt = bx * by
        c0, cs, r0, rs = lay(tid, nt, tx, ty, bx, by, layout2d)
        if shared:
            M = cuda.shared.array(0, float64)
            for k in range(tid, n * n, nt):
                M[k] = A[b, k]
            cuda.syncthreads()
            if variant == 0:
                ok = chol_left(M, n, n, tid, nt)
            else:
                ok = chol_right(M, n, n, tid, nt, c0, cs, r0, rs)
            for k in range(tid, n * n, nt):
                A[b, k] = M[k]
        else:
            if variant == 0:
                ok = chol_left(A[b], n, n, tid, nt)
            else:
                ok = chol_right(A[b], n, n, tid, nt, c0, cs, r0, rs)
        if tid == 0:
            OK[b] = 1 if ok else 0

    @cuda.jit
    def backsolve(L, B, n, explicit, layout2d):
        """B[b] (nrhs*n) <- L^{-T} B[b] for every right-hand side; L in shared memory.
        Explicit: L^T is first copied into the upper triangle (counted in the time)."""
        b = cuda.blockIdx.x
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        bx, by = cuda.blockDim.x, cuda.blockDim.y
        tid = tx + ty * bx
        nt = bx * by
        c0, cs, r0, rs = lay(tid, nt, tx, ty, bx, by, layout2d)
        dyn = cuda.shared.array(0, float64)
        M = dyn[0:n * n]
        v = dyn[n * n:n * n + n]
        for k in range(tid, n * n, nt):
            M[k] = L[b, k]
        cuda.syncthreads()
        if explicit:
            store_transpose(M, n, n, c0, cs, r0, rs)
        nrhs = B.shape[1] // n
        for r in range(nrhs):
            for k in range(tid, n, nt):
                v[k] = B[b, r * n + k]
            cuda.syncthreads()
            backward(M, v, n, n, explicit, tid, nt)
            for k in range(tid, n, nt):
                B[b, r * n + k] = v[k]
            cuda.syncthreads()

    @cuda.jit
    def forwardsolve(L, B, n):
        b = cuda.blockIdx.x
        tid = cuda.threadIdx.x + cuda.threadIdx.y * cuda.blockDim.x
        nt = cuda.blockDim.x * cuda.blockDim.y
        dyn = cuda.shared.array(0, float64)
        M = dyn[0:n * n]
        v = dyn[n * n:n * n + n]
        for k in range(tid, n * n, nt):
            M[k] = L[b, k]
        cuda.syncthreads()
        nrhs = B.shape[1] // n
        for r in range(nrhs):
            for k in range(tid, n, nt):
                v[k] = B[b, r * n + k]
            cuda.syncthreads()
            forward(M, v, n, n, tid, nt)
            for k in range(tid, n, nt):
                B[b, r * n + k] = v[k]
            cuda.syncthreads()

    return cholesky, backsolve, forwardsolve


_TRON = {}


def tron_kernel(objective="hs45", forms=None, hess=None):
    """The batched TRON kernel for ``objective`` (one block per problem)."""
    key = (objective, None if forms is None else forms.__name__, None if hess is None else hess.__name__)
    if key in _TRON:
        return _TRON[key]
    core = load_core("cuda", objective, forms, hess)
    solve = core.tron_solve
    lay = cuda.jit(device=True)(layout_of)

    @cuda.jit
    def tron(X, LO, HI, P, WS, SCR, OUT, cfg, n, cholesky, explicit, layout2d, shared, ntpad):
        b = cuda.blockIdx.x
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        bx, by = cuda.blockDim.x, cuda.blockDim.y
        tid = tx + ty * bx
        nt = bx * by
        c0, cs, r0, rs = lay(tid, nt, tx, ty, bx, by, layout2d)
        dyn = cuda.shared.array(0, float64)
        red = dyn[0:ntpad]
        if shared:
            solve(X[b], LO[b], HI[b], P[b], dyn[ntpad:ntpad + 2 * n * n + 16 * n], SCR[b], red,
                  OUT[b], cfg, n, cholesky, explicit, tid, nt, c0, cs, r0, rs)
        else:
            solve(X[b], LO[b], HI[b], P[b], WS[b], SCR[b], red,
                  OUT[b], cfg, n, cholesky, explicit, tid, nt, c0, cs, r0, rs)

    _TRON[key] = tron
    return tron


def block_shape(n, layout, threads=0):
    """Threads of one block: 1-D, one warp (or enough warps to cover n, or ``threads``);
    2-D, an n x n tile capped at 32 x 32 (1,024 threads)."""
    if layout == "2d":
        side = min(n, 32)
        return (side, side)
    if threads:
        return (int(threads), 1)
    return (32 * max(1, -(-n // 32)), 1)


def padded(nt):
    return int(nt) + 8


def dynamic_shared_bytes(n, nt, memory):
    words = padded(nt) + (2 * n * n + 16 * n if memory == "shared" else 0)
    return 8 * words


MAX_SHARED_BYTES = 48 * 1024


def launch_linalg(kind, A, n, *, variant=0, explicit=1, layout="1d", threads=0, B=None,
                  shared=True, stream=0, ok=None):
    """Launch one of the Table 1/2 kernels on device arrays; returns the OK array for Cholesky."""
    chol, back, fwd = linalg_kernels()
    block = block_shape(n, layout, threads)
    nb = A.shape[0]
    l2 = 1 if layout == "2d" else 0
    if kind == "cholesky":
        if ok is None:  # pass one in when timing: an allocation can synchronise
            ok = cuda.device_array(nb, dtype=np.int32, stream=stream)
        smem = 8 * n * n if shared else 0
        chol[nb, block, stream, smem](A, n, variant, l2, 1 if shared else 0, ok)
        return ok
    smem = 8 * (n * n + n)
    if kind == "backsolve":
        back[nb, block, stream, smem](A, B, n, explicit, l2)
    else:
        fwd[nb, block, stream, smem](A, B, n)
    return None
