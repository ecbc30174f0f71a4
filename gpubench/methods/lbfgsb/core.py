"""L-BFGS-B on array-API vectors: one host loop for numpy (CPU) and CuPy (GPU) arrays.

Written from

    R. H. Byrd, P. Lu, J. Nocedal, C. Zhu, "A limited memory algorithm for bound
    constrained optimization", SIAM J. Sci. Comput. 16(5) 1190-1208 (1995) [BLNZ],
    sections 3 (compact representation), 4 (generalized Cauchy point) and 5.1
    (direct primal subspace minimisation);

    J. L. Morales, J. Nocedal, "Remark on Algorithm 778", ACM TOMS 38(1) (2011):
    the subspace step is projected onto the box and falls back to the truncated
    step when the projected one is not a descent direction (what SciPy's
    L-BFGS-B 3.0 does);

    Y. Fei, G. Rong, B. Wang, W. Wang, "Parallel L-BFGS-B algorithm on GPU",
    Computers & Graphics 40 (2014) 1-9 (seed 004), section 4.1: the approximate
    generalized Cauchy point t_c = max(0, min(t_1, t_1*)), t_1 the smallest
    breakpoint and t_1* the minimiser of the model on the first segment.

Every n-vector stays on the array's device: the loop only reads scalars (dot
products, minima) and the 2m x 2m middle matrix M of the compact form
B = theta I - W M W^T back to the host.  Every read goes through ``fetch``, which
brings any number of device scalars and small vectors back in one transfer (one
synchronisation of the host with the device); ``SYNC["count"]`` counts them, with
numpy standing in for CuPy on the CPU.  An iteration with the approximate Cauchy
point and the projected step makes four: the scalars of the memory update, the
stopping test and the next Cauchy point together; the subspace products; the
descent test with the direction's length and largest step; and one per line-search
evaluation, whose value is fetched with its slope when ``fun_and_grad`` returns it
as a device scalar (the 19 separate reads this replaced cost more than an iteration
of arithmetic at 10^4 to 10^5 variables on the GPU).  The exact Cauchy point is found without
the sequential breakpoint loop of BLNZ: after one sort of the breakpoints, the
slope f'_j and curvature f''_j of the model at the start of every segment are
prefix sums (``_exact_cauchy``), so the first segment holding a minimiser is a
vectorised search; on the GPU that is a sort and scans.

Stopping rules are SciPy's: ``||P(x - g) - x||_inf <= pgtol`` and
``(f_old - f) / max(|f_old|, |f|, 1) <= factr * eps``.  The line search
satisfies the strong Wolfe conditions (c1 = 1e-3, c2 = 0.9, SciPy's values)
by bracketing and zoom with safeguarded cubic interpolation (Nocedal & Wright,
Numerical Optimization, algorithms 3.5 and 3.6), never stepping past the
largest step that keeps x + a d in the box.
"""
import math

import numpy as np

from ...errors import InputError
from .shared import (  # noqa: F401  (re-exported: this module's API, as before the fused path shared them)
    CONVERGED_FACTR, CONVERGED_FDEC, CONVERGED_FDEC_LNSRCH, CONVERGED_PGTOL, STOPPED_UNTIL, EPS, FTOL, GTOL, MAXLS,
    SYNC, LbfgsbResult, _cubic_min, _line_search, array_module, decrease_stop, fetch,
)


