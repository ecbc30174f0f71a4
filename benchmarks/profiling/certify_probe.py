"""CPU probe of the certification experiment's two interval entries on one function, side by side.

    .venv/bin/python benchmarks/profiling/certify_probe.py FUNCTION N [SECONDS]     # e.g. Bukin06 2 10

The search has the quick setting's shape (split_dims = min(n, 4), evaluation full, on the CPU) with
each entry's other settings as experiments/scipy_go_certify.toml states them: `interval`
(local_search, spacing lower) and `interval_gub` (the same plus local_starts = 8 and polish).  One warm-up iteration compiles the forms, then each entry searches SECONDS (default 10).
One JSON line per entry: GLB, GUB, the gap, whether it is <= 1e-6, iterations, what stopped it.
A probe, not the experiment: nothing is stored (docs/scipy_go.md quotes its figures as CPU figures).
"""
import json
import sys
import time

from gpubench.workflow.experiments_loader import load
from gpubench.methods import minimize


def main(name, n, seconds=10.0):
    experiment = load("scipy_go_certify")
    ftol = experiment.certify["ftol"]
    entries = {m.key: dict(m.settings, backend="cpu", split_dims=min(n, 4), evaluation="full", time_limit=seconds)
               for m in experiment.full.methods}
    minimize(name, n, method="interval", **dict(entries["interval_gub"], max_iterations=1))  # compiles
    for key, settings in entries.items():
        t = time.perf_counter()
        r = minimize(name, n, method="interval", **settings)
        print(json.dumps(dict(function=name, n=n, entry=key, glb=r.glb, gub=r.gub, gap=r.gub - r.glb,
                              certified=bool(r.gub - r.glb <= ftol), iterations=r.iterations, stop=r.stop,
                              wall=round(time.perf_counter() - t, 1),
                              x=None if r.x is None else [float(v) for v in r.x])), flush=True)


if __name__ == "__main__":
    from gpubench.errors import InputError
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: certify_probe.py FUNCTION N [SECONDS]")
    try:
        fname = sys.argv[1] if "." in sys.argv[1] else "scipy_go." + sys.argv[1]
        main(fname, int(sys.argv[2]), float(sys.argv[3]) if len(sys.argv) == 4 else 10.0)
    except (InputError, ValueError) as exc:
        sys.exit(f"certify_probe: error: {exc}")
