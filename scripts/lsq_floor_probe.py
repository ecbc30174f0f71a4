"""Variant strong on the CPU twin with and without the coupled least-squares bound (docs/scipy_go.md, "lsq41"):

    python scripts/lsq_floor_probe.py FUNCTION N SECONDS on|off|always [SPLIT_DIMS [MAX_ITERATIONS]]

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
cap = int(sys.argv[6]) if len(sys.argv) > 6 else None   # GLB at equal iterations: what the bound does per iteration
lsq_floor.ENABLED = side in ("on", "always")
if side == "always":
    lsq_floor.BUDGET = float("inf")
r = minimize(f"scipy_go.{name}", n, "interval", backend="cpu", variant="strong", split_dims=split, tol=1e-7,
             gap_tol=1e-6, time_limit=seconds, max_iterations=cap)
print(f"{name} n={n} split={split} lsq={side} stop={r.stop} GLB={r.glb:.10g} GUB={r.gub:.10g} "
      f"gap={r.gub - r.glb:.3g} iterations={r.iterations} seconds={r.seconds:.2f} "
      f"lsq_dropped={r.options.get('contracted', {}).get('lsq_dropped')}", flush=True)
