"""Fused kernels of one large L-BFGS-B problem: see :mod:`gpubench.methods.lbfgsb.fused`.

An iteration of :func:`gpubench.methods.lbfgsb.core.minimize` (approximate Cauchy point of Fei et al.
2014, section 4.1; BLNZ 1995 direct primal subspace step, projected as in Morales & Nocedal 2011)
as few passes over the n-vectors, each a grid-stride kernel whose dot products, minima and
maxima are reduced on the device (a block tree, then one atomic per block into ``st``), with
one-block kernels between them for the 2m x 2m algebra.  Every scalar of the iteration stays
in the device array ``st`` (layout below); the host reads it once per line-search evaluation.

Arguments are few (a launch's cost on the host grows with each array passed): ``VEC`` holds
the n-vectors as rows (``X``, ``G``, ``LO``, ``HI``, the Cauchy point ``XC``, ``FR`` = 1.0 where
free at x_c, the reduced gradient ``R``, the subspace step ``DU``, the direction ``D``, the first
trial point's row ``XA``, unused, the accepted gradient ``GN``), ``YS`` the history (rows 0..m-1 hold y, rows
m..2m-1 hold s, slots reused round-robin), ``SMB`` the small matrices (``SMB[0]`` the middle
matrix M, ``SMB[1]`` work space, ``SMB[2]`` s_i.s_j and ``SMB[3]`` s_i.y_j oldest first,
``SMB[4][0]`` the slots oldest first).  The 2m x 2m algebra that a pass needs first (the Cauchy
step, the subspace system, the step length) is done by every block at the pass's start (its
operands staged in shared memory by all its threads, the sums shared out, the solve by thread 0:
the same in every block) rather than by a launch of its own; block 0 writes it to ``st``.  The
memory update's part is :mod:`gpubench.kernels.lbfgsb_fused_push`.  Each pass clears the accumulators of passes that come after it.
"""
import math

from numba import config, cuda, float64

from gpubench.kernels.lbfgsb_fused_layout import (  # noqa: F401  (gpubench.methods.lbfgsb.fused reads the layout here)
    TPB, MMAX, NACC, M2MAX, EPS, X, G, LO, HI, XC, FR, R, DU, D, GN, NVEC, K, THETA, TC,
    STPMAX, STP, ACCEPT, SLOT, SUBOK, CHOICE, ALPHA, DESCENT, U_SY, U_YY, U_SS, U_YSS, U_YSD, U_YD, U_SD,
    U_DD, U_T1, U_PG, U_END, C_T1,
    C_DD, C_PG, C_P, V1_R, V2_GD, V2_AMIN, V3_GD, V3_DD, V3_RATIO, NST, _into, _box_step,
    _clear, _clear_update, packed, NTILE, RUN, CODE, F_CUR, F_OLD, PEND, NIT, NFEV, A_ACC, FA, SLOPE, GATE_GOING, GATE_PGTOL, GATE_FDEC,
    GATE_FACTR, GATE_MAXITER, GATE_MAXFUN, GATE_HOST)

if __name__ == "gpubench.kernels.lbfgsb_fused":   # always: this module is never spliced
    from gpubench.kernels.lbfgsb import _lb_solve
# the memory update's one-block part (lf_push here; lf_gate_push and the cooperative iteration import it there)
from gpubench.kernels.lbfgsb_fused_push import PUSH_THREADS, _push  # noqa: F401  (fused.py reads PUSH_THREADS here)
# the direction and the trial point (lf_direction, lf_trial: fused.py finds every kernel here)
from gpubench.kernels.lbfgsb_fused_trial import lf_direction, _direction, lf_trial, _trial  # noqa: F401
# the passes' sums over the n-vectors: in registers (lf_pair, lf_move), a tile at a time (lf_reduced)
from gpubench.kernels.lbfgsb_fused_tile import (  # noqa: F401  (fused.py reads MIN_THREADS here)
    MIN_THREADS, PAIR, MOVE, NREG_PAIR, P_YSD, P_YD, P_SD, P_DD, NREG_MOVE, reg_fold, groups, nblocks, tile_start, tile_pass, tile_fold)


@cuda.jit(device=True)
def _breakpoint(x, g, lo, hi, i):
    # t_i of BLNZ eq. 4.1, 0 for a coordinate fixed from the start
    return _breakpoint_at(x[i], g[i], lo[i], hi[i])


