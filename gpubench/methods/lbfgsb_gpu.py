"""Multi-start L-BFGS-B: every start a thread of one CUDA launch (or a turn of a compiled CPU loop).

    Y. Fei, G. Rong, B. Wang, W. Wang, "Parallel L-BFGS-B algorithm on GPU",
    Computers & Graphics 40 (2014) 1-9 (approximate generalized Cauchy point, section 4.1);
    R. H. Byrd, P. Lu, J. Nocedal, C. Zhu, SIAM J. Sci. Comput. 16(5) (1995) (the algorithm).

``starts`` points drawn uniformly in the function's box from
``numpy.random.default_rng(seed)`` (row k is start k; the same seed gives the
same starts on every backend) each run L-BFGS-B to SciPy's stopping rules
(``pgtol`` on ||P(x - g) - x||_inf, ``factr`` on the relative reduction of f)
with the function library's analytic gradient, generated from the one
definition for both backends.  The best value is reported; ``status`` holds each
start's outcome (0 converged, 1 iteration/evaluation limit, 2 abnormal), and
``history["fun"]`` each start's final value.  A maximised function
(``sense="max"``) is run on -f.

Every launch advances each running start by at most an iteration cap, sized as
the run goes so that a launch lasts about ``LAUNCH_SECONDS``; a start's state
(x, g, the S/Y history, counters) stays in device arrays between launches, so
the iterates are those of one uncapped launch, and only the starts still
running are launched.  Between launches the run checks ``time_limit``
(:class:`gpubench.methods.monitor.Deadline`) and Ctrl-C (:func:`gpubench.methods.monitor.interrupted`)
and reports its best value for the progress line: past the limit it stops with
``stop='time_limit'`` and the best point reached so far (a start stopped early
counts as at a limit, status 1), overrunning the limit by at most one launch.

``rounds`` splits the starts into that many consecutive groups (start k is the
same whatever the split, every start being independent); after each the best
value so far is noted in ``history["trace"]`` (rows ``[evaluations, seconds,
best so far]``, :mod:`gpubench.methods.trace`).  With one round (the default)
the trace has one row, the end of the run.  A group not started before the
time limit is left out (the result says how many starts ran).

For one large problem with a user value-and-gradient on device arrays use
:func:`gpubench.methods.lbfgsb.minimize` instead.
"""
import time
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..device.gpu import device_limits, gpu_available, resolve_backend
from ..errors import InputError
from .lbfgsb import batch
from .monitor import Deadline, report, stop_word
from .monitor import stopped as stopped_by
from ..result import OptimizeResult
from .base import Method, MethodSettings, setting, time_limit_setting
from . import rounds as batched
from .trace import Trace

NAME = "lbfgsb-gpu"


@dataclass
class LbfgsbGpuSettings(MethodSettings):
    starts: int = setting(1000, "number of seeded uniform starts in the box (one GPU thread each)", minimum=1)
    seed: int = setting(0, "seed of the starts (numpy default_rng)", minimum=0)
    m: int = setting(5, "history size of the limited-memory matrix", minimum=0, maximum=64)
    pgtol: float = setting(1e-5, "stop when ||P(x - g) - x||_inf <= pgtol", minimum=0.0)
    factr: float = setting(1e7, "stop when the relative reduction of f <= factr * eps", minimum=0.0)
    maxiter: int = setting(15000, "iterations per start", minimum=1)
    maxfun: int = setting(15000, "function-and-gradient evaluations per start", minimum=1)
    cauchy: str = setting("exact", "generalized Cauchy point: exact breakpoint search (BLNZ) or "
                          "Fei et al.'s approximation", choices=("exact", "approximate"))
    step: str = setting("project", "subspace step: projected (SciPy 3.0) or truncated (BLNZ, Fei et al.)",
                        choices=("project", "truncate"))
    backend: str = setting("auto", "auto, cpu or cuda", choices=("auto", "cpu", "cuda"))
    threads: int = setting(32, "CUDA threads per block with lanes = 1 (small blocks spread few starts over every SM)", minimum=1, maximum=1024)
    # 0 (auto): the widest group of 2-8 lanes that keeps a round's starts resident at once (auto_lanes);
    # every width gives the same iterates, only the time differs (docs/lbfgsb.md)
    lanes: int = setting(0, "CUDA lanes per start: 0 chosen by the number of starts (2-8); 1 a thread; 2-32 a "
                         "group of one warp sharing the 2m x 2m algebra, the same iterates (blocks of one warp, "
                         "`threads` unused; the CPU ignores it)", choices=(0,) + batch.LANES)
    registers: int = setting(0, "with lanes > 1: a cap on the CUDA kernel's registers a thread (0: the "
                             "compiler's choice; fewer keep more starts on an SM, with spills)", minimum=0, maximum=255)
    rounds: int = batched.rounds_setting()
    time_limit: Optional[float] = time_limit_setting()   # checked between launches (each about LAUNCH_SECONDS)

    def validate(self):
        batched.check(NAME, self)


