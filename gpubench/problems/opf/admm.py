"""Component-wise ADMM for AC optimal power flow with the branch subproblems solved by batched TRON.

Kim, Pacaud, Kim & Anitescu, ExaTron (seed 003), Section 6.1, after Mhanna, Verbic & Chapman [24]:
formulation (6.1) is decomposed into one subproblem per generator, branch and bus by duplicating
the variables that link them.  With u the generators' and branches' copies and v the buses':

- generator g at bus i: u = (p_g, q_g), coupled to the bus copies v = (p~_g, q~_g);
- branch l = (i, j): u = (p_ij, q_ij, p_ji, q_ji, w_i, w_j, theta_i, theta_j) computed from
  x = (v_i, v_j, theta_i, theta_j) (problem (6.2)), coupled to the bus copies (p~_ij, q~_ij,
  p~_ji, q~_ji) and to the buses' (w_i, theta_i), (w_j, theta_j);
- bus i: the copies of every generator and branch end at i, and (w_i, theta_i), under the power
  balance (6.1g)-(6.1h).

One iteration (Section 6.1: "the algorithm starts by solving the generator and branch subproblems
in parallel.  Then, the bus subproblems are solved concurrently.  Once all the subproblems are
solved, the algorithm updates its Lagrange multipliers"):

1. generators, closed form: p_g = clip((rho v_p - lam_p - c1) / (2 c2 + rho)), q_g = clip(v_q - lam_q/rho);
2. branches: problem (6.2) for every branch, one batch of :func:`gpubench.methods.tron.solve_batch`
   (the box (6.2a)-(6.2c); warm-started at the previous x).  With ``partitions`` = G the batch is
   split, as in Section 6.3, into G contiguous blocks of branch indices ("evenly dispatched ... in
   the order of branch indices"), each solved as its own batch, one after the other, and timed;
3. buses, closed form: minimise sum rho/2 (v - u - lam/rho)^2 over the bus's copies subject to the
   two linear balance equations: v = a + D^-1 A^T mu with a 2 x 2 system for mu per bus;
4. multipliers: lam += rho (u - v).

Convergence as in the authors' code (ExaTron.jl ``admm_rect_gpu``; the paper prints no
tolerance), Boyd et al. [6] Section 3.3.1: primal residual r = u - v, dual residual
s = rho (v - v_prev); stop when ||r|| <= sqrt(m) abstol + reltol max(||u||, ||v||) and
||s|| <= sqrt(m) abstol + reltol ||lam|| (abstol 1e-6, reltol 1e-5).  TRON inside each branch solve
stops as that code's driver does (:data:`TRON_AUTHORS`).  Penalties rho_pq = 400 on
the powers and rho_va = 40,000 on w and theta, the branch objective scaled by 1e-4 for TRON, and
an 800-iteration limit are that code's defaults, as are the starts (v: generator powers at the
middle of their ranges, flows 0, w at the middle of [vmin^2, vmax^2], theta = 0; lam = 0).  The paper's
runs used other penalties per case (:data:`AUTHORS_RUNS`).

Deviation, stated: line limits (6.1c) and angle-difference limits (6.1f) are not in the printed
branch subproblem (6.2) and are not enforced here (the authors' runs were "without line limit",
ExaTron.jl's README).  The host runs steps 1, 3, 4 in numpy and ships each batch to the device
(the paper keeps everything on the GPU); the branch times are TRON's kernel alone.
"""
import math
import time
from dataclasses import dataclass, field

import numpy as np

from ...errors import InputError
from ...methods.monitor import Deadline, interrupted, report, stop_word
from . import branch as _branch
from . import devices as _devices
from .model import Network, flows


# The authors' runs of the paper (ExaTron.jl, branch ``sc2021``, README: "how to reproduce the
# experimental results in our technical report"): per case the penalties rho_pq, rho_va given to
# ``admm_rect_gpu`` (fixed through the run: its adaptive-rho kernel is never called), the
# iteration limit of the one-GPU run, and the "actual iteration limit" of its multi-GPU runs, which
# that README says equals the one-GPU run's total, i.e. where the one-GPU run met the stop test.
AUTHORS_RUNS = {
    "2868rte": (10.0, 1000.0, 6000, 5648),
    "6515rte": (20.0, 2000.0, 15000, 13651),
    "9241pegase": (50.0, 5000.0, 35000, 30927),
    "13659pegase": (50.0, 5000.0, 45000, 41126),
    "19402goc": (500.0, 50000.0, 30000, 28358),
}

