"""The procedures of paper 004's tables: one L-BFGS-B solve of a MINPACK-2 problem (Table 4's
rows), and the approximate-vs-exact Cauchy point comparison (Table 1's).  Each returns what the
record stores: the measured numbers, and the table's own figures under ``result``."""
import time

import numpy as np

from . import floors, minpack2


def _problem(name, n, box=None):
    return minpack2.make(name.partition(":")[2], n, box=box)


def _measured(r, backend):
    return {"iterations": r["iterations"], "seconds": r["seconds"], "fun": r["fun"],
            "converged": r["status"] == 0 and not r["capped"], "capped": r["capped"], "message": r["message"],
            "ms_per_iteration": r["ms_per_iteration"], "backend": backend}


def _energy_tol(s):
    """The stop rule's decrease threshold: ``stop = "energy_decrease"`` (Fei et al. 2014, section 5:
    f_k - f_{k+1} < energy_tol, 1e-64) or None for ``stop = "pg"`` (pg <= pg_rel pg(x0))."""
    stop = s.get("stop", "pg")          # a caller's settings without it: the pg rule, as before
    if stop not in ("pg", "energy_decrease"):
        from ..errors import InputError
        raise InputError(f"stop must be pg or energy_decrease, got {stop!r}")
    return s.get("energy_tol", 1e-64) if stop == "energy_decrease" else None


def lbfgsb_minpack(problem, n, s):
    """One solve to the stop rule (``stop``): SciPy's L-BFGS-B, jaxopt's LBFGSB (``solver = "jaxopt"``,
    pg rule only), or ours with the chosen Cauchy point; ``cap_seconds`` 0: no cap."""
    from . import fei2014 as R
    p = _problem(problem, n)
    tol = _energy_tol(s)
    if s["solver"] == "scipy":
        r = R._scipy(p, s["m"], s["pg_rel"], s["cap_seconds"], energy_tol=tol)
        return _measured(r, "scipy (cpu)"), {}
    if s["solver"] == "jaxopt":      # a peer (jaxopt's LBFGSB), side by side with ours
        if tol is not None:
            from ..errors import InputError
            raise InputError("solver jaxopt takes stop = pg only")
        r = R._jaxopt(p, s["m"], s["pg_rel"], s["cap_seconds"])
        return _measured(r, r["backend"]), floors.same_run_copy(r["backend"].endswith("on gpu"))
    xp = R._xp(s["backend"])
    r = R._solve(p, xp, s["cauchy"], s["m"], s["pg_rel"], cap=s["cap_seconds"], energy_tol=tol)
    r.pop("cauchy_log")
    # the objective's calls in the timed run, and on a GPU a copy's bandwidth timed now: the
    # iteration's memory floor (gpubench.problems.floors.lbfgsb_bytes) divides the one by the other
    path = "array"
    if xp is not np:
        from ..methods.lbfgsb import fused
        path = "fused" if fused.supported(s["cauchy"], s["m"]) else "array"
    return (dict(_measured(r, "cuda" if xp is not np else "cpu"), evaluations=r["evaluations"]),
            {"pg0": float(r["pg0"]), "path": path, "host_reads": r["host_reads"],   # device->host reads, timed run
             "launches": r["launches"],       # an iteration, timed run: numba kernels (bound), array ops, graphs
             **({"graph": r["graph"]} if "graph" in r else {}),   # the fused path: "replayed", or why not
             **floors.same_run_copy(xp is not np)})


def lbfgsb_cauchy(problem, n, s, checkpoint=None):
    """L-BFGS-B driven by the approximate point (t_c and t* logged) and by the exact one.

    ``checkpoint`` (a :class:`gpubench.methods.checkpoints.Checkpoint`, the runner's for this case)
    makes the case resumable within itself: its state -- which run is under way, the finished
    approximate run (its figures and its (t_c, t*) log) and the running one's whole loop -- is saved
    every so many seconds and at Ctrl-C or SIGTERM, and a case that finds one goes on from it with
    the same arithmetic: iterations, energies and bins are those of a run never stopped, its seconds
    the sum of the parts'."""
    from . import fei2014 as R
    p = _problem(problem, n, box=s["box"])
    xp = R._xp(s["backend"])
    tol = _energy_tol(s)
    st = checkpoint.state if checkpoint is not None else None
    a = st["approximate"] if st is not None else None         # the approximate run, when finished
    run = st["solve"] if st is not None else None             # the run under way, when saved in it
    if checkpoint is not None:
        checkpoint.begin(*_done(a, run))

    def saver(phase, a):
        """What the run of ``phase`` calls after each iteration: the case's state, saved when due."""
        if checkpoint is None:
            return None

        def tick(take):
            def whole():
                sv = take()
                return ({"phase": phase, "approximate": a, "solve": sv}, *_done(a, sv))
            checkpoint.tick(whole)
        return tick

    if a is None:
        a = R._solve(p, xp, "approximate", s["m"], s["pg_rel"], maxiter=s["maxiter"], record=True, energy_tol=tol,
                     resume=run, checkpoint=saver("approximate", None))
        a["cauchy_log"] = np.array(a["cauchy_log"], dtype=float).reshape(-1, 2)
        run = None
        if checkpoint is not None:   # the finished run is kept at once: a kill now loses none of it
            checkpoint.save({"phase": "exact", "approximate": a, "solve": None}, *_done(a, None))
    e = R._solve(p, xp, "exact", s["m"], s["pg_rel"], maxiter=s["maxiter"], energy_tol=tol, resume=run,
                 checkpoint=saver("exact", a))
    if checkpoint is not None:
        checkpoint.end(a["iterations"] + e["iterations"], a["seconds"] + e["seconds"])
    bins = R.bin_counts(a["cauchy_log"])
    diff = (a["fun"] - e["fun"]) / max(abs(e["fun"]), 1e-300) * 100.0
    measured = _measured(a, "cuda" if xp is not np else "cpu")
    measured["seconds"] = a["seconds"] + e["seconds"]
    return measured, {"bins": bins, "energy_diff_percent": diff,
                      "approximate": {k: a[k] for k in ("iterations", "fun", "seconds", "status")},
                      "exact": {k: e[k] for k in ("iterations", "fun", "seconds", "status")}}


