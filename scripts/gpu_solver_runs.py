"""Run the rigorous solver on the GPU host and store one JSON record per solve.

    python scripts/gpu_solver_runs.py OUTDIR levy:50:3 levy:100 rosenbrock:50 ...

Each case FUNCTION:N[:REPEATS] first runs one iteration (cold: it compiles the
kernel), then the whole solve REPEATS times (warm: the times to report).
Records carry the environment.
"""
import json
import os
import sys
import time

from gpubench import environment
from gpubench.solver import solve


def main(outdir, cases):
    os.makedirs(outdir, exist_ok=True)
    env = environment.capture()
    summary = []
    for case in cases:
        name, n, *rest = case.split(":")
        n = int(n)
        repeat_warm = int(rest[0]) if rest else 1
        opts = {"spacing": rest[1]} if len(rest) > 1 else {}
        # cold: the first iteration, which compiles the function's kernel
        t0 = time.perf_counter()
        solve(name, n, backend="cuda", max_iterations=1, **opts)
        cold_s = time.perf_counter() - t0
        warm = []
        for _ in range(repeat_warm):
            t0 = time.perf_counter()
            r = solve(name, n, backend="cuda", **opts)
            warm.append(time.perf_counter() - t0)
        rec = {"function": name, "dim": n, "backend": "cuda", "settings": r.options,
               "iterations": r.iterations, "n_regions": r.n_regions, "glb": r.glb, "gub": r.gub,
               "fun": r.fun, "nfev": r.nfev, "njev": r.njev, "converged": r.converged,
               "seconds_first_iteration_cold": cold_s, "seconds_warm": warm, "solver_seconds_warm": r.seconds,
               "history": r.history, "timing": r.timing, "regions": r.regions(), "environment": env}
        # one JSON line per case, appended whole: a killed run keeps every finished case
        with open(os.path.join(outdir, "records.jsonl"), "a") as f:
            f.write(json.dumps(rec) + "\n")
            f.flush()
            os.fsync(f.fileno())
        line = (f"{name:12s} {r.options['spacing']:6s} n={n:4d} its={r.iterations:4d} regions={r.n_regions:3d} "
                f"glb={r.glb:.3e} gub={r.gub:.3e} cold={cold_s:7.2f}s warm={min(warm):7.3f}s kernel={r.timing['kernel_seconds']:.3f}s "
                f"sweep={r.timing['sweep_seconds']:.3f}s")
        print(line, flush=True)
        summary.append(line)
    return summary


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
