"""Fused kernels of one large L-BFGS-B problem: see :mod:`gpubench.lbfgsb.fused`.

An iteration of :func:`gpubench.lbfgsb.core.minimize` (approximate Cauchy point of Fei et al.
2014, section 4.1; BLNZ 1995 direct primal subspace step, projected as in Morales & Nocedal 2011)
as few passes over the n-vectors, each a grid-stride kernel whose dot products, minima and
maxima are reduced on the device (a block tree, then one atomic per block into ``st``), with
single-thread kernels between them for the 2m x 2m algebra.  Every scalar of the iteration stays
in the device array ``st`` (layout below); the host reads it once per line-search evaluation.

Vectors: ``x``, ``g`` (the iterate), ``YS`` (rows 0..m-1 hold y, rows m..2m-1 hold s, slots
reused round-robin), ``XC`` (Cauchy point), ``FR`` (1.0 where free at x_c), ``R`` (reduced
gradient), ``DU`` (subspace step), ``D`` (search direction), ``XA`` (trial point), ``GN`` (its
gradient).  Small arrays: ``order`` (slots oldest first), ``SS``/``SY`` (s_i.s_j, s_i.y_j in
that order), ``M`` (the middle matrix), ``A``/``col``/``q`` work space.
"""
import math

from numba import cuda, float64

if __name__ == "gpubench.kernels.lbfgsb_fused":   # always: this module is never spliced
    from gpubench.kernels.lbfgsb import _lb_middle, _lb_solve

TPB = 256                  # threads per block of the vector passes (a power of two)
MMAX = 8                   # largest history the fused path takes
NACC = 2 * MMAX + MMAX * (2 * MMAX + 1)     # accumulators of the widest pass (YS r and the gram)
NPAIR = 3 * MMAX + 3       # accumulators of the memory update's pass
M2MAX = 2 * MMAX
EPS = 2.220446049250313e-16

# ---- st: the device scalars
K, THETA, TC, STPMAX, STP, ACCEPT, SLOT, SUBOK, CHOICE, ALPHA, DESCENT = range(11)
U_SY, U_YY, U_SS = 12, 13, 14
U_YSS = 15                       # YS @ s: 2 MMAX
U_SYY = U_YSS + 2 * MMAX         # S @ y: MMAX
C_T1 = U_SYY + MMAX              # smallest positive breakpoint (min)
C_DD = C_T1 + 1
C_PG = C_T1 + 2                  # ||P(x - g) - x||_inf (max)
C_P = C_T1 + 3                   # YS @ d: 2 MMAX
V1_R = C_P + 2 * MMAX            # YS @ r (2m), then the packed gram of the free rows
V2_GD = V1_R + NACC              # g.(P(x_c + du) - x)
V2_AMIN = V2_GD + 1              # largest step along du (min)
V3_GD = V2_GD + 2
V3_DD = V2_GD + 3
V3_RATIO = V2_GD + 4             # largest step along d from x (min)
W1 = V2_GD + 5                   # coefficients of W (M c) over the YS rows: 2 MMAX
W2 = W1 + 2 * MMAX               # coefficients of W v: 2 MMAX
NST = W2 + 2 * MMAX


@cuda.jit(device=True)
def _tree(sh, v, op):
    # the block's reduction of v (op 0 sum, 1 min, 2 max), returned to every thread
    tid = cuda.threadIdx.x
    sh[tid] = v
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            a = sh[tid]
            b = sh[tid + s]
            if op == 0:
                sh[tid] = a + b
            elif op == 1:
                sh[tid] = b if b < a else a
            else:
                sh[tid] = b if b > a else a
        cuda.syncthreads()
        s //= 2
    r = sh[0]
    cuda.syncthreads()
    return r


@cuda.jit(device=True)
def _into(st, idx, sh, v, op):
    r = _tree(sh, v, op)
    if cuda.threadIdx.x == 0:
        if op == 0:
            cuda.atomic.add(st, idx, r)
        elif op == 1:
            cuda.atomic.min(st, idx, r)
        else:
            cuda.atomic.max(st, idx, r)