# How the authors' runs solved each branch problem (6.2) (ExaTron.jl, branch sc2021 at 086f56c:
# polar_kernel.jl:69 calls tron_kernel(n, shift, 500, 200, 5e-4, scale, ...), admm_standalone.jl:16
# scale=1e-4; tron_kernel.jl: the stop ||pg||_inf <= 5e-4 after each accepted step, 200 gradient
# evaluations, 500 function evaluations, first radius ||g(x0)||_2; docs/opf.md has the table).  Ours
# since issue 37 (before: ``TRON_BEFORE``, reachable as Settings(**TRON_BEFORE)); the Hessian is ours
# (central differences of the generated gradient; theirs analytic), stated.  Every record states these
# (``solve_settings``) and Table 5's gate requires them.
TRON_AUTHORS = {"scale": 1e-4, "abstol": 1e-6, "reltol": 1e-5, "tron_stop": "exatron", "tron_gtol": 0.0,
                "tron_gatol": 5e-4, "tron_max_iter": 200, "tron_max_feval": 500, "tron_hessian": "differences"}
TRON_BEFORE = {"tron_stop": "relative", "tron_gtol": 1e-6, "tron_gatol": 0.0, "tron_max_iter": 100}


def solve_settings(s):
    """The settings of the branch solves and of the stop test that a record states (the keys of
    :data:`TRON_AUTHORS`)."""
    return {"scale": float(s.scale), "abstol": float(s.abstol), "reltol": float(s.reltol),
            "tron_stop": s.tron_stop, "tron_gtol": float(s.tron_gtol), "tron_gatol": float(s.tron_gatol),
            "tron_max_iter": int(s.tron_max_iter), "tron_max_feval": int(s.tron_max_feval),
            "tron_hessian": "differences"}


# the start of the bus copies of the branch flows, stated in every record and checkpoint: "authors"
# (0, as in the authors' code, since issue 37); records without it were run from the flat start's
# flows, a start the paper's runs did not use
START = "authors"


@dataclass
class Settings:
    rho_pq: float = 400.0
    rho_va: float = 40000.0
    scale: float = 1e-4
    abstol: float = 1e-6
    reltol: float = 1e-5
    max_iter: int = 800
    partitions: int = 1
    devices: int = 1           # the partitions solved at once on this many devices (devices.py)
    backend: str = "cpu"
    time_limit: float = None
    # TRON inside each branch solve: ExaTron's driver as the paper's runs called it (TRON_AUTHORS)
    tron_stop: str = "exatron"
    tron_gtol: float = 0.0
    tron_gatol: float = 5e-4
    tron_max_iter: int = 200
    tron_max_feval: int = 500

    def __post_init__(self):
        for k in ("rho_pq", "rho_va", "scale"):
            if not (np.isfinite(getattr(self, k)) and getattr(self, k) > 0):
                raise InputError(f"admm: {k} must be a positive number, got {getattr(self, k)!r}")
        for k in ("abstol", "reltol"):
            if not (np.isfinite(getattr(self, k)) and getattr(self, k) >= 0):
                raise InputError(f"admm: {k} must be >= 0, got {getattr(self, k)!r}")
        for k in ("tron_gtol", "tron_gatol"):
            if not (np.isfinite(getattr(self, k)) and getattr(self, k) >= 0):
                raise InputError(f"admm: {k} must be >= 0, got {getattr(self, k)!r}")
        if self.tron_stop not in ("exatron", "relative"):
            raise InputError(f"admm: tron_stop must be 'exatron' or 'relative', got {self.tron_stop!r}")
        for k in ("max_iter", "partitions", "devices", "tron_max_iter", "tron_max_feval"):
            v = getattr(self, k)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise InputError(f"admm: {k} must be a positive integer, got {v!r}")
        if self.backend not in ("cpu", "cuda"):
            raise InputError(f"admm: backend must be 'cpu' or 'cuda', got {self.backend!r}")
        if self.time_limit is not None and not self.time_limit > 0:
            raise InputError(f"admm: time_limit must be > 0 seconds, got {self.time_limit!r}")
        if self.devices > self.partitions:
            raise InputError(f"admm: devices ({self.devices}) must not exceed partitions ({self.partitions})")


