"""CPU twins: the same core functions (``load_core("cpu", ...)``) with one thread per
problem (``tid = 0, nt = 1``, no barrier) and numba's ``prange`` over the batch,
so each core of the host solves whole problems, as a block does on the GPU."""
from functools import lru_cache

from numba import njit, prange

from .loader import load_core


@lru_cache(maxsize=None)
def linalg_twins():
    core = load_core("cpu", "hs45")
    chol_left, chol_right = core.chol_left, core.chol_right
    store_transpose, backward, forward = core.store_transpose, core.backward, core.forward

    @njit(parallel=True)
    def cholesky(A, n, variant, OK):
        for b in prange(A.shape[0]):
            if variant == 0:
                ok = chol_left(A[b], n, n, 0, 1)
            else:
                ok = chol_right(A[b], n, n, 0, 1, 0, 1, 0, 1)
            OK[b] = 1 if ok else 0

    @njit(parallel=True)
    def backsolve(L, B, n, explicit):
        nrhs = B.shape[1] // n
        for b in prange(L.shape[0]):
            M = L[b].copy()
            if explicit:
                store_transpose(M, n, n, 0, 1, 0, 1)
            for r in range(nrhs):
                backward(M, B[b, r * n:(r + 1) * n], n, n, explicit, 0, 1)

    @njit(parallel=True)
    def forwardsolve(L, B, n):
        nrhs = B.shape[1] // n
        for b in prange(L.shape[0]):
            for r in range(nrhs):
                forward(L[b], B[b, r * n:(r + 1) * n], n, n, 0, 1)

    return cholesky, backsolve, forwardsolve


_TRON = {}


def tron_twin(objective="hs45", forms=None, hess=None):
    key = (objective, None if forms is None else forms.__name__, None if hess is None else hess.__name__)
    if key in _TRON:
        return _TRON[key]
    solve = load_core("cpu", objective, forms, hess).tron_solve

    @njit(parallel=True)
    def tron(X, LO, HI, P, WS, SCR, RED, OUT, cfg, n, cholesky, explicit):
        for b in prange(X.shape[0]):
            solve(X[b], LO[b], HI[b], P[b], WS[b], SCR[b], RED[b], OUT[b], cfg, n,
                  cholesky, explicit, 0, 1, 0, 1, 0, 1)

    _TRON[key] = tron
    return tron
