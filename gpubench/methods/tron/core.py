"""TRON (Algorithm 3.1 of paper 003) and the core operations of its Figure 2, written once.

    Y. Kim, F. Pacaud, K. Kim, M. Anitescu, "Leveraging GPU batching for
    scalable nonlinear programming through massive Lagrangian decomposition"
    (ExaTron), Section 3 (Algorithm 3.1, Figure 2) and Section 4; TRON itself is
    Lin & More, SIAM J. Optim. 9(4), 1999 (paper ref. [23]).

This file is not imported as a normal module.  :func:`gpubench.methods.tron.load_core`
writes its text, once per (backend, objective, function), into a file of the cache folder
after a header that binds these names (and before the kernels of
:mod:`gpubench.kernels.tron_gpu` or ``tron_cpu``), and imports that file:

``device``      the decorator: ``numba.cuda.jit(device=True)`` or ``numba.njit``;
``sync``        a device function: ``cuda.syncthreads()`` on the GPU, nothing on the CPU;
``OBJECTIVE``   0: the hs45-type product (analytic Hessian), 1: a library function
                (generated value and gradient, Hessian by central differences of the
                gradient), 2: a library function with the symbolic Hessian of
                :mod:`gpubench.methods.tron.hessian`;
``point``, ``gradient``  the generated forms of the library function (dummies for hs45);
``hessian``     the generated Hessian (a dummy unless OBJECTIVE is 2).

Every function below is cooperative: all ``nt`` threads of one block call it with
the same arguments and their own ``tid``; vector work is split by ``tid``,
reductions go through ``red`` (``nt`` doubles of shared memory, any ``nt``, so
blocks of several warps work: ExaTron's reductions assume one warp), and every
scalar that steers control flow is the same in every thread.  On the CPU the
same code runs with ``tid = 0, nt = 1`` and ``sync`` doing nothing: that is the
CPU twin, one problem per core.

Matrices are column-major (element (i, j) at ``i + j * ld``), so the column
sweeps of the factorisation and the forward substitution read consecutive
addresses across threads, as in the paper (Section 4.4).  Matrix-wide loops
take a layout ``(c0, cs, r0, rs)``: columns ``c0, c0 + cs, ...`` and rows
``r0, r0 + rs, ...`` for this thread; the 1-D layout is ``(0, 1, tid, nt)``,
the 2-D layout ``(ty, by, tx, bx)`` (Figure 3).
"""
# ruff: noqa: F821  (device, sync, OBJECTIVE, point, gradient are injected)
import math

CONVERGED, ITERATION_LIMIT, FAILED = 0, 1, 2
MU0 = 0.01          # sufficient decrease of the model (TRON's mu0)
ETA0, ETA1, ETA2 = 1e-4, 0.25, 0.75
SIGMA1, SIGMA2, SIGMA3 = 0.25, 0.5, 4.0


# --------------------------------------------------------------------- reductions
@device
def reduce_sum(v, red, tid, nt):
    """Sum of ``v`` over the block: a tree in shared memory, across warps."""
    red[tid] = v
    sync()
    s = nt
    while s > 1:
        h = (s + 1) // 2
        if tid < s - h:
            red[tid] += red[tid + h]
        sync()
        s = h
    r = red[0]
    sync()
    return r


@device
def reduce_max(v, red, tid, nt):
    red[tid] = v
    sync()
    s = nt
    while s > 1:
        h = (s + 1) // 2
        if tid < s - h:
            if red[tid + h] > red[tid]:
                red[tid] = red[tid + h]
        sync()
        s = h
    r = red[0]
    sync()
    return r


@device
def dot(a, b, m, red, tid, nt):
    acc = 0.0
    for i in range(tid, m, nt):
        acc += a[i] * b[i]
    return reduce_sum(acc, red, tid, nt)


@device
def nrm2(a, m, red, tid, nt):
    return math.sqrt(dot(a, a, m, red, tid, nt))


# --------------------------------------------------------------------- Cholesky
@device
def _scale_column(M, m, ld, j, tid, nt):
    """Column j of a Cholesky factor from its updated entries: the pivot's square root, the rest
    divided by it.  False, in every thread, if the pivot is not positive."""
    d = M[j + j * ld]
    sync()
    if not (d > 0.0) or not math.isfinite(d):
        return False
    d = math.sqrt(d)
    for i in range(j + tid, m, nt):
        if i == j:
            M[i + j * ld] = d
        else:
            M[i + j * ld] = M[i + j * ld] / d
    sync()
    return True