@cuda.jit(device=True)
def _breakpoint_at(x, g, lo, hi):
    if g < 0.0:
        t = (x - hi) / g
    elif g > 0.0:
        t = (x - lo) / g
    else:
        t = math.inf
    if not (t > 0.0):
        t = 0.0
    return t


@cuda.jit(cache=True)
def lf_init(st):
    """k = 0, theta = 1, every accumulator cleared (the smallest breakpoint at +inf)."""
    _clear(st, 0, st.shape[0])
    st[THETA] = 1.0
    st[C_T1] = math.inf
    st[RUN] = 1.0


@cuda.jit(cache=True)
def lf_reset(st):
    """Forget the memory (a bad model: restart from steepest descent, as SciPy does)."""
    st[K] = 0.0
    st[THETA] = 1.0
    _clear(st, C_T1, C_P + 2 * MMAX)
    st[C_T1] = math.inf


# Register caps, so that the compiler's choice cannot cost occupancy (left to itself the H200's compiler took
# 142 registers for lf_pair's sums when they were 19, one block an SM: 499 us at 4e6, c14dfab).  lf_move (d.d
# alone, or the pair's copy) at 64: four blocks of 256 an SM.  lf_pair's 38 sums (the update's and the next
# Cauchy point's, since b21e9a0) and lf_reduced's tile (its column in registers; ptxas 13 takes 127) at 128:
# two blocks of 256 an SM, four of lf_reduced's 128 (fused.REDUCED_THREADS).  lf_reduced capped at 80 spilled
# its 4 x 4 blocks' partials (246 us at 4e6 against 196, 64a6a25).
CAPPED_REGISTERS = 64
REDUCED_REGISTERS = 128
PAIR_REGISTERS = 128
PAIR_WARPS = TPB // 32


def _jit_capped(registers):
    return (cuda.jit(cache=True, max_registers=registers) if not config.ENABLE_CUDASIM
            else cuda.jit(cache=True))


_capped_jit = _jit_capped(CAPPED_REGISTERS)


@_jit_capped(PAIR_REGISTERS)
def lf_pair(VEC, xa, YS, m, st):
    """s = xa - x, y = gn - g: s.y, y.y, s.s and YS s (the memory update's products); and at the trial,
    for d = -gn off the fixed set, the next Cauchy point's YS d, y.d, s.d, d.d, smallest positive
    breakpoint and ||P(xa - gn) - xa||_inf, which lf_move takes once the pair is in its slot."""
    sh2 = cuda.shared.array((PAIR_WARPS, TPB), float64)     # a warp's sums a row
    _pair(VEC, xa, YS, m, st, sh2)


# Each pass's work is a device function of its kernel, its shared arrays passed in, so that the
# cooperative iteration (gpubench.kernels.lbfgsb_fused_coop) runs the same code between grid syncs.
@cuda.jit(device=True)
def _pair(VEC, xa, YS, m, st, sh2):
    # each thread's sums in registers: the loop over the history runs to the constant M2MAX (a slot
    # past 2m skipped), so it unrolls and every index is a constant (a loop to 2m put the sums in local
    # memory, updated at every element: 701 MB moved at 4e6 where the vectors are 448 MB).  S y (the
    # upper triangle of S^T Y) is not summed: BLNZ's middle matrix reads only its lower triangle L and
    # diagonal D (gpubench.kernels.lbfgsb._lb_middle_row).
    if st[RUN] == 0.0:        # the batched driver's gate stopped the iteration
        return
    # The next Cauchy point's products are summed here too, at the trial, where they were lf_move's at the
    # new x: the same products element by element (YS d over the slots as they are, the new pair's row
    # as y.d and s.d), so that lf_move, once the pair is in its slot, reads no history (320 MB at 4e6).
    acc = cuda.local.array(NREG_PAIR, float64)
    for q in range(NREG_PAIR):
        acc[q] = 0.0
    m2 = 2 * m
    t1 = math.inf
    pg = 0.0
    i = cuda.grid(1)
    while i < VEC.shape[1]:
        xi = xa[i]
        gi = VEC[GN, i]
        lo = VEC[LO, i]
        hi = VEC[HI, i]
        s = xi - VEC[X, i]
        y = gi - VEC[G, i]
        t = _breakpoint_at(xi, gi, lo, hi)
        # d = 0 on the fixed set adds exact zeros (a sum from +0 never becomes -0): no branch in the loop,
        # whose loads are then all issued together
        d = -gi if t > 0.0 else 0.0
        if t > 0.0 and t < t1:
            t1 = t
        acc[0] += s * y
        acc[1] += y * y
        acc[2] += s * s
        for j in range(M2MAX):
            if j < m2:
                v = YS[j, i]
                acc[3 + j] += v * s
                acc[P_YSD + j] += v * d
        acc[P_YD] += y * d
        acc[P_SD] += s * d
        acc[P_DD] += d * d
        z = xi - gi
        if z < lo:
            z = lo
        if z > hi:
            z = hi
        z = abs(z - xi)
        if z > pg:
            pg = z
        i += cuda.gridsize(1)
    _into(st, U_T1, sh2[0], t1, 1)
    _into(st, U_PG, sh2[0], pg, 2)
    reg_fold(PAIR, m, acc, NREG_PAIR, sh2, st)


