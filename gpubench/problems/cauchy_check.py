"""Paper 004, Table 1 triangulated: the approximate and the exact generalized Cauchy point along
SciPy's L-BFGS-B path, computed by code that shares nothing with gpubench's L-BFGS-B.

Table 1 of Fei, Rong, Wang & Wang (2014) bins |t_c - t*| / t* over the iterations of an L-BFGS-B
run, t* the exact generalized Cauchy point's step (Byrd, Lu, Nocedal & Zhu 1995, "BLNZ", Algorithm
CP: the first local minimiser of the quadratic model along the projected steepest-descent path) and
t_c the paper's approximation (section 4.1: max(0, min(t_1, t_1*)), t_1 the first breakpoint and
t_1* the model's minimiser on the first segment).  gpubench's own figure comes from its L-BFGS-B
(:mod:`gpubench.methods.lbfgsb.core`, a vectorised search over prefix sums for t*).  This module is
the independent implementation a differing row is checked against:

- the path is SciPy's L-BFGS-B (the Fortran code of Zhu, Byrd, Lu & Nocedal, v3.0) with the same
  memory m, box and stop rule (an iteration decreasing f by less than ``energy_tol``; SciPy's own
  end at no decrease counts as the rule met, as in the SciPy column of Table 4);
- its limited memory is rebuilt from the iterates and gradients SciPy visits (the pairs s, y of
  consecutive iterates, the last m with s'y > eps y'y, as L-BFGS-B keeps them), in BLNZ's compact
  form B = theta I - W M W', W = [Y, theta S];
- t* by BLNZ's Algorithm CP as printed: the breakpoints in order, one segment at a time, the
  model's slope and curvature updated per breakpoint (no prefix sums), in plain numpy;
- t_c by the paper's formula from the same first-segment quantities.

SciPy's path is driven by the exact Cauchy point, gpubench's Table 1 path by the approximate one:
the two are different runs of the same algorithm family, measuring the same ratio at their
iterates.  A row where both sides agree with each other against the paper says the printed
share is not what the printed definitions give on these problems.
"""
import math
import time

import numpy as np

EPS = np.finfo(float).eps


class Memory:
    """The last ``m`` correction pairs and BLNZ's compact form of B (theta, W, M)."""

    def __init__(self, m):
        self.m, self.S, self.Y = m, [], []
        self.theta = 1.0

    def push(self, s, y):
        sy, yy = float(s @ y), float(y @ y)
        if not sy > EPS * yy:        # L-BFGS-B skips a pair without enough curvature
            return
        self.S.append(s)
        self.Y.append(y)
        if len(self.S) > self.m:
            self.S.pop(0)
            self.Y.pop(0)
        self.theta = yy / sy

    def compact(self):
        """(W n x 2k, M 2k x 2k) with B = theta I - W M W'; (None, None) with no pair."""
        k = len(self.S)
        if k == 0:
            return None, None
        S, Y = np.array(self.S).T, np.array(self.Y).T           # n x k, oldest first
        SY = S.T @ Y
        D = np.diag(np.diag(SY))
        L = np.tril(SY, -1)
        top = np.hstack([-D, L.T])
        bottom = np.hstack([L, self.theta * (S.T @ S)])
        return np.hstack([Y, self.theta * S]), np.linalg.inv(np.vstack([top, bottom]))


