"""The GPU driver of the batched L-BFGS-B with a start per group of lanes (issue 43; opt-in:
``lanes`` of the lbfgsb-gpu method): spliced after :mod:`gpubench.kernels.lbfgsb`, in place of
:mod:`gpubench.kernels.lbfgsb_gpu`.

A start is a group of ``LBG_LANES`` consecutive threads of one warp (the driver replaces the
constant below when it splices the module).  Lane 0 of the group runs the one-thread solver
:func:`_lb_solve_one` unchanged; the other lanes wait in :func:`_lbg_worker`.  This module
defines again, under the same names and signatures, the device functions of the solver's O(k^3),
O(k^2 n) and O(kn) steps (:func:`_lb_middle`, :func:`_lb_solve`, :func:`_lb_gram_free`, :func:`_lb_mgr`,
:func:`_lb_wt_at`, :func:`_lb_quad_at`, :func:`_lb_matvec_at`, :func:`_lb_free_residual`,
:func:`_lb_free_step`, :func:`_lb_pair_dots`): spliced
after the solver, these definitions are the ones its globals hold when numba compiles the kernel,
so lane 0's calls post a command to the group (shared memory, then a group barrier) and the whole
group runs the step, each lane its rows, entries, columns or coordinates.  Every entry is computed
by exactly the operations, in exactly the order, of the one-thread code (a lane that owns an entry
sums it as the one thread did; a pivot search, a sum across rows and a back substitution stay on
lane 0): the iterates are the same bits as
those of :mod:`gpubench.kernels.lbfgsb_gpu` and of the CPU twin.  docs/lbfgsb.md ("A start per
group of lanes") lists the steps and what is still sequential.

The group barrier is ``syncwarp`` over the group's lanes (sm_70 and later allow a warp barrier
reached from different places in the code, as here: lane 0 inside the solver, the others in the
worker loop).  numba's simulator has no ``syncwarp``: under it a block is one group and the
barrier is ``syncthreads``, the driver launching blocks of ``LBG_LANES`` threads.
"""
from numba import cuda as _lbcuda, float64 as _lbf64
from numba.core import config as _lbconfig

if __name__ == "gpubench.kernels.lbfgsb_group":  # imported as itself: stand-ins
    from gpubench.kernels.lbfgsb import (_lb_back, _lb_free_residual_rows, _lb_free_step_rows, _lb_gram_entry,
                                         _lb_lu_solve, _lb_middle_row, _lb_mgr_entry, _lb_pair_dots_rows,
                                         _lb_pivot, _lb_solve_one, _lb_u, _lb_wrow)
    from gpubench.kernels.stand_in import device, kernel

LBG_LANES = 8                       # lanes a start (the driver splices in its own)
LBG_REGISTERS = 0                   # a cap on the kernel's registers a thread, 0: ptxas's choice (spliced too)
LBG_BLOCK = 32                      # threads a block on a GPU: one warp, 32 // LBG_LANES starts
LBG_GROUPS = LBG_BLOCK // LBG_LANES if LBG_LANES <= LBG_BLOCK else 1
LBG_M2MAX = 128                     # 2 m for the largest history (m <= 64)
_LBG_SIM = bool(_lbconfig.ENABLE_CUDASIM)
# a group's shared slots: 0 command, 1 k (or k2), 2 theta, 3 a flag lane 0 broadcasts, 4 the call
# site (rows of V / SV, as gpubench/kernels/lbfgsb.py numbers them), then pivots or a product's rows
_LBG_CMD = 0
_LBG_K = 1
_LBG_THETA = 2
_LBG_FLAG = 3
_LBG_SITE = 4
_LBG_PIV = 5
LBG_SLOTS = _LBG_PIV + LBG_M2MAX
_LBG_STOP = 1.0
_LBG_MIDDLE = 2.0
_LBG_SOLVE = 3.0
_LBG_GRAM = 4.0
_LBG_MGR = 5.0
_LBG_WT = 6.0
_LBG_QUAD = 7.0
_LBG_MATVEC = 8.0
_LBG_RESID = 9.0
_LBG_STEP = 10.0
_LBG_PAIR = 11.0