@device
def chol_left(M, m, ld, tid, nt):
    """Left-looking (lazy) Cholesky of the lower triangle of ``M``, in place.

    Column j receives all earlier updates just before it is scaled (Section 4.3).
    Returns False, in every thread, if a pivot is not positive.
    """
    for j in range(m):
        for i in range(j + tid, m, nt):
            acc = M[i + j * ld]
            for k in range(j):
                acc -= M[i + k * ld] * M[j + k * ld]
            M[i + j * ld] = acc
        sync()
        if not _scale_column(M, m, ld, j, tid, nt):
            return False
    return True


@device
def chol_right(M, m, ld, tid, nt, c0, cs, r0, rs):
    """Right-looking (eager) Cholesky: the trailing submatrix is updated after each column."""
    for j in range(m):
        if not _scale_column(M, m, ld, j, tid, nt):
            return False
        for k in range(j + 1 + c0, m, cs):
            ljk = M[k + j * ld]
            for i in range(k + r0, m, rs):
                M[i + k * ld] -= M[i + j * ld] * ljk
        sync()
    return True


@device
def store_transpose(M, m, ld, c0, cs, r0, rs):
    """Copy L into the strict upper triangle (U = L^T): the explicit back substitution."""
    for j in range(c0, m, cs):
        for i in range(j + 1 + r0, m, rs):
            M[j + i * ld] = M[i + j * ld]
    sync()


# --------------------------------------------------------------------- triangular solves
@device
def forward(M, b, m, ld, tid, nt):
    """b <- L^{-1} b, column by column (threads over the rows of a column)."""
    for j in range(m):
        yj = b[j] / M[j + j * ld]
        sync()
        for i in range(j + tid, m, nt):
            if i == j:
                b[i] = yj
            else:
                b[i] -= M[i + j * ld] * yj
        sync()


@device
def backward(M, b, m, ld, explicit, tid, nt):
    """b <- L^{-T} b.  Explicit: read L^T from the upper triangle (consecutive addresses);
    implicit: read row j of L (stride ``ld``, bank conflicts; Section 4.4, Table 2)."""
    for j in range(m - 1, -1, -1):
        zj = b[j] / M[j + j * ld]
        sync()
        if explicit:
            for i in range(tid, j + 1, nt):
                if i == j:
                    b[i] = zj
                else:
                    b[i] -= M[i + j * ld] * zj
        else:
            for i in range(tid, j + 1, nt):
                if i == j:
                    b[i] = zj
                else:
                    b[i] -= M[j + i * ld] * zj
        sync()


# --------------------------------------------------------------------- objectives
@device
def hs45_value(x, par, n):
    """f = -prod x_i / c_i (c_i = par[0, i]); footnote 4's 120 - prod x_i, scaled and shifted."""
    p = 1.0
    for k in range(n):
        p *= x[k] / par[0, k]
    return -p


@device
def lib_fd_hessian(x, par, H, g, scr, n, tid, nt, c0, cs, r0, rs):
    """Central differences of the generated gradient, one column per thread, symmetrised."""
    base = n + tid * 4 * n
    xp = scr[base:base + n]
    gp = scr[base + n:base + 2 * n]
    gm = scr[base + 2 * n:base + 3 * n]
    wk = scr[base + 3 * n:base + 4 * n]
    for j in range(tid, n, nt):
        for k in range(n):
            xp[k] = x[k]
        h = 6.0554544523933395e-06 * max(1.0, abs(x[j]))  # eps^(1/3)
        xp[j] = x[j] + h
        gradient(xp, par, gp, wk)
        xp[j] = x[j] - h
        gradient(xp, par, gm, wk)
        for i in range(n):
            H[i + j * n] = (gp[i] - gm[i]) / (2.0 * h)
    sync()
    for j in range(c0, n, cs):
        for i in range(j + 1 + r0, n, rs):
            v = 0.5 * (H[i + j * n] + H[j + i * n])
            H[i + j * n] = v
            H[j + i * n] = v
    sync()


@device
def eval_f(x, par, red, n, tid, nt):
    if tid == 0:
        if OBJECTIVE == 0:
            red[0] = hs45_value(x, par, n)
        else:
            red[0] = point(x, par)
    sync()
    f = red[0]
    sync()
    return f


