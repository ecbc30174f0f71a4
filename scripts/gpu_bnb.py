"""GPU measurements of subdomain-bnb (paper 001: Figure 6, Table 1, Table 4) on one GPU.

Usage (repository root, on a GPU host; about 4 minutes on an H200, capped by --budget)::

    python scripts/gpu_bnb.py OUTDIR                  # real GPU
    NUMBA_ENABLE_CUDASIM=1 python scripts/gpu_bnb.py /tmp/x --tiny   # simulator, a minute

Writes ``OUTDIR/gpu_bnb.json`` (rewritten after every row, so a stopped run keeps what it
measured) with the environment (``gpubench.environment.capture``) and:

* ``compile``: seconds of the first (compiling) run per problem and backend: excluded from
  every timing below, reported here.
* ``fig6ab``: Problem (1) (min ANN_Peaks, our network), uniform N = 1, 4, ..., 4096
  subdomains, natural vs mean value form: the root-node lower bound and the B&B iterations
  (each run capped at ``--row-cap`` seconds; ``status`` says whether it converged).
* ``fig6cd``: Problem (2) (min ANN_Peaks - Peaks): wall time of the whole B&B on the GPU
  and on the serial CPU (the paper's pure-CPU baseline) per N, the single interval (N = 1,
  serial CPU), and ``lower_bounding``: the time of one root-node Subdomain Lower Bounding
  (transfers included on the GPU) at N = 1024 and 4096, GPU vs serial CPU, median of
  repeats: the issue's >= 100x target.
* ``table1``: Problem (4), d = 2, 1024 subdomains (32 x 32), each constraint set of Table 1.
* ``table4``: Alpine02 6d/7d (maximised) and Styblinski-Tang 6d/7d from the library, at
  the paper's subdomain counts (adaptive partitioning reproduces 3^4*4^2 ... 4^6,
  2*3^6, 3^7), each row capped (the absolute gap reached is reported when capped).

Tolerances are MAiNGO's defaults (absolute and relative gap 1e-2).  Our ANNs are not the
authors' (theirs are unpublished): iteration counts and times are comparable in trend only.
The paper's GPU is an RTX A1000 laptop GPU (FP64:FP32 = 1:64); an H200 has 1:2 (34 vs
67 TFLOP/s without tensor cores).
"""
import argparse
import dataclasses
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import gpubench  # noqa: E402

try:
    import gpubench.functions  # noqa: F401,E402
except ImportError:  # a source tree without an install: map functions/ to gpubench.functions
    import importlib.util
    _spec = importlib.util.spec_from_file_location("gpubench.functions", ROOT / "functions" / "__init__.py",
                                                   submodule_search_locations=[str(ROOT / "functions")])
    _mod = importlib.util.module_from_spec(_spec)
    sys.modules["gpubench.functions"] = _mod
    _spec.loader.exec_module(_mod)
    gpubench.functions = _mod

from gpubench import environment, functions  # noqa: E402
from gpubench.methods import subdomain_bnb as sb  # noqa: E402
from gpubench.methods.subdomain_bnb import SubdomainBnBSettings, SubdomainSearch  # noqa: E402

PAPER001 = None


def problem(name):
    global PAPER001
    if PAPER001 is None:
        import importlib
        PAPER001 = importlib.import_module("gpubench.functions._paper001")
    from gpubench.forms import TestFunction
    obj = PAPER001.get(name)
    return functions.get(obj) if hasattr(obj, "objective") else TestFunction(obj)


