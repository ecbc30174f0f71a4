"""TRON's objectives: the hs45-type product (analytic Hessian), and a library function's value,
gradient and Hessian (central differences of the gradient, or the symbolic Hessian).
Not imported as a module: a part of TRON's core text (see :mod:`gpubench.methods.tron.core`)."""
# ruff: noqa: F821  (device, sync, OBJECTIVE, point, gradient, hessian and the other parts, _u of core.py among them, are injected)


# --------------------------------------------------------------------- objectives
@device
def hs45_value(x, par, n):
    """f = -prod x_i / c_i (c_i = par[0, i]); footnote 4's 120 - prod x_i, scaled and shifted."""
    p = 1.0
    k = 0
    while k < n:
        p *= x[_u(k)] / par[0, _u(k)]
        k += 1
    return -p


@device
def lib_fd_hessian(x, par, H, g, scr, n, tid, nt, c0, cs, r0, rs):
    """Central differences of the generated gradient, one column per thread, symmetrised."""
    base = n + tid * 4 * n
    xp = scr[base:base + n]
    gp = scr[base + n:base + 2 * n]
    gm = scr[base + 2 * n:base + 3 * n]
    wk = scr[base + 3 * n:base + 4 * n]
    j = tid
    while j < n:
        k = 0
        while k < n:
            xp[_u(k)] = x[_u(k)]
            k += 1
        h = 6.0554544523933395e-06 * max(1.0, abs(x[_u(j)]))  # eps^(1/3)
        xp[_u(j)] = x[_u(j)] + h
        gradient(xp, par, gp, wk)
        xp[_u(j)] = x[_u(j)] - h
        gradient(xp, par, gm, wk)
        i = 0
        while i < n:
            H[_u(i + j * n)] = (gp[_u(i)] - gm[_u(i)]) / (2.0 * h)
            i += 1
        j += nt
    sync()
    j = c0
    while j < n:
        i = j + 1 + r0
        while i < n:
            v = 0.5 * (H[_u(i + j * n)] + H[_u(j + i * n)])
            H[_u(i + j * n)] = v
            H[_u(j + i * n)] = v
            i += rs
        j += cs
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
        k = 0
        while k < n:
            P *= x[_u(k)] / par[0, _u(k)]
            if x[_u(k)] == 0.0:
                nonzero = False
            k += 1
        if nonzero:
            # g_i = -P / x_i, H_ij = -P / (x_i x_j): O(n^2) in all
            i = tid
            while i < n:
                g[_u(i)] = -P / x[_u(i)]
                i += nt
            j = c0
            while j < n:
                i = r0
                while i < n:
                    H[_u(i + j * n)] = 0.0 if i == j else -P / (x[_u(i)] * x[_u(j)])
                    i += rs
                j += cs
        else:
            # at x_k = 0 the same products without dividing: O(n^3)
            i = tid
            while i < n:
                q = 1.0
                k = 0
                while k < n:
                    if k != i:
                        q *= x[_u(k)] / par[0, _u(k)]
                    k += 1
                g[_u(i)] = -q / par[0, _u(i)]
                i += nt
            j = c0
            while j < n:
                i = r0
                while i < n:
                    if i == j:
                        H[_u(i + j * n)] = 0.0
                    else:
                        q = 1.0
                        k = 0
                        while k < n:
                            if k != i and k != j:
                                q *= x[_u(k)] / par[0, _u(k)]
                            k += 1
                        H[_u(i + j * n)] = -q / (par[0, _u(i)] * par[0, _u(j)])
                    i += rs
                j += cs
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