@device
def eval_fgh(x, par, g, H, scr, red, n, tid, nt, c0, cs, r0, rs):
    """f (returned in every thread), gradient g and Hessian H (column-major) at x."""
    if OBJECTIVE == 0:
        # every thread forms P = prod x_k / c_k itself (O(n)), so no barrier is needed
        P = 1.0
        nonzero = True
        for k in range(n):
            P *= x[k] / par[0, k]
            if x[k] == 0.0:
                nonzero = False
        if nonzero:
            # g_i = -P / x_i, H_ij = -P / (x_i x_j): O(n^2) in all
            for i in range(tid, n, nt):
                g[i] = -P / x[i]
            for j in range(c0, n, cs):
                for i in range(r0, n, rs):
                    H[i + j * n] = 0.0 if i == j else -P / (x[i] * x[j])
        else:
            # at x_k = 0 the same products without dividing: O(n^3)
            for i in range(tid, n, nt):
                q = 1.0
                for k in range(n):
                    if k != i:
                        q *= x[k] / par[0, k]
                g[i] = -q / par[0, i]
            for j in range(c0, n, cs):
                for i in range(r0, n, rs):
                    if i == j:
                        H[i + j * n] = 0.0
                    else:
                        q = 1.0
                        for k in range(n):
                            if k != i and k != j:
                                q *= x[k] / par[0, k]
                        H[i + j * n] = -q / (par[0, i] * par[0, j])
        f = eval_f(x, par, red, n, tid, nt)
    elif OBJECTIVE == 1:
        if tid == 0:
            gradient(x, par, g, scr[0:n])
        f = eval_f(x, par, red, n, tid, nt)
        lib_fd_hessian(x, par, H, g, scr, n, tid, nt, c0, cs, r0, rs)
    else:
        if tid == 0:
            gradient(x, par, g, scr[0:n])
            hessian(x, par, H)
        f = eval_f(x, par, red, n, tid, nt)
    return f


# --------------------------------------------------------------------- TRON pieces
@device
def gemv(A, v, out, n, tid, nt):
    """out <- A v (full n x n, column-major): one row per thread."""
    for i in range(tid, n, nt):
        acc = 0.0
        for j in range(n):
            acc += A[i + j * n] * v[j]
        out[i] = acc
    sync()


@device
def project(t, lo, hi):
    """P_[lo,hi](t), the projection of every step of Algorithm 3.1 (lines 4 and 10)."""
    if t < lo:
        return lo
    if t > hi:
        return hi
    return t


@device
def gpstep(x, l, u, alpha, w, s, n, tid, nt):
    """s <- P[l,u](x + alpha w) - x (Figure 2's gpstep)."""
    for i in range(tid, n, nt):
        s[i] = project(x[i] + alpha * w[i], l[i], u[i]) - x[i]
    sync()


@device
def pg_norm(x, l, u, g, n, red, tid, nt):
    """Norm of the projected gradient: g_i where x_i is free, and only its component
    pointing into the box at a bound.  Unlike ||P(x - g) - x|| it does not round to 0
    when |g| is far below the ulp of x (the unscaled hs45 product, tiny starts)."""
    acc = 0.0
    for i in range(tid, n, nt):
        t = g[i]
        if x[i] <= l[i] and t > 0.0:
            t = 0.0
        elif x[i] >= u[i] and t < 0.0:
            t = 0.0
        acc += t * t
    return math.sqrt(reduce_sum(acc, red, tid, nt))


@device
def cauchy(x, l, u, g, A, s, As, n, delta, alpha, red, tid, nt):
    """Projected Cauchy step (Algorithm 3.1 line 4): s = P(x - alpha g) - x with
    q(s) <= mu0 g's and ||s|| <= delta; alpha extrapolated (x10) or interpolated (x0.1)
    from the previous iteration's value, as TRON's dcauchy does."""
    # largest breakpoint: beyond it the projected path no longer moves
    bmax = 0.0
    for i in range(tid, n, nt):
        if g[i] > 0.0:
            b = (x[i] - l[i]) / g[i]
        elif g[i] < 0.0:
            b = (x[i] - u[i]) / g[i]
        else:
            b = 0.0
        if b > bmax:
            bmax = b
    bmax = reduce_max(bmax, red, tid, nt)
    gpstep(x, l, u, -alpha, g, s, n, tid, nt)
    gemv(A, s, As, n, tid, nt)
    gs = dot(g, s, n, red, tid, nt)
    q = gs + 0.5 * dot(s, As, n, red, tid, nt)
    ok = nrm2(s, n, red, tid, nt) <= delta and q <= MU0 * gs
    if ok:
        good = alpha
        for _ in range(30):
            if alpha >= bmax:
                break
            alpha = alpha * 10.0
            gpstep(x, l, u, -alpha, g, s, n, tid, nt)
            gemv(A, s, As, n, tid, nt)
            gs = dot(g, s, n, red, tid, nt)
            q = gs + 0.5 * dot(s, As, n, red, tid, nt)
            if nrm2(s, n, red, tid, nt) <= delta and q <= MU0 * gs:
                good = alpha
            else:
                break
        alpha = good
    else:
        for _ in range(60):
            alpha = alpha * 0.1
            gpstep(x, l, u, -alpha, g, s, n, tid, nt)
            gemv(A, s, As, n, tid, nt)
            gs = dot(g, s, n, red, tid, nt)
            q = gs + 0.5 * dot(s, As, n, red, tid, nt)
            if nrm2(s, n, red, tid, nt) <= delta and q <= MU0 * gs:
                break
    gpstep(x, l, u, -alpha, g, s, n, tid, nt)
    gemv(A, s, As, n, tid, nt)
    return alpha


