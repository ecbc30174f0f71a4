"""Multi-start TRON on a library function, one thread block per start: paper 003 (ExaTron).

    Y. Kim, F. Pacaud, K. Kim, M. Anitescu, "Leveraging GPU batching for scalable
    nonlinear programming through massive Lagrangian decomposition" (ExaTron),
    Algorithm 3.1, Figure 2, Section 4; TRON: Lin & More, SIAM J. Optim. 9 (1999).

``starts`` points are drawn uniformly in the function's box from
``numpy.random.default_rng(seed)`` and all solved in one launch (GPU) or one
``prange`` (CPU twin) by :func:`gpubench.methods.tron.solve_batch`.  The result is the
best point found; ``status`` holds each start's outcome (0 converged,
1 iteration limit, 2 numerical failure) and ``history["start_fun"]`` each
start's final value (in the function's sense).

Derivatives: value and gradient are the generated forms of the function's one
definition; the Hessian is generated symbolically from the same definition
expanded at n (:mod:`gpubench.methods.tron.hessian`; ``hessian="auto"`` does so for
n <= 16) or taken by central differences of the generated gradient.  Stopping rule (relative):
``||pg(x)|| <= gtol ||pg(x0)||`` with pg the projected gradient, or
``||pg|| <= gatol``, or actual and predicted reductions both ``<= frtol |f|``.

``rounds`` splits the starts into that many consecutive launches (start k is
the same whatever the split); after each the best value so far is noted in
``history["trace"]`` (rows ``[evaluations, wall-clock seconds, best so far]``,
:mod:`gpubench.methods.trace`).  One round (the default) gives one row, the end
of the launch, when a batched method's answer first exists.  ``time_limit`` (the
shared setting, a :class:`~gpubench.methods.monitor.Deadline`) is checked between rounds:
past it no further round is launched (``stop='time_limit'``, ``converged=False``);
a launch in progress runs to its end, so the bound on the wall time is the limit
plus one round.
"""
import dataclasses
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..errors import InputError
from .monitor import Deadline
from ..result import OptimizeResult
from .base import Method, MethodSettings, setting, time_limit_setting
from . import rounds as batched
from .trace import Trace

NAME = "tron-gpu"
# the expanded expression, and so generation and compile time, grows fast with n
SYMBOLIC_MAX_N = 16


@dataclass
class TronSettings(MethodSettings):
    starts: int = setting(64, "starting points, uniform in the box (one block each)", minimum=1)
    seed: int = setting(0, "seed of the starting points", minimum=0)
    backend: str = setting("auto", "auto, cpu (numba twin, one start per core) or cuda",
                           choices=("auto", "cpu", "cuda"))
    hessian: str = setting("auto", "symbolic (sympy.diff of the definition expanded at n), "
                           "differences (central, of the generated gradient), or auto: "
                           "symbolic for n <= 16", choices=("auto", "symbolic", "differences"))
    cholesky: str = setting("left", "Cholesky of A + alpha I: left- or right-looking (Table 1)",
                            choices=("left", "right"))
    backsolve: str = setting("explicit", "L^T solves: explicit L^T in the upper triangle, or "
                             "implicit row access (Table 2)", choices=("explicit", "implicit"))
    layout: str = setting("1d", "threads of a block: 1d (warps) or 2d (n x n tile; Figure 3)",
                          choices=("1d", "2d"))
    memory: str = setting("shared", "problem data in shared or global memory (Table 3)",
                          choices=("shared", "global"))
    threads: int = setting(0, "threads per block in the 1d layout (0: warps covering n)",
                           minimum=0, maximum=1024)
    max_iter: int = setting(200, "TRON iterations per start", minimum=1)
    gtol: float = setting(1e-8, "relative stop: ||pg|| <= gtol ||pg(x0)||", minimum=0.0)
    gatol: float = setting(0.0, "absolute stop: ||pg|| <= gatol", minimum=0.0)
    frtol: float = setting(1e-12, "stop when actual and predicted reductions <= frtol |f|",
                           minimum=0.0)
    cgtol: float = setting(0.1, "CG stops at ||r|| <= cgtol ||r0||", exclusive_minimum=0.0,
                           maximum=1.0)
    delta0: Optional[float] = setting(None, "initial trust radius (none: max(||pg(x0)||, 1))",
                                      exclusive_minimum=0.0)
    rounds: int = batched.rounds_setting()
    time_limit: Optional[float] = time_limit_setting()

    def validate(self):
        if self.layout == "2d" and self.threads:
            raise InputError(f"{NAME}: threads applies to the 1d layout only")
        batched.check(NAME, self)


