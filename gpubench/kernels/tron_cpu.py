"""TRON's CPU twins: the core's functions with one thread per problem (``tid = 0, nt = 1``, no
barrier) and numba's ``prange`` over the batch, so each core of the host solves whole problems,
as a block does on the GPU.  Spliced after :mod:`gpubench.methods.tron.core` like
:mod:`gpubench.kernels.tron_gpu` (cached on disk); imported as itself, the hs45 core.
"""
from numba import njit as _tnjit, prange as _tprange

if __name__ == "gpubench.kernels.tron_cpu":  # imported as itself: the hs45 core
    from gpubench.methods.tron.loader import load_core as _load_core
    _core = _load_core("cpu", "hs45")
    backward, chol_left, chol_right = _core.backward, _core.chol_left, _core.chol_right
    forward, store_transpose, tron_solve = _core.forward, _core.store_transpose, _core.tron_solve


@_tnjit(parallel=True, cache=True)
def cholesky(A, n, variant, OK):
    for b in _tprange(A.shape[0]):
        if variant == 0:
            ok = chol_left(A[b], n, n, 0, 1)
        else:
            ok = chol_right(A[b], n, n, 0, 1, 0, 1, 0, 1)
        OK[b] = 1 if ok else 0


@_tnjit(parallel=True, cache=True)
def backsolve(L, B, n, explicit):
    nrhs = B.shape[1] // n
    for b in _tprange(L.shape[0]):
        M = L[b].copy()
        if explicit:
            store_transpose(M, n, n, 0, 1, 0, 1)
        for r in range(nrhs):
            backward(M, B[b, r * n:(r + 1) * n], n, n, explicit, 0, 1)


@_tnjit(parallel=True, cache=True)
def forwardsolve(L, B, n):
    nrhs = B.shape[1] // n
    for b in _tprange(L.shape[0]):
        for r in range(nrhs):
            forward(L[b], B[b, r * n:(r + 1) * n], n, n, 0, 1)


@_tnjit(parallel=True, cache=True)
def tron(X, LO, HI, P, WS, SCR, RED, OUT, cfg, n, cholesky, explicit):
    for b in _tprange(X.shape[0]):
        tron_solve(X[b], LO[b], HI[b], P[b], WS[b], SCR[b], RED[b], OUT[b], cfg, n,
                   cholesky, explicit, 0, 1, 0, 1, 0, 1)
