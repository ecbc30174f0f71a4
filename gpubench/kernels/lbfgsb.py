"""The batched L-BFGS-B solver of one start, for any backend: see :mod:`gpubench.methods.lbfgsb.batch`.

Spliced after a function's generated forms (:func:`gpubench.kernels.splice`), whose ``device``
decorator and ``point`` and ``gradient`` forms it uses; imported as itself (lint, PTX checks) it
uses the stand-ins of :mod:`gpubench.kernels.stand_in`.  A driver (``lbfgsb_cpu`` or
``lbfgsb_gpu``) follows it.
"""
import math

from gpubench.kernels.unsigned import u as _lb_u   # every variable subscript here and in lbfgsb_group.py

if __name__ == "gpubench.kernels.lbfgsb":  # imported as itself: stand-in forms
    from gpubench.kernels.stand_in import device, gradient, point

_LB_EPS = 2.220446049250313e-16


@device
def _lb_fg(x, p, g, w, sign):
    f = point(x, p)
    gradient(x, p, g, w)
    for i in range(x.shape[0]):
        g[_lb_u(i)] = sign * g[_lb_u(i)]
    return sign * f


@device
def _lb_wrow(S, Y, k, theta, i, a):
    # component a of w_i, the row i of W = [Y^T, theta S^T]
    if a < k:
        return Y[_lb_u(a), _lb_u(i)]
    return theta * S[_lb_u(a - k), _lb_u(i)]


@device
def _lb_wt(S, Y, k, theta, v, out):
    n = v.shape[0]
    for a in range(2 * k):
        s = 0.0
        for i in range(n):
            s += _lb_wrow(S, Y, k, theta, i, a) * v[_lb_u(i)]
        out[_lb_u(a)] = s


@device
def _lb_wmul(S, Y, k, theta, a, i):
    # (W a)_i
    s = 0.0
    for b in range(2 * k):
        s += _lb_wrow(S, Y, k, theta, i, b) * a[_lb_u(b)]
    return s


@device
def _lb_quad(M, k2, u, v):
    # u^T M v
    s = 0.0
    for a in range(k2):
        t = 0.0
        for b in range(k2):
            t += M[_lb_u(a), _lb_u(b)] * v[_lb_u(b)]
        s += u[_lb_u(a)] * t
    return s


@device
def _lb_matvec(M, k2, v, out):
    for a in range(k2):
        t = 0.0
        for b in range(k2):
            t += M[_lb_u(a), _lb_u(b)] * v[_lb_u(b)]
        out[_lb_u(a)] = t


@device
def _lb_pivot(A, k2, c):
    # the row of column c's first largest |A[r, c]| (r >= c), the partial pivot of _lb_solve and
    # _lb_lu (and of the group's); -1 when that is 0 or NaN (singular)
    piv = c
    big = abs(A[_lb_u(c), _lb_u(c)])
    for r in range(c + 1, k2):
        if abs(A[_lb_u(r), _lb_u(c)]) > big:
            big = abs(A[_lb_u(r), _lb_u(c)])
            piv = r
    if big == 0.0 or big != big:
        return -1
    return piv


@device
def _lb_back(A, k2, rhs):
    # back substitution with the upper triangle of A, in place: the last step of _lb_solve and
    # _lb_lu_solve (one order of the sums for both, so the same bits)
    for c in range(k2 - 1, -1, -1):
        s = rhs[_lb_u(c)]
        for q in range(c + 1, k2):
            s -= A[_lb_u(c), _lb_u(q)] * rhs[_lb_u(q)]
        rhs[_lb_u(c)] = s / A[_lb_u(c), _lb_u(c)]


