"""Variant strong on the CPU twin with and without the coupled least-squares bound (docs/scipy_go.md, "lsq41"):

    python scripts/lsq_floor_probe.py FUNCTION N SECONDS on|off|always [SPLIT_DIMS [MAX_ITERATIONS (0: none) [BACKEND]]]

One line: the stop, GLB, GUB, gap, iterations, seconds, and the subregions the bound dropped.  The same code
either way (``lsq_floor.ENABLED``), so the two lines differ by the bound alone; ``always`` runs the bound in
every iteration (no cost gate: its iteration counts do not depend on the machine's timings, as ``on``'s
do).  Not stored anywhere.
"""
import sys

from gpubench.methods import minimize
from gpubench.methods.solver import lsq_floor

name, n, seconds, side = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
split = int(sys.argv[5]) if len(sys.argv) > 5 else 3
cap = (int(sys.argv[6]) or None) if len(sys.argv) > 6 else None   # GLB at equal iterations: what the bound does per iteration
backend = sys.argv[7] if len(sys.argv) > 7 else "cpu"
lsq_floor.ENABLED = side in ("on", "always")
if side == "always":
    lsq_floor.BUDGET = float("inf")
# a one-iteration warm-up first, as the experiments do: the forms' compilation and the residuals' trees
# (forms/lsq.py, kept on the function object) stay out of the measured search
minimize(f"scipy_go.{name}", n, "interval", backend=backend, variant="strong", split_dims=split, tol=1e-7,
         gap_tol=1e-6, max_iterations=1)
r = minimize(f"scipy_go.{name}", n, "interval", backend=backend, variant="strong", split_dims=split, tol=1e-7,
             gap_tol=1e-6, time_limit=seconds, max_iterations=cap)
print(f"{name} n={n} split={split} lsq={side} backend={backend} stop={r.stop} GLB={r.glb:.10g} GUB={r.gub:.10g} "
      f"gap={r.gub - r.glb:.3g} iterations={r.iterations} seconds={r.seconds:.2f} "
      f"lsq_dropped={r.options.get('contracted', {}).get('lsq_dropped')}", flush=True)