@cuda.jit(cache=True)
def lf_push(st, m, accept, SMB):
    """Append the pair where s.y > ``accept`` (BLNZ's curvature test), dropping the oldest at k = m;
    theta = y.y / s.y and M = [[-D, L^T], [L, theta S^T S]]^{-1} (BLNZ eq. 3.4).  ``accept`` = -1:
    the test's threshold eps (-g.d) a from the device's g.d and accepted step (the batched driver).
    One block of PUSH_THREADS threads."""
    if st[RUN] == 0.0:        # the batched driver's gate stopped the iteration
        return
    _push(st, m, accept, SMB)


@_capped_jit
def lf_move(VEC, xa, YS, m, move, st):
    """With ``move``: the accepted pair into its slot, x = xa, g = gn, and the next Cauchy point's products
    at x taken from lf_pair's (summed at the trial).  Without (an empty history: after lf_init or lf_reset):
    at x, the smallest positive breakpoint, d.d for d = -g off the fixed set, and ||P(x - g) - x||_inf.
    Clears the accumulators of the iteration's later passes."""
    sh = cuda.shared.array(TPB, float64)
    sh2 = cuda.shared.array((PAIR_WARPS, TPB), float64)     # a warp's sum a row
    _move(VEC, xa, YS, m, move, st, sh, sh2)


@cuda.jit(device=True)
def _move(VEC, xa, YS, m, move, st, sh, sh2):
    if st[RUN] == 0.0:        # the batched driver's gate stopped the iteration
        return
    i = cuda.grid(1)
    if i == 0:
        _clear(st, V1_R, V3_RATIO + 1)
        st[V2_AMIN] = math.inf
        st[V3_RATIO] = math.inf
    if move != 0:
        # x = xa, g = gn, the pair into its slot; the next Cauchy point's products are lf_pair's at xa
        put = st[ACCEPT] != 0.0
        slot = int(st[SLOT])
        if i == 0:
            for j in range(2 * m):
                st[C_P + j] = st[U_YSD + j]
            if put:
                st[C_P + slot] = st[U_YD]
                st[C_P + m + slot] = st[U_SD]
            st[C_DD] = st[U_DD]
            st[C_T1] = st[U_T1]
            st[C_PG] = st[U_PG]
        while i < VEC.shape[1]:
            xi = xa[i]
            gi = VEC[GN, i]
            if put:
                YS[slot, i] = gi - VEC[G, i]
                YS[m + slot, i] = xi - VEC[X, i]
            VEC[X, i] = xi
            VEC[G, i] = gi
            i += cuda.gridsize(1)
        return
    # at x with an empty history (lf_init's, lf_reset's: k = 0, so no W^T d): the smallest positive
    # breakpoint, d.d and the projected gradient's norm
    acc = cuda.local.array(NREG_MOVE, float64)
    acc[0] = 0.0
    t1 = math.inf
    pg = 0.0
    while i < VEC.shape[1]:
        t = _breakpoint(VEC[X], VEC[G], VEC[LO], VEC[HI], i)
        if t > 0.0:
            d = -VEC[G, i]
            if t < t1:
                t1 = t
            acc[0] += d * d
        z = VEC[X, i] - VEC[G, i]
        if z < VEC[LO, i]:
            z = VEC[LO, i]
        if z > VEC[HI, i]:
            z = VEC[HI, i]
        z = abs(z - VEC[X, i])
        if z > pg:
            pg = z
        i += cuda.gridsize(1)
    _into(st, C_T1, sh, t1, 1)
    _into(st, C_PG, sh, pg, 2)
    reg_fold(MOVE, m, acc, NREG_MOVE, sh2, st)


