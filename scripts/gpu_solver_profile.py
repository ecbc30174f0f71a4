"""Where a warm solve's time goes on the GPU host: one JSON record per case.

    python scripts/gpu_solver_profile.py OUT.json levy:1000 levy:50 rosenbrock:50

Per case: one cold iteration (compiles), then one warm solve under cProfile
(the top functions by own time, and the CUDA driver calls counted), the
solver's own split (kernel, reduction, sweep, host tables) and the sweep
kernel's occupancy figures (registers per thread, resident blocks per block
size, the size the solver picked).
"""
import cProfile
import io
import json
import pstats
import sys
import time

from gpubench import environment
from gpubench.solver import core, solve
from gpubench.solver.sweep import BLOCK_SIZES


def occupancy(search):
    sweep = search.sweep
    kernel = sweep.module.sweep_split if search.settings.evaluation == "split" else sweep.module.sweep
    out = {"picked_threads_per_block": sweep.block_sizes.get(kernel)}
    for sig, k in kernel.overloads.items():
        out["regs_per_thread"] = getattr(k, "regs_per_thread", None)
        out["local_mem_per_thread"] = getattr(k, "local_mem_per_thread", None)
        out["resident_blocks"] = {t: k.max_cooperative_grid_blocks(t) for t in BLOCK_SIZES}
    return out


def main(path, cases):
    env = environment.capture()
    records = []
    for case in cases:
        name, n = case.split(":")
        n = int(n)
        t0 = time.perf_counter()
        solve(name, n, backend="cuda", max_iterations=1)
        cold = time.perf_counter() - t0
        searches = []
        real_init = core.Search.__init__

        def keep(self, *a, **k):
            real_init(self, *a, **k)
            searches.append(self)

        core.Search.__init__ = keep
        prof = cProfile.Profile()
        t0 = time.perf_counter()
        prof.enable()
        r = solve(name, n, backend="cuda")
        prof.disable()
        warm = time.perf_counter() - t0
        core.Search.__init__ = real_init
        s = io.StringIO()
        st = pstats.Stats(prof, stream=s)
        st.sort_stats("tottime").print_stats(30)
        driver = sum(v[0] for k, v in st.stats.items() if "driver" in k[0] and k[2].startswith("cu"))
        rec = {"function": name, "dim": n, "iterations": r.iterations, "n_regions": r.n_regions,
               "glb": r.glb, "gub": r.gub, "seconds_first_iteration_cold": cold,
               "seconds_warm_profiled": warm, "timing": r.timing, "driver_calls": driver,
               "occupancy": occupancy(searches[-1]), "profile_top": s.getvalue(), "environment": env}
        records.append(rec)
        print(f"{name} n={n} its={r.iterations} regions={r.n_regions} warm(profiled)={warm:.3f}s "
              f"timing={json.dumps(r.timing)} driver_calls={driver} occ={rec['occupancy']}", flush=True)
        with open(path, "w") as f:
            json.dump(records, f, indent=1, default=str)
    return records


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