def _done(a, run):
    """(iterations, seconds) of a Table 1 case so far: the finished approximate run ``a`` and the
    saved state of the run under way (either may be None)."""
    its = (a["iterations"] if a else 0) + (run["loop"]["nit"] if run else 0)
    return its, (a["seconds"] if a else 0.0) + (run["seconds"] if run else 0.0)


# ------------------------------------------------------------------ Tables 2 and 3: CVT
def _cvt_backend(backend):
    """"cuda" where a real GPU and CuPy are (the single-problem GPU path needs both), else "cpu";
    "cuda" asked for without them is an InputError."""
    from ..device.gpu import gpu_available
    if backend == "cpu":
        return "cpu"
    try:
        import cupy  # noqa: F401
        ok = gpu_available()
    except ImportError:
        ok = False
    if backend == "cuda" and not ok:
        from ..errors import InputError
        raise InputError("cvt: backend cuda needs a GPU and CuPy")
    return "cuda" if ok else "cpu"


def _array_library(backend):
    """The array library of L-BFGS-B (gpubench.methods.lbfgsb.minimize) on the CVT problem's backend."""
    return "cupy" if backend == "cuda" else "cpu"


def _cvt(problem, n, s, backend):
    from . import cvt
    R = int(problem.partition(":")[2])
    return cvt.CVT(n, R, s["density"], seed=s["seed"], backend=backend, extra=s["extra"])


class _Capped(Exception):
    pass


def _timed_ours(p, s, record=False):
    """lbfgsb-gpu's single-problem path (``gpubench.methods.lbfgsb.minimize``) with the approximate Cauchy
    point on the problem's device arrays, to the paper's stop (no decrease of the energy: factr = 0,
    pgtol = 0) or ``maxiter``; times split into evaluation (the kernels' GPU time) and the rest."""
    from ..methods import lbfgsb
    xp = p._cp if p.backend == "cuda" else np
    x0, lo, hi = (xp.asarray(a) for a in (p.x0, p.lo, p.hi))
    p.reset_counters()
    seen = {"nit": 0, "f": None, "x": None}
    t0 = time.perf_counter()

    def cb(x, f, pg):
        seen.update(nit=seen["nit"] + 1, f=f, x=x)
        if time.perf_counter() - t0 > s["cap_seconds"]:
            raise _Capped

    try:
        r = lbfgsb.minimize(p.fg, x0, lo, hi, m=s["m"], pgtol=0.0, factr=0.0, maxiter=s["maxiter"],
                            maxfun=20 * s["maxiter"], cauchy="approximate", backend=_array_library(p.backend),
                            record_cauchy=record, callback=cb)
        out = {"iterations": r.iterations, "fun": float(r.fun), "message": r.message, "status": r.status,
               "capped": False, "x": r.x, "cauchy_log": r.cauchy}
    except _Capped:
        out = {"iterations": seen["nit"], "fun": float(seen["f"]), "message": "capped", "status": 1,
               "capped": True, "x": seen["x"], "cauchy_log": []}
    if p.backend == "cuda":
        p._cuda.synchronize()
    dt = time.perf_counter() - t0
    ev = p.eval_seconds()
    it = max(out["iterations"], 1)
    out.update(seconds=dt, evaluations=p.evaluations, eval_ms=1e3 * ev / max(p.evaluations, 1),
               lbfgsb_ms=1e3 * (dt - ev) / it, io_ms=0.0)
    return out


