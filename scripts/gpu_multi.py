"""Table 1's ten solves through the runner's Dask path: one GPU against one worker per GPU (issue 11).

    python scripts/gpu_multi.py OUTDIR --workers 1 [--warm] [--experiment table1] [--quick]
    python scripts/gpu_multi.py OUTDIR --workers 2

Each ``--workers K`` runs ``python -m gpubench reproduce EXPERIMENT --workers K --results
OUTDIR/wK`` in a new process and times it end to end (cluster start, the workers' kernel loads
and warm-ups, the solves, the records written).  With K workers on a host of G GPUs the runner
gives worker i the (i mod G)-th visible GPU (gpubench.runner.gpu_worker_spec; the parent's
``CUDA_VISIBLE_DEVICES``, when set, is the list), so K = 1 is
one GPU and K = 2 on a two-GPU host is both.  ``--warm`` first fills the on-disk kernel cache
(one iteration of each function, timed: that is the cold compile) so that every timed run loads
kernels from the cache and the runs differ only in how many GPUs share the cases.

One JSON line per K goes to OUTDIR/multi_gpu.jsonl (rewritten atomically; a K already there is
skipped): wall seconds, the sum of the cases' solve seconds, and each case's iterations,
regions, GLB and GUB, which must be the same whatever K is (``counts_equal`` compares them with
the first stored run).
"""
import argparse
import json
import os
import subprocess
import sys
import time

from gpubench import environment
from gpubench.device import atomic_write, gpu_count
from gpubench.runner import load_records

RECORDS = "multi_gpu.jsonl"


def _lines(outdir):
    path = os.path.join(outdir, RECORDS)
    return [json.loads(ln) for ln in open(path).read().splitlines() if ln.strip()] if os.path.exists(path) else []


def _store(outdir, rows):
    atomic_write(os.path.join(outdir, RECORDS), "".join(json.dumps(r) + "\n" for r in rows))


def warm_cache(experiment, quick, backend):
    """One iteration of every case at its own settings: compiles (or loads) each kernel once."""
    from gpubench import functions
    from gpubench.experiments_loader import load
    from gpubench.runner import plan
    from gpubench.solver.core import Search, Settings
    out = {}
    for c in plan(load(experiment), quick=quick, backend=backend):
        t0 = time.perf_counter()
        Search(functions.get(c.function), c.dim,
               Settings.build("warm-up", dict(c.settings, max_iterations=1))).run()
        out[f"{c.function}:{c.dim}"] = time.perf_counter() - t0
        print(f"warm {c.function}:{c.dim} {out[f'{c.function}:{c.dim}']:.1f} s", flush=True)
    return out


def cases(folder):
    return {f"{r['function']}:{r['dim']}": {k: r["measured"][k] for k in ("iterations", "regions", "glb", "gub", "seconds")}
            for r in load_records(folder)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--workers", type=int, required=True)
    ap.add_argument("--experiment", default="table1")
    ap.add_argument("--quick", action="store_true", help="the experiment's quick variant (a CPU or the simulator)")
    ap.add_argument("--warm", action="store_true", help="fill the kernel cache first (timed apart)")
    ap.add_argument("--backend", default="cuda", help="backend of every case (cuda; cpu to test the script)")
    a = ap.parse_args(argv)
    os.makedirs(a.outdir, exist_ok=True)
    rows = _lines(a.outdir)
    if any(r["workers"] == a.workers and r["experiment"] == a.experiment for r in rows):
        print(f"workers={a.workers}: already stored", flush=True)
        return 0
    warm = warm_cache(a.experiment, a.quick, a.backend) if a.warm else None
    folder = os.path.join(a.outdir, f"w{a.workers}")
    cmd = [sys.executable, "-m", "gpubench", "reproduce", a.experiment, "--workers", str(a.workers),
           "--results", folder, "--backend", a.backend] + (["--quick"] if a.quick else [])
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    atomic_write(os.path.join(a.outdir, f"w{a.workers}.log"), p.stdout + "\n" + p.stderr)  # whole, for a post-mortem
    print(p.stdout[-3000:], p.stderr[-3000:], sep="\n", flush=True)
    if p.returncode != 0:
        print(f"reproduce failed with exit {p.returncode}", flush=True)
        return p.returncode
    got = cases(os.path.join(folder, a.experiment))
    ref = rows[0]["cases"] if rows else None
    same = None if ref is None else all(
        {k: v for k, v in got[c].items() if k != "seconds"} == {k: v for k, v in ref[c].items() if k != "seconds"}
        for c in ref if c in got) and set(ref) == set(got)
    gpus = gpu_count()
    row = {"experiment": a.experiment, "quick": a.quick, "workers": a.workers, "gpus_visible": gpus,
           "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
           "gpus_used": min(a.workers, gpus) if gpus else 0, "command": " ".join(cmd[1:]),
           "wall_seconds": wall, "sum_case_seconds": sum(c["seconds"] for c in got.values()),
           "cases": got, "counts_equal": same, "warm_cache_seconds": warm,
           "environment": environment.capture()}
    _store(a.outdir, rows + [row])
    print(f"workers={a.workers} gpus={row['gpus_used']} wall={wall:.1f} s, cases' solve time "
          f"{row['sum_case_seconds']:.1f} s, counts equal to the first run: {same}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