def cauchy_steps(x, g, lo, hi, mem):
    """(t_c, t*): the paper's approximate step and BLNZ Algorithm CP's exact one at x."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(g < 0, (x - hi) / g, np.where(g > 0, (x - lo) / g, np.inf))
    t = np.where(t > 0, t, 0.0)
    d = np.where(t > 0, -g, 0.0)
    W, M = mem.compact()
    theta = mem.theta
    p = W.T @ d if W is not None else np.zeros(0)
    c = np.zeros_like(p)
    fp = -float(d @ d)
    if fp == 0.0:
        return 0.0, 0.0
    fpp = -theta * fp - (float(p @ M @ p) if W is not None else 0.0)
    fpp = max(fpp, EPS * theta * -fp)
    dt_min = -fp / fpp
    free = np.flatnonzero(t > 0)
    t1 = float(t[free].min()) if free.size else np.inf
    tc = max(0.0, min(t1, dt_min))                   # the paper's approximation: the first segment only
    if dt_min < t1:         # the model's minimiser lies before the first breakpoint: no walk, no sort
        return tc, max(dt_min, 0.0)
    order = free[np.argsort(t[free], kind="stable")]
    # BLNZ Algorithm CP: walk the breakpoints while the model's minimiser lies beyond the next one
    t_old, j = 0.0, 0
    while j < order.size:
        b = order[j]
        tb = float(t[b])
        dt = tb - t_old
        if dt_min < dt:
            break
        zb = (hi[b] if d[b] > 0 else lo[b]) - x[b]
        gb = float(g[b])
        c = c + dt * p
        if W is not None:
            wb = W[b]
            Mc, Mp, Mw = M @ c, M @ p, M @ wb
            fp = fp + dt * fpp + gb * gb + theta * gb * zb - gb * float(wb @ Mc)
            fpp = fpp - theta * gb * gb - 2.0 * gb * float(wb @ Mp) - gb * gb * float(wb @ Mw)
            p = p + gb * wb
        else:
            fp = fp + dt * fpp + gb * gb + theta * gb * zb
            fpp = fpp - theta * gb * gb
        d[b] = 0.0
        t_old = tb
        j += 1
        if fp >= 0.0:                                # the model stops decreasing at this breakpoint
            dt_min = 0.0
            break
        fpp = max(fpp, EPS * theta * -fp)
        dt_min = -fp / fpp
    return tc, t_old + max(dt_min, 0.0) if np.isfinite(dt_min) else t_old


def scipy_path(p, m, energy_tol=1e-64, maxiter=100000, visit=None, xp=np):
    """SciPy's L-BFGS-B on MINPACK-2 problem ``p`` to the stop rule; ``visit(x, g)`` is called at each
    iterate in order (x0 first), as it is reached, so that no path is kept (100,000 iterates of 40,000
    variables would be 64 GB).  Returns its iteration count, final f, status and message.

    ``xp`` (CuPy): the objective and its gradient are evaluated on the GPU, the iterate sent there
    and the gradient brought back each call; SciPy's L-BFGS-B itself runs on the host either way.
    Lennard-Jones at 13,333 atoms (1.8e8 pairs a call) takes seconds a call in NumPy on one core,
    hours over a run of thousands of iterations; the same formula on the GPU, milliseconds."""
    from scipy.optimize import minimize
    cache = {}

    def fg(x):
        f, g = p.fg(x if xp is np else xp.asarray(x))
        g = np.asarray(g if xp is np else xp.asnumpy(g), dtype=float)
        f = float(f)
        cache[x.tobytes()] = (float(f), g.copy())
        if len(cache) > 64:
            cache.pop(next(iter(cache)))
        return f, g

    x0 = np.asarray(p.x0, dtype=float)
    f0, g0 = fg(x0.copy())
    if visit is not None:
        visit(x0.copy(), g0)
    seen = {"f": f0, "rule": False}

    def cb(intermediate_result):
        x = np.asarray(intermediate_result.x, dtype=float)
        hit = cache.get(x.tobytes())
        f, g = hit if hit is not None else fg(x.copy())
        if visit is not None:
            visit(x.copy(), g)
        if seen["f"] - f < energy_tol:
            seen["rule"] = True
            raise StopIteration
        seen["f"] = f

    r = minimize(fg, x0, jac=True, method="L-BFGS-B", bounds=np.stack([p.lo, p.hi], 1), callback=cb,
                 options=dict(maxcor=m, gtol=0.0, ftol=0.0, maxiter=maxiter, maxfun=100 * maxiter))
    status, message = int(r.status), str(r.message)
    # SciPy's own end at no decrease is the rule met: ftol = 0 (no relative reduction) or a line search
    # that finds no decrease ("ABNORMAL" in SciPy >= 1.15, "ABNORMAL_TERMINATION_IN_LNSRCH" before)
    # (not where f itself is not a number: SciPy's line search does not step back from such a point,
    # and a run that ends on one has met no rule)
    if seen["rule"] or status == 0 or (message.startswith("ABNORMAL") and math.isfinite(float(r.fun))):
        status, message = 0, "CONVERGENCE: F_K - F_K+1 < ENERGY_TOL" + ("" if seen["rule"] else f" (SciPy: {message})")
    return int(r.nit), float(r.fun), status, message


def cauchy_log(p, m, energy_tol=1e-64, maxiter=100000, xp=np):
    """(t_c, t*) at every iterate of SciPy's path but the last, the memory rebuilt as it goes (each
    iterate's steps taken when the next one arrives, so only the last iterate is kept), and the run's
    summary; ``cauchy_seconds``: the time of the Cauchy steps and memory, apart from SciPy's."""
    mem = Memory(m)
    log = []
    last = {"xg": None, "seconds": 0.0}

    def visit(x1, g1):
        t = time.perf_counter()
        if last["xg"] is not None:
            x, g = last["xg"]
            log.append(cauchy_steps(x, g, p.lo, p.hi, mem))
            mem.push(x1 - x, g1 - g)
        last["xg"] = (x1, g1)
        last["seconds"] += time.perf_counter() - t

    t0 = time.perf_counter()
    nit, fun, status, message = scipy_path(p, m, energy_tol, maxiter, visit, xp=xp)
    seconds = time.perf_counter() - t0 - last["seconds"]
    return log, {"iterations": nit, "fun": fun, "status": status, "message": message, "seconds": seconds,
                 "cauchy_seconds": last["seconds"]}


def scipy_cauchy(problem, n, s):
    """The procedure ``lbfgsb-cauchy-scipy``: one case of Table 1's triangulation (what the record
    stores: the measured numbers, and the bins under ``result``)."""
    from . import minpack2
    from .fei2014 import _xp, bin_counts
    p = minpack2.make(problem.partition(":")[2], n, box=s["box"])
    xp = _xp(s.get("backend", "cpu"))
    log, run = cauchy_log(p, s["m"], s["energy_tol"], s["maxiter"], xp=xp)
    where = "scipy (cpu)" if xp is np else "scipy (cpu), objective on cuda"
    measured = {"iterations": run["iterations"], "seconds": run["seconds"], "fun": run["fun"],
                "converged": run["status"] == 0, "capped": False, "message": run["message"],
                "ms_per_iteration": 1e3 * run["seconds"] / max(run["iterations"], 1), "backend": where}
    return measured, {"bins": bin_counts(log), "path": "SciPy's L-BFGS-B (exact Cauchy point)",
                      "cauchy_seconds": run["cauchy_seconds"], "logged": len(log)}