@cuda.jit(device=True)
def _stage_cauchy(st, m, SMB, sh2):
    """Every thread of the block: the middle matrix into ``sh2[0]`` (row stride M2MAX), the slots
    oldest first into ``sh2[1, :MMAX]`` and W^T d's products (st[C_P:]) into ``sh2[1, M2MAX:]``, on
    chip for _cauchy's one thread (read from global memory one load after another, their latency
    was most of the pass at small n).  The caller synchronises the block."""
    k2 = 2 * int(st[K])
    t = cuda.threadIdx.x
    e = t
    while e < k2 * k2:
        a = e // k2
        b = e - a * k2
        sh2[0, a * M2MAX + b] = SMB[0, a, b]
        e += cuda.blockDim.x
    e = t
    while e < 2 * m:                    # (a block may have fewer threads than 2 m: the simulator's)
        if e < k2 // 2:
            sh2[1, e] = SMB[4, 0, e]
        sh2[1, M2MAX + e] = st[C_P + e]
        e += cuda.blockDim.x


@cuda.jit(device=True)
def _cauchy(st, m, sh2, p, w1):
    """Fei et al.'s t_c = max(0, min(t_1, -f'_1 / f''_1)), c = t_c W^T d, and in ``w1`` the
    coefficients over the YS rows of W M c (the subspace step's first product); returns t_c.
    M, the slots and W^T d's products are read from ``sh2``, staged by _stage_cauchy."""
    M = sh2[0]
    order = sh2[1]
    k = int(st[K])
    theta = st[THETA]
    dd = st[C_DD]
    k2 = 2 * k
    for a in range(k):
        sl = int(order[a])
        p[a] = order[M2MAX + sl]
        p[k + a] = theta * order[M2MAX + m + sl]
    tc = 0.0
    if dd != 0.0:
        f1 = -dd
        f2 = theta * dd
        if k > 0:
            s = 0.0
            for a in range(k2):
                t = 0.0
                for b in range(k2):
                    t += M[a * M2MAX + b] * p[b]
                s += p[a] * t
            f2 -= s
        if f2 < EPS * theta * dd:
            f2 = EPS * theta * dd
        tc = -f1 / f2
        if st[C_T1] < tc:
            tc = st[C_T1]
        if tc < 0.0:
            tc = 0.0
    for j in range(M2MAX):
        w1[j] = 0.0
    for a in range(k2):
        t = 0.0
        for b in range(k2):
            t += M[a * M2MAX + b] * (tc * p[b])
        if a < k:
            w1[int(order[a])] = t
        else:
            w1[m + int(order[a - k])] = theta * t
    return tc


@_jit_capped(REDUCED_REGISTERS)
def lf_reduced(VEC, YS, m, st, SMB):
    """The Cauchy point (at the block's start), x_c (coordinates with t_i <= t_c on their bound),
    the free set, r = g + theta (x_c - x) - W M c on it, and YS r with the gram (YS Z)(YS Z)^T of
    the free rows."""
    sh2 = cuda.shared.array((NTILE, TPB), float64)
    w1 = cuda.shared.array(M2MAX, float64)
    p = cuda.shared.array(M2MAX, float64)
    tcs = cuda.shared.array(1, float64)
    _reduced(VEC, YS, m, st, SMB, sh2, w1, p, tcs)