def _run(fn, dim, s):
    from ..device.gpu import resolve_backend
    backend = resolve_backend(s.backend, supported=("cpu", "cuda"))
    from . import tron
    lo, hi = fn.bounds(dim)
    x0 = np.random.default_rng(s.seed).uniform(lo, hi, (s.starts, dim))
    par = np.broadcast_to(fn.params(dim), (s.starts,) + fn.params(dim).shape)
    if par.shape[1] == 0:
        par = np.zeros((s.starts, 1, dim))
    hessian = s.hessian if s.hessian != "auto" else ("symbolic" if dim <= SYMBOLIC_MAX_N
                                                     else "differences")
    sign = -1.0 if fn.sense == "max" else 1.0
    trace = Trace(fn.sense)
    parts, evals = [], 0
    deadline = Deadline.of(s)
    for rows in batched.launches(s, deadline):
        part = tron.solve_batch(x0[rows], lo, hi, par[rows], objective="library", fn=fn, backend=backend,
                                hessian=hessian, cholesky=s.cholesky, backsolve=s.backsolve, layout=s.layout,
                                memory=s.memory, threads=s.threads, max_iter=s.max_iter, gtol=s.gtol,
                                gatol=s.gatol, frtol=s.frtol, delta0=s.delta0 or 0.0, cgtol=s.cgtol)
        parts.append(part)
        evals += int(part.nfev.sum())
        fin = part.f[np.isfinite(part.f)]
        if fin.size:
            trace.see(evals, sign * float(fin.min()))  # part.f is in minimisation terms
    res = parts[0] if len(parts) == 1 else dataclasses.replace(
        parts[0], **{k: np.concatenate([getattr(p, k) for p in parts])
                     for k in ("x", "f", "iterations", "status", "nfev", "pgnorm")},
        seconds=sum(p.seconds for p in parts))
    vals = sign * res.f
    ok = np.isfinite(vals)
    best = int(np.argmin(np.where(ok, sign * vals, np.inf))) if ok.any() else 0
    options = s.as_dict()
    options.update(res.options)
    options["hessian"] = hessian
    from ..device.gpu import simulator
    if backend == "cuda" and simulator():
        options["note"] = "CUDA simulator: correctness only, times are not GPU times"
    n_ok = int(np.sum(res.status == 0))
    run = res.x.shape[0]
    stopped, done = batched.summary(s, len(parts), run, deadline)
    return OptimizeResult(
        function=fn.name, dim=dim, method=NAME, backend=backend, x=res.x[best], fun=float(vals[best]),
        iterations=int(res.iterations.sum()), nfev=int(res.nfev.sum()),
        njev=int(res.iterations.sum() + run), nhev=int(res.iterations.sum() + run),
        # a round not launched leaves starts unsolved: the multi-start did not finish
        seconds=res.seconds, converged=bool(res.status[best] == 0) and run == s.starts,
        message=f"{n_ok} of {run} starts converged; best start {best}" + stopped,
        status=res.status, stop=batched.stop(s, run, res.status, deadline), history={"start_fun": vals.tolist(),
                                    "start_iterations": res.iterations.tolist(),
                                    "trace": trace.close(int(res.nfev.sum())), **done},
        timing={"solve": res.seconds}, options=options)


def _warmup(fn, dim, s):
    import dataclasses
    _run(fn, dim, dataclasses.replace(s, starts=1, rounds=1, max_iter=1, time_limit=None))  # one start: one round


METHOD = Method(
    name=NAME,
    summary="Multi-start TRON (trust-region Newton, bounds), one GPU thread block per start",
    settings=TronSettings,
    run=_run,
    rigorous=False,
    backends=("cpu", "cuda"),
    launches=True,
    source="Kim, Pacaud, Kim & Anitescu, ExaTron (paper 003), Algorithm 3.1; Lin & More (1999)",
    warmup=_warmup,
)