CH = 8                     # sums reduced together by one tree (shared memory: CH x TPB doubles)


@cuda.jit(device=True)
def _sums_into(st, idx, sh2, acc, nv):
    # st[idx + q] += the block's sum of acc[q], q < nv: CH sums per tree, one atomic per sum and block
    tid = cuda.threadIdx.x
    for q0 in range(0, nv, CH):
        cnt = min(CH, nv - q0)
        for c in range(cnt):
            sh2[c, tid] = acc[q0 + c]
        cuda.syncthreads()
        s = cuda.blockDim.x // 2
        while s > 0:
            if tid < s:
                for c in range(cnt):
                    sh2[c, tid] += sh2[c, tid + s]
            cuda.syncthreads()
            s //= 2
        c = tid
        while c < cnt:
            cuda.atomic.add(st, idx + q0 + c, sh2[c, 0])
            c += cuda.blockDim.x
        cuda.syncthreads()


@cuda.jit(device=True)
def _clear(st, lo, hi):
    for q in range(lo, hi):
        st[q] = 0.0


@cuda.jit(device=True)
def _breakpoint(x, g, lo, hi, i):
    # t_i of BLNZ eq. 4.1, 0 for a coordinate fixed from the start
    gi = g[i]
    if gi < 0.0:
        t = (x[i] - hi[i]) / gi
    elif gi > 0.0:
        t = (x[i] - lo[i]) / gi
    else:
        t = math.inf
    if not (t > 0.0):
        t = 0.0
    return t


@cuda.jit(device=True)
def _wx(YS, coef, m2, i):
    # (W a)_i from the slot coefficients of a
    s = 0.0
    for j in range(m2):
        c = coef[j]
        if c != 0.0:
            s += c * YS[j, i]
    return s


@cuda.jit(cache=True)
def lf_init(st):
    """k = 0, theta = 1, every accumulator cleared (the smallest breakpoint at +inf)."""
    _clear(st, 0, st.shape[0])
    st[THETA] = 1.0
    st[C_T1] = math.inf


@cuda.jit(cache=True)
def lf_reset(st):
    """Forget the memory (a bad model: restart from steepest descent, as SciPy does)."""
    st[K] = 0.0
    st[THETA] = 1.0
    _clear(st, C_T1, C_P + 2 * MMAX)
    st[C_T1] = math.inf


@cuda.jit(cache=True)
def lf_pair(x, g, xa, gn, YS, m, st):
    """s = xa - x, y = gn - g: s.y, y.y, s.s, YS s and S y (the memory update's products)."""
    sh2 = cuda.shared.array((CH, TPB), float64)
    acc = cuda.local.array(NPAIR, float64)
    nv = 3 * m + 3
    for q in range(nv):
        acc[q] = 0.0
    i = cuda.grid(1)
    while i < x.shape[0]:
        s = xa[i] - x[i]
        y = gn[i] - g[i]
        acc[0] += s * y
        acc[1] += y * y
        acc[2] += s * s
        for j in range(2 * m):
            acc[3 + j] += YS[j, i] * s
        for j in range(m):
            acc[3 + 2 * m + j] += YS[m + j, i] * y
        i += cuda.gridsize(1)
    # s.y, y.y, s.s and YS s are contiguous in st from U_SY; S y goes to U_SYY
    _sums_into(st, U_SY, sh2, acc, 3 + 2 * m)
    for j in range(m):
        acc[j] = acc[3 + 2 * m + j]
    _sums_into(st, U_SYY, sh2, acc, m)


@cuda.jit(cache=True)
def lf_push(st, m, accept, order, SS, SY, M, A, col):
    """Append the pair where s.y > ``accept`` (BLNZ's curvature test), dropping the oldest at k = m;
    theta = y.y / s.y and M = [[-D, L^T], [L, theta S^T S]]^{-1} (BLNZ eq. 3.4)."""
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
        SY[a, k - 1] = st[U_SYY + sl]
    SY[k - 1, k - 1] = sy
    SS[k - 1, k - 1] = st[U_SS]
    theta = st[U_YY] / sy
    st[ACCEPT] = 1.0
    st[SLOT] = slot
    if _lb_middle(SS, SY, k, theta, M, A, col):
        st[K] = k
        st[THETA] = theta
    else:
        st[K] = 0.0
        st[THETA] = 1.0


