"""TRON's CUDA kernels: one thread block per problem (paper 003, Section 4.1).

Spliced after the text of :mod:`gpubench.methods.tron.core` in the file that
:func:`gpubench.methods.tron.loader.load_core` writes for one (backend, objective, function), so the
core's device functions (``tron_solve``, ``chol_left`` ...) are globals here and numba caches
these kernels on disk.  Every kernel adds only the block's bookkeeping: thread ids, the
layout (1-D: a row of threads; 2-D: a ``bx x by`` tile, Figure 3) and where the problem's
data live (dynamic shared memory, or a row of a global array: Table 3).  The reduction
scratch (one double per thread) is always in shared memory.  Imported as itself (lint, PTX
checks), it takes the core of the hs45 objective.
"""
from numba import cuda, float64

if __name__ == "gpubench.kernels.tron_gpu":  # imported as itself: the hs45 core
    from gpubench.methods.tron.loader import load_core as _load_core
    _core = _load_core("cuda", "hs45")
    backward, chol_left, chol_right = _core.backward, _core.chol_left, _core.chol_right
    forward, store_transpose, tron_solve = _core.forward, _core.store_transpose, _core.tron_solve


@cuda.jit(device=True)
def lay(tid, nt, tx, ty, bx, by, layout2d):
    """(c0, cs, r0, rs) of this thread: see core.py."""
    if layout2d:
        return ty, by, tx, bx
    return 0, 1, tid, nt


@cuda.jit(cache=True)
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
        k = tid
        while k < n * n:
            M[k] = A[b, k]
            k += nt
        cuda.syncthreads()
        if variant == 0:
            ok = chol_left(M, n, n, tid, nt)
        else:
            ok = chol_right(M, n, n, tid, nt, c0, cs, r0, rs)
        k = tid
        while k < n * n:
            A[b, k] = M[k]
            k += nt
    else:
        if variant == 0:
            ok = chol_left(A[b], n, n, tid, nt)
        else:
            ok = chol_right(A[b], n, n, tid, nt, c0, cs, r0, rs)
    if tid == 0:
        OK[b] = 1 if ok else 0


@cuda.jit(cache=True)
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
    k = tid
    while k < n * n:
        M[k] = L[b, k]
        k += nt
    cuda.syncthreads()
    if explicit:
        store_transpose(M, n, n, c0, cs, r0, rs)
    nrhs = B.shape[1] // n
    for r in range(nrhs):
        k = tid
        while k < n:
            v[k] = B[b, r * n + k]
            k += nt
        cuda.syncthreads()
        backward(M, v, n, n, explicit, tid, nt)
        k = tid
        while k < n:
            B[b, r * n + k] = v[k]
            k += nt
        cuda.syncthreads()


@cuda.jit(cache=True)
def forwardsolve(L, B, n):
    b = cuda.blockIdx.x
    tid = cuda.threadIdx.x + cuda.threadIdx.y * cuda.blockDim.x
    nt = cuda.blockDim.x * cuda.blockDim.y
    dyn = cuda.shared.array(0, float64)
    M = dyn[0:n * n]
    v = dyn[n * n:n * n + n]
    k = tid
    while k < n * n:
        M[k] = L[b, k]
        k += nt
    cuda.syncthreads()
    nrhs = B.shape[1] // n
    for r in range(nrhs):
        k = tid
        while k < n:
            v[k] = B[b, r * n + k]
            k += nt
        cuda.syncthreads()
        forward(M, v, n, n, tid, nt)
        k = tid
        while k < n:
            B[b, r * n + k] = v[k]
            k += nt
        cuda.syncthreads()


@cuda.jit(cache=True)
def tron(X, LO, HI, P, WS, SCR, OUT, cfg, n, cholesky, explicit, layout2d, shared, ntpad):
    b = cuda.blockIdx.x
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    bx, by = cuda.blockDim.x, cuda.blockDim.y
    tid = tx + ty * bx
    nt = bx * by
    c0, cs, r0, rs = lay(tid, nt, tx, ty, bx, by, layout2d)
    dyn = cuda.shared.array(0, float64)
    red = dyn[0:ntpad]
    # one call site: NVVM inlines the whole solve at each call, so two (shared, global) compiled it twice
    W = dyn[ntpad:ntpad + 2 * n * n + 16 * n] if shared else WS[b]
    tron_solve(X[b], LO[b], HI[b], P[b], W, SCR[b], red, OUT[b], cfg, n, cholesky, explicit,
               tid, nt, c0, cs, r0, rs)