@device
def _lb_solve(A, k2, rhs):
    # Gaussian elimination with partial pivoting, in place; False when singular
    for c in range(k2):
        piv = _lb_pivot(A, k2, c)
        if piv < 0:
            return False
        if piv != c:
            for q in range(k2):
                t = A[_lb_u(c), _lb_u(q)]
                A[_lb_u(c), _lb_u(q)] = A[_lb_u(piv), _lb_u(q)]
                A[_lb_u(piv), _lb_u(q)] = t
            t = rhs[_lb_u(c)]
            rhs[_lb_u(c)] = rhs[_lb_u(piv)]
            rhs[_lb_u(piv)] = t
        for r in range(c + 1, k2):
            fct = A[_lb_u(r), _lb_u(c)] / A[_lb_u(c), _lb_u(c)]
            if fct != 0.0:
                for q in range(c, k2):
                    A[_lb_u(r), _lb_u(q)] -= fct * A[_lb_u(c), _lb_u(q)]
                rhs[_lb_u(r)] -= fct * rhs[_lb_u(c)]
    _lb_back(A, k2, rhs)
    return True


@device
def _lb_lu(A, k2, piv):
    # _lb_solve's elimination of A alone, for many right-hand sides: U in the upper triangle, the
    # multiplier of step c for row r in A[r, c] (r > c), step c's pivot row in piv[c]; the rows
    # are swapped from column c on only, so a multiplier stays where its step left it (_lb_solve's
    # entries left of the diagonal are never read); False when singular.  Partial pivoting keeps
    # every multiplier in [-1, 1] or NaN, and a NaN one leaves its row NaN, failing at that row's
    # own pivot: when this returns True every multiplier is finite
    for c in range(k2):
        piv_c = _lb_pivot(A, k2, c)
        if piv_c < 0:
            return False
        if piv_c != c:
            for q in range(c, k2):
                t = A[_lb_u(c), _lb_u(q)]
                A[_lb_u(c), _lb_u(q)] = A[_lb_u(piv_c), _lb_u(q)]
                A[_lb_u(piv_c), _lb_u(q)] = t
        piv[_lb_u(c)] = piv_c
        d = A[_lb_u(c), _lb_u(c)]
        for r in range(c + 1, k2):
            fct = A[_lb_u(r), _lb_u(c)] / d
            A[_lb_u(r), _lb_u(c)] = fct
            if fct != 0.0:
                for q in range(c + 1, k2):
                    A[_lb_u(r), _lb_u(q)] -= fct * A[_lb_u(c), _lb_u(q)]
    return True


@device
def _lb_lu_solve(A, k2, piv, rhs, unit):
    # A x = rhs from _lb_lu's factors, in place: the same operations on rhs, in the same order,
    # as _lb_solve's, so the same bits.  With ``unit`` (rhs a unit vector) the steps before the
    # first nonzero rhs[c] are skipped: every entry is still an untouched +0.0 or the 1, and
    # x - f * (+0.0) is x for such x and a finite f (every multiplier: see _lb_lu)
    lead = unit
    for c in range(k2):
        pc = int(piv[_lb_u(c)])
        if pc != c:
            t = rhs[_lb_u(c)]
            rhs[_lb_u(c)] = rhs[_lb_u(pc)]
            rhs[_lb_u(pc)] = t
        y = rhs[_lb_u(c)]
        if lead:
            if y == 0.0:
                continue
            lead = False
        for r in range(c + 1, k2):
            fct = A[_lb_u(r), _lb_u(c)]
            if fct != 0.0:
                rhs[_lb_u(r)] -= fct * y
    _lb_back(A, k2, rhs)


@device
def _lb_middle_row(SS, SY, k, theta, A, a):
    # row a of [[-D, L^T], [L, theta S^T S]] (BLNZ eq. 3.4), the system whose inverse is M
    k2 = 2 * k
    for b in range(k2):
        if a < k and b < k:
            A[_lb_u(a), _lb_u(b)] = -SY[_lb_u(a), _lb_u(a)] if a == b else 0.0
        elif a < k:
            A[_lb_u(a), _lb_u(b)] = SY[_lb_u(b - k), _lb_u(a)] if b - k > a else 0.0
        elif b < k:
            A[_lb_u(a), _lb_u(b)] = SY[_lb_u(a - k), _lb_u(b)] if a - k > b else 0.0
        else:
            A[_lb_u(a), _lb_u(b)] = theta * SS[_lb_u(a - k), _lb_u(b - k)]


