"""The memory update's small part of the fused L-BFGS-B iteration (:mod:`gpubench.kernels.lbfgsb_fused`): the
pair appended to the history (BLNZ's curvature test, the oldest dropped at k = m), S^T S and S^T Y updated, and
the middle matrix M = [[-D, L^T], [L, theta S^T S]]^{-1} (Byrd, Lu, Nocedal & Zhu 1995, eq. 3.4) formed, by one
block of PUSH_THREADS threads: ``lf_push`` (the host's updates), ``lf_gate_push``
(:mod:`gpubench.kernels.lbfgsb_fused_gate`, the batched driver's) and the cooperative iteration
(:mod:`gpubench.kernels.lbfgsb_fused_coop`) call :func:`_push` with every thread of one block.
"""
import math

from numba import cuda, float64

from gpubench.kernels.lbfgsb import _lb_lu, _lb_lu_solve, _lb_middle_row
from gpubench.kernels.lbfgsb_fused_layout import (
    MMAX, M2MAX, EPS, K, THETA, ACCEPT, SLOT, U_SY, U_YY, U_SS, U_YSS, C_T1, C_P, V3_GD, A_ACC, _clear)

PUSH_THREADS = 32       # one block's threads for _push (lf_push, lf_gate_push): a column of M each (k2 <= M2MAX)


@cuda.jit(device=True)
def _push(st, m, accept, SMB):
    # lf_push's work, also done by the batched driver's lf_gate_push after its gate; called by every
    # thread of one block (PUSH_THREADS): the small matrices staged on chip by all threads, the
    # append and the factorisation of BLNZ's middle system by thread 0, the k2 columns of its
    # inverse M by k2 threads (each column solved as _lb_middle solves it: the same bits), M
    # written back.  One thread did all of it before: its chain of dependent loads was most of the
    # launch (tens of microseconds).
    M = cuda.shared.array((M2MAX, M2MAX), float64)
    A = cuda.shared.array((M2MAX, M2MAX), float64)
    SS = cuda.shared.array((MMAX, MMAX), float64)
    SY = cuda.shared.array((MMAX, MMAX), float64)
    piv = cuda.shared.array(M2MAX, float64)
    state = cuda.shared.array(3, float64)       # factorised (1.0), k, theta
    t = cuda.threadIdx.x
    if accept == -1.0:
        accept = EPS * (-st[V3_GD] * st[A_ACC])     # the host's shared.EPS * (-gd * a), same roundings
    k = int(st[K])
    e = t
    while e < k * k:
        a = e // k
        b = e - a * k
        SS[a, b] = SMB[2, a, b]
        SY[a, b] = SMB[3, a, b]
        e += cuda.blockDim.x
    cuda.syncthreads()
    if t == 0:
        state[0] = 0.0
        _append(st, m, accept, SMB, SS, SY, A, piv, state)
    cuda.syncthreads()
    if state[0] == 0.0:
        return
    k = int(state[1])
    k2 = 2 * k
    j = t
    while j < k2:
        col = M[j]                  # column j of M, solved in row j of M's storage
        for a in range(k2):
            col[a] = 1.0 if a == j else 0.0
        _lb_lu_solve(A, k2, piv, col, True)
        for a in range(k2):
            SMB[0, a, j] = col[a]
        j += cuda.blockDim.x
    if t == 0:
        st[K] = k
        st[THETA] = state[2]


@cuda.jit(device=True)
def _append(st, m, accept, SMB, SS, SY, A, piv, state):
    # _push's one-thread part: BLNZ's curvature test, the pair appended (the oldest dropped at
    # k = m), S^T S and S^T Y written back, the middle system [[-D, L^T], [L, theta S^T S]] built in
    # ``A`` and factorised (_lb_lu); ``state`` = (1.0 where factorised, k, theta) for the columns
    order = SMB[4, 0]
    k = int(st[K])
    st[ACCEPT] = 0.0
    _clear(st, C_T1, C_P + 2 * MMAX)
    st[C_T1] = math.inf
    sy = st[U_SY]
    if not (sy > accept):
        return
    if k == m:
        slot = int(order[0])
        for a in range(m - 1):
            order[a] = order[a + 1]
            for b in range(m - 1):
                SS[a, b] = SS[a + 1, b + 1]
                SY[a, b] = SY[a + 1, b + 1]
        k -= 1
    else:
        slot = k
    order[k] = slot
    k += 1
    for a in range(k):
        sl = int(order[a])
        SS[a, k - 1] = st[U_YSS + m + sl]
        SS[k - 1, a] = st[U_YSS + m + sl]
        SY[k - 1, a] = st[U_YSS + sl]
        SY[a, k - 1] = 0.0     # S y: not summed, M reads only L and D of S^T Y (_lb_middle_row)
    SY[k - 1, k - 1] = sy
    SS[k - 1, k - 1] = st[U_SS]
    theta = st[U_YY] / sy
    st[ACCEPT] = 1.0
    st[SLOT] = slot
    for a in range(k):
        for b in range(k):
            SMB[2, a, b] = SS[a, b]
            SMB[3, a, b] = SY[a, b]
    for a in range(2 * k):
        _lb_middle_row(SS, SY, k, theta, A, a)
    if _lb_lu(A, 2 * k, piv):
        state[0] = 1.0
        state[1] = k
        state[2] = theta
    else:
        st[K] = 0.0
        st[THETA] = 1.0
