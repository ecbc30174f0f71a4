"""GPU differential evolution (de-gpu) on the GPU host: speed side by side, and Tables 1-3 of Qin et al.

    python scripts/gpu_de.py OUTDIR [--tiny] [--tables 1,2,3|none] [--budget SECONDS]

Writes OUTDIR/gpu_de.json (every measurement with the environment) and, for the tables,
records under OUTDIR/results/qin2012_tableK/ (the format of ``gpubench reproduce``; copy
them into results/ and run ``gpubench report qin2012_table1`` ...).

Speed: function evaluations per second on shifted Rastrigin, fp64, DE/rand/1/bin, F = 0.5,
CR = 0.3, for (D, NP) in (10, 100), (50, 1000), (100, 1000), (100, 100000), (1000, 10000):

* de-gpu, mode "paper" (one MCER launch per generation, kernel(P) on a second stream) and
  mode "fast" (many generations per cooperative launch), one run; and 25 runs in one call
  where 25 populations fit comfortably (NP D <= 1e5);
* SciPy's differential_evolution (strategy "rand1bin", polish=False, popsize = NP / D,
  vectorized, updating="deferred", tol=0) on the host CPU, and the CPU twins, for the
  three small sizes;
* EvoX's DE when ``import evox`` works (it is not installed unless carried): skipped
  with a note otherwise; eager, and compiled (``torch.compile(workflow.step)``, EvoX 1.x's
  documented compiled mode), for all five sizes.  Compilation and warm-up steps are timed
  apart (``compile_s``, ``warmup_s``); the timed run is warm, capped at EVOX_GENERATION_CAP
  generations.  A compile failure is recorded as the row's ``error`` and the script goes on.

Each measurement first runs a short calibration (which also compiles: reported as
warm-up, not timed), then a run sized to last about ``--seconds`` (default 1 s).  de-gpu's
time is its own ``result.seconds`` (after the RNG states are made and the kernels are
compiled; CUDA synchronised before the clock stops).  The script watches a total budget
(default 210 s) and skips what would not fit, saying so in the JSON.  For the speed rows
alone (``--tables none --budget 240``) the whole script takes about 4 minutes on one H200.
"""
import argparse
import json
import math
import os
import sys
import time
import traceback

import numpy as np

from gpubench import environment, methods
from gpubench import functions as F

SIZES = [(10, 100), (50, 1000), (100, 1000), (100, 100000), (1000, 10000)]
TINY_SIZES = [(4, 8), (3, 16)]
FUNCTION = "shifted_rastrigin"


class Budget:
    def __init__(self, seconds):
        self.t0 = time.perf_counter()
        self.seconds = seconds

    def left(self):
        return self.seconds - (time.perf_counter() - self.t0)


def _de_gpu(D, NP, runs, mode, backend, seconds, tiny, variant=None):
    """Calibrate (compiles), then one timed run sized to about `seconds`."""
    kw = dict(np=NP, runs=runs, mode=mode, backend=backend, F=0.5, CR=0.3, seed=1, bounds="reinit")
    if variant:
        kw["cpu_variant"] = variant
    t0 = time.perf_counter()
    g_cal = 2 if tiny else 20
    cal = methods.minimize(FUNCTION, D, "de-gpu", max_evaluations=NP * (1 + g_cal), **kw)
    warm = time.perf_counter() - t0
    # the calibration's own time excludes compilation and RNG set-up (result.seconds), so it sizes the run
    per_gen = max(cal.seconds / g_cal, 1e-7)
    gens = 3 if tiny else int(min(max(seconds / per_gen, 10), 1_000_000))
    t0 = time.perf_counter()
    r = methods.minimize(FUNCTION, D, "de-gpu", max_evaluations=NP * (1 + gens), **kw)
    return {"peer": "de-gpu", "D": D, "NP": NP, "runs": runs, "mode": mode if backend != "cpu" else None,
            "backend": r.backend, "cpu_variant": variant, "generations": gens, "nfev": r.nfev,
            "seconds": r.seconds, "fe_per_s": r.nfev / r.seconds if r.seconds > 0 else None,
            "ms_per_generation": 1e3 * r.seconds / gens, "warmup_s": warm,
            "setup_s": time.perf_counter() - t0 - r.seconds, "best_error": min(r.history["run_error"]),
            "timing": r.timing, "launch": r.options.get("launch"), "note": r.options.get("note")}