@device
def _lb_middle(SS, SY, k, theta, M, A, col):
    # M = [[-D, L^T], [L, theta S^T S]]^{-1} (BLNZ eq. 3.4), column by column from one
    # factorisation (bit for bit what k2 calls of _lb_solve on fresh copies of the matrix give,
    # at about a third of their cost: the slowest start's iterations set a multi-start run's time)
    k2 = 2 * k
    for a in range(k2):
        _lb_middle_row(SS, SY, k, theta, A, a)
    if not _lb_lu(A, k2, col):
        return False
    # the pivots where column k2 - 1 of M goes, written last (after its own solve has read them)
    piv = M[:, k2 - 1]
    for a in range(k2):
        piv[_lb_u(a)] = col[_lb_u(a)]
    for j in range(k2):
        for a in range(k2):
            col[_lb_u(a)] = 1.0 if a == j else 0.0
        _lb_lu_solve(A, k2, piv, col, True)
        for a in range(k2):
            M[_lb_u(a), _lb_u(j)] = col[_lb_u(a)]
    return True


@device
def _lb_gram_entry(S, Y, k, theta, FR, a, b):
    s = 0.0
    for i in range(FR.shape[0]):
        if FR[_lb_u(i)] > 0.0:
            s += _lb_wrow(S, Y, k, theta, i, a) * _lb_wrow(S, Y, k, theta, i, b)
    return s


@device
def _lb_gram_rows(S, Y, k, theta, FR, GR, a0, da):
    # rows a0, a0 + da, ... of the free rows' Gram matrix GR = W_F^T W_F (and, by symmetry, the
    # columns below them): each entry a sum over the free coordinates in order
    k2 = 2 * k
    for a in range(a0, k2, da):
        for b in range(a, k2):     # symmetric: w_a w_b and w_b w_a round alike
            s = _lb_gram_entry(S, Y, k, theta, FR, a, b)
            GR[_lb_u(a), _lb_u(b)] = s
            GR[_lb_u(b), _lb_u(a)] = s


@device
def _lb_gram_free(S, Y, k, theta, FR, GR):
    _lb_gram_rows(S, Y, k, theta, FR, GR, 0, 1)


@device
def _lb_mgr_entry(M, GR, k2, a, b):
    s = 0.0
    for q in range(k2):
        s += M[_lb_u(a), _lb_u(q)] * GR[_lb_u(q), _lb_u(b)]
    return s


@device
def _lb_mgr_rows(M, GR, k2, theta, A, a0, da):
    # rows a0, a0 + da, ... of A = I - M GR / theta (the subspace step's system)
    for a in range(a0, k2, da):
        for b in range(k2):
            A[_lb_u(a), _lb_u(b)] = (1.0 if a == b else 0.0) - _lb_mgr_entry(M, GR, k2, a, b) / theta


@device
def _lb_mgr(M, GR, k2, theta, A):
    _lb_mgr_rows(M, GR, k2, theta, A, 0, 1)


# The products and loops below are steps a group of lanes shares (gpubench/kernels/lbfgsb_group.py
# defines the ones without _rows again); here, for one thread, each is the plain loop.  ``site``
# names a call's arrays by their rows of the work arrays V and SV: 16 (input row) + (output row)
@device
def _lb_wt_at(site, S, Y, k, theta, v, out):
    _lb_wt(S, Y, k, theta, v, out)


@device
def _lb_quad_at(site, M, k2, u, v):
    return _lb_quad(M, k2, u, v)


@device
def _lb_matvec_at(site, M, k2, v, out):
    _lb_matvec(M, k2, v, out)