@device
def free_set(x, s, l, u, ind, n, red, tid):
    """Indices i with l_i < x_i + s_i < u_i (line 5), listed by thread 0 (order matters)."""
    if tid == 0:
        m = 0
        for i in range(n):
            t = x[i] + s[i]
            if t > l[i] and t < u[i]:
                ind[m] = i
                m += 1
        red[0] = m
    sync()
    m = int(red[0])
    sync()
    return m


@device
def preconditioner(A, L, ind, m, n, cholesky, explicit, red, tid, nt, c0, cs, r0, rs):
    """L L^T = A_FF + alpha I (line 7; ccf/ccfs): alpha = 0 when the Cholesky succeeds,
    else alpha_min - min(diag) and doubled until it does (complete, dense factorisation)."""
    dmin = math.inf
    amax = 0.0
    for a in range(tid, m, nt):
        ia = int(ind[a])
        d = A[ia + ia * n]
        if d < dmin:
            dmin = d
        for b in range(m):
            v = abs(A[ia + int(ind[b]) * n])
            if v > amax:
                amax = v
    dmin = -reduce_max(-dmin, red, tid, nt)
    amax = reduce_max(amax, red, tid, nt)
    alpha_min = 1e-3 * amax if amax > 0.0 else 1.0
    alpha = 0.0 if dmin > 0.0 else alpha_min - dmin
    ok = False
    for _ in range(64):
        for b in range(c0, m, cs):
            jb = int(ind[b])
            for a in range(b + r0, m, rs):
                v = A[int(ind[a]) + jb * n]
                if a == b:
                    v += alpha
                L[a + b * n] = v
        sync()
        if cholesky == 0:
            ok = chol_left(L, m, n, tid, nt)
        else:
            ok = chol_right(L, m, n, tid, nt, c0, cs, r0, rs)
        if ok:
            break
        alpha = max(2.0 * alpha, alpha_min)
    if ok and explicit:
        store_transpose(L, m, n, c0, cs, r0, rs)
    return ok


@device
def trqsol(sh, p, m, delta, red, tid, nt):
    """sigma >= 0 with ||sh + sigma p|| = delta (Figure 2's trqsol)."""
    ss = dot(sh, sh, m, red, tid, nt)
    sp = dot(sh, p, m, red, tid, nt)
    pp = dot(p, p, m, red, tid, nt)
    rad = sp * sp + pp * max(delta * delta - ss, 0.0)
    if pp <= 0.0:
        return 0.0
    if sp >= 0.0:
        return max(delta * delta - ss, 0.0) / (sp + math.sqrt(rad))
    return (math.sqrt(rad) - sp) / pp


@device
def axpy(a, x, y, m, tid, nt):
    for i in range(tid, m, nt):
        y[i] += a * x[i]
    sync()


