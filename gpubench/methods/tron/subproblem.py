"""TRON's trust-region subproblem (paper 003, Figure 2): the projection, the Cauchy step, the free
set and its preconditioner, the truncated preconditioned CG (``trpcg``, ``trqsol``) and the
projected search.  Not imported as a module: a part of TRON's core text (see
:mod:`gpubench.methods.tron.core`)."""
# ruff: noqa: F821  (device, sync, OBJECTIVE, point, gradient, hessian and the other parts, _u of core.py among them, are injected)
import math


# --------------------------------------------------------------------- TRON pieces
@device
def gemv(A, v, out, n, tid, nt):
    """out <- A v (full n x n, column-major): one row per thread."""
    i = tid
    while i < n:
        acc = 0.0
        j = 0
        while j < n:
            acc += A[_u(i + j * n)] * v[_u(j)]
            j += 1
        out[_u(i)] = acc
        i += nt
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
    i = tid
    while i < n:
        s[_u(i)] = project(x[_u(i)] + alpha * w[_u(i)], l[_u(i)], u[_u(i)]) - x[_u(i)]
        i += nt
    sync()


@device
def _pg_entry(x, l, u, g, i):
    """Entry i of the projected gradient: g_i, but 0 where it points out of the box at a bound."""
    t = g[_u(i)]
    if x[_u(i)] <= l[_u(i)] and t > 0.0:
        return 0.0
    if x[_u(i)] >= u[_u(i)] and t < 0.0:
        return 0.0
    return t


@device
def pg_norm(x, l, u, g, n, red, tid, nt):
    """Norm of the projected gradient: g_i where x_i is free, and only its component
    pointing into the box at a bound.  Unlike ||P(x - g) - x|| it does not round to 0
    when |g| is far below the ulp of x (the unscaled hs45 product, tiny starts)."""
    acc = 0.0
    i = tid
    while i < n:
        t = _pg_entry(x, l, u, g, i)
        acc += t * t
        i += nt
    return math.sqrt(reduce_sum(acc, red, tid, nt))


@device
def pg_inf(x, l, u, g, n, red, tid, nt):
    """The infinity norm of the projected gradient of :func:`pg_norm`: ExaTron's ``dgpnorm``, whose
    test ends its driver (``tron_kernel``; the ``exatron`` stop of :func:`tron_solve`)."""
    acc = 0.0
    i = tid
    while i < n:
        acc = max(acc, abs(_pg_entry(x, l, u, g, i)))
        i += nt
    return reduce_max(acc, red, tid, nt)


@device
def cauchy(x, l, u, g, A, s, As, n, delta, alpha, red, tid, nt):
    """Projected Cauchy step (Algorithm 3.1 line 4): s = P(x - alpha g) - x with
    q(s) <= mu0 g's and ||s|| <= delta; alpha extrapolated (x10) or interpolated (x0.1)
    from the previous iteration's value, as TRON's dcauchy does."""
    # largest breakpoint: beyond it the projected path no longer moves
    bmax = 0.0
    i = tid
    while i < n:
        if g[_u(i)] > 0.0:
            b = (x[_u(i)] - l[_u(i)]) / g[_u(i)]
        elif g[_u(i)] < 0.0:
            b = (x[_u(i)] - u[_u(i)]) / g[_u(i)]
        else:
            b = 0.0
        if b > bmax:
            bmax = b
        i += nt
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
        i = 0
        while i < n:
            t = x[_u(i)] + s[_u(i)]
            if t > l[_u(i)] and t < u[_u(i)]:
                ind[_u(m)] = i
                m += 1
            i += 1
        red[0] = m
    sync()
    m = int(red[0])
    sync()
    return m