@dataclass
class Result:
    objective: float          # generation cost ($/h) of the generators' u-side outputs
    iterations: int
    stop: str
    primal_residual: float
    dual_residual: float
    eps_primal: float
    eps_dual: float
    pg: np.ndarray
    qg: np.ndarray
    x: np.ndarray             # (nbranch, 4): v_i, v_j, theta_i, theta_j
    w: np.ndarray             # bus w_i = v_i^2 (v side)
    theta: np.ndarray
    partition_seconds: np.ndarray   # (iterations, G): TRON kernel seconds of each partition's batch
    branch_seconds: np.ndarray      # (iterations,): the root's wall seconds of the branch step
    devices: int                    # the devices the partitions ran on at once
    tron_iterations: np.ndarray     # (iterations,): mean TRON iterations per branch
    tron_failures: int              # branch solves that ended in a numerical failure
    seconds: float
    history: list = field(default_factory=list)  # (iteration, ||r||, ||s||)
    rho_pq: float = None      # the penalties the run used
    rho_va: float = None


def partition(nbranch, G):
    """Section 6.3: ``G`` contiguous blocks of branch indices, as even as possible (sizes differ
    by at most one); a list of index ranges."""
    if G > nbranch:
        raise InputError(f"admm: {G} partitions for {nbranch} branches")
    edges = np.linspace(0, nbranch, G + 1).round().astype(int)
    return [np.arange(edges[k], edges[k + 1]) for k in range(G)]


def _middle(lo, hi):
    """The middle of [lo, hi], or the point of it nearest 0 where a limit is infinite (MATPOWER's
    case9241pegase has generators with Qmax = Inf)."""
    finite = np.isfinite(lo) & np.isfinite(hi)
    return np.where(finite, 0.5 * (np.where(finite, lo, 0) + np.where(finite, hi, 0)), np.clip(0.0, lo, hi))


def norm(v):
    """The 2-norm of a vector by numpy's pairwise sum on this thread, not np.linalg.norm's BLAS dot:
    OpenBLAS splits a dot of more than 10,000 entries (every case of Table 5) over its threads, so
    that norm's last bits depended on the machine's core count, and its threads, spinning for a
    while after each call, took the cores from the TRON twin's threads (2868rte on 2 cores: 7.6 ms
    a call, 38 ms an iteration; docs/opf.md).  The iterates never read a norm: only the stop test
    and the recorded residuals do."""
    with np.errstate(over="ignore", invalid="ignore"):   # a diverging run: inf or nan, as the dot gave
        return math.sqrt(float(np.add.reduce(v * v)))


def generator_update(net, rho, vpg, vqg, lpg, lqg):
    """Step 1: the generator subproblems in closed form.  Generator g minimises, over its box
    (6.1a)-(6.1b), c2 p^2 + c1 p + lam_p (p - p~) + rho/2 (p - p~)^2 + lam_q (q - q~) + rho/2 (q - q~)^2
    (the bus copies p~ = ``vpg``, q~ = ``vqg``): a separable convex quadratic in each of p and q,
    so its minimiser is the unconstrained one clipped to the box.  Returns (p_g, q_g)."""
    pg = np.clip((rho * vpg - lpg - net.c1) / (2 * net.c2 + rho), net.pmin, net.pmax)
    qg = np.clip(vqg - lqg / rho, net.qmin, net.qmax)
    return pg, qg