class Runner:
    def __init__(self, out, budget, row_cap):
        self.out = out
        self.t_end = time.perf_counter() + budget
        self.row_cap = row_cap
        self.data = {"environment": environment.capture(), "compile": [], "fig6ab": [], "fig6cd": {},
                     "table1": [], "table4": [], "skipped": [],
                     "settings": {"eps_abs": 1e-2, "eps_rel": 1e-2, "row_cap_s": row_cap, "budget_s": budget},
                     "note": ("Our ANNs are trained in-repo (scripts/train_surrogates.py), not the authors' "
                              "(unpublished): compare trends only. Paper GPU: RTX A1000 laptop, FP64:FP32 1:64; "
                              "H200: 1:2.")}
        self.compiled = set()
        self.sec_end = self.t_end

    def left(self):
        return min(self.t_end, self.sec_end) - time.perf_counter()

    def section(self, seconds):
        """Rows after this share ``seconds`` (and the overall budget): a slow section cannot
        starve the later ones."""
        self.sec_end = time.perf_counter() + seconds

    def save(self):
        p = self.out / "gpu_bnb.json"
        tmp = p.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.data, indent=1, default=float) + "\n")
        os.replace(tmp, p)

    def settings(self, **kw):
        kw["time_limit"] = max(0.5, min(kw.get("time_limit", self.row_cap), self.left() - 1.0))
        s = SubdomainBnBSettings(**kw)
        s.check(sb.NAME)
        return s

    def warm(self, fn, dim, s, label):
        key = (label, s.backend, s.cpu_parallel, s.form, s.subdomains, s.partition)
        if key in self.compiled:
            return
        t0 = time.perf_counter()
        sb.run(fn, dim, dataclasses.replace(s, max_nodes=1, local_solve=False))
        self.data["compile"].append({"problem": label, "backend": s.backend, "cpu_parallel": s.cpu_parallel,
                                     "form": s.form, "subdomains": s.subdomains,
                                     "seconds": time.perf_counter() - t0})
        self.compiled.add(key)

    def solve(self, fn, dim, label, **kw):
        s = self.settings(**kw)
        self.warm(fn, dim, s, label)
        r = sb.run(fn, dim, s)
        return {"problem": label, "dim": dim, "backend": r.backend, "cpu_parallel": s.cpu_parallel,
                "form": s.form, "partition": s.partition, "subdomains": int(np.prod(r.options["counts_root"])),
                "counts_root": r.options["counts_root"], "status": r.status, "iterations": r.iterations,
                "seconds": r.seconds, "lower_bounding_seconds": r.timing["lower_bounding_seconds"],
                "root_lower_bound": r.timing["root_lower_bound"], "glb": r.glb, "gub": r.gub,
                "fun": r.fun, "x": None if r.x is None else r.x.tolist(),
                "abs_gap": None if r.fun is None else r.gub - r.glb}

    def row(self, section, builder, *args, need=3.0, **kw):
        if self.left() < need:
            self.data["skipped"].append({"section": section, "args": [getattr(a, "name", str(a)) for a in args],
                                         "why": "budget"})
            return None
        try:
            rec = builder(*args, **kw)
        except Exception as exc:  # one failed row must not lose the others
            rec = {"section": section, "args": [str(a) for a in args], "error": f"{type(exc).__name__}: {exc}"}
        print(section, json.dumps(rec, default=float)[:300], flush=True)
        return rec