@cuda.jit(device=True)
def _reduced(VEC, YS, m, st, SMB, sh2, w1, p, tcs):
    # ``sh2``: NTILE x TPB, rows 0..2m the tile (gpubench.kernels.lbfgsb_fused_tile): each thread puts
    # its element's free YS column and r there (zeros where the coordinate is bound); the products are
    # YS r (row 2m is r), then the free rows' gram, its packed upper triangle row by row (st[V1_R:]'s order)
    if st[RUN] == 0.0:        # the batched driver's gate stopped the iteration
        return
    _stage_cauchy(st, m, SMB, sh2)
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        tcs[0] = _cauchy(st, m, sh2, p, w1)
        if cuda.blockIdx.x == 0:
            st[TC] = tcs[0]
    cuda.syncthreads()
    k = int(st[K])
    m2 = 2 * m
    tc = tcs[0]
    theta = st[THETA]
    t = cuda.threadIdx.x
    gw, ng, grp, lane, rounds = groups(nblocks(m))
    acc = cuda.local.array(16, float64)
    a0, b0 = tile_start(m, acc, grp, ng, rounds)
    n = VEC.shape[1]
    nt = cuda.blockDim.x
    # One pass, a tile (an element a thread) at a time: x_c and the free set; where the tile holds a free
    # coordinate (the block's vote), r = g + theta (x_c - x) - W M c on it, its YS column and r into the
    # tile, the tile's products.  The column is loaded with the element's x, g and bounds (one round trip a
    # tile) where the block's previous tile held a free coordinate, else only once the vote says so: a
    # load after the element's stores waits for them (generic loads may alias), and loads one at a time
    # left lf_reduced at 1.4 TB/s where every tile is free (ncu at 4e6, results/gpu/solve-7d6007a/).  A
    # column loaded for a bound coordinate is dropped (bytes spent only in tiles partly free).
    col = cuda.local.array(M2MAX, float64)
    ahead = False                   # the previous tile held a free coordinate: load the column at once
    base = cuda.blockIdx.x * nt     # the same rounds for every thread of the block (its votes and syncs)
    while base < n:
        i = base + t
        loaded = ahead
        free = False
        x = 0.0
        gi = 0.0
        xc = 0.0
        if i < n:
            x = VEC[X, i]
            gi = VEC[G, i]
            lo = VEC[LO, i]
            hi = VEC[HI, i]
            if loaded:
                for j in range(M2MAX):          # to a constant: unrolled, col in registers
                    if j < m2:
                        col[j] = YS[j, i]
            tb = _breakpoint_at(x, gi, lo, hi)
            if tb > 0.0 and tb <= tc:
                xc = hi if gi < 0.0 else lo
            elif tb > 0.0:
                xc = x - tc * gi
            else:
                xc = x
            free = tb > tc
            VEC[XC, i] = xc
            VEC[FR, i] = 1.0 if free else 0.0
            if not free or k == 0:
                VEC[R, i] = 0.0
        if k > 0:                   # (the same k for the whole block)
            ahead = cuda.syncthreads_or(1 if free else 0) != 0
            if ahead:
                r = 0.0
                if free:
                    if not loaded:
                        for j in range(M2MAX):
                            if j < m2:
                                col[j] = YS[j, i]
                    r = gi + theta * (xc - x)
                    s = 0.0
                    for j in range(M2MAX):
                        if j < m2:
                            sh2[j, t] = col[j]      # the tile's column, read once
                            s += w1[j] * col[j]
                    r = r - s                       # (g + theta (x_c - x)) - s, as one expression before
                    VEC[R, i] = r
                else:
                    for j in range(m2):
                        sh2[j, t] = 0.0
                sh2[m2, t] = r
                cuda.syncthreads()
                # no barrier after the products: the next tile's vote is one, and every store into the
                # tile comes after it, so no thread overwrites the tile while another still reads it
                tile_pass(m, sh2, acc, st, grp, ng, lane, gw, rounds, a0, b0)
        base += cuda.gridsize(1)
    tile_fold(m, acc, st, lane, gw, rounds, a0, b0)