def bus_update(net, a_pg, a_qg, r_g, a_fl, r_fl, a_w, r_w, a_t, r_t):
    """Step 3: the bus subproblems in closed form.

    ``a_*`` are the unconstrained minimisers u + lam/rho of every copy, ``r_*`` their penalties:
    generator copies (ngen,), flow copies (nbranch, 4) in p_ij q_ij p_ji q_ji order, and the
    branches' w, theta couplings (nbranch, 2) (from-bus, to-bus).  Returns the bus-side copies
    (p~_g, q~_g, flows (nbranch, 4), w (nbus,), theta (nbus,)).
    """
    nb = net.nbus
    f, t = net.fbus, net.tbus
    bc = lambda idx, val: np.bincount(idx, weights=val, minlength=nb)  # noqa: E731
    # w and theta: every incident branch's copy pulls with its penalty
    Rw = bc(f, r_w[:, 0]) + bc(t, r_w[:, 1])
    Aw = (bc(f, r_w[:, 0] * a_w[:, 0]) + bc(t, r_w[:, 1] * a_w[:, 1])) / np.where(Rw > 0, Rw, 1.0)
    Rt = bc(f, r_t[:, 0]) + bc(t, r_t[:, 1])
    theta = (bc(f, r_t[:, 0] * a_t[:, 0]) + bc(t, r_t[:, 1] * a_t[:, 1])) / np.where(Rt > 0, Rt, 1.0)
    Rw = np.where(Rw > 0, Rw, np.inf)  # an isolated bus: w takes no part (1/Rw = 0)
    # balance rows: P: sum pg~ - sum p~ - gs w = pd;  Q: sum qg~ - sum q~ + bs w = qd
    g = net.gbus
    resP = bc(g, a_pg) - bc(f, a_fl[:, 0]) - bc(t, a_fl[:, 2]) - net.gs * Aw - net.pd
    resQ = bc(g, a_qg) - bc(f, a_fl[:, 1]) - bc(t, a_fl[:, 3]) + net.bs * Aw - net.qd
    inv_g = 1.0 / r_g
    inv_fl = 1.0 / r_fl
    M11 = bc(g, inv_g) + bc(f, inv_fl[:, 0]) + bc(t, inv_fl[:, 2]) + net.gs ** 2 / Rw
    M22 = bc(g, inv_g) + bc(f, inv_fl[:, 1]) + bc(t, inv_fl[:, 3]) + net.bs ** 2 / Rw
    M12 = -net.gs * net.bs / Rw
    det = M11 * M22 - M12 * M12
    det = np.where(det > 0, det, 1.0)
    # mu solves M mu = -(A a - b): v = a + D^-1 A^T mu
    muP = (-resP * M22 + resQ * M12) / det
    muQ = (-resQ * M11 + resP * M12) / det
    pg = a_pg + muP[g] * inv_g
    qg = a_qg + muQ[g] * inv_g
    fl = np.empty_like(a_fl)
    fl[:, 0] = a_fl[:, 0] - muP[f] * inv_fl[:, 0]
    fl[:, 1] = a_fl[:, 1] - muQ[f] * inv_fl[:, 1]
    fl[:, 2] = a_fl[:, 2] - muP[t] * inv_fl[:, 2]
    fl[:, 3] = a_fl[:, 3] - muQ[t] * inv_fl[:, 3]
    w = Aw + (-net.gs * muP + net.bs * muQ) / Rw
    return pg, qg, fl, w, theta