def _warm(p, s, record=False):
    """Compile before timing: the evaluation's kernels, and the array kernels of both solvers'
    paths (CuPy compiles each on its first call, seconds in all), by three untimed iterations of
    each.  Returns the seconds spent."""
    from scipy.optimize import minimize
    from ..methods import lbfgsb
    t0 = time.perf_counter()
    xp = p._cp if p.backend == "cuda" else np
    x0, lo, hi = (xp.asarray(a) for a in (p.x0, p.lo, p.hi))
    lbfgsb.minimize(p.fg, x0, lo, hi, m=s["m"], pgtol=0.0, factr=0.0, maxiter=3, cauchy="approximate",
                    backend=_array_library(p.backend), record_cauchy=record)
    minimize(p.fg_host, p.x0, jac=True, method="L-BFGS-B", bounds=np.stack([p.lo, p.hi], 1),
             options=dict(maxcor=s["m"], gtol=0.0, ftol=0.0, maxiter=3))
    p.check(x0)
    if p.backend == "cuda":
        p._cuda.synchronize()
    return time.perf_counter() - t0


def _timed_scipy(p, s):
    """SciPy's L-BFGS-B on the host (m, the same stop): every evaluation copies x to the device and
    (f, g) back ("I/O", counted in the L-BFGS-B time as in the paper's CPU column)."""
    from scipy.optimize import minimize
    p.reset_counters()
    t0 = time.perf_counter()
    stopped = []

    def cb(intermediate_result):
        if time.perf_counter() - t0 > s["cap_seconds"]:
            stopped.append(True)
            raise StopIteration

    r = minimize(p.fg_host, p.x0, jac=True, method="L-BFGS-B", bounds=np.stack([p.lo, p.hi], 1), callback=cb,
                 options=dict(maxcor=s["m"], gtol=0.0, ftol=0.0, maxiter=s["maxiter"], maxfun=20 * s["maxiter"]))
    dt = time.perf_counter() - t0
    ev = p.eval_seconds()
    it = max(int(r.nit), 1)  # SciPy's result
    capped = bool(stopped)
    return {"iterations": int(r.nit), "fun": float(r.fun), "message": str(r.message), "status": int(r.status),
            "capped": capped, "seconds": dt, "evaluations": p.evaluations,
            "eval_ms": 1e3 * ev / max(p.evaluations, 1), "lbfgsb_ms": 1e3 * (dt - ev) / it,
            "io_ms": 1e3 * getattr(p, "io_seconds", 0.0) / it}


def _check(p, x):
    E, F, count, excess = p.check(x)
    return {"jfa_energy": E, "exact_energy": F, "misassigned_pixels": count,
            "misassigned_fraction": count / float(p.R * p.R), "excess": excess,
            "relation_error": (E - F) - excess}


def _column(r):
    return {k: r[k] for k in ("iterations", "fun", "message", "status", "capped", "seconds", "evaluations",
                               "eval_ms", "lbfgsb_ms", "io_ms")}


def cvt_lbfgsb(problem, n, s):
    """Table 2's row: SciPy's L-BFGS-B on the host (CPU column) and lbfgsb-gpu on the device (GPU
    column) from the same sites, side by side in one run; the JFA evaluation on the GPU for both
    (the twin on a CPU).  Measured: the GPU column; ``result`` holds both, the energy difference
    F_GPU - F_CPU and JFA's errors at the GPU column's final sites against brute force."""
    backend = _cvt_backend(s["backend"])
    p = _cvt(problem, n, s, backend)
    warm = _warm(p, s)
    cpu = _timed_scipy(p, s)
    gpu = _timed_ours(p, s)
    check = _check(p, gpu["x"])
    a, b = gpu["fun"], cpu["fun"]
    measured = {"iterations": gpu["iterations"], "seconds": gpu["seconds"], "fun": a,
                "converged": gpu["status"] == 0 or "ABNORMAL" in gpu["message"], "capped": gpu["capped"],
                "message": gpu["message"], "ms_per_iteration": gpu["lbfgsb_ms"], "backend": backend}
    result = {"sites": n, "resolution": p.R, "variables": 2 * n, "density": p.density,
              "evaluation_ms": gpu["eval_ms"], "cpu": _column(cpu), "gpu": _column(gpu),
              "energy_difference": a - b, "relative_energy_difference": (a - b) / abs(b),
              "speedup_per_itr": cpu["lbfgsb_ms"] / gpu["lbfgsb_ms"] if gpu["lbfgsb_ms"] > 0 else None,
              "jfa": check, "warmup_seconds": warm}
    return measured, result


def cvt_cauchy(problem, n, s):
    """Table 3's column: lbfgsb-gpu driven by the approximate Cauchy point, t_c and the exact t*
    recorded at every iteration and binned as Table 1's (``reproduce.bin_counts``)."""
    from . import fei2014 as R
    backend = _cvt_backend(s["backend"])
    p = _cvt(problem, n, s, backend)
    warm = _warm(p, s, record=True)
    r = _timed_ours(p, s, record=True)
    log = r.pop("cauchy_log")
    measured = {"iterations": r["iterations"], "seconds": r["seconds"], "fun": r["fun"],
                "converged": r["status"] == 0 or "ABNORMAL" in r["message"], "capped": r["capped"],
                "message": r["message"], "ms_per_iteration": r["lbfgsb_ms"], "backend": backend}
    return measured, {"sites": n, "resolution": p.R, "density": p.density, "bins": R.bin_counts(log),
                      "iterations_logged": len(log), "warmup_seconds": warm}