@cuda.jit(device=True)
def _subspace(st, m, SMB, A, q, w2, M, vs, rows, ok):
    """v = N^{-1} M W^T r with N = I - M W^T Z Z^T W / theta (BLNZ eq. 5.11), by Gaussian
    elimination in ``A``; in ``w2`` the coefficients over the YS rows of W v; ``ok[0]`` 0.0: no step
    (k = 0 or N singular), the Cauchy point is the subspace minimiser.  Called by every thread of
    the block: the middle matrix (``M``), YS r with the gram (``vs``) and the rows of W in slot
    numbering (``rows``) are staged on chip by all threads, each entry of N and of M W^T r is one
    thread's sum (the same sum, in the same order, as one thread summing them all), and thread 0
    solves.  The caller synchronises the block after it."""
    t = cuda.threadIdx.x
    nt = cuda.blockDim.x
    k = int(st[K])
    theta = st[THETA]
    k2 = 2 * k
    m2 = 2 * m
    if k == 0:
        if t == 0:
            for j in range(M2MAX):
                w2[j] = 0.0
            ok[0] = 0.0
        return
    e = t
    while e < k2 * k2:
        a = e // k2
        b = e - a * k2
        M[a, b] = SMB[0, a, b]
        e += nt
    e = t
    while e < m2 + m2 * (m2 + 1) // 2:
        vs[e] = st[V1_R + e]
        e += nt
    # the rows of W in slot numbering (y: the slot's row, s: m + it)
    e = t
    while e < k2:
        rows[e] = SMB[4, 0, e] if e < k else m + SMB[4, 0, e - k]
        e += nt
    cuda.syncthreads()
    e = t
    while e < k2 + k2 * k2:
        if e < k2:
            a = e
            s = 0.0
            for b in range(k2):
                rb = int(rows[b])
                sb = 1.0 if b < k else theta
                s += M[a, b] * sb * vs[rb]
            q[a] = s
        else:
            a = (e - k2) // k2
            b = (e - k2) - a * k2
            rb = int(rows[b])
            s = 0.0
            for c in range(k2):
                ra = int(rows[c])
                lo_, hi_ = (ra, rb) if ra <= rb else (rb, ra)
                # the slot gram's packed upper triangle (the layout's one definition)
                gq = packed(lo_, hi_, m2)
                sc = (1.0 if c < k else theta) * (1.0 if b < k else theta)
                s += M[a, c] * sc * vs[m2 + gq]
            A[a, b] = (1.0 if a == b else 0.0) - s / theta
        e += nt
    cuda.syncthreads()
    if t == 0:
        for j in range(M2MAX):
            w2[j] = 0.0
        good = _lb_solve(A, k2, q)
        if good:
            for a in range(k2):
                if a < k:
                    w2[int(rows[a])] = q[a]
                else:
                    w2[int(rows[a])] = theta * q[a]
        ok[0] = 1.0 if good else 0.0


@cuda.jit(cache=True)
def lf_step(VEC, YS, m, project, st, SMB):
    """The subspace system (at the block's start); du on the free set; with ``project`` the slope
    g.(P(x_c + du) - x) of the projected step; the largest alpha with x_c + alpha du in the box."""
    sh = cuda.shared.array(TPB, float64)
    A = cuda.shared.array((M2MAX, M2MAX), float64)
    q = cuda.shared.array(M2MAX, float64)
    w2 = cuda.shared.array(M2MAX, float64)
    ok = cuda.shared.array(1, float64)
    Ms = cuda.shared.array((M2MAX, M2MAX), float64)
    vs = cuda.shared.array(NACC, float64)
    _step(VEC, YS, m, project, st, SMB, sh, A, q, w2, ok, Ms, vs)


@cuda.jit(device=True)
def _step(VEC, YS, m, project, st, SMB, sh, A, q, w2, ok, Ms, vs):
    if st[RUN] == 0.0:        # the batched driver's gate stopped the iteration
        return
    _subspace(st, m, SMB, A, q, w2, Ms, vs, sh, ok)
    cuda.syncthreads()
    if cuda.grid(1) == 0:
        st[SUBOK] = ok[0]
    if ok[0] == 0.0:
        return
    theta = st[THETA]
    gd = 0.0
    amin = math.inf
    i = cuda.grid(1)
    while i < VEC.shape[1]:
        du = 0.0
        if VEC[FR, i] != 0.0:
            s = 0.0
            for j in range(2 * m):
                s += w2[j] * YS[j, i]
            du = -VEC[R, i] / theta - s / (theta * theta)
        VEC[DU, i] = du
        xc = VEC[XC, i]
        if project != 0:
            v = xc + du
            if v < VEC[LO, i]:
                v = VEC[LO, i]
            if v > VEC[HI, i]:
                v = VEC[HI, i]
            gd += VEC[G, i] * (v - VEC[X, i])
        a = _box_step(VEC[LO, i], VEC[HI, i], xc, du)
        if a < amin:
            amin = a
        i += cuda.gridsize(1)
    _into(st, V2_GD, sh, gd, 0)
    _into(st, V2_AMIN, sh, amin, 1)