@cuda.jit(cache=True)
def lf_move(x, g, xa, gn, lo, hi, YS, m, move, st):
    """With ``move``: the accepted pair into its slot, x = xa, g = gn.  Then at x: the smallest
    positive breakpoint, d.d and YS d for d = -g off the fixed set, and ||P(x - g) - x||_inf."""
    sh = cuda.shared.array(TPB, float64)
    sh2 = cuda.shared.array((CH, TPB), float64)
    acc = cuda.local.array(M2MAX, float64)
    for q in range(2 * m):
        acc[q] = 0.0
    put = move != 0 and st[ACCEPT] != 0.0
    slot = int(st[SLOT])
    t1 = math.inf
    dd = 0.0
    pg = 0.0
    i = cuda.grid(1)
    while i < x.shape[0]:
        if move != 0:
            if put:
                YS[slot, i] = gn[i] - g[i]
                YS[m + slot, i] = xa[i] - x[i]
            x[i] = xa[i]
            g[i] = gn[i]
        t = _breakpoint(x, g, lo, hi, i)
        if t > 0.0:
            d = -g[i]
            if t < t1:
                t1 = t
            dd += d * d
            for j in range(2 * m):
                acc[j] += YS[j, i] * d
        z = x[i] - g[i]
        if z < lo[i]:
            z = lo[i]
        if z > hi[i]:
            z = hi[i]
        z = abs(z - x[i])
        if z > pg:
            pg = z
        i += cuda.gridsize(1)
    _into(st, C_T1, sh, t1, 1)
    _into(st, C_PG, sh, pg, 2)
    _into(st, C_DD, sh, dd, 0)
    _sums_into(st, C_P, sh2, acc, 2 * m)


@cuda.jit(cache=True)
def lf_cauchy(st, m, order, M, p):
    """Fei et al.'s t_c = max(0, min(t_1, -f'_1 / f''_1)), c = t_c W^T d, and the coefficients
    of W M c (the subspace step's first product)."""
    k = int(st[K])
    theta = st[THETA]
    dd = st[C_DD]
    k2 = 2 * k
    for a in range(k):
        sl = int(order[a])
        p[a] = st[C_P + sl]
        p[k + a] = theta * st[C_P + m + sl]
    tc = 0.0
    if dd != 0.0:
        f1 = -dd
        f2 = theta * dd
        if k > 0:
            s = 0.0
            for a in range(k2):
                t = 0.0
                for b in range(k2):
                    t += M[a, b] * p[b]
                s += p[a] * t
            f2 -= s
        if f2 < EPS * theta * dd:
            f2 = EPS * theta * dd
        tc = -f1 / f2
        if st[C_T1] < tc:
            tc = st[C_T1]
        if tc < 0.0:
            tc = 0.0
    st[TC] = tc
    _clear(st, V1_R, V2_GD + 2)
    st[V2_AMIN] = math.inf
    _clear(st, W1, W1 + 2 * MMAX)
    for a in range(k2):
        t = 0.0
        for b in range(k2):
            t += M[a, b] * (tc * p[b])
        if a < k:
            st[W1 + int(order[a])] = t
        else:
            st[W1 + m + int(order[a - k])] = theta * t