@device
def _lb_free_residual_rows(S, Y, k, theta, T1, G, XC, X, FR, R, i0, di):
    # coordinates i0, i0 + di, ... of the subspace step's reduced gradient r = Z^T (g + theta (xc - x) - W M c)
    for i in range(i0, FR.shape[0], di):
        if FR[_lb_u(i)] > 0.0:
            R[_lb_u(i)] = G[_lb_u(i)] + theta * (XC[_lb_u(i)] - X[_lb_u(i)]) - _lb_wmul(S, Y, k, theta, T1, i)
        else:
            R[_lb_u(i)] = 0.0


@device
def _lb_free_residual(S, Y, k, theta, T1, G, XC, X, FR, R):
    _lb_free_residual_rows(S, Y, k, theta, T1, G, XC, X, FR, R, 0, 1)


@device
def _lb_free_step_rows(S, Y, k, theta, VV, R, FR, DU, i0, di):
    # coordinates i0, i0 + di, ... of the subspace step du = -r / theta - W v / theta^2
    for i in range(i0, FR.shape[0], di):
        if FR[_lb_u(i)] > 0.0:
            DU[_lb_u(i)] = -R[_lb_u(i)] / theta - _lb_wmul(S, Y, k, theta, VV, i) / (theta * theta)
        else:
            DU[_lb_u(i)] = 0.0


@device
def _lb_free_step(S, Y, k, theta, VV, R, FR, DU):
    _lb_free_step_rows(S, Y, k, theta, VV, R, FR, DU, 0, 1)


@device
def _lb_pair_dots_rows(S, Y, SS, SY, k, q0, dq):
    # rows q0, q0 + dq, ... of the newest pair's (j = k - 1) row and column of S^T S and S^T Y
    j = k - 1
    for q in range(q0, k, dq):
        ss = 0.0
        s_y = 0.0
        y_s = 0.0
        for i in range(S.shape[1]):
            ss += S[_lb_u(q), _lb_u(i)] * S[_lb_u(j), _lb_u(i)]
            s_y += S[_lb_u(j), _lb_u(i)] * Y[_lb_u(q), _lb_u(i)]
            y_s += S[_lb_u(q), _lb_u(i)] * Y[_lb_u(j), _lb_u(i)]
        SS[_lb_u(q), _lb_u(j)] = ss
        SS[_lb_u(j), _lb_u(q)] = ss
        SY[_lb_u(j), _lb_u(q)] = s_y
        SY[_lb_u(q), _lb_u(j)] = y_s


@device
def _lb_pair_dots(S, Y, SS, SY, k):
    _lb_pair_dots_rows(S, Y, SS, SY, k, 0, 1)


@device
def _lb_maxstep(x, d, lo, hi, cap):
    # the longest step t <= cap along d from x that stays in [lo, hi] (0 if x + 0 d is already out)
    t = cap
    for i in range(x.shape[0]):
        di = d[_lb_u(i)]
        if di < 0.0:
            am = (lo[_lb_u(i)] - x[_lb_u(i)]) / di
        elif di > 0.0:
            am = (hi[_lb_u(i)] - x[_lb_u(i)]) / di
        else:
            am = math.inf
        if am < t:
            t = am
    if t < 0.0:
        t = 0.0
    return t


@device
def _lb_pgnorm(x, g, lo, hi):
    best = 0.0
    for i in range(x.shape[0]):
        z = x[_lb_u(i)] - g[_lb_u(i)]
        if z < lo[_lb_u(i)]:
            z = lo[_lb_u(i)]
        if z > hi[_lb_u(i)]:
            z = hi[_lb_u(i)]
        z = abs(z - x[_lb_u(i)])
        if z > best:
            best = z
    return best


# res: the start's outcome and the scalars of its state between launches
#   0 sign * f, 1 nit, 2 nfev, 3 status (0 converged, 1 limit, 2 abnormal, 3 paused at the
#   launch's iteration cap), 4 pg, 5 k, 6 theta, 7 retried, 8 started, 9 f as minimised
RESW = 10
_LB_PAUSED = 3


