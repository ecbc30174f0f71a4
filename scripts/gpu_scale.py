"""The rigorous solver at the paper's scale on one GPU (issue 11): resumable, one JSON line per case.

    python scripts/gpu_scale.py OUTDIR [--tiny] [--cases levy:50 rosenbrock:500 ...] [--budget SECONDS]

Cases (paper 000, Zhang, Shan & Cagan 2026, PNAS Nexus 5(4) pgag103): Table 2's Levy rows
n = 50, 100, 500, 1000, 2000, 5000, 10000; Table 1's ten multimodal functions at n = 1000;
Table S11's Rosenbrock at n = 500 and 1000.  Settings are the paper's (s = 10, p = 4,
tol = 1e-4, 10 samples, the split evaluation).

Each case appends one JSON line to OUTDIR/solver_h200.jsonl (the whole file is rewritten
atomically, so a kill leaves the old file or the new one) with iterations, regions, GLB, GUB,
seconds and the environment, in the format scripts/import_gpu_solver_records.py reads.  A case
already in that file is skipped.  A case checkpoints to OUTDIR/checkpoints/CASE.npz every 30 s
(and when it pauses); the next command resumes it, so a solve longer than one 10-minute command
spans several.  ``--budget`` (default 540 s) bounds one command: no case starts after it, and
the running case pauses at it (checkpointed) and resumes in the next command.

Timings: ``compile_seconds`` is the first iteration of a function in this process (numba-cuda
compiles the kernel, or loads it from the on-disk cache), ``seconds`` the search itself,
summed over the commands it took (``commands``).  After the cases, if budget is left and it
has not been measured yet, the second-process start is measured: ``python -m gpubench solve
levy --dim 50 --backend cuda --json`` timed end to end, once with an empty cache folder
(cold) and then twice with that folder warm (second process), into OUTDIR/second_process.jsonl.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from gpubench import environment, functions
from gpubench.device import atomic_write
from gpubench.solver import checkpoint as ckpt
from gpubench.solver.core import Search, Settings

LEVY = [f"levy:{n}" for n in (50, 100, 500, 1000, 2000, 5000, 10000)]
TABLE1 = [f"{f}:1000" for f in ("ackley", "belegundu", "breiman", "fu", "griewank", "rastrigin",
                                  "salomon", "styblinski", "zabinsky")]  # levy:1000 is in LEVY
ROSENBROCK = ["rosenbrock:500", "rosenbrock:1000"]
# shortest first, so one command stores the most rows; the long ones resume across commands
DEFAULT_CASES = LEVY[:4] + TABLE1 + ROSENBROCK[:1] + LEVY[4:] + ROSENBROCK[1:]
TINY_CASES = ["levy:6", "griewank:6", "rosenbrock:5"]
TINY_SETTINGS = dict(split_dims=2, parts=4, tol=1e-2, samples=3)
RECORDS = "solver_h200.jsonl"


def _done(outdir, name=RECORDS):
    path = os.path.join(outdir, name)
    if not os.path.exists(path):
        return [], set()
    lines = [ln for ln in open(path).read().splitlines() if ln.strip()]
    return lines, {json.loads(ln)["case"] for ln in lines}


def _append(outdir, rec, name=RECORDS):
    lines, _ = _done(outdir, name)
    atomic_write(os.path.join(outdir, name), "\n".join(lines + [json.dumps(rec)]) + "\n")


def run_case(case, outdir, settings_values, deadline, compiled):
    name, n = case.split(":")
    n = int(n)
    fn = functions.get(name)
    settings = Settings.build("interval solver", dict(settings_values, backend="cuda"))
    path = os.path.join(outdir, "checkpoints", case.replace(":", "_") + ".npz")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    compile_s = None
    if name not in compiled:
        # the first iteration compiles (or loads from the disk cache) this function's kernel
        t0 = time.perf_counter()
        warm = Search(fn, n, Settings.build("interval solver", dict(settings_values, backend="cuda",
                                                                      max_iterations=1)))
        warm.run()
        compile_s = time.perf_counter() - t0
        compiled[name] = compile_s
    search = Search(fn, n, settings)
    resumed = os.path.exists(path)
    if resumed:
        ckpt.restore(path, search)
    # pause at the deadline: time_limit counts the search's seconds over every command so far
    search.settings.time_limit = search.state.seconds + max(1.0, deadline - time.perf_counter())
    result = search.run(checkpoint=path, checkpoint_every=30.0)
    state_file = path + ".commands"
    commands = (int(open(state_file).read()) if os.path.exists(state_file) else 0) + 1
    if not result.converged and result.message == "stopped at time_limit":
        atomic_write(state_file, str(commands))
        print(f"{case:16s} paused at iteration {result.iterations} after {result.seconds:.1f} s "
              f"(checkpoint {path})", flush=True)
        return False
    # the pause deadline above is how a command bounds the search, not a setting of the solve
    options = dict(result.options, time_limit=settings_values.get("time_limit"))
    rec = {"case": case, "function": name, "dim": n, "backend": "cuda", "settings": options,
           "iterations": result.iterations, "n_regions": result.n_regions, "glb": result.glb,
           "gub": result.gub, "fun": result.fun, "nfev": result.nfev, "njev": result.njev,
           "converged": result.converged, "message": result.message,
           "seconds": result.seconds, "commands": commands, "resumed": resumed,
           "compile_seconds": compile_s if compile_s is not None else compiled.get(name),
           "per_iteration_ms": 1000.0 * result.seconds / max(result.iterations, 1),
           # the names scripts/import_gpu_solver_records.py reads
           "seconds_first_iteration_cold": compile_s if compile_s is not None else compiled.get(name),
           "seconds_warm": [result.seconds], "solver_seconds_warm": result.seconds,
           "history": result.history, "timing": result.timing, "regions": result.regions(),
           "environment": environment.capture()}
    _append(outdir, rec)
    for leftover in (path, state_file):
        if os.path.exists(leftover):
            os.remove(leftover)
    print(f"{case:16s} its={result.iterations:6d} regions={result.n_regions:4d} glb={result.glb:.4e} "
          f"gub={result.gub:.4e} seconds={result.seconds:9.2f} per_it={rec['per_iteration_ms']:.2f} ms "
          f"compile={rec['compile_seconds']}", flush=True)
    return True


def second_process(outdir, tiny, deadline):
    """End-to-end `python -m gpubench solve` in a new process: cold cache, then warm cache."""
    _, done = _done(outdir, "second_process.jsonl")
    if "levy-second-process" in done:
        return
    args = [sys.executable, "-m", "gpubench", "solve", "levy", "--dim", "6" if tiny else "50",
            "--backend", "cuda", "--json"]
    if tiny:
        args += ["--split-dims", "2", "--tol", "1e-2", "--samples", "3", "--max-iterations", "3"]
    times = []
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, GPUBENCH_CACHE=cache)
        for attempt in range(3):
            if time.perf_counter() > deadline:
                return
            t0 = time.perf_counter()
            p = subprocess.run(args, env=env, capture_output=True, text=True)
            times.append(time.perf_counter() - t0)
            if p.returncode != 0:
                print(p.stderr[-2000:], file=sys.stderr)
                return
            out = json.loads(p.stdout)
    rec = {"case": "levy-second-process", "command": " ".join(args[1:]), "cold_empty_cache_s": times[0],
           "second_process_s": times[1:], "iterations": out.get("iterations"),
           "solver_seconds": out.get("seconds"), "environment": environment.capture()}
    _append(outdir, rec, "second_process.jsonl")
    print(f"second process: cold {times[0]:.2f} s, warm cache {min(times[1:]):.2f} s", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--tiny", action="store_true", help="tiny cases and settings (the CUDA simulator)")
    ap.add_argument("--cases", nargs="+", help="FUNCTION:N cases (default: all of the issue's)")
    ap.add_argument("--budget", type=float, default=540.0, help="seconds for this command (540)")
    args = ap.parse_args(argv)
    start = time.perf_counter()
    deadline = start + args.budget
    os.makedirs(args.outdir, exist_ok=True)
    cases = args.cases or (TINY_CASES if args.tiny else DEFAULT_CASES)
    values = dict(TINY_SETTINGS, max_iterations=None) if args.tiny else {}
    values = {k: v for k, v in values.items() if v is not None}
    _, done = _done(args.outdir)
    compiled = {}
    finished = True
    for case in cases:
        if case in done:
            print(f"{case:16s} already stored", flush=True)
            continue
        if time.perf_counter() >= deadline:
            finished = False
            print(f"budget spent: {case} and later cases wait for the next command", flush=True)
            break
        if not run_case(case, args.outdir, values, deadline, compiled):
            finished = False
            break
    if finished:
        second_process(args.outdir, args.tiny, deadline)
    print(f"this command: {time.perf_counter() - start:.1f} s; "
          f"{'all cases stored' if finished else 'run the same command again to continue'}", flush=True)


if __name__ == "__main__":
    main()