@device
def _lbg_lane():
    return _lbcuda.threadIdx.x % LBG_LANES


@device
def _lbg_base():
    # where the group's slots start in the block's dynamic shared memory (LBG_SLOTS words a group;
    # every dynamic shared array of a kernel is the same memory, whichever function declares it)
    return (_lbcuda.threadIdx.x // LBG_LANES) % LBG_GROUPS * LBG_SLOTS


@device
def _lbg_sync():
    # the group's barrier (memory written before it is seen by every lane of the group after it)
    if _LBG_SIM:
        _lbcuda.syncthreads()
    else:
        first = (_lbcuda.threadIdx.x % 32) // LBG_LANES * LBG_LANES
        mask = ((1 << LBG_LANES) - 1) << first
        _lbcuda.syncwarp(mask & 0xFFFFFFFF)


@device
def _lbg_post(sh, cmd, k, theta, site):
    # lane 0: the command and its scalars, then the barrier the waiting lanes leave by
    sh[_LBG_CMD] = cmd
    sh[_LBG_K] = k
    sh[_LBG_THETA] = theta
    sh[_LBG_SITE] = site
    _lbg_sync()


# ---------------------------------------------------------------- the group's steps (every lane)
@device
def _lbg_pivot(A, k2, c, sh):
    # lane 0: _lb_lu's pivot search of column c (the first largest |A[r, c]|, r >= c), broadcast
    # with the flag 0 when singular
    piv_c = _lb_pivot(A, k2, c)
    sh[_LBG_FLAG] = 0.0 if piv_c < 0 else 1.0
    sh[_lb_u(_LBG_PIV + c)] = piv_c if piv_c >= 0 else c


@device
def _lbg_lu(A, k2, lane, sh):
    # _lb_lu by the group: the pivot search on lane 0, the swap a column a lane, the elimination a
    # row a lane (each entry's update is one operation, as in _lb_lu); pivots in the shared slots
    for c in range(k2):
        if lane == 0:
            _lbg_pivot(A, k2, c, sh)
        _lbg_sync()
        if sh[_LBG_FLAG] == 0.0:
            return False      # the caller's barrier follows before lane 0 writes the slots again
        piv_c = int(sh[_lb_u(_LBG_PIV + c)])
        if piv_c != c:
            for q in range(c + lane, k2, LBG_LANES):
                t = A[_lb_u(c), _lb_u(q)]
                A[_lb_u(c), _lb_u(q)] = A[_lb_u(piv_c), _lb_u(q)]
                A[_lb_u(piv_c), _lb_u(q)] = t
        _lbg_sync()
        d = A[_lb_u(c), _lb_u(c)]
        for r in range(c + 1 + lane, k2, LBG_LANES):
            fct = A[_lb_u(r), _lb_u(c)] / d
            A[_lb_u(r), _lb_u(c)] = fct
            if fct != 0.0:
                for q in range(c + 1, k2):
                    A[_lb_u(r), _lb_u(q)] -= fct * A[_lb_u(c), _lb_u(q)]
        _lbg_sync()
    return True


@device
def _lbg_middle_part(SS, SY, k, theta, M, A, lane, sh):
    # _lb_middle by the group: A a row a lane, its LU, then the k2 columns of M a lane each, every
    # column solved in place by _lb_lu_solve (the same operations as the one thread's solve of e_j)
    k2 = 2 * k
    for a in range(lane, k2, LBG_LANES):
        _lb_middle_row(SS, SY, k, theta, A, a)
    _lbg_sync()
    if not _lbg_lu(A, k2, lane, sh):
        return False
    piv = sh[_LBG_PIV:_LBG_PIV + k2]
    for j in range(k2):
        # columns dealt back and forth (0 .. G-1, then 2G-1 .. G): a solve of e_j skips its first j
        # steps, so the lane of the costly column 0 takes the cheap column 2G - 1
        w = j % (2 * LBG_LANES)
        if (w if w < LBG_LANES else 2 * LBG_LANES - 1 - w) != lane:
            continue
        col = M[:, j]
        for a in range(k2):
            col[_lb_u(a)] = 1.0 if a == j else 0.0
        _lb_lu_solve(A, k2, piv, col, True)
    return True


@device
def _lbg_solve_part(A, k2, rhs, lane, sh):
    # _lb_solve by the group: pivot search, rhs swap and back substitution on lane 0, the row swap
    # a column a lane, the elimination a row a lane (rhs[r] by the lane of row r)
    for c in range(k2):
        if lane == 0:
            _lbg_pivot(A, k2, c, sh)
        _lbg_sync()
        if sh[_LBG_FLAG] == 0.0:
            return False
        piv = int(sh[_lb_u(_LBG_PIV + c)])
        if piv != c:
            for q in range(lane, k2, LBG_LANES):
                t = A[_lb_u(c), _lb_u(q)]
                A[_lb_u(c), _lb_u(q)] = A[_lb_u(piv), _lb_u(q)]
                A[_lb_u(piv), _lb_u(q)] = t
            if lane == 0:
                t = rhs[_lb_u(c)]
                rhs[_lb_u(c)] = rhs[_lb_u(piv)]
                rhs[_lb_u(piv)] = t
        _lbg_sync()
        for r in range(c + 1 + lane, k2, LBG_LANES):
            fct = A[_lb_u(r), _lb_u(c)] / A[_lb_u(c), _lb_u(c)]
            if fct != 0.0:
                for q in range(c, k2):
                    A[_lb_u(r), _lb_u(q)] -= fct * A[_lb_u(c), _lb_u(q)]
                rhs[_lb_u(r)] -= fct * rhs[_lb_u(c)]
        _lbg_sync()
    if lane == 0:
        _lb_back(A, k2, rhs)
    return True


# ---------------------------------------------------------------- the solver's steps, for lane 0
# (the names and signatures _lb_solve_one calls; each ends with the group's barrier, after which
# the waiting lanes read the next command)
@device
def _lb_middle(SS, SY, k, theta, M, A, col):
    b = _lbg_base()
    sh = _lbcuda.shared.array(0, _lbf64)[b:b + LBG_SLOTS]
    _lbg_post(sh, _LBG_MIDDLE, k, theta, 0)
    ok = _lbg_middle_part(SS, SY, k, theta, M, A, 0, sh)
    _lbg_sync()
    return ok


@device
def _lb_solve(A, k2, rhs):
    b = _lbg_base()
    sh = _lbcuda.shared.array(0, _lbf64)[b:b + LBG_SLOTS]
    _lbg_post(sh, _LBG_SOLVE, k2, 0.0, 0)
    ok = _lbg_solve_part(A, k2, rhs, 0, sh)
    _lbg_sync()
    return ok


@device
def _lb_gram_free(S, Y, k, theta, FR, GR):
    b = _lbg_base()
    _lbg_post(_lbcuda.shared.array(0, _lbf64)[b:b + LBG_SLOTS], _LBG_GRAM, k, theta, 0)
    _lbg_gram_entries(S, Y, k, theta, FR, GR, 0)
    _lbg_sync()


@device
def _lb_mgr(M, GR, k2, theta, A):
    b = _lbg_base()
    _lbg_post(_lbcuda.shared.array(0, _lbf64)[b:b + LBG_SLOTS], _LBG_MGR, k2, theta, 0)
    _lbg_mgr_entries(M, GR, k2, theta, A, 0)
    _lbg_sync()


@device
def _lbg_gram_entries(S, Y, k, theta, FR, GR, lane):
    # _lb_gram_rows's entries (a, b >= a), every LBG_LANES-th to this lane (an entry, not a row:
    # the rows of a triangle differ in length), each _lb_gram_entry's sum over i in order
    k2 = 2 * k
    e = 0
    for a in range(k2):
        for b in range(a, k2):
            if e % LBG_LANES == lane:
                s = _lb_gram_entry(S, Y, k, theta, FR, a, b)
                GR[_lb_u(a), _lb_u(b)] = s
                GR[_lb_u(b), _lb_u(a)] = s
            e += 1


@device
def _lbg_mgr_entries(M, GR, k2, theta, A, lane):
    # _lb_mgr_rows's entries of A = I - M GR / theta, every LBG_LANES-th to this lane
    for e in range(lane, k2 * k2, LBG_LANES):
        a = e // k2
        b = e - a * k2
        A[_lb_u(a), _lb_u(b)] = (1.0 if a == b else 0.0) - _lb_mgr_entry(M, GR, k2, a, b) / theta


@device
def _lbg_wt_rows(S, Y, k, theta, v, out, a0):
    # rows a0, a0 + LBG_LANES, ... of W^T v, each summed over i in _lb_wt's order
    for a in range(a0, 2 * k, LBG_LANES):
        s = 0.0
        for i in range(v.shape[0]):
            s += _lb_wrow(S, Y, k, theta, i, a) * v[_lb_u(i)]
        out[_lb_u(a)] = s


@device
def _lbg_mv_rows(M, k2, v, out, a0):
    # rows a0, a0 + LBG_LANES, ... of M v, each summed over b in _lb_matvec's (and _lb_quad's) order
    for a in range(a0, k2, LBG_LANES):
        t = 0.0
        for b in range(k2):
            t += M[_lb_u(a), _lb_u(b)] * v[_lb_u(b)]
        out[_lb_u(a)] = t


@device
def _lb_wt_at(site, S, Y, k, theta, v, out):
    b = _lbg_base()
    _lbg_post(_lbcuda.shared.array(0, _lbf64)[b:b + LBG_SLOTS], _LBG_WT, k, theta, site)
    _lbg_wt_rows(S, Y, k, theta, v, out, 0)
    _lbg_sync()


@device
def _lb_quad_at(site, M, k2, u, v):
    # the rows of M v a lane each into the slots, then u^T (M v) summed on lane 0 in _lb_quad's order
    # (the waiting lanes write the slots again only after lane 0's next command)
    b = _lbg_base()
    sh = _lbcuda.shared.array(0, _lbf64)[b:b + LBG_SLOTS]
    _lbg_post(sh, _LBG_QUAD, k2, 0.0, site)
    t = sh[_LBG_PIV:_LBG_PIV + k2]
    _lbg_mv_rows(M, k2, v, t, 0)
    _lbg_sync()
    s = 0.0
    for a in range(k2):
        s += u[_lb_u(a)] * t[_lb_u(a)]
    return s


@device
def _lb_matvec_at(site, M, k2, v, out):
    b = _lbg_base()
    _lbg_post(_lbcuda.shared.array(0, _lbf64)[b:b + LBG_SLOTS], _LBG_MATVEC, k2, 0.0, site)
    _lbg_mv_rows(M, k2, v, out, 0)
    _lbg_sync()


@device
def _lb_free_residual(S, Y, k, theta, T1, G, XC, X, FR, R):
    b = _lbg_base()
    _lbg_post(_lbcuda.shared.array(0, _lbf64)[b:b + LBG_SLOTS], _LBG_RESID, k, theta, 0)
    _lb_free_residual_rows(S, Y, k, theta, T1, G, XC, X, FR, R, 0, LBG_LANES)
    _lbg_sync()


@device
def _lb_free_step(S, Y, k, theta, VV, R, FR, DU):
    b = _lbg_base()
    _lbg_post(_lbcuda.shared.array(0, _lbf64)[b:b + LBG_SLOTS], _LBG_STEP, k, theta, 0)
    _lb_free_step_rows(S, Y, k, theta, VV, R, FR, DU, 0, LBG_LANES)
    _lbg_sync()


@device
def _lb_pair_dots(S, Y, SS, SY, k):
    b = _lbg_base()
    _lbg_post(_lbcuda.shared.array(0, _lbf64)[b:b + LBG_SLOTS], _LBG_PAIR, k, 0.0, 0)
    _lb_pair_dots_rows(S, Y, SS, SY, k, 0, LBG_LANES)
    _lbg_sync()


@device
def _lbg_worker(V, SYb, SM, SV, lane):
    # lanes 1 .. LBG_LANES - 1: each command of lane 0 on the start's own work arrays, the ones
    # _lb_solve_one passes (SS, SY, M, A, GR = SM[0..4]; S, Y = SYb; X, G, XC, FR, R, DU = V[0, 1, 3,
    # 5, 8, 9]; VV, T1 = SV[2, 4]; the products' other rows named by the call site)
    b = _lbg_base()
    sh = _lbcuda.shared.array(0, _lbf64)[b:b + LBG_SLOTS]
    while True:
        _lbg_sync()
        cmd = sh[_LBG_CMD]
        if cmd == _LBG_STOP:
            return
        k = int(sh[_LBG_K])
        theta = sh[_LBG_THETA]
        if cmd == _LBG_MIDDLE:
            _lbg_middle_part(SM[0], SM[1], k, theta, SM[2], SM[3], lane, sh)
        elif cmd == _LBG_SOLVE:
            _lbg_solve_part(SM[3], k, SV[2], lane, sh)
        elif cmd == _LBG_GRAM:
            _lbg_gram_entries(SYb[0], SYb[1], k, theta, V[5], SM[4], lane)
        elif cmd == _LBG_MGR:
            _lbg_mgr_entries(SM[2], SM[4], k, theta, SM[3], lane)
        else:
            site = int(sh[_LBG_SITE])
            if cmd == _LBG_WT:          # W^T v: v a row of V, the product a row of SV
                _lbg_wt_rows(SYb[0], SYb[1], k, theta, V[_lb_u(site // 16)], SV[_lb_u(site % 16)], lane)
            elif cmd == _LBG_QUAD:      # u^T M v: v a row of SV, M v into the slots
                _lbg_mv_rows(SM[2], k, SV[_lb_u(site % 16)], sh[_LBG_PIV:_LBG_PIV + k], lane)
            elif cmd == _LBG_MATVEC:    # M v: v and the product rows of SV
                _lbg_mv_rows(SM[2], k, SV[_lb_u(site // 16)], SV[_lb_u(site % 16)], lane)
            elif cmd == _LBG_RESID:
                _lb_free_residual_rows(SYb[0], SYb[1], k, theta, SV[4], V[1], V[3], V[0], V[5], V[8],
                                       lane, LBG_LANES)
            elif cmd == _LBG_STEP:
                _lb_free_step_rows(SYb[0], SYb[1], k, theta, SV[2], V[8], V[5], V[9], lane, LBG_LANES)
            elif cmd == _LBG_PAIR:
                _lb_pair_dots_rows(SYb[0], SYb[1], SM[0], SM[1], k, lane, LBG_LANES)
        _lbg_sync()


# every lane holds the registers of the solver's lane 0: at 228 (the one-thread kernel's, ncu at
# a05499a) an SM keeps 8 warps, 8 x 32 / LBG_LANES starts; a cap keeps more at the price of spills
# (the simulator's jit takes no cap)
_lbg_kernel = (_lbcuda.jit(cache=True, max_registers=LBG_REGISTERS) if LBG_REGISTERS and not _LBG_SIM
               else kernel)


@_lbg_kernel
def lbfgsb_group_starts(X0, lo, hi, p, sign, m, pgtol, factr, maxiter, maxfun, approx, project, cap, live,
                        V, SYb, SM, SV, XOUT, RES):
    # group g (threads g LBG_LANES ..) advances start live[g] by at most cap iterations; a group
    # is all in or all out of range, so every lane that waits at a barrier has its partners
    t = _lbcuda.grid(1)
    g = t // LBG_LANES
    lane = t % LBG_LANES
    if g < live.shape[0]:
        r = _lb_u(live[_lb_u(g)])     # a start's index (the host's np.flatnonzero: never negative)
        if lane == 0:
            _lb_solve_one(X0[r], lo, hi, p, sign, m, pgtol, factr, maxiter, maxfun, approx, project, cap,
                          V[:, :, r], SYb[:, :, :, r], SM[:, :, :, r], SV[:, :, r], XOUT[r], RES[r])
            b = _lbg_base()
            _lbg_post(_lbcuda.shared.array(0, _lbf64)[b:b + LBG_SLOTS], _LBG_STOP, 0, 0.0, 0)
        else:
            _lbg_worker(V[:, :, r], SYb[:, :, :, r], SM[:, :, :, r], SV[:, :, r], lane)