def _starts(fn, dim, s):
    lo, hi = fn.bounds(dim)
    if not (np.isfinite(lo).all() and np.isfinite(hi).all()):
        raise InputError(f"{NAME}: {fn.name} has an unbounded box; uniform starts need finite bounds")
    rng = np.random.default_rng(s.seed)
    return lo, hi, lo + (hi - lo) * rng.random((s.starts, dim))


LAUNCH_SECONDS = 0.1        # target wall time of one launch: the time limit's and Ctrl-C's grain


def _next_cap(cap, seconds, maxiter):
    """The iteration cap of the next launch: scaled towards LAUNCH_SECONDS (at most 4x a step)."""
    scale = 4.0 if seconds <= 0.0 else min(4.0, LAUNCH_SECONDS / seconds)
    return max(1, min(maxiter, int(cap * scale)))


# lanes = 0: a group of AUTO_LANES[-1] lanes a start, halved (down to AUTO_LANES[0]) while a round's starts
# would not all be resident at once.  Measured on an H200 (same iterates at every width): Levy n = 10, 10^4
# starts 2 lanes 0.238 s, 4 0.367, 8 0.505 (one thread a start 0.880); n = 100, 10^3 starts 2 lanes 2.94 s,
# 4 2.11, 8 1.74 (one thread 6.17) (results/gpu/solve-fb370fc, solve-63e7a8d).  The group kernel takes
# 228-244 registers a lane: RESIDENT_WARPS one-warp blocks an SM (ncu: 8, 12.5 % occupancy, latency-bound),
# so an H200's 132 SMs hold 33,792 lanes.  Wider than 8 was slower wherever measured (16: 0.691 s at 10^4);
# so was a 168-register cap (12 warps an SM, with spills: 2 lanes 0.308 s at 10^4).  Auto measured at b86b7ee:
# 0.2378 s (2 lanes) and 1.747 s (8 lanes), results/gpu/solve-b86b7ee.
AUTO_LANES = (2, 4, 8)
RESIDENT_WARPS = 8


def auto_lanes(starts, multiprocessors):
    """The lanes a start for ``lanes = 0``: the widest of AUTO_LANES whose groups for ``starts`` starts fit
    the lanes resident at once (``multiprocessors`` x RESIDENT_WARPS warps), else the narrowest."""
    resident = multiprocessors * RESIDENT_WARPS * 32
    for g in reversed(AUTO_LANES):
        if starts * g <= resident:
            return g
    return AUTO_LANES[0]