def _scipy(D, NP, seconds, tiny):
    from scipy.optimize import differential_evolution
    fn = F.get(FUNCTION)
    lo, hi = fn.bounds(D)
    counter = [0]

    def f(X):  # SciPy's vectorized convention: X has shape (D, S)
        Xt = np.ascontiguousarray(X.T)
        counter[0] += Xt.shape[0]
        return fn.points(Xt)

    def one(maxiter):
        counter[0] = 0
        t0 = time.perf_counter()
        differential_evolution(f, list(zip(lo, hi)), strategy="rand1bin", popsize=NP // D, mutation=0.5,
                               recombination=0.3, polish=False, vectorized=True, updating="deferred",
                               maxiter=maxiter, tol=0, atol=0, init="random", rng=1)
        return time.perf_counter() - t0, counter[0]
    t0 = time.perf_counter()
    one(2)
    warm = time.perf_counter() - t0
    s, _ = one(5 if not tiny else 2)
    per_gen = s / 5
    gens = 2 if tiny else int(max(10, min(seconds / max(per_gen, 1e-7), 10**4 * D // NP)))
    s, n = one(gens)
    return {"peer": "scipy differential_evolution (host CPU)", "D": D, "NP": NP, "popsize": NP // D,
            "generations": gens, "nfev": n, "seconds": s, "fe_per_s": n / s, "warmup_s": warm,
            "settings": "rand1bin, mutation=0.5, recombination=0.3, polish=False, vectorized=True, "
                        "updating='deferred', tol=0, atol=0, init='random'"}


# generations of one timed EvoX run at most (a run is otherwise sized to --seconds by a calibration)
EVOX_GENERATION_CAP = 2000


def _evox(D, NP, seconds, tiny, compiled=False):
    """EvoX's DE at the same settings, eager or compiled (``torch.compile(workflow.step)``, the
    compiled mode EvoX 1.x documents): compilation and the first steps are timed apart (warm-up),
    then a calibration of 5 steps sizes a run of about ``seconds``, capped at EVOX_GENERATION_CAP."""
    peer = "evox DE (compiled)" if compiled else "evox DE (eager)"
    try:
        import evox  # noqa: F401
    except Exception as exc:
        return {"peer": peer, "D": D, "NP": NP, "skipped": f"import evox failed: {type(exc).__name__}: {exc}"}
    row = {"peer": peer, "D": D, "NP": NP, "version": getattr(evox, "__version__", None)}
    try:
        import torch
        from evox.algorithms import DE
        from evox.workflows import StdWorkflow
        from evox.core import Problem
        fn = F.get(FUNCTION)
        lo, hi = fn.bounds(D)
        o = torch.tensor(fn.params(D)[0], dtype=torch.float64, device="cuda")

        class Rastrigin(Problem):
            def evaluate(self, pop):
                z = pop - o
                return (z * z - 10 * torch.cos(2 * math.pi * z) + 10).sum(-1)
        torch.set_default_dtype(torch.float64)
        if compiled:
            torch._dynamo.reset()  # each size compiles afresh (and no size meets the recompile limit)
        algo = DE(pop_size=NP, lb=torch.tensor(lo, device="cuda"), ub=torch.tensor(hi, device="cuda"),
                  base_vector="rand", differential_weight=0.5, cross_probability=0.3, device="cuda")
        wf = StdWorkflow(algo, Rastrigin(), device="cuda")
        wf.init_step()
        step = wf.step
        t0 = time.perf_counter()
        if compiled:
            step = torch.compile(wf.step)
            step()  # the first call compiles
            torch.cuda.synchronize()
            row["compile_s"] = time.perf_counter() - t0
            row["torch_compile"] = "torch.compile(workflow.step), default mode"
        for _ in range(3):
            step()
        torch.cuda.synchronize()
        row["warmup_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        for _ in range(5):
            step()
        torch.cuda.synchronize()
        per_gen = max((time.perf_counter() - t0) / 5, 1e-7)
        gens = 3 if tiny else int(min(max(seconds / per_gen, 10), EVOX_GENERATION_CAP))
        t0 = time.perf_counter()
        for _ in range(gens):
            step()
        torch.cuda.synchronize()
        s = time.perf_counter() - t0
        row.update(generations=gens, generation_cap=EVOX_GENERATION_CAP, seconds=s, fe_per_s=gens * NP / s,
                   ms_per_generation=1e3 * s / gens, torch=torch.__version__)
        return row
    except Exception as exc:
        # a compile (or run) failure is recorded, and the script goes on
        row.update(error=f"{type(exc).__name__}: {exc}".splitlines()[0][:500], trace=traceback.format_exc()[-3000:])
        return row


def _tables(outdir, tables, tiny, budget, out):
    from gpubench import experiments_loader, runner
    for k in tables:
        if budget.left() < 20:
            out.append({"table": k, "skipped": "time budget"})
            continue
        e = experiments_loader.load(f"qin2012_table{k}")
        t0 = time.perf_counter()
        try:
            s = runner.sweep(e, quick=tiny, backend=None if tiny else "cuda",
                             results=os.path.join(outdir, "results"), stream=sys.stderr, fancy=False)
            out.append({"table": k, "variant": "quick" if tiny else "full", "cases_run": getattr(s, "ran", None), "seconds": time.perf_counter() - t0, "summary": str(s)})
        except Exception as exc:
            out.append({"table": k, "error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc()})


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--tiny", action="store_true", help="tiny sizes (CUDA simulator check)")
    ap.add_argument("--tables", default="1,2,3", help="Qin et al. tables to reproduce: 1,2,3 or none")
    ap.add_argument("--budget", type=float, default=210.0, help="total seconds (the tables get up to 45%%)")
    ap.add_argument("--seconds", type=float, default=1.0, help="target seconds per timed run")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    budget = Budget(a.budget)
    tiny = a.tiny
    sizes = TINY_SIZES if tiny else SIZES
    seconds = 0.05 if tiny else a.seconds
    rec = {"script": "scripts/gpu_de.py", "argv": sys.argv[1:], "function": FUNCTION, "dtype": "float64",
           "F": 0.5, "CR": 0.3, "environment": environment.capture(), "speed": [], "tables": []}
    path = os.path.join(a.outdir, "gpu_de.json")

    def save():
        with open(path + ".tmp", "w") as fh:
            json.dump(rec, fh, indent=1, default=lambda v: v.tolist() if hasattr(v, "tolist") else str(v))
        os.replace(path + ".tmp", path)

    tables = [] if a.tables.strip().lower() == "none" else [int(t) for t in a.tables.split(",") if t.strip()]
    # the tables first get ~45% of the budget when asked for; the speed rows take the rest
    jobs = []
    for D, NP in sizes:
        small = NP * D <= 100_000
        jobs.append(("de-gpu", dict(D=D, NP=NP, runs=1, mode="paper", backend="cuda")))
        jobs.append(("de-gpu", dict(D=D, NP=NP, runs=1, mode="fast", backend="cuda")))
        if small:
            jobs.append(("de-gpu", dict(D=D, NP=NP, runs=25, mode="fast", backend="cuda")))
            jobs.append(("de-gpu", dict(D=D, NP=NP, runs=25, mode="paper", backend="cuda")))
            jobs.append(("scipy", dict(D=D, NP=NP)))
            jobs.append(("de-gpu", dict(D=D, NP=NP, runs=1, mode="fast", backend="cpu", variant="parallel")))
            jobs.append(("de-gpu", dict(D=D, NP=NP, runs=1, mode="fast", backend="cpu", variant="sde")))
        jobs.append(("evox", dict(D=D, NP=NP)))
        jobs.append(("evox-compiled", dict(D=D, NP=NP)))
    reserve = 0.45 * a.budget if tables else 0.0
    for kind, kw in jobs:
        # torch.compile takes tens of seconds per size: it needs more room than a timed run
        need = 5 * seconds + (45 if kind == "evox-compiled" and not tiny else 5)
        if budget.left() - reserve < need:
            rec["speed"].append({"peer": kind, **kw, "skipped": "time budget"})
            continue
        try:
            if kind == "de-gpu":
                row = _de_gpu(seconds=seconds, tiny=tiny, **kw)
            elif kind == "scipy":
                row = _scipy(kw["D"], kw["NP"], seconds, tiny)
            else:
                row = _evox(kw["D"], kw["NP"], seconds, tiny, compiled=kind == "evox-compiled")
        except Exception as exc:
            row = {"peer": kind, **kw, "error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc()}
        rec["speed"].append(row)
        shown = {k: row.get(k) for k in ("peer", "D", "NP", "runs", "mode", "backend", "fe_per_s",
                                         "ms_per_generation", "compile_s", "skipped", "error")}
        if row.get("launch"):
            shown["launch"] = {k: row["launch"].get(k) for k in ("schedule", "threads_per_member",
                                                                 "elements_per_thread", "members_per_block", "grid")}
        print(json.dumps(shown), flush=True)
        save()
    _tables(a.outdir, tables, tiny, budget, rec["tables"])
    rec["total_seconds"] = time.perf_counter() - budget.t0
    save()
    print(f"wrote {path} in {rec['total_seconds']:.1f} s", flush=True)


if __name__ == "__main__":
    main()