def lb_speed(fn, dim, n_sub, backend, parallel, reps):
    s = SubdomainBnBSettings(backend=backend, cpu_parallel=parallel, subdomains=n_sub, form="mean-value")
    search = SubdomainSearch(fn, dim, s)
    lo, hi = search.lo0.copy(), search.hi0.copy()
    search.lower_bound(lo, hi)                       # compile and allocate
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        search.lower_bound(lo, hi)
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--tiny", action="store_true", help="simulator-sized run (few rows, small N)")
    ap.add_argument("--budget", type=float, default=225.0, help="overall seconds (rows beyond are skipped)")
    ap.add_argument("--row-cap", type=float, default=None, help="time limit of one B&B run")
    ap.add_argument("--backend", default="cuda", choices=("cuda", "cpu"),
                    help="cpu: the same rows with the CPU parallel (prange) backend in the GPU's place "
                         "(the CPU quick variant of the experiments; no speedup claims)")
    ap.add_argument("--sections", default="fig6ab,fig6cd,table1,table4",
                    help="comma-separated: fig6ab, fig6cd, table1, table4, table3 (Problem (3), d = 2..6 at "
                         "the paper's subdomain counts; not in the default 4-minute run)")
    ap.add_argument("--table3-dims", default="2,3,4", help="dimensions of table3 rows")
    a = ap.parse_args(argv)
    sections = set(a.sections.split(","))
    out = Path(a.outdir)
    out.mkdir(parents=True, exist_ok=True)
    tiny = a.tiny
    R = Runner(out, a.budget, a.row_cap or (2.0 if tiny else 6.0))
    gpu = a.backend
    R.data["settings"]["parallel_backend"] = gpu
    Ns = [1, 4, 16] if tiny else [1, 4, 16, 64, 256, 1024, 4096]
    R.save()

    # Figure 6a/b: Problem (1), natural vs mean value
    R.section(a.budget * 0.25)
    p1 = problem("P1") if "fig6ab" in sections else None
    for form in (("natural", "mean-value") if p1 else ()):
        for n in Ns:
            kw = dict(backend=gpu, cpu_parallel=True, subdomains=n, form=form)
            if tiny:
                kw["max_nodes"] = 3
            rec = R.row("fig6ab", R.solve, p1, 2, "P1", **kw)
            if rec:
                R.data["fig6ab"].append(rec)
                R.save()

    # Figure 6c/d: Problem (2), GPU vs serial CPU vs single interval
    R.section(a.budget * 0.08)       # first: the >= 100x lower-bounding target
    p2 = problem("P2") if "fig6cd" in sections else None
    cd = R.data["fig6cd"] = {"gpu": [], "cpu_serial": [], "single_interval": None, "lower_bounding": []}
    for n in (([4, 16] if tiny else [1024, 4096]) if p2 else ()):
        reps = 2 if tiny else 20
        rec = R.row("lower_bounding", lambda n=n, reps=reps: {
            "subdomains": n, "gpu_s": lb_speed(p2, 2, n, gpu, True, reps),
            "cpu_serial_s": lb_speed(p2, 2, n, "cpu", False, max(2, reps // 10))})
        if rec and "gpu_s" in rec:
            rec["speedup"] = rec["cpu_serial_s"] / rec["gpu_s"]
            cd["lower_bounding"].append(rec)
            R.save()

    R.section(a.budget * 0.22)
    for n in (Ns if p2 else ()):
        for backend, key in ((gpu, "gpu"), ("cpu", "cpu_serial")):
            kw = dict(backend=backend, cpu_parallel=(key == "gpu"), subdomains=n, form="mean-value")
            if tiny:
                kw["max_nodes"] = 3
            rec = R.row("fig6cd", R.solve, p2, 2, "P2", **kw)
            if rec:
                cd[key].append(rec)
                if n == 1 and backend == "cpu":
                    cd["single_interval"] = rec
                R.save()
    # Table 1: Problem (4), d = 2, 1024 subdomains, six constraint sets
    R.section(a.budget * 0.22)
    for k in ((range(1, 3) if tiny else range(1, 7)) if "table1" in sections else ()):
        kw = dict(backend=gpu, subdomains=16 if tiny else 1024, form="mean-value")
        if tiny:
            kw["max_nodes"] = 3
        rec = R.row("table1", R.solve, problem(f"P4_{k}"), 2, f"P4_{k}", **kw)
        if rec:
            rec["constraints"] = PAPER001.TABLE1[k - 1][0]
            R.data["table1"].append(rec)
            R.save()

    # Table 4: library Alpine02 / Styblinski-Tang at the paper's subdomain counts
    R.section(a.budget * 0.25)
    rows = [("alpine02", 6, (1296, 1728, 2304, 4096)), ("styblinski_tang", 6, (1296, 1728, 2304, 4096)),
            ("alpine02", 7, (1458, 2187)), ("styblinski_tang", 7, (1458, 2187))]
    if tiny:
        rows = [("alpine02", 3, (8,)), ("styblinski_tang", 3, (8,))]
    for name, d, counts in (rows if "table4" in sections else ()):
        for n in counts:
            kw = dict(backend=gpu, subdomains=n, partition="adaptive", form="mean-value",
                      time_limit=R.row_cap * (1 if tiny else 2))
            if tiny:
                kw["max_nodes"] = 3
            rec = R.row("table4", R.solve, functions.get(name), d, name, **kw)
            if rec:
                R.data["table4"].append(rec)
                R.save()
    # Table 3: Problem (3), max ANN_Alpine02,d, at the paper's subdomain counts (opt-in)
    counts3 = {2: (1024, 1600, 2304), 3: (1000, 1728, 2197), 4: (625, 1296, 2058),
               5: (1024, 1280, 1600, 2000, 2500), 6: (1296, 1728, 2304, 4096)}
    R.data["table3"] = []
    if "table3" in sections:
        R.sec_end = R.t_end
        for d in map(int, a.table3_dims.split(",")):
            p3 = problem(f"P3_{d}")
            for n in ((8,) if tiny else counts3[d]):
                kw = dict(backend=gpu, subdomains=n, partition="adaptive", form="mean-value")
                if tiny:
                    kw["max_nodes"] = 3
                rec = R.row("table3", R.solve, p3, d, f"P3_{d}", **kw)
                if rec:
                    R.data["table3"].append(rec)
                    R.save()
    R.data["total_seconds"] = a.budget - (R.t_end - time.perf_counter())
    R.save()
    print(f"wrote {out / 'gpu_bnb.json'}")


if __name__ == "__main__":
    main()