def solve(net: Network, settings: Settings = None, *, branch_flows=flows, dual_step=1.0, resume=None,
          checkpoint=None, **kw):
    """Run the ADMM on ``net``; see the module docstring.  ``branch_flows`` and ``dual_step``
    exist for the tests (a wrong flow formula, a wrong dual update must be caught).

    Resumable (issue 37: the paper's runs take 5,648 to 41,126 iterations): ``checkpoint``, a
    callable, is called after every iteration that did not end the run with ``take``, which returns
    the whole state (:func:`_state`: every copy, multiplier and branch point, the counters and the
    histories; a dict of numbers and arrays); ``resume`` is such a state, from which the run goes on
    with the same arithmetic, so it ends where a run never stopped ends, bit for bit (the timings
    aside)."""
    s = settings if settings is not None else Settings(**kw)
    if settings is not None and kw:
        raise InputError("admm: pass settings or keywords, not both")
    fn = _branch.function()
    ng, nl, nb = net.ngen, net.nbranch, net.nbus
    if nl == 0:
        raise InputError(f"{net.name}: no branch in service")
    parts = partition(nl, s.partitions)
    f, t = net.fbus, net.tbus
    # ---- rho and starts (the authors' code)
    rg = np.full(ng, s.rho_pq)
    rho_br = np.tile([s.rho_pq] * 4 + [s.rho_va] * 4, (nl, 1))
    w0 = 0.5 * (net.vmin ** 2 + net.vmax ** 2)
    v0 = np.sqrt(w0)
    vpg, vqg = _middle(net.pmin, net.pmax), _middle(net.qmin, net.qmax)
    x = np.stack([v0[f], v0[t], np.zeros(nl), np.zeros(nl)], axis=1)
    # the bus copies of the flows start at 0, as in the authors' code (issue 37): started at the
    # flat start's flows instead, 2868rte's angles reached the box (6.2c) by iteration 3 and the
    # ADMM never recovered in 6,000 iterations; from 0 they stay within 0.8 rad (docs/opf.md)
    vfl = np.zeros((nl, 4))
    vw, vt = w0.copy(), np.zeros(nb)
    lpg, lqg, lbr = np.zeros(ng), np.zeros(ng), np.zeros((nl, 8))
    lo = np.stack([net.vmin[f], net.vmin[t], np.full(nl, -2 * np.pi), np.full(nl, -2 * np.pi)], axis=1)
    hi = np.stack([net.vmax[f], net.vmax[t], np.full(nl, 2 * np.pi), np.full(nl, 2 * np.pi)], axis=1)
    x = np.clip(x, lo, hi)
    m = 2 * ng + 8 * nl
    times, titer, hist = [], [], []
    failures, stop, it = 0, "iterations", 0
    r_norm = s_norm = eps_p = eps_d = np.inf
    pg = qg = None
    spent = 0.0
    branch_wall = []
    if resume is not None:
        (x, vpg, vqg, vfl, vw, vt, lpg, lqg, lbr, pg, qg, times, branch_wall, titer, hist, failures, it,
         r_norm, s_norm, eps_p, eps_d, spent) = _restore(resume, net, s)
    deadline = Deadline(s.time_limit, spent=spent)
    t_start = time.perf_counter() - spent

    def take():
        return _state(net, s, x, vpg, vqg, vfl, vw, vt, lpg, lqg, lbr, pg, qg, times, branch_wall, titer, hist,
                      failures, it, r_norm, s_norm, eps_p, eps_d, time.perf_counter() - t_start)
    with _devices.BranchDevices(parts, s.devices, s, net.Y, s.scale * rho_br, lo, hi, x) as spread:
        while it < s.max_iter:
            it += 1
            # ---- 1. generators
            pg, qg = generator_update(net, rg, vpg, vqg, lpg, lqg)
            # ---- 2. branches: targets t = v - lam/rho of the 8 coupled quantities
            vbr = np.concatenate([vfl, vw[f, None], vw[t, None], vt[f, None], vt[t, None]], axis=1)
            target = vbr - lbr / rho_br
            secs, its, fails, wall = spread.step(x, target, fn)
            failures += fails
            times.append(secs)
            branch_wall.append(wall)
            titer.append(its / nl)
            ufl = np.stack(branch_flows(net.Y, *x.T), axis=1)
            ubr = np.concatenate([ufl, x[:, :2] ** 2, x[:, 2:]], axis=1)
            # ---- 3. buses
            prev = (vpg, vqg, vbr)
            a_g = (pg + lpg / rg, qg + lqg / rg)
            a_br = ubr + lbr / rho_br
            vpg, vqg, vfl, vw, vt = bus_update(net, a_g[0], a_g[1], rg, a_br[:, :4], rho_br[:, :4],
                                               a_br[:, 4:6], rho_br[:, 4:6], a_br[:, 6:], rho_br[:, 6:])
            vbr = np.concatenate([vfl, vw[f, None], vw[t, None], vt[f, None], vt[t, None]], axis=1)
            # ---- 4. multipliers
            lpg += dual_step * rg * (pg - vpg)
            lqg += dual_step * rg * (qg - vqg)
            lbr += dual_step * rho_br * (ubr - vbr)
            # ---- residuals (Boyd et al. [6], 3.3.1)
            r = np.concatenate([pg - vpg, qg - vqg, (ubr - vbr).ravel()])
            d = np.concatenate([rg * (vpg - prev[0]), rg * (vqg - prev[1]), (rho_br * (vbr - prev[2])).ravel()])
            u_all = np.concatenate([pg, qg, ubr.ravel()])
            v_all = np.concatenate([vpg, vqg, vbr.ravel()])
            l_all = np.concatenate([lpg, lqg, lbr.ravel()])
            r_norm, s_norm = norm(r), norm(d)
            eps_p = np.sqrt(m) * s.abstol + s.reltol * max(norm(u_all), norm(v_all))
            eps_d = np.sqrt(m) * s.abstol + s.reltol * norm(l_all)
            hist.append((it, r_norm, s_norm))
            report(best=net.cost(pg))
            if not (np.isfinite(r_norm) and np.isfinite(s_norm)):
                stop = "failed"
                break
            if r_norm <= eps_p and s_norm <= eps_d:
                stop = "converged"
                break
            if deadline.expired():
                stop = "time_limit"
                break
            if checkpoint is not None:
                checkpoint(take)      # saved when due; at Ctrl-C or SIGTERM saved, then it raises
            elif interrupted():
                stop = "interrupted"
                break
    return Result(objective=net.cost(pg), iterations=it, stop=stop_word(stop),
                  primal_residual=r_norm, dual_residual=s_norm, eps_primal=float(eps_p),
                  eps_dual=float(eps_d), pg=pg, qg=qg, x=x, w=vw, theta=vt,
                  partition_seconds=np.array(times), branch_seconds=np.array(branch_wall),
                  devices=s.devices, tron_iterations=np.array(titer),
                  tron_failures=failures, seconds=time.perf_counter() - t_start, history=hist,
                  rho_pq=s.rho_pq, rho_va=s.rho_va)