@cuda.jit(cache=True)
def lf_reduced(x, g, lo, hi, YS, XC, FR, R, m, st):
    """x_c (coordinates with t_i <= t_c on their bound), the free set, r = g + theta (x_c - x) - W M c
    on it, and YS r with the gram (YS Z)(YS Z)^T of the free rows."""
    sh2 = cuda.shared.array((CH, TPB), float64)
    acc = cuda.local.array(NACC, float64)
    w = cuda.local.array(M2MAX, float64)
    k = int(st[K])
    m2 = 2 * m
    nv = m2 + m2 * (m2 + 1) // 2
    for q in range(nv):
        acc[q] = 0.0
    tc = st[TC]
    theta = st[THETA]
    i = cuda.grid(1)
    while i < x.shape[0]:
        t = _breakpoint(x, g, lo, hi, i)
        if t > 0.0 and t <= tc:
            xc = hi[i] if g[i] < 0.0 else lo[i]
        elif t > 0.0:
            xc = x[i] - tc * g[i]
        else:
            xc = x[i]
        XC[i] = xc
        if t > tc:
            FR[i] = 1.0
            if k > 0:
                for j in range(m2):
                    w[j] = YS[j, i]
                s = 0.0
                for j in range(m2):
                    s += st[W1 + j] * w[j]
                r = g[i] + theta * (xc - x[i]) - s
                R[i] = r
                q = m2
                for a in range(m2):
                    acc[a] += w[a] * r
                    for b in range(a, m2):
                        acc[q] += w[a] * w[b]
                        q += 1
            else:
                R[i] = 0.0
        else:
            FR[i] = 0.0
            R[i] = 0.0
        i += cuda.gridsize(1)
    if k > 0:
        _sums_into(st, V1_R, sh2, acc, nv)


@cuda.jit(cache=True)
def lf_subspace(st, m, order, M, A, q):
    """v = N^{-1} M W^T r with N = I - M W^T Z Z^T W / theta (BLNZ eq. 5.11), solved by Gaussian
    elimination; its W-coefficients for du = -r / theta - W v / theta^2.  SUBOK 0: no step (k = 0
    or N singular), the Cauchy point is the subspace minimiser."""
    k = int(st[K])
    theta = st[THETA]
    k2 = 2 * k
    m2 = 2 * m
    st[SUBOK] = 0.0
    _clear(st, W2, W2 + 2 * MMAX)
    _clear(st, V3_GD, V3_RATIO + 1)
    st[V3_RATIO] = math.inf
    if k == 0:
        return
    # the rows of W in slot numbering, and their scales (y: 1, s: theta)
    for a in range(k2):
        t = 0.0
        for b in range(k2):
            rb = int(order[b]) if b < k else m + int(order[b - k])
            sb = 1.0 if b < k else theta
            t += M[a, b] * sb * st[V1_R + rb]
        q[a] = t
    for a in range(k2):
        for b in range(k2):
            s = 0.0
            for c in range(k2):
                ra = int(order[c]) if c < k else m + int(order[c - k])
                rb = int(order[b]) if b < k else m + int(order[b - k])
                lo_, hi_ = (ra, rb) if ra <= rb else (rb, ra)
                # packed upper triangle of the slot gram: row lo_ starts at lo_ (2 m2 - lo_ + 1) / 2
                gq = lo_ * (2 * m2 - lo_ + 1) // 2 + (hi_ - lo_)
                sc = (1.0 if c < k else theta) * (1.0 if b < k else theta)
                s += M[a, c] * sc * st[V1_R + m2 + gq]
            A[a, b] = (1.0 if a == b else 0.0) - s / theta
    if not _lb_solve(A, k2, q):
        return
    st[SUBOK] = 1.0
    for a in range(k2):
        if a < k:
            st[W2 + int(order[a])] = q[a]
        else:
            st[W2 + m + int(order[a - k])] = theta * q[a]


@cuda.jit(cache=True)
def lf_step(x, g, lo, hi, YS, XC, FR, R, DU, m, project, st):
    """du on the free set; with ``project`` the slope g.(P(x_c + du) - x) of the projected step;
    and the largest alpha with x_c + alpha du in the box (the truncated step)."""
    sh = cuda.shared.array(TPB, float64)
    if st[SUBOK] == 0.0:
        return
    theta = st[THETA]
    gd = 0.0
    amin = math.inf
    i = cuda.grid(1)
    while i < x.shape[0]:
        du = 0.0
        if FR[i] != 0.0:
            s = 0.0
            for j in range(2 * m):
                s += st[W2 + j] * YS[j, i]
            du = -R[i] / theta - s / (theta * theta)
        DU[i] = du
        xc = XC[i]
        if project != 0:
            v = xc + du
            if v < lo[i]:
                v = lo[i]
            if v > hi[i]:
                v = hi[i]
            gd += g[i] * (v - x[i])
        if du < 0.0:
            a = (lo[i] - xc) / du
        elif du > 0.0:
            a = (hi[i] - xc) / du
        else:
            a = math.inf
        if a < amin:
            amin = a
        i += cuda.gridsize(1)
    _into(st, V2_GD, sh, gd, 0)
    _into(st, V2_AMIN, sh, amin, 1)


