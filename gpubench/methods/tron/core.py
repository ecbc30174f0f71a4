"""TRON (Algorithm 3.1 of paper 003) and the core operations of its Figure 2, written once.

    Y. Kim, F. Pacaud, K. Kim, M. Anitescu, "Leveraging GPU batching for
    scalable nonlinear programming through massive Lagrangian decomposition"
    (ExaTron), Section 3 (Algorithm 3.1, Figure 2) and Section 4; TRON itself is
    Lin & More, SIAM J. Optim. 9(4), 1999 (paper ref. [23]).

The core is four files, this one first, then :mod:`.linalg` (reductions, Cholesky,
triangular solves), :mod:`.objectives` and :mod:`.subproblem` (the Cauchy step, CG, the
projected search).  They are not imported as normal modules.  :func:`gpubench.methods.tron.load_core`
writes their text, once per (backend, objective, function), into a file of the cache folder
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

from gpubench.kernels.unsigned import u as _u   # every non-negative subscript of the core (and the files spliced with it)

CONVERGED, ITERATION_LIMIT, FAILED = 0, 1, 2
MU0 = 0.01          # sufficient decrease of the model (TRON's mu0)
ETA0, ETA1, ETA2 = 1e-4, 0.25, 0.75
SIGMA1, SIGMA2, SIGMA3 = 0.25, 0.5, 4.0


# --------------------------------------------------------------------- TRON
@device
def workspace_size(n):
    return 2 * n * n + 16 * n


@device
def tron_solve(x0, lo, hi, par, W, scr, red, out, cfg, n, cholesky, explicit,
               tid, nt, c0, cs, r0, rs):
    """Algorithm 3.1 for one problem; x0 is overwritten by the solution.

    cfg = (max_iter, gtol, gatol, frtol, delta0, cgtol, stop, max_feval, shift).  Stop 0 (ours): when
    ||pg(x)|| <= gtol ||pg(x0)|| (relative; pg the projected gradient, 2-norm) or <= gatol, or when
    the actual and predicted reductions are both <= frtol |f| after an accepted step; at most
    max_iter steps.  Stop 1, ExaTron's driver (``tron_kernel.jl`` of its ``sc2021`` branch, which ran
    the paper's ADMM): the first radius ||g(x0)||_2; ||pg(x)||_inf <= gatol tested after each
    accepted step only (never at x0, so at least one step is tried); the frtol test after every trial
    step, accepted or not; at most max_iter gradient evaluations (x0's included, ExaTron's
    ``max_minor``) and max_feval function evaluations.  out = (f, steps tried, status, function
    evaluations, final projected-gradient norm: the 2-norm, or the inf-norm with stop 1).
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
    exatron = cfg[6] > 0.0
    max_feval = int(cfg[7])
    gershgorin = cfg[8] > 0.0   # the preconditioner's shift rule (tron.SHIFTS)
    i = tid
    while i < n:
        l[_u(i)] = lo[_u(i)]
        u[_u(i)] = hi[_u(i)]
        x[_u(i)] = project(x0[_u(i)], lo[_u(i)], hi[_u(i)])
        i += nt
    sync()
    # f, g and H are evaluated at one call site (the loop's head: at x0, then after each accepted
    # step): the compiler inlines the objective at each call, and a symbolic Hessian is most of the
    # kernel, so two sites compiled it twice (issue 42: a cold tron-gpu compiles only what it calls)
    f = 0.0
    nfev = 1
    pg0 = 0.0
    pgn = 0.0
    delta = cfg[4]
    alphac = 1.0
    status = ITERATION_LIMIT
    it = 0
    evaluate = True
    actred = 0.0
    prered = 0.0
    snorm = 0.0
    ngev = 0
    while True:
        if evaluate:
            evaluate = False
            f = eval_fgh(x, par, g, A, scr, red, n, tid, nt, c0, cs, r0, rs)
            ngev += 1
            if exatron:
                pgn = pg_inf(x, l, u, g, n, red, tid, nt)
            else:
                pgn = pg_norm(x, l, u, g, n, red, tid, nt)
            if it == 0:
                pg0 = pgn
                if exatron:
                    delta = nrm2(g, n, red, tid, nt)
                elif not (delta > 0.0):
                    delta = max(pg0, 1.0)
            elif abs(actred) <= frtol * abs(f) and prered <= frtol * abs(f):
                status = CONVERGED
                break
            elif exatron:
                # ExaTron's NEWX: the gradient test, then the limit on gradient evaluations
                if pgn <= gatol:
                    status = CONVERGED
                    break
                if ngev >= max_iter:
                    break
        if it > 0:
            if prered <= 0.0 and snorm == 0.0:
                # no model decrease at all from a nonstationary point: the model is broken
                status = FAILED
                break
            if not (delta > 1e-300):
                status = FAILED
                break
        if not math.isfinite(f) or not math.isfinite(pgn):
            status = FAILED
            break
        if not exatron:
            if pgn <= gtol * pg0 or pgn <= gatol:
                status = CONVERGED
                break
            if it >= max_iter:
                break
        it += 1
        alphac = cauchy(x, l, u, g, A, s, r, n, delta, alphac, red, tid, nt)
        # model gradient at s: r = g + A s
        i = tid
        while i < n:
            r[_u(i)] += g[_u(i)]
            i += nt
        sync()
        gf0 = 0.0
        fail = False
        sub = 0
        while sub < n:
            m = free_set(x, s, l, u, ind, n, red, tid)
            if m == 0:
                break
            a = tid
            while a < m:
                rF[_u(a)] = r[_u(int(ind[_u(a)]))]
                a += nt
            sync()
            gfn = nrm2(rF, m, red, tid, nt)
            if sub == 0:
                gf0 = gfn
            if gfn <= cgtol * gf0 or gfn == 0.0:
                break
            if not preconditioner(A, L, ind, m, n, cholesky, explicit, red, tid, nt,
                                  c0, cs, r0, rs, gershgorin):
                fail = True
                break
            info = trpcg(A, L, ind, m, n, rF, sh, rh, p, z, q, delta, cgtol, explicit,
                         red, tid, nt)
            i = tid
            while i < n:
                w[_u(i)] = 0.0
                i += nt
            sync()
            if tid == 0:
                a = 0
                while a < m:
                    w[_u(int(ind[_u(a)]))] = sh[_u(a)]
                    a += 1
            sync()
            prsrch(x, l, u, s, w, r, A, d, Ad, n, red, tid, nt)
            if info >= 2:
                break
            if free_set(x, s, l, u, ind, n, red, tid) == m:
                break
            sub += 1
        if fail:
            status = FAILED
            break
        # predicted reduction -q(s) = -(g's + s'As/2), with r - g = A s
        gs = dot(g, s, n, red, tid, nt)
        sAs = 0.0
        i = tid
        while i < n:
            sAs += s[_u(i)] * (r[_u(i)] - g[_u(i)])
            i += nt
        sAs = reduce_sum(sAs, red, tid, nt)
        prered = -(gs + 0.5 * sAs)
        snorm = nrm2(s, n, red, tid, nt)
        i = tid
        while i < n:
            d[_u(i)] = project(x[_u(i)] + s[_u(i)], l[_u(i)], u[_u(i)])
            i += nt
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
            i = tid
            while i < n:
                x[_u(i)] = d[_u(i)]
                i += nt
            sync()
            f = fnew         # (recomputed with g at the loop's head; kept if a limit ends it first)
            evaluate = True  # f, g, H at the new x, then the checks, at the loop's head
        elif exatron and abs(actred) <= frtol * abs(f) and prered <= frtol * abs(f):
            # ExaTron's dtron tests frtol after a rejected trial too (f the kept point's): a step
            # too small to change f ends the solve, where the radius would otherwise collapse
            status = CONVERGED
            break
        if exatron and nfev >= max_feval:
            break
    i = tid
    while i < n:
        x0[_u(i)] = x[_u(i)]
        i += nt
    if tid == 0:
        out[0] = f
        out[1] = it
        out[2] = status
        out[3] = nfev
        out[4] = pgn
    sync()
