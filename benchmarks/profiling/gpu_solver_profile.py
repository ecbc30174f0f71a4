"""Where a warm solve's time goes on the GPU host: one JSON record per case.

    python benchmarks/profiling/gpu_solver_profile.py OUT.json levy:1000 levy:50 rosenbrock:50 levy:1000:device

A third field ``device`` runs the device-resident loop (``loop = "device"``, issue 26): its record
has the warm solve timed without the profiler too, the cooperative grid the loop picked, the loop
kernel's registers and local memory per thread and its launches.

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

from gpubench.device import environment
from gpubench.methods.solver import core, solve
from gpubench.methods.solver.sweep import BLOCK_SIZES


def occupancy(search):
    sweep = search.sweep
    kernel = sweep.module.sweep_split if search.settings.evaluation == "split" else sweep.module.sweep
    out = {"picked_threads_per_block": sweep.block_sizes.get(kernel)}
    for sig, k in kernel.overloads.items():
        out["regs_per_thread"] = getattr(k, "regs_per_thread", None)
        out["local_mem_per_thread"] = getattr(k, "local_mem_per_thread", None)
        out["resident_blocks"] = {t: k.max_cooperative_grid_blocks(t) for t in BLOCK_SIZES}
    return out


def loop_occupancy(loop):
    kernel = loop.module.device_loop
    out = {"grid": list(loop.grid), "launches": loop.launches}
    for k in kernel.overloads.values():
        out["regs_per_thread"] = getattr(k, "regs_per_thread", None)
        out["local_mem_per_thread"] = getattr(k, "local_mem_per_thread", None)
        out["resident_blocks"] = {t: k.max_cooperative_grid_blocks(t) for t in BLOCK_SIZES}
    return out


def main(path, cases):
    env = environment.capture()
    records = []
    for case in cases:
        name, n, *loop = case.split(":")
        n, opts = int(n), ({"loop": loop[0]} if loop else {})
        t0 = time.perf_counter()
        solve(name, n, backend="cuda", max_iterations=1, **opts)
        cold = time.perf_counter() - t0
        plain = None
        if opts:
            t0 = time.perf_counter()
            solve(name, n, backend="cuda", **opts)
            plain = time.perf_counter() - t0
        searches, loops = [], []
        real_init = core.Search.__init__

        def keep(self, *a, **k):
            real_init(self, *a, **k)
            searches.append(self)

        core.Search.__init__ = keep
        if opts:
            from gpubench.methods.solver import devloop
            real_loop = devloop.DeviceLoop.__init__

            def keep_loop(self, *a, **k):
                real_loop(self, *a, **k)
                loops.append(self)
            devloop.DeviceLoop.__init__ = keep_loop
        prof = cProfile.Profile()
        t0 = time.perf_counter()
        prof.enable()
        r = solve(name, n, backend="cuda", **opts)
        prof.disable()
        warm = time.perf_counter() - t0
        core.Search.__init__ = real_init
        if opts:
            devloop.DeviceLoop.__init__ = real_loop
        s = io.StringIO()
        st = pstats.Stats(prof, stream=s)
        st.sort_stats("tottime").print_stats(30)
        driver = sum(v[0] for k, v in st.stats.items() if "driver" in k[0] and k[2].startswith("cu"))
        rec = {"function": name, "dim": n, "loop": opts.get("loop", "host"), "iterations": r.iterations, "n_regions": r.n_regions,
               "glb": r.glb, "gub": r.gub, "seconds_first_iteration_cold": cold,
               "seconds_warm_profiled": warm, "seconds_warm": plain, "timing": r.timing,
               "driver_calls": driver, "occupancy": loop_occupancy(loops[-1]) if loops else occupancy(searches[-1]), "profile_top": s.getvalue(), "environment": env}
        records.append(rec)
        print(f"{name} n={n} loop={rec['loop']} warm={plain} its={r.iterations} regions={r.n_regions} warm(profiled)={warm:.3f}s "
              f"timing={json.dumps(r.timing)} driver_calls={driver} occ={rec['occupancy']}", flush=True)
        with open(path, "w") as f:
            json.dump(records, f, indent=1, default=str)
    return records


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