def _lanes(s, backend):
    """The lanes a start this run takes: the setting, or for 0 on CUDA :func:`auto_lanes` of a round's
    starts (1 on the CPU, which runs a start a loop turn whatever the setting)."""
    if s.lanes or backend != "cuda":
        return s.lanes or 1
    return auto_lanes(-(-s.starts // s.rounds), device_limits()["multiprocessors"])


def _run(fn, dim, s):
    backend = resolve_backend(s.backend, supported=("cpu", "cuda"))
    lanes = _lanes(s, backend)
    lo, hi, X0 = _starts(fn, dim, s)
    sign = -1.0 if fn.sense == "max" else 1.0
    trace = Trace(fn.sense)
    deadline = None
    # the first launch runs one iteration (at n = 1000 one iteration of a thread takes milliseconds),
    # later caps grow by at most 4x towards LAUNCH_SECONDS
    parts, evals, cap, launches = [], 0, 1, 0
    halted, unfinished = None, 0
    for k, rows in enumerate(np.array_split(np.arange(s.starts), s.rounds)):
        if k:
            halted = deadline.check()
            if halted:
                break
        run = batch.Starts(
            fn, X0[rows], lo, hi, m=s.m, pgtol=s.pgtol, factr=s.factr, maxiter=s.maxiter, maxfun=s.maxfun,
            cauchy=s.cauchy, step=s.step, backend=backend, threads=s.threads, sign=sign, lanes=lanes,
            registers=s.registers)
        if deadline is None:
            # a launch of no iteration evaluates every start's first point; it also compiles the
            # kernel (in the first process on a machine only: the disk cache serves the next), which
            # neither the clock nor the first launch's cap counts
            run.advance(0)
            deadline = Deadline(s.time_limit)
            t0 = deadline.start
        while True:
            t = time.perf_counter()
            left = run.advance(cap)
            launches += 1
            cap = _next_cap(cap, time.perf_counter() - t, s.maxiter)
            seen = sign * run.res[:, 0][run.res[:, 8] != 0.0]      # as minimised
            seen = seen[np.isfinite(seen)]
            if seen.size:
                report(best=sign * float(seen.min()))
            if not left:
                break
            halted = deadline.check()
            if halted:
                unfinished = left
                break
        part = run.result()
        parts.append(part)
        evals += int(part[3].sum())
        fin = sign * part[1]
        fin = fin[np.isfinite(fin)]
        if fin.size:
            trace.see(evals, sign * float(fin.min()))
        if halted:
            break
    seconds = time.perf_counter() - t0
    X, f, nit, nfev, status, pg = (np.concatenate([p[i] for p in parts]) for i in range(6))
    key = sign * f
    key = np.where(np.isfinite(key), key, np.inf)
    b = int(np.argmin(key))
    counts = np.bincount(status, minlength=3)
    ran = X.shape[0]
    stopped = "" if halted is None else (
        f"; {stopped_by(halted)} after {seconds:.3g} s ({len(parts)} of {s.rounds} round(s), {ran} of {s.starts} starts)")
    options = s.as_dict()
    options["backend"] = backend
    if backend == "cuda":
        options["lanes"] = lanes          # the width this run took (lanes = 0: chosen, auto_lanes)
        options["lanes_auto"] = not s.lanes
    if backend == "cuda" and not gpu_available():
        options["note"] = "no GPU: ran under numba's CUDA simulator"
    stop = stop_word(halted) if halted else batched.stop(s, ran, status)
    return OptimizeResult(
        function=fn.name, dim=dim, method=NAME, backend=backend, x=X[b], fun=float(f[b]),
        iterations=int(nit.sum()), nfev=int(nfev.sum()), njev=int(nfev.sum()), seconds=seconds,
        # a start stopped by the time limit did not finish: neither did the multi-start
        converged=bool(status[b] == 0) and halted is None,
        message=(f"best of {ran} start(s): {counts[0]} converged, {counts[1]} at a limit, {counts[2]} abnormal"
                 + stopped),
        status=status, stop=stop, history={"fun": f.tolist(), "iterations": nit.tolist(), "pg": pg.tolist(),
                                "best_start": b, "trace": trace.close(int(nfev.sum())), "launches": launches,
                                "rounds_completed": len(parts) - (unfinished > 0),
                                "starts_completed": ran - unfinished},
        timing={"solve": seconds}, options=options)


def _warmup(fn, dim, s):
    """One start compiles the kernel (CPU or CUDA) for this function."""
    import dataclasses
    # one start, one round, the run's own lanes (a width is a kernel of its own)
    backend = resolve_backend(s.backend, supported=("cpu", "cuda"))
    _run(fn, dim, dataclasses.replace(s, starts=1, rounds=1, maxiter=2, time_limit=None, lanes=_lanes(s, backend)))


def _interactive(dim, given):
    """Typed in: fewer starts on the CPU, and on either backend an iteration cap that keeps the
    slowest start (a block waits for its slowest thread) from holding the answer for seconds."""
    from .base import Chosen
    backend = resolve_backend(given.get("backend", "auto"))
    why = "a typed-in run's cap: a block waits for its slowest start"
    caps = {"maxiter": Chosen(1000, why), "maxfun": Chosen(1000, why)}
    return caps if backend == "cuda" else {"starts": Chosen(100, "fewer starts on the CPU than on a GPU"), **caps}


METHOD = Method(
    name=NAME,
    summary="Multi-start L-BFGS-B, one start per GPU thread (exact or Fei et al.'s approximate Cauchy point)",
    settings=LbfgsbGpuSettings,
    run=_run,
    rigorous=False,
    backends=("cpu", "cuda"),
    launches=True,
    source="Fei, Rong, Wang & Wang (2014), Computers & Graphics 40:1-9; Byrd, Lu, Nocedal & Zhu (1995)",
    warmup=_warmup,
    interactive=_interactive,
)