# what a checkpoint of the iteration holds, in order (the arrays of the run and its counters)
_ARRAYS = ("x", "vpg", "vqg", "vfl", "vw", "vt", "lpg", "lqg", "lbr")


def _run_of(net, s):
    """What a state belongs to: a state of another case, penalty or split is refused."""
    return {"case": net.name, "buses": int(net.nbus), "branches": int(net.nbranch), "generators": int(net.ngen),
            "rho_pq": float(s.rho_pq), "rho_va": float(s.rho_va), "partitions": int(s.partitions),
            **solve_settings(s), "start": START}


def _state(net, s, x, vpg, vqg, vfl, vw, vt, lpg, lqg, lbr, pg, qg, times, branch_wall, titer, hist,
           failures, it, r_norm, s_norm, eps_p, eps_d, seconds):
    """The whole state after ``it`` iterations: copies of the arrays (the run goes on mutating its
    own), the last generator step, the counters, the residuals and the per-iteration histories."""
    arrays = dict(zip(_ARRAYS, (x, vpg, vqg, vfl, vw, vt, lpg, lqg, lbr)))
    return {"run": _run_of(net, s), **{k: np.array(v, copy=True) for k, v in arrays.items()},
            "pg": np.array(pg if pg is not None else np.zeros(0)), "qg": np.array(qg if qg is not None else np.zeros(0)),
            "partition_seconds": np.array(times, dtype=np.float64).reshape(len(times), s.partitions),
            "branch_seconds": np.array(branch_wall, dtype=np.float64), "tron_iterations": np.array(titer, dtype=np.float64),
            "history": np.array(hist, dtype=np.float64).reshape(len(hist), 3),
            "failures": int(failures), "iterations": int(it), "residuals": [float(r_norm), float(s_norm),
                                                                            float(eps_p), float(eps_d)],
            "seconds": float(seconds)}


def _restore(st, net, s):
    """The loop's variables from a state of :func:`_state` (checked to be of this run)."""
    got, want = st.get("run"), _run_of(net, s)
    if got != want:
        diff = ", ".join(f"{k}={(got or {}).get(k)!r} (this run: {v!r})" for k, v in want.items()
                         if (got or {}).get(k) != v)
        raise InputError(f"admm: the state to resume is of another run: {diff}")
    if st["iterations"] > s.max_iter:
        raise InputError(f"admm: the state to resume is after {st['iterations']} iterations, past max_iter {s.max_iter}")
    arrays = [np.array(st[k], dtype=np.float64, copy=True) for k in _ARRAYS]
    pg, qg = (np.array(st[k], dtype=np.float64) if st["iterations"] else None for k in ("pg", "qg"))
    hist = [(int(k), float(a), float(b)) for k, a, b in np.asarray(st["history"])]
    return (*arrays, pg, qg, list(np.asarray(st["partition_seconds"], dtype=np.float64)),
            [float(v) for v in st["branch_seconds"]], [float(v) for v in st["tron_iterations"]], hist,
            int(st["failures"]), int(st["iterations"]), *[float(v) for v in st["residuals"]], float(st["seconds"]))


def imbalance(partition_seconds):
    """Table 5 of paper 003, eq. (6.3): nu_k = (t_max,k / t_mean,k - 1) x 100 over the partitions
    at iteration k; returns (max_k, min_k, mean_k) of nu_k (percent)."""
    t = np.asarray(partition_seconds, dtype=np.float64)
    if t.ndim != 2 or t.shape[1] < 2:
        raise InputError("imbalance needs per-iteration times of at least 2 partitions")
    nu = (t.max(axis=1) / t.mean(axis=1) - 1.0) * 100.0
    return float(nu.max()), float(nu.min()), float(nu.mean())