@device
def preconditioner(A, L, ind, m, n, cholesky, explicit, red, tid, nt, c0, cs, r0, rs, gershgorin):
    """L L^T = A_FF + alpha I (line 7; ccf/ccfs): alpha = 0 when the Cholesky succeeds,
    else alpha_min - min(diag) and doubled until it does (complete, dense factorisation).
    ``gershgorin``: where alpha = 0 is not tried or fails, the first shift is at least
    max_i (sum_j!=i |a_ij| - a_ii) + alpha_min, with which A_FF + alpha I is strictly diagonally
    dominant with a positive diagonal, so positive definite (Gershgorin) up to rounding; doubled after."""
    dmin = math.inf
    amax = 0.0
    gmax = -math.inf
    a = tid
    while a < m:
        ia = int(ind[_u(a)])
        d = A[_u(ia + ia * n)]
        if d < dmin:
            dmin = d
        rsum = 0.0
        b = 0
        while b < m:
            v = abs(A[_u(ia + int(ind[_u(b)]) * n)])
            rsum += v
            if v > amax:
                amax = v
            b += 1
        if rsum - abs(d) - d > gmax:   # row a's off-diagonal sum less its diagonal
            gmax = rsum - abs(d) - d
        a += nt
    dmin = -reduce_max(-dmin, red, tid, nt)
    amax = reduce_max(amax, red, tid, nt)
    alpha_min = 1e-3 * amax if amax > 0.0 else 1.0
    alpha = 0.0 if dmin > 0.0 else alpha_min - dmin
    jump = 0.0
    if gershgorin:
        jump = reduce_max(gmax, red, tid, nt) + alpha_min
        if alpha > 0.0:
            alpha = max(alpha, jump)
    ok = False
    for _ in range(64):
        b = c0
        while b < m:
            jb = int(ind[_u(b)])
            a = b + r0
            while a < m:
                v = A[_u(int(ind[_u(a)]) + jb * n)]
                if a == b:
                    v += alpha
                L[_u(a + b * n)] = v
                a += rs
            b += cs
        sync()
        if cholesky == 0:
            ok = chol_left(L, m, n, tid, nt)
        else:
            ok = chol_right(L, m, n, tid, nt, c0, cs, r0, rs)
        if ok:
            break
        alpha = max(2.0 * alpha, alpha_min, jump)
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
    i = tid
    while i < m:
        y[_u(i)] += a * x[_u(i)]
        i += nt
    sync()


@device
def trpcg(A, L, ind, m, n, rF, sh, rh, p, z, q, delta, cgtol, explicit, red, tid, nt):
    """Preconditioned CG on A^ s = -L^{-1} r_F, A^ = L^{-1} A_FF L^{-T}, ||s|| <= delta
    (line 8), then w = L^{-T} s (line 9), left in ``sh``.  Stops after m iterations,
    at the trust-region boundary (2) or on negative curvature (3); 1: converged."""
    a = tid
    while a < m:
        sh[_u(a)] = 0.0
        rh[_u(a)] = -rF[_u(a)]
        a += nt
    sync()
    forward(L, rh, m, n, tid, nt)
    a = tid
    while a < m:
        p[_u(a)] = rh[_u(a)]
        a += nt
    sync()
    rr = dot(rh, rh, m, red, tid, nt)
    r0 = math.sqrt(rr)
    info = 1
    if r0 > 0.0:
        info = 4
        _ = 0
        while _ < m:
            a = tid
            while a < m:
                z[_u(a)] = p[_u(a)]
                a += nt
            sync()
            backward(L, z, m, n, explicit, tid, nt)
            a = tid
            while a < m:
                ia = int(ind[_u(a)])
                acc = 0.0
                b = 0
                while b < m:
                    acc += A[_u(ia + int(ind[_u(b)]) * n)] * z[_u(b)]
                    b += 1
                q[_u(a)] = acc
                a += nt
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
            a = tid
            while a < m:
                p[_u(a)] = rh[_u(a)] + beta * p[_u(a)]
                a += nt
            sync()
            _ += 1
    backward(L, sh, m, n, explicit, tid, nt)
    return info


@device
def prsrch(x, l, u, s, w, r, A, d, Ad, n, red, tid, nt):
    """Projected search along w from x + s (line 10): beta = 1, halved until the model
    decreases sufficiently; s += d and the model gradient r += A d."""
    beta = 1.0
    ok = False
    for _ in range(40):
        i = tid
        while i < n:
            c = x[_u(i)] + s[_u(i)]
            d[_u(i)] = project(c + beta * w[_u(i)], l[_u(i)], u[_u(i)]) - c
            i += nt
        sync()
        gemv(A, d, Ad, n, tid, nt)
        rd = dot(r, d, n, red, tid, nt)
        dAd = dot(d, Ad, n, red, tid, nt)
        if rd + 0.5 * dAd <= MU0 * rd:
            ok = True
            break
        beta *= 0.5
    if ok:
        i = tid
        while i < n:
            s[_u(i)] += d[_u(i)]
            r[_u(i)] += Ad[_u(i)]
            i += nt
        sync()
    return ok