class _Memory:
    """The last k <= m pairs (s, y) in fixed slots of (m, n) arrays, and their small products.

    Slots are reused round-robin so no n-vector is ever copied; ``order`` lists the
    slots oldest first and every small matrix is kept in that order.
    """

    def __init__(self, xp, m, n, dtype):
        self.xp, self.m = xp, m
        # Y in rows 0..m-1, S in rows m..2m-1 of one array: one product gives W^T v
        self.YS = xp.zeros((2 * m, n), dtype=dtype)
        self.Y, self.S = self.YS[:m], self.YS[m:]
        self.order = []
        self.SS = np.zeros((0, 0))
        self.SY = np.zeros((0, 0))   # SY[i, j] = s_i . y_j
        self.theta = 1.0
        self.M = np.zeros((0, 0))

    @property
    def k(self):
        return len(self.order)

    def reset(self):
        self.order = []
        self.SS = np.zeros((0, 0))
        self.SY = np.zeros((0, 0))
        self.theta = 1.0
        self.M = np.zeros((0, 0))

    def stage(self, s, y, accept):
        """Write (s, y) into the slot the next ``push`` fills, where the device flag ``accept``
        holds (the curvature test, decided without a read); otherwise the slot keeps its pair.

        Products taken afterwards (W^T d of the next Cauchy point, fetched with the memory
        update's scalars) are then the same matrix-vector products, rounded the same way,
        as when the pair is pushed first.
        """
        if self.m == 0:
            return
        slot = self.order[0] if self.k == self.m else self.k
        self.S[slot] = self.xp.where(accept, s, self.S[slot])
        self.Y[slot] = self.xp.where(accept, y, self.Y[slot])

    def push(self, s, y, sy, yy, products=None):
        """Append (s, y).  ``products`` = (s.s, YS @ s, S @ y), fetched with other scalars after
        ``stage`` wrote the pair; without them the pair is written and they are read here.
        The new pair's own entries come from sy and s.s."""
        if self.m == 0:
            return
        if products is None:
            self.stage(s, y, True)
            products = fetch(self.xp, s @ s, self.YS @ s, self.S @ y)
        if self.k == self.m:
            slot = self.order.pop(0)
            self.SS = self.SS[1:, 1:]
            self.SY = self.SY[1:, 1:]
        else:
            slot = self.k
        self.order.append(slot)
        k = self.k
        ss, both, Sy = products
        Yv, Sv = both[:self.m], both[self.m:]   # y_i . s_new, s_i . s_new for every slot
        SS = np.zeros((k, k))
        SY = np.zeros((k, k))
        SS[:k - 1, :k - 1] = self.SS
        SY[:k - 1, :k - 1] = self.SY
        for a, sl in enumerate(self.order):
            SS[a, k - 1] = SS[k - 1, a] = Sv[sl]
            SY[k - 1, a] = Yv[sl]
            SY[a, k - 1] = Sy[sl]
        SY[k - 1, k - 1] = sy
        SS[k - 1, k - 1] = ss
        self.SS, self.SY = SS, SY
        self.theta = yy / sy
        self._middle()

    def state(self):
        """The memory as host arrays and numbers: what :meth:`restore` takes back, bit for bit."""
        return {"YS": _host(self.YS), "order": list(self.order), "SS": self.SS, "SY": self.SY,
                "theta": self.theta, "M": self.M}

    def restore(self, st):
        if tuple(st["YS"].shape) != tuple(self.YS.shape):
            raise InputError(f"lbfgsb: the state's memory has shape {tuple(st['YS'].shape)}, "
                             f"not {tuple(self.YS.shape)} (m = {self.m}, n = {self.YS.shape[1]})")
        self.YS[...] = self.xp.asarray(st["YS"])
        self.order = [int(o) for o in st["order"]]
        self.SS, self.SY, self.M = (np.array(st[k], dtype=float) for k in ("SS", "SY", "M"))
        self.theta = float(st["theta"])

    def _middle(self):
        """M = [[-D, L^T], [L, theta S^T S]]^{-1} (BLNZ eq. 3.4), W = [Y, theta S]."""
        D = np.diag(np.diag(self.SY))
        L = np.tril(self.SY, -1)
        Minv = np.block([[-D, L.T], [L, self.theta * self.SS]])
        self.M = np.linalg.inv(Minv)

    def Wt(self, v):
        """W^T v (2k numbers, on the host)."""
        if self.k == 0:
            return np.zeros(0)
        return self.Wt_host(fetch(self.xp, self.YS @ v)[0])

    def Wt_host(self, both):
        """W^T v from ``both`` = YS @ v fetched to the host (every slot, in slot order)."""
        if self.k == 0:
            return np.zeros(0)
        o = self.order
        return np.concatenate([both[:self.m][o], self.theta * both[self.m:][o]])

    def W(self, a):
        """W a for a host vector a of 2k numbers (an n-vector on the device)."""
        xp = self.xp
        coef = np.zeros(2 * self.m)
        k = self.k
        o = np.asarray(self.order, dtype=np.intp)
        coef[o] = a[:k]
        coef[self.m + o] = self.theta * a[k:]
        return xp.asarray(coef) @ self.YS

    def gram_device(self, free):
        """(YS Z)(YS Z)^T on the device: one product for the three blocks of ``gram_host``."""
        return (self.YS * free.astype(self.YS.dtype)) @ self.YS.T

    def gram_host(self, G):
        """W^T Z Z^T W over the free variables (the 2k x 2k matrix of BLNZ eq. 5.11)."""
        m, oo = self.m, np.asarray(self.order, dtype=np.intp)
        YY = G[np.ix_(oo, oo)]
        YS = G[np.ix_(oo, m + oo)]
        SSf = G[np.ix_(m + oo, m + oo)]
        t = self.theta
        return np.block([[YY, t * YS], [t * YS.T, t * t * SSf]])

    def rows(self, idx):
        """w_i^T for the variables ``idx``, as a (len(idx), 2k) array on the device (exact Cauchy point)."""
        o = self.xp.asarray(np.asarray(self.order, dtype=np.intp))
        Y = self.Y[o][:, idx].T
        S = self.S[o][:, idx].T
        return self.xp.concatenate([Y, self.theta * S], axis=1)