@device
def trpcg(A, L, ind, m, n, rF, sh, rh, p, z, q, delta, cgtol, explicit, red, tid, nt):
    """Preconditioned CG on A^ s = -L^{-1} r_F, A^ = L^{-1} A_FF L^{-T}, ||s|| <= delta
    (line 8), then w = L^{-T} s (line 9), left in ``sh``.  Stops after m iterations,
    at the trust-region boundary (2) or on negative curvature (3); 1: converged."""
    for a in range(tid, m, nt):
        sh[a] = 0.0
        rh[a] = -rF[a]
    sync()
    forward(L, rh, m, n, tid, nt)
    for a in range(tid, m, nt):
        p[a] = rh[a]
    sync()
    rr = dot(rh, rh, m, red, tid, nt)
    r0 = math.sqrt(rr)
    info = 1
    if r0 > 0.0:
        info = 4
        for _ in range(m):
            for a in range(tid, m, nt):
                z[a] = p[a]
            sync()
            backward(L, z, m, n, explicit, tid, nt)
            for a in range(tid, m, nt):
                ia = int(ind[a])
                acc = 0.0
                for b in range(m):
                    acc += A[ia + int(ind[b]) * n] * z[b]
                q[a] = acc
            sync()
            forward(L, q, m, n, tid, nt)
            curv = dot(p, q, m, red, tid, nt)
            if not (curv > 0.0):
                axpy(trqsol(sh, p, m, delta, red, tid, nt), p, sh, m, tid, nt)
                info = 3
                break
            alpha = rr / curv
            ss = dot(sh, sh, m, red, tid, nt)
            sp = dot(sh, p, m, red, tid, nt)
            pp = dot(p, p, m, red, tid, nt)
            if ss + 2.0 * alpha * sp + alpha * alpha * pp >= delta * delta:
                axpy(trqsol(sh, p, m, delta, red, tid, nt), p, sh, m, tid, nt)
                info = 2
                break
            axpy(alpha, p, sh, m, tid, nt)
            axpy(-alpha, q, rh, m, tid, nt)
            rrn = dot(rh, rh, m, red, tid, nt)
            if math.sqrt(rrn) <= cgtol * r0:
                info = 1
                break
            beta = rrn / rr
            rr = rrn
            for a in range(tid, m, nt):
                p[a] = rh[a] + beta * p[a]
            sync()
    backward(L, sh, m, n, explicit, tid, nt)
    return info


@device
def prsrch(x, l, u, s, w, r, A, d, Ad, n, red, tid, nt):
    """Projected search along w from x + s (line 10): beta = 1, halved until the model
    decreases sufficiently; s += d and the model gradient r += A d."""
    beta = 1.0
    ok = False
    for _ in range(40):
        for i in range(tid, n, nt):
            c = x[i] + s[i]
            d[i] = project(c + beta * w[i], l[i], u[i]) - c
        sync()
        gemv(A, d, Ad, n, tid, nt)
        rd = dot(r, d, n, red, tid, nt)
        dAd = dot(d, Ad, n, red, tid, nt)
        if rd + 0.5 * dAd <= MU0 * rd:
            ok = True
            break
        beta *= 0.5
    if ok:
        for i in range(tid, n, nt):
            s[i] += d[i]
            r[i] += Ad[i]
        sync()
    return ok


# --------------------------------------------------------------------- TRON
@device
def workspace_size(n):
    return 2 * n * n + 16 * n