@device
def _lb_solve_one(x0, lo, hi, p, sign, m, pgtol, factr, maxiter, maxfun, approx, project, cap,
                  V, SYb, SM, SV, xout, res):
    # One start for at most ``cap`` iterations: its vectors (x, g, S, Y) and small matrices stay
    # in V/SYb/SM and its scalars in res, so the next launch resumes exactly where this one stopped.
    if res[8] != 0.0 and res[3] != _LB_PAUSED:
        return
    n = x0.shape[0]
    X = V[0]
    G = V[1]
    D = V[2]
    XC = V[3]
    T = V[4]
    FR = V[5]
    XT = V[6]
    GT = V[7]
    R = V[8]
    DU = V[9]
    XB = V[10]
    GW = V[11]
    S = SYb[0]
    Y = SYb[1]
    SS = SM[0]
    SY = SM[1]
    M = SM[2]
    A = SM[3]
    GR = SM[4]
    P = SV[0]
    C = SV[1]
    VV = SV[2]
    WB = SV[3]
    T1 = SV[4]
    T2 = SV[5]
    constrained = False
    boxed = True
    for i in range(n):
        if lo[_lb_u(i)] > -math.inf or hi[_lb_u(i)] < math.inf:
            constrained = True
        if not (lo[_lb_u(i)] > -math.inf and hi[_lb_u(i)] < math.inf):
            boxed = False
    status = 1
    if res[8] == 0.0:
        for i in range(n):
            v = x0[_lb_u(i)]
            if v < lo[_lb_u(i)]:
                v = lo[_lb_u(i)]
            if v > hi[_lb_u(i)]:
                v = hi[_lb_u(i)]
            X[_lb_u(i)] = v
        f = _lb_fg(X, p, G, GW, sign)
        nfev = 1
        nit = 0
        k = 0
        theta = 1.0
        retried = False
        if _lb_pgnorm(X, G, lo, hi) <= pgtol:
            status = 0
    else:
        f = res[9]
        nit = int(res[1])
        nfev = int(res[2])
        k = int(res[5])
        theta = res[6]
        retried = res[7] != 0.0
    stop_at = nit + cap
    while status == 1:
        if nit >= maxiter or nfev >= maxfun:
            break
        if nit >= stop_at:
            status = _LB_PAUSED
            break
        k2 = 2 * k
        # ---- generalized Cauchy point (BLNZ algorithm CP; approx: Fei et al. 4.1)
        dd = 0.0
        for i in range(n):
            g = G[_lb_u(i)]
            if g < 0.0:
                t = (X[_lb_u(i)] - hi[_lb_u(i)]) / g
            elif g > 0.0:
                t = (X[_lb_u(i)] - lo[_lb_u(i)]) / g
            else:
                t = math.inf
            if not (t > 0.0):
                t = 0.0
            T[_lb_u(i)] = t
            XC[_lb_u(i)] = X[_lb_u(i)]
            if t > 0.0:
                D[_lb_u(i)] = -g
                FR[_lb_u(i)] = 1.0
                dd += g * g
            else:
                D[_lb_u(i)] = 0.0
                FR[_lb_u(i)] = 0.0
        for a in range(k2):
            C[_lb_u(a)] = 0.0
        if dd > 0.0:
            _lb_wt_at(2 * 16 + 0, S, Y, k, theta, D, P)
            f1 = -dd
            f2 = theta * dd - _lb_quad_at(0 * 16 + 0, M, k2, P, P)
            f2org = theta * dd
            if f2 < _LB_EPS * f2org:
                f2 = _LB_EPS * f2org
            tsum = 0.0
            while True:
                b = -1
                tb = math.inf
                for i in range(n):
                    if FR[_lb_u(i)] > 0.0 and T[_lb_u(i)] < tb:
                        tb = T[_lb_u(i)]
                        b = i
                dtmin = -f1 / f2
                dt = tb - tsum
                if approx:
                    if b >= 0 and dtmin >= dt:
                        # t_c = t_1: every coordinate with t_i <= t_1 lands on its bound
                        tsum = tb
                        for i in range(n):
                            if FR[_lb_u(i)] > 0.0 and T[_lb_u(i)] <= tb:
                                XC[_lb_u(i)] = hi[_lb_u(i)] if G[_lb_u(i)] < 0.0 else lo[_lb_u(i)]
                                FR[_lb_u(i)] = 0.0
                                D[_lb_u(i)] = 0.0
                        for a in range(k2):
                            C[_lb_u(a)] = tb * P[_lb_u(a)]
                        dtmin = 0.0
                    else:
                        if dtmin < 0.0:
                            dtmin = 0.0
                        tsum = dtmin
                        for a in range(k2):
                            C[_lb_u(a)] = dtmin * P[_lb_u(a)]
                        dtmin = 0.0
                    break
                if b < 0 or dtmin < dt:
                    break
                tsum = tb
                gb = G[_lb_u(b)]
                bound = hi[_lb_u(b)] if gb < 0.0 else lo[_lb_u(b)]
                zb = bound - X[_lb_u(b)]
                XC[_lb_u(b)] = bound
                FR[_lb_u(b)] = 0.0
                D[_lb_u(b)] = 0.0
                for a in range(k2):
                    C[_lb_u(a)] += dt * P[_lb_u(a)]
                    WB[_lb_u(a)] = _lb_wrow(S, Y, k, theta, b, a)
                f1 = f1 + dt * f2 + gb * gb + theta * gb * zb - gb * _lb_quad_at(3 * 16 + 1, M, k2, WB, C)
                f2 = f2 - theta * gb * gb - 2.0 * gb * _lb_quad_at(3 * 16 + 0, M, k2, WB, P) \
                    - gb * gb * _lb_quad_at(3 * 16 + 3, M, k2, WB, WB)
                if f2 < _LB_EPS * f2org:
                    f2 = _LB_EPS * f2org
                for a in range(k2):
                    P[_lb_u(a)] += gb * WB[_lb_u(a)]
            if dtmin < 0.0:
                dtmin = 0.0
            tsum += dtmin
            for a in range(k2):
                C[_lb_u(a)] += dtmin * P[_lb_u(a)]
            for i in range(n):
                if FR[_lb_u(i)] > 0.0:
                    XC[_lb_u(i)] = X[_lb_u(i)] + tsum * D[_lb_u(i)]
        # ---- subspace minimisation (BLNZ 5.1, direct primal)
        nfree = 0
        for i in range(n):
            XB[_lb_u(i)] = XC[_lb_u(i)]
            if FR[_lb_u(i)] > 0.0:
                nfree += 1
        if k > 0 and nfree > 0:
            _lb_matvec_at(1 * 16 + 4, M, k2, C, T1)
            _lb_free_residual(S, Y, k, theta, T1, G, XC, X, FR, R)
            _lb_wt_at(8 * 16 + 5, S, Y, k, theta, R, T2)
            _lb_matvec_at(5 * 16 + 2, M, k2, T2, VV)
            _lb_gram_free(S, Y, k, theta, FR, GR)
            _lb_mgr(M, GR, k2, theta, A)
            if _lb_solve(A, k2, VV):
                _lb_free_step(S, Y, k, theta, VV, R, FR, DU)
                use_trunc = True
                if project:
                    ddp = 0.0
                    for i in range(n):
                        v = XC[_lb_u(i)] + DU[_lb_u(i)]
                        if v < lo[_lb_u(i)]:
                            v = lo[_lb_u(i)]
                        if v > hi[_lb_u(i)]:
                            v = hi[_lb_u(i)]
                        XB[_lb_u(i)] = v
                        ddp += (v - X[_lb_u(i)]) * G[_lb_u(i)]
                    use_trunc = ddp > 0.0
                if use_trunc:
                    alpha = _lb_maxstep(XC, DU, lo, hi, 1.0)
                    for i in range(n):
                        XB[_lb_u(i)] = XC[_lb_u(i)] + alpha * DU[_lb_u(i)]
        # ---- line search along d = xbar - x (strong Wolfe)
        gd = 0.0
        dnorm = 0.0
        for i in range(n):
            D[_lb_u(i)] = XB[_lb_u(i)] - X[_lb_u(i)]
            gd += G[_lb_u(i)] * D[_lb_u(i)]
            dnorm += D[_lb_u(i)] * D[_lb_u(i)]
        dnorm = math.sqrt(dnorm)
        if not (gd < 0.0) or dnorm == 0.0:
            if k > 0 and not retried:
                k = 0
                theta = 1.0
                retried = True
                continue
            status = 0 if (dnorm == 0.0 or gd == 0.0) else 2
            break
        stpmax = 1e10
        if constrained:
            if nit == 0 and k == 0:
                stpmax = 1.0
            else:
                stpmax = _lb_maxstep(X, D, lo, hi, stpmax)
        if k == 0 and nit == 0 and not boxed:
            stp = min(1.0 / dnorm, stpmax)
        else:
            stp = min(1.0, stpmax)
        # bracketing then zoom (Nocedal & Wright 3.5/3.6); the point tried last is in XT/GT
        f0 = f
        aprev = 0.0
        fprev = f0
        gprev = gd
        a = stp
        evals = 0
        ok = False
        lo_a = 0.0
        lo_f = f0
        lo_g = gd
        hi_a = 0.0
        hi_f = 0.0
        hi_g = 0.0
        zoom = False
        fa = 0.0
        while evals < 20:
            if zoom:
                w = hi_a - lo_a
                d1 = lo_g + hi_g - 3.0 * (lo_f - hi_f) / (lo_a - hi_a)
                disc = d1 * d1 - lo_g * hi_g
                cand = 0.5 * (lo_a + hi_a)
                if disc >= 0.0:
                    d2 = math.sqrt(disc)
                    if hi_a < lo_a:
                        d2 = -d2
                    den = hi_g - lo_g + 2.0 * d2
                    if den != 0.0:
                        cc = hi_a - (hi_a - lo_a) * (hi_g + d2 - d1) / den
                        smin = min(lo_a, hi_a) + 0.1 * abs(w)
                        smax = max(lo_a, hi_a) - 0.1 * abs(w)
                        if smin <= cc and cc <= smax:
                            cand = cc
                a = cand
            for i in range(n):
                XT[_lb_u(i)] = X[_lb_u(i)] + a * D[_lb_u(i)]
                if XT[_lb_u(i)] < lo[_lb_u(i)]:
                    XT[_lb_u(i)] = lo[_lb_u(i)]
                if XT[_lb_u(i)] > hi[_lb_u(i)]:
                    XT[_lb_u(i)] = hi[_lb_u(i)]
            fa = _lb_fg(XT, p, GT, GW, sign)
            nfev += 1
            evals += 1
            ga = 0.0
            for i in range(n):
                ga += GT[_lb_u(i)] * D[_lb_u(i)]
            if not zoom:
                if not (fa == fa) or fa == math.inf:
                    a = aprev + 0.1 * (a - aprev)
                    continue
                if fa > f0 + 1e-3 * a * gd or (aprev > 0.0 and fa >= fprev):
                    zoom = True
                    lo_a = aprev
                    lo_f = fprev
                    lo_g = gprev
                    hi_a = a
                    hi_f = fa
                    hi_g = ga
                    continue
                if abs(ga) <= -0.9 * gd or a >= stpmax:
                    ok = True
                    break
                if ga >= 0.0:
                    zoom = True
                    lo_a = a
                    lo_f = fa
                    lo_g = ga
                    hi_a = aprev
                    hi_f = fprev
                    hi_g = gprev
                    continue
                aprev = a
                fprev = fa
                gprev = ga
                a = min(stpmax, 4.0 * a)
            else:
                if fa > f0 + 1e-3 * a * gd or fa >= lo_f:
                    hi_a = a
                    hi_f = fa
                    hi_g = ga
                else:
                    if abs(ga) <= -0.9 * gd:
                        ok = True
                        break
                    if ga * (hi_a - lo_a) >= 0.0:
                        hi_a = lo_a
                        hi_f = lo_f
                        hi_g = lo_g
                    lo_a = a
                    lo_f = fa
                    lo_g = ga
                if abs(hi_a - lo_a) <= _LB_EPS * max(1.0, abs(lo_a)):
                    break
        if not ok:
            # out of evaluations: the best bracket end with sufficient decrease is still progress
            best = lo_a if zoom else aprev
            if best > 0.0:
                a = best
                for i in range(n):
                    XT[_lb_u(i)] = X[_lb_u(i)] + a * D[_lb_u(i)]
                    if XT[_lb_u(i)] < lo[_lb_u(i)]:
                        XT[_lb_u(i)] = lo[_lb_u(i)]
                    if XT[_lb_u(i)] > hi[_lb_u(i)]:
                        XT[_lb_u(i)] = hi[_lb_u(i)]
                fa = _lb_fg(XT, p, GT, GW, sign)
                nfev += 1
                ok = fa < f0 + 1e-3 * a * gd
        if not ok:
            if k > 0 and not retried:
                k = 0
                theta = 1.0
                retried = True
                continue
            status = 2
            break
        retried = False
        # ---- limited-memory update
        sy = 0.0
        yy = 0.0
        for i in range(n):
            s = XT[_lb_u(i)] - X[_lb_u(i)]
            y = GT[_lb_u(i)] - G[_lb_u(i)]
            sy += s * y
            yy += y * y
        if m > 0 and sy > _LB_EPS * (-gd * a):
            if k == m:
                for q in range(m - 1):
                    for i in range(n):
                        S[_lb_u(q), _lb_u(i)] = S[_lb_u(q + 1), _lb_u(i)]
                        Y[_lb_u(q), _lb_u(i)] = Y[_lb_u(q + 1), _lb_u(i)]
                    for r in range(m - 1):
                        SS[_lb_u(q), _lb_u(r)] = SS[_lb_u(q + 1), _lb_u(r + 1)]
                        SY[_lb_u(q), _lb_u(r)] = SY[_lb_u(q + 1), _lb_u(r + 1)]
                k -= 1
            for i in range(n):
                S[_lb_u(k), _lb_u(i)] = XT[_lb_u(i)] - X[_lb_u(i)]
                Y[_lb_u(k), _lb_u(i)] = GT[_lb_u(i)] - G[_lb_u(i)]
            k += 1
            _lb_pair_dots(S, Y, SS, SY, k)
            theta = yy / sy
            if not _lb_middle(SS, SY, k, theta, M, A, T2):
                k = 0
                theta = 1.0
        for i in range(n):
            X[_lb_u(i)] = XT[_lb_u(i)]
            G[_lb_u(i)] = GT[_lb_u(i)]
        fold = f
        f = fa
        nit += 1
        pg = _lb_pgnorm(X, G, lo, hi)
        if pg <= pgtol:
            status = 0
            break
        if (fold - f) / max(abs(fold), abs(f), 1.0) <= factr * _LB_EPS:
            status = 0
            break
    for i in range(n):
        xout[_lb_u(i)] = X[_lb_u(i)]
    res[0] = sign * f
    res[1] = nit
    res[2] = nfev
    res[3] = status
    res[4] = _lb_pgnorm(X, G, lo, hi)
    res[5] = k
    res[6] = theta
    res[7] = 1.0 if retried else 0.0
    res[8] = 1.0
    res[9] = f