@cuda.jit(cache=True)
def lf_choose(st, project):
    """The subspace minimiser: x_c (no step), the projected step where it descends (SciPy 3.0),
    else the truncated step x_c + min(1, alpha_max) du."""
    c = 0
    if st[SUBOK] != 0.0:
        c = 1 if (project != 0 and st[V2_GD] <= 0.0) else 2
    st[CHOICE] = c
    st[ALPHA] = min(1.0, st[V2_AMIN])


@cuda.jit(cache=True)
def lf_direction(x, g, lo, hi, XC, FR, DU, D, constrained, st):
    """d = x_bar - x, with g.d, d.d and the largest step along d in the box."""
    sh = cuda.shared.array(TPB, float64)
    c = int(st[CHOICE])
    alpha = st[ALPHA]
    gd = 0.0
    dd = 0.0
    ratio = math.inf
    i = cuda.grid(1)
    while i < x.shape[0]:
        v = XC[i]
        if c == 1:
            v = v + DU[i]
            if v < lo[i]:
                v = lo[i]
            if v > hi[i]:
                v = hi[i]
        elif c == 2 and FR[i] != 0.0:
            v = v + alpha * DU[i]
        d = v - x[i]
        D[i] = d
        gd += g[i] * d
        dd += d * d
        if constrained != 0:
            if d < 0.0:
                a = (lo[i] - x[i]) / d
            elif d > 0.0:
                a = (hi[i] - x[i]) / d
            else:
                a = math.inf
            if a < ratio:
                ratio = a
        i += cuda.gridsize(1)
    _into(st, V3_GD, sh, gd, 0)
    _into(st, V3_DD, sh, dd, 0)
    _into(st, V3_RATIO, sh, ratio, 1)


@cuda.jit(cache=True)
def lf_steplength(st, m, constrained, boxed, nit):
    """The descent test, the largest step and the first trial step (SciPy's rules); the memory
    update's accumulators cleared for the pair this line search makes."""
    gd = st[V3_GD]
    dnorm = math.sqrt(st[V3_DD])
    k = int(st[K])
    st[DESCENT] = 1.0 if (gd < 0.0 and dnorm != 0.0) else 0.0
    if constrained != 0 and (nit > 0 or k > 0):
        stpmax = st[V3_RATIO]
        if stpmax < 0.0:
            stpmax = 0.0
    elif constrained != 0:
        stpmax = 1.0
    else:
        stpmax = 1e10
    if k == 0 and nit == 0 and boxed == 0 and dnorm != 0.0:
        stp = min(1.0 / dnorm, stpmax)
    else:
        stp = min(1.0, stpmax)
    if st[DESCENT] == 0.0:
        stp = 0.0
    st[STPMAX] = stpmax
    st[STP] = stp
    _clear(st, U_SY, U_SYY + MMAX)


@cuda.jit(cache=True)
def lf_trial(x, D, lo, hi, XA, a_host, from_st, constrained, st):
    """x_a = x + a d (a = st[STP] for the first trial, else ``a_host``), clipped to the box at the
    largest step (rounding must not leave it)."""
    a = st[STP] if from_st != 0 else a_host
    clip = constrained != 0 and a == st[STPMAX]
    i = cuda.grid(1)
    while i < x.shape[0]:
        v = x[i] + a * D[i]
        if clip:
            if v < lo[i]:
                v = lo[i]
            if v > hi[i]:
                v = hi[i]
        XA[i] = v
        i += cuda.gridsize(1)