@device
def tron_solve(x0, lo, hi, par, W, scr, red, out, cfg, n, cholesky, explicit,
               tid, nt, c0, cs, r0, rs):
    """Algorithm 3.1 for one problem; x0 is overwritten by the solution.

    cfg = (max_iter, gtol, gatol, frtol, delta0, cgtol): stop when
    ||pg(x)|| <= gtol ||pg(x0)|| (relative; pg the projected gradient) or <= gatol, or when the
    actual and predicted reductions are both <= frtol |f|.  out = (f, iterations,
    status, function evaluations, final projected-gradient norm).
    """
    nn = n * n
    A = W[0:nn]
    L = W[nn:2 * nn]
    o = 2 * nn
    x = W[o:o + n]
    l = W[o + n:o + 2 * n]
    u = W[o + 2 * n:o + 3 * n]
    g = W[o + 3 * n:o + 4 * n]
    s = W[o + 4 * n:o + 5 * n]
    r = W[o + 5 * n:o + 6 * n]
    w = W[o + 6 * n:o + 7 * n]
    d = W[o + 7 * n:o + 8 * n]
    Ad = W[o + 8 * n:o + 9 * n]
    ind = W[o + 9 * n:o + 10 * n]
    rF = W[o + 10 * n:o + 11 * n]
    sh = W[o + 11 * n:o + 12 * n]
    rh = W[o + 12 * n:o + 13 * n]
    p = W[o + 13 * n:o + 14 * n]
    z = W[o + 14 * n:o + 15 * n]
    q = W[o + 15 * n:o + 16 * n]

    max_iter = int(cfg[0])
    gtol = cfg[1]
    gatol = cfg[2]
    frtol = cfg[3]
    cgtol = cfg[5]
    for i in range(tid, n, nt):
        l[i] = lo[i]
        u[i] = hi[i]
        x[i] = project(x0[i], lo[i], hi[i])
    sync()
    f = eval_fgh(x, par, g, A, scr, red, n, tid, nt, c0, cs, r0, rs)
    nfev = 1
    pg0 = pg_norm(x, l, u, g, n, red, tid, nt)
    pgn = pg0
    delta = cfg[4]
    if not (delta > 0.0):
        delta = max(pg0, 1.0)
    alphac = 1.0
    status = ITERATION_LIMIT
    it = 0
    while True:
        if not math.isfinite(f) or not math.isfinite(pgn):
            status = FAILED
            break
        if pgn <= gtol * pg0 or pgn <= gatol:
            status = CONVERGED
            break
        if it >= max_iter:
            break
        it += 1
        alphac = cauchy(x, l, u, g, A, s, r, n, delta, alphac, red, tid, nt)
        # model gradient at s: r = g + A s
        for i in range(tid, n, nt):
            r[i] += g[i]
        sync()
        gf0 = 0.0
        fail = False
        for sub in range(n):
            m = free_set(x, s, l, u, ind, n, red, tid)
            if m == 0:
                break
            for a in range(tid, m, nt):
                rF[a] = r[int(ind[a])]
            sync()
            gfn = nrm2(rF, m, red, tid, nt)
            if sub == 0:
                gf0 = gfn
            if gfn <= cgtol * gf0 or gfn == 0.0:
                break
            if not preconditioner(A, L, ind, m, n, cholesky, explicit, red, tid, nt,
                                  c0, cs, r0, rs):
                fail = True
                break
            info = trpcg(A, L, ind, m, n, rF, sh, rh, p, z, q, delta, cgtol, explicit,
                         red, tid, nt)
            for i in range(tid, n, nt):
                w[i] = 0.0
            sync()
            if tid == 0:
                for a in range(m):
                    w[int(ind[a])] = sh[a]
            sync()
            prsrch(x, l, u, s, w, r, A, d, Ad, n, red, tid, nt)
            if info >= 2:
                break
            if free_set(x, s, l, u, ind, n, red, tid) == m:
                break
        if fail:
            status = FAILED
            break
        # predicted reduction -q(s) = -(g's + s'As/2), with r - g = A s
        gs = dot(g, s, n, red, tid, nt)
        sAs = 0.0
        for i in range(tid, n, nt):
            sAs += s[i] * (r[i] - g[i])
        sAs = reduce_sum(sAs, red, tid, nt)
        prered = -(gs + 0.5 * sAs)
        snorm = nrm2(s, n, red, tid, nt)
        for i in range(tid, n, nt):
            d[i] = project(x[i] + s[i], l[i], u[i])
        sync()
        fnew = eval_f(d, par, red, n, tid, nt)
        nfev += 1
        actred = f - fnew
        if it == 1:
            delta = min(delta, snorm)
        # TRON's radius update, with the step length from quadratic interpolation
        if fnew - f - gs <= 0.0:
            alpha = SIGMA3
        else:
            alpha = max(SIGMA1, -0.5 * (gs / (fnew - f - gs)))
        if not math.isfinite(actred):
            delta = SIGMA1 * min(delta, snorm)
        elif actred < ETA0 * prered:
            delta = min(max(alpha, SIGMA1) * snorm, SIGMA2 * delta)
        elif actred < ETA1 * prered:
            delta = max(SIGMA1 * delta, min(alpha * snorm, SIGMA2 * delta))
        elif actred < ETA2 * prered:
            delta = max(SIGMA1 * delta, min(alpha * snorm, SIGMA3 * delta))
        else:
            delta = max(delta, min(alpha * snorm, SIGMA3 * delta))
        if math.isfinite(actred) and actred > ETA0 * prered:
            for i in range(tid, n, nt):
                x[i] = d[i]
            sync()
            f = eval_fgh(x, par, g, A, scr, red, n, tid, nt, c0, cs, r0, rs)
            pgn = pg_norm(x, l, u, g, n, red, tid, nt)
            if abs(actred) <= frtol * abs(f) and prered <= frtol * abs(f):
                status = CONVERGED
                break
        if prered <= 0.0 and snorm == 0.0:
            # no model decrease at all from a nonstationary point: the model is broken
            status = FAILED
            break
        if not (delta > 1e-300):
            status = FAILED
            break
    for i in range(tid, n, nt):
        x0[i] = x[i]
    if tid == 0:
        out[0] = f
        out[1] = it
        out[2] = status
        out[3] = nfev
        out[4] = pgn
    sync()