def _host(a):
    return a.get() if hasattr(a, "get") else np.array(a)


def _breakpoints(xp, x, g, lo, hi):
    """t_i of BLNZ eq. 4.1: where the path P(x - t g) meets the bound of coordinate i."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = xp.where(g < 0, (x - hi) / g, xp.where(g > 0, (x - lo) / g, xp.inf))
    # x already at its bound with g pushing outwards gives 0 (or -0): fixed from the start
    return xp.where(t > 0, t, 0.0)


def _cauchy_scalars(xp, g, t, mem):
    """On the device: (t_1, d.d, YS @ d) for the approximate Cauchy point, d = -g off the fixed set."""
    d = xp.where(t > 0, -g, 0.0)
    return xp.min(xp.where(t > 0, t, xp.inf)), d @ d, mem.YS @ d


def _approximate_cauchy(xp, x, g, lo, hi, mem, t, pre=None):
    """Fei et al. (2014) section 4.1: t_c = max(0, min(t_1, -f'_1 / f''_1)).

    Returns (x_c, free mask, c = W^T (x_c - x), t_c).  Coordinates whose breakpoint is
    at most t_c are put exactly on their bound, so x_c never leaves the box.  ``pre`` =
    (t_1, d.d, W^T d) when they were fetched already (with the previous iteration's scalars).
    """
    d = xp.where(t > 0, -g, 0.0)
    if pre is None:
        t1, dd, both = fetch(xp, *_cauchy_scalars(xp, g, t, mem))
        p = mem.Wt_host(both)
    else:
        t1, dd, p = pre
    if dd == 0.0:
        return x.copy(), t > 0, np.zeros(2 * mem.k), 0.0
    f1 = -dd
    f2 = mem.theta * dd - float(p @ mem.M @ p) if mem.k else mem.theta * dd
    f2 = max(f2, EPS * mem.theta * dd)
    tc = max(0.0, min(t1, -f1 / f2))
    bound = xp.where(g < 0, hi, lo)
    xc = xp.where((t > 0) & (t <= tc), bound, x + tc * d)
    return xc, t > tc, tc * p, tc


def _exact_cauchy(xp, x, g, lo, hi, mem, t):
    """The generalized Cauchy point of BLNZ section 4, with prefix sums instead of a loop.

    With breakpoints sorted t_(1) <= ... <= t_(K) and tau_0 = 0, on segment j
    (tau_j = t_(j), the first j coordinates fixed) the direction is d_j = d minus
    those coordinates and z_j = x(tau_j) - x.  With D_j = d_j.d_j and
    p_j = W^T d_j (suffix sums over the sorted coordinates) and c_j = W^T z_j
    (a prefix sum):

        f'_j  = g.d_j + z_j.B d_j = -D_j + theta tau_j D_j - c_j^T M p_j
        f''_j = d_j.B d_j        =  theta D_j - p_j^T M p_j

    The Cauchy point lies on the first segment whose minimiser
    tau_j + max(0, -f'_j / f''_j) is before its end tau_{j+1}: the same point as
    BLNZ's sequential search (algorithm CP), found by one sort and scans.
    """
    d = xp.where(t > 0, -g, 0.0)
    k2 = 2 * mem.k
    tpos = t > 0
    th = mem.theta
    G0, = fetch(xp, d @ d)
    if G0 == 0.0:
        return x.copy(), tpos, np.zeros(k2), 0.0
    # the finite positive breakpoints, sorted (on the arrays' device, like every scan below)
    fin = tpos & xp.isfinite(t)
    idx = xp.nonzero(fin)[0]
    order = xp.argsort(t[idx], kind="stable") if xp is np else xp.argsort(t[idx])
    idx = idx[order]
    tau = t[idx]
    bound = xp.where(g < 0, hi, lo)
    gi2 = g[idx] ** 2
    zi = bound[idx] - x[idx]                       # where the coordinate ends: on its bound
    # what is still moving on segment j: the coordinates after the j-th breakpoint plus those
    # that never meet a bound; suffix sums, so no cancellation against the total
    dinf = xp.where(tpos & ~fin, d, 0.0)
    Ginf, Wdinf = fetch(xp, dinf @ dinf, mem.YS @ dinf)
    sufG = xp.concatenate([xp.cumsum(gi2[::-1])[::-1], xp.zeros(1)])
    taus = xp.concatenate([xp.zeros(1), tau])      # tau_j, j = 0..K
    ends = xp.concatenate([tau, xp.full(1, xp.inf)])
    Dj = Ginf + sufG
    if k2:
        w = mem.rows(idx)
        wd = w * d[idx][:, None]
        sufP = xp.concatenate([xp.cumsum(wd[::-1], axis=0)[::-1], xp.zeros((1, k2))])
        cumC = xp.concatenate([xp.zeros((1, k2)), xp.cumsum(w * zi[:, None], axis=0)])
        P = xp.asarray(mem.Wt_host(Wdinf))[None, :] + sufP
        C = cumC + taus[:, None] * P
        MP = P @ xp.asarray(mem.M)
        fp = -Dj + th * taus * Dj - xp.sum(C * MP, axis=1)
        fpp = th * Dj - xp.sum(P * MP, axis=1)
    else:
        fp = -Dj + th * taus * Dj
        fpp = th * Dj
    fpp = xp.maximum(fpp, EPS * th * G0)
    dt = xp.maximum(-fp / fpp, 0.0)
    # all coordinates fixed (D_j = 0): the path stops at tau_j
    dt = xp.where(Dj > 0, dt, 0.0)
    stop = dt < (ends - taus)
    j = xp.argmax(stop)               # stop[K] is true whenever D_K > 0 or K segments end
    # the first j sorted coordinates are fixed: chosen on the device, j never read back
    fixed = xp.zeros(x.shape, dtype=bool)
    fixed[idx] = xp.arange(idx.shape[0]) < j
    tstar_d = taus[j] + dt[j]
    free = tpos & ~fixed
    if k2:
        tstar, c = fetch(xp, tstar_d, C[j] + dt[j] * P[j])
    else:
        (tstar,), c = fetch(xp, tstar_d), np.zeros(0)
    xc = xp.where(fixed, bound, x + tstar * d)
    return xc, free, np.asarray(c, dtype=float), tstar


def _subspace(xp, x, g, lo, hi, mem, xc, free, c, step, probe):
    """Direct primal subspace minimisation (BLNZ section 5.1) from x_c over the free variables.

    ``step="project"``: x_c + du projected onto the box, kept when it is a descent
    direction from x (Morales & Nocedal 2011); otherwise, and for ``"truncate"``,
    the largest alpha <= 1 with x_c + alpha du in the box (BLNZ eq. 5.8, Fei et al. eq. 5-7).
    Returns (x_bar, probe(x_bar - x) or None): ``probe`` fetches g.d, d.d and the largest
    step of d = x_bar - x at once, and the descent test is its first number.  With no
    free variable r = du = 0 and x_bar = x_c: no test for that case is needed.
    """
    th = mem.theta
    k2 = 2 * mem.k
    if k2 == 0:
        return xc, None
    Mc = mem.M @ c
    r = xp.where(free, g + th * (xc - x) - mem.W(Mc), 0.0)
    both, G = fetch(xp, mem.YS @ r, mem.gram_device(free))
    v = mem.M @ mem.Wt_host(both)
    N = np.eye(k2) - (mem.M @ mem.gram_host(G)) / th
    try:
        v = np.linalg.solve(N, v)
    except np.linalg.LinAlgError:
        return xc, None
    du = xp.where(free, -r / th - mem.W(v) / (th * th), 0.0)
    if step == "project":
        xp_ = xp.clip(xc + du, lo, hi)
        scal = probe(xp_ - x)
        if scal[0] <= 0.0:
            return xp_, scal
    with np.errstate(divide="ignore", invalid="ignore"):
        a = xp.where(du < 0, (lo - xc) / du, xp.where(du > 0, (hi - xc) / du, xp.inf))
    amin, = fetch(xp, xp.min(a))
    alpha = min(1.0, amin)
    return xp.where(free, xc + alpha * du, xc), None


def _step_ratio(xp, x, d, lo, hi):
    """On the device: the largest a with lo <= x + a d <= hi (before clipping at 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        a = xp.where(d < 0, (lo - x) / d, xp.where(d > 0, (hi - x) / d, xp.inf))
    return xp.min(a)


def _max_step(xp, x, d, lo, hi):
    """Largest a with lo <= x + a d <= hi."""
    return max(0.0, fetch(xp, _step_ratio(xp, x, d, lo, hi))[0])


def _pg_device(xp, x, g, lo, hi):
    return xp.max(xp.abs(xp.clip(x - g, lo, hi) - x))


def projected_gradient_norm(xp, x, g, lo, hi):
    """||P(x - g) - x||_inf: SciPy's pgtol measure."""
    return fetch(xp, _pg_device(xp, x, g, lo, hi))[0]


def minimize(fun_and_grad, x0, lo=None, hi=None, *, m=5, pgtol=1e-5, factr=1e7, maxiter=15000,
             maxfun=15000, cauchy="exact", step="project", backend="cpu", record_cauchy=False,
             callback=None, fused="auto", ftol_abs=None, resume=None, checkpoint=None, until=None):
    """Minimise ``f`` over the box ``lo <= x <= hi`` by L-BFGS-B.

    ``fun_and_grad(x)`` returns ``(f, g)`` with ``g`` an array of the same module as
    ``x`` (numpy on ``backend="cpu"``, CuPy on ``"cupy"``; or the array module itself).  ``lo``/``hi`` may hold
    -inf/inf per coordinate (or be None: unbounded).  ``cauchy`` is ``"exact"``
    (BLNZ) or ``"approximate"`` (Fei et al. 2014, section 4.1); ``step`` is
    ``"project"`` (SciPy 3.0) or ``"truncate"`` (BLNZ, Fei et al. eq. 5).
    ``record_cauchy`` stores (t_c, t*) of every iteration in ``result.cauchy``:
    the step of the Cauchy point used and that of the exact one (Table 1 of Fei et al.).
    ``fused``: "auto" runs the approximate Cauchy point on CuPy arrays (1 <= m <= 8, not
    recording) through :mod:`gpubench.methods.lbfgsb.fused` (an iteration's vector work in a few
    kernels, one host read per evaluation); True forces it (numpy arrays: numba's CUDA
    simulator, for tests), False keeps this array-library loop.
    ``ftol_abs``: also stop when an iteration decreases f by less than it (absolute; Fei et
    al.'s rule, 1e-64), a line search finding no decrease then counting as that stop.
    ``checkpoint(snapshot)``: called after every iteration that does not end the run, with a
    function returning the run's whole state (the iterate, f, g, the memory pairs and their small
    products, the counts, the Cauchy log and the next Cauchy point's scalars, as host arrays and
    numbers); it takes it when it wants (a checkpoint every so many seconds) and may raise to stop
    the run.  ``resume``: such a state, to continue from (``x0`` then only names the device and
    size): the run goes on with the same arithmetic, so its iterates are bit for bit those of a
    run never stopped.  Both run this array loop, not the fused one.
    ``until()``: asked by the host before an iteration (the fused path: before a batch of them),
    with no device read; when it returns True the run stops with status 1 (e.g. a time cap that,
    unlike a callback, leaves the fused path its batches).
    """
    if cauchy not in ("exact", "approximate"):
        raise InputError(f"lbfgsb: cauchy must be exact or approximate, got {cauchy!r}")
    if step not in ("project", "truncate"):
        raise InputError(f"lbfgsb: step must be project or truncate, got {step!r}")
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 0:
        raise InputError(f"lbfgsb: m must be a non-negative integer, got {m!r}")
    xp = array_module(backend) if isinstance(backend, str) else backend
    plain = resume is None and checkpoint is None      # the fused path keeps its state on the device
    if fused is True or (fused == "auto" and xp is not np and plain):
        from . import fused as fz
        if fz.supported(cauchy, m, record_cauchy) and plain:
            return fz.minimize(fun_and_grad, x0, lo, hi, m=int(m), pgtol=pgtol, factr=factr, maxiter=maxiter,
                               maxfun=maxfun, step=step, backend=xp, callback=callback, ftol_abs=ftol_abs,
                               until=until)
        if fused is True:
            raise InputError(f"lbfgsb: the fused path takes {fz.USES % fz.kernels().MMAX}, and neither "
                             "resume nor checkpoint")
    x = xp.asarray(x0, dtype=xp.float64).ravel().copy()
    n = int(x.shape[0])
    if n < 1:
        raise InputError("lbfgsb: x0 must have at least one coordinate")
    lo = xp.full(n, -xp.inf) if lo is None else xp.asarray(lo, dtype=xp.float64).ravel()
    hi = xp.full(n, xp.inf) if hi is None else xp.asarray(hi, dtype=xp.float64).ravel()
    if lo.shape != (n,) or hi.shape != (n,):
        raise InputError(f"lbfgsb: lo and hi must have {n} coordinates")
    if bool(xp.any(lo > hi)) or bool(xp.any(xp.isnan(lo) | xp.isnan(hi))):
        raise InputError("lbfgsb: the box is empty or has NaN bounds (lo > hi somewhere)")
    constrained = bool(xp.any(xp.isfinite(lo) | xp.isfinite(hi)))
    boxed = bool(xp.all(xp.isfinite(lo) & xp.isfinite(hi)))
    x = xp.clip(x, lo, hi)
    mem = _Memory(xp, int(m), n, x.dtype)
    gcp = _exact_cauchy if cauchy == "exact" else _approximate_cauchy

    def probe(d):
        """g.d, d.d and (when there are bounds) the largest step along d: one fetch."""
        if constrained:
            return fetch(xp, g @ d, d @ d, _step_ratio(xp, x, d, lo, hi))
        return fetch(xp, g @ d, d @ d) + [math.inf]

    status, message = 1, "STOP: TOTAL NO. OF ITERATIONS REACHED LIMIT"
    t = pre = None           # breakpoints and Cauchy scalars prepared by the previous iteration
    retried = False
    if resume is None:
        f, g = fun_and_grad(x)
        f, pg = fetch(xp, f, _pg_device(xp, x, g, lo, hi))
        nfev, nit = 1, 0
        log = []
        if pg <= pgtol:
            return LbfgsbResult(x, f, g, 0, nfev, 0, CONVERGED_PGTOL, pg)
    else:
        x, f, g, pg, nit, nfev, log, pre = _resumed(xp, mem, resume, n, cauchy, step)

    def snapshot():
        return {"cauchy": cauchy, "step": step, "m": mem.m, "n": n, "x": _host(x), "f": f, "g": _host(g),
                "pg": pg, "nit": nit, "nfev": nfev, "memory": mem.state(),
                "log": np.array(log, dtype=float).reshape(len(log), 2),
                "pre": None if pre is None else {"t1": pre[0], "dd": pre[1], "p": np.array(pre[2], dtype=float)}}
    while True:
        if nit >= maxiter:
            status, message = 1, "STOP: TOTAL NO. OF ITERATIONS REACHED LIMIT"
            break
        if until is not None and until():
            status, message = 1, STOPPED_UNTIL
            break
        if nfev >= maxfun:
            status, message = 1, "STOP: TOTAL NO. OF F,G EVALUATIONS EXCEEDS LIMIT"
            break
        if t is None:
            t = _breakpoints(xp, x, g, lo, hi)
        if cauchy == "approximate":
            xc, free, c, tc = _approximate_cauchy(xp, x, g, lo, hi, mem, t, pre)
        else:
            xc, free, c, tc = gcp(xp, x, g, lo, hi, mem, t)
        if record_cauchy:
            if cauchy == "exact":
                ta = _approximate_cauchy(xp, x, g, lo, hi, mem, t)[3]
                log.append((ta, tc))
            else:
                log.append((tc, _exact_cauchy(xp, x, g, lo, hi, mem, t)[3]))
        xbar, scal = _subspace(xp, x, g, lo, hi, mem, xc, free, c, step, probe)
        d = xbar - x
        gd, dd, ratio = scal if scal is not None else probe(d)
        dnorm = math.sqrt(dd)
        if not (gd < 0) or dnorm == 0.0:
            if mem.k and not retried:
                mem.reset()          # a bad model: restart from steepest descent, as SciPy does
                retried = True
                pre = None
                continue
            if dnorm == 0.0 or gd == 0.0:
                status, message = 0, CONVERGED_PGTOL if pg <= pgtol else "CONVERGENCE: NO DESCENT DIRECTION"
            else:
                status, message = 2, "ABNORMAL: ASCENT DIRECTION"
            break
        if constrained and nit > 0 or (constrained and mem.k):
            stpmax = max(0.0, ratio)
        elif constrained:
            stpmax = 1.0
        else:
            stpmax = 1e10
        stp = min(1.0 / dnorm, stpmax) if (mem.k == 0 and nit == 0 and not boxed) else min(1.0, stpmax)

        def phi(a):
            nonlocal nfev
            xa = x + a * d
            if a == stpmax and constrained:
                xa = xp.clip(xa, lo, hi)   # rounding must not put the step outside the box
            fa, ga = fun_and_grad(xa)
            nfev += 1
            fa, slope = fetch(xp, fa, ga @ d)   # the value comes with the slope when it is a device scalar
            return fa, slope, (xa, ga)

        a, fnew, _, payload, ok = _line_search(phi, f, gd, stp, stpmax)
        if not ok or payload is None:
            if mem.k and not retried:
                mem.reset()
                retried = True
                pre = None
                continue
            status, message = ((0, CONVERGED_FDEC_LNSRCH) if ftol_abs is not None
                               else (2, "ABNORMAL_TERMINATION_IN_LNSRCH"))
            break
        retried = False
        xnew, gnew = payload
        s = xnew - x
        y = gnew - g
        fold = f
        x, f, g = xnew, fnew, gnew
        nit += 1
        t = _breakpoints(xp, x, g, lo, hi)
        # one fetch: the memory update's products, the stopping test, and the next approximate
        # Cauchy point's t_1, d.d and YS @ d.  The pair is staged first (where the curvature
        # test accepts it), so YS @ d is the product over the updated memory, as when pushed
        sy_d = s @ y
        accept = EPS * (-gd * a)
        mem.stage(s, y, sy_d > accept)
        want_next = cauchy == "approximate"
        vals = [sy_d, y @ y, s @ s, mem.YS @ s, mem.S @ y, _pg_device(xp, x, g, lo, hi)]
        if want_next:
            vals += list(_cauchy_scalars(xp, g, t, mem))
        got = fetch(xp, *vals)
        sy, yy, ss, YSs, Sy, pg = got[:6]
        if sy > accept:
            mem.push(s, y, sy, yy, (ss, YSs, Sy))
        pre = (got[6], got[7], mem.Wt_host(got[8])) if want_next else None
        if callback is not None:
            callback(x, f, pg)
        if pg <= pgtol:
            status, message = 0, CONVERGED_PGTOL
            break
        if decrease_stop(fold, f, ftol_abs):
            status, message = 0, CONVERGED_FDEC
            break
        if (fold - f) / max(abs(fold), abs(f), 1.0) <= factr * EPS:
            status, message = 0, CONVERGED_FACTR
            break
        if checkpoint is not None:
            checkpoint(snapshot)
    return LbfgsbResult(x, f, g, nit, nfev, status, message, pg, log)


def _resumed(xp, mem, st, n, cauchy, step):
    """The loop's variables from a ``snapshot`` (checked against this run: its Cauchy point, step,
    m and n), the memory restored in place."""
    mine = {"cauchy": cauchy, "step": step, "m": mem.m, "n": n}
    other = {k: st.get(k) for k in mine if st.get(k) != mine[k]}
    if other:
        raise InputError("lbfgsb: the state to resume is of another run: " + ", ".join(
            f"{k} = {v!r} (this run: {mine[k]!r})" for k, v in other.items()))
    mem.restore(st["memory"])
    pre = st.get("pre")
    pre = None if pre is None else (float(pre["t1"]), float(pre["dd"]), np.array(pre["p"], dtype=float))
    log = [(float(a), float(b)) for a, b in np.asarray(st["log"], dtype=float).reshape(-1, 2)]
    return (xp.array(st["x"], dtype=xp.float64), float(st["f"]), xp.array(st["g"], dtype=xp.float64),
            float(st["pg"]), int(st["nit"]), int(st["nfev"]), log, pre)
