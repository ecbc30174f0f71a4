"""CPU probe of variant strong with the chain's cells off and on, one function at one n (docs/scipy_go.md, hard41).

    .venv/bin/python benchmarks/profiling/chain_probe.py FUNCTION N [SECONDS [CELLS ...]]   # e.g. Rana 5 10 0 64

The search is scipy_go_certify's `interval_strong` entry (variant strong, parts 4, tol 1e-7,
gap_tol 1e-6) in the CPU twin's shape (split_dims = min(n, 6)), with ``gpubench.forms.chain.CELLS``
set to each CELLS in turn (default 0 and 64; 0 is the default, 64 what GPUBENCH_CHAIN_CELLS=64 sets).
One warm-up iteration loads the forms (and compiles the chain's cells) before each, then SECONDS of
search (default 10).  One JSON line per setting: GLB, GUB, the gap, iterations, seconds, what stopped
it, the GUB point.  A probe, not the experiment: nothing is stored.
"""
import json
import sys
import time

from gpubench.forms import chain
from gpubench.methods import minimize


def main(name, n, seconds=10.0, cells=(0, 64)):
    settings = dict(backend="cpu", variant="strong", split_dims=min(n, 6), parts=4, tol=1e-7, gap_tol=1e-6)
    for k in cells:
        chain.CELLS = k
        minimize(name, n, method="interval", max_iterations=1, **settings)   # loads, compiles
        t = time.perf_counter()
        r = minimize(name, n, method="interval", time_limit=seconds, **settings)
        print(json.dumps(dict(function=name, n=n, cells=k, glb=r.glb, gub=r.gub, gap=r.gub - r.glb,
                              iterations=r.iterations, seconds=round(r.seconds, 2), stop=r.stop,
                              wall=round(time.perf_counter() - t, 1),
                              x=None if r.x is None else [float(v) for v in r.x])), flush=True)


if __name__ == "__main__":
    from gpubench.errors import InputError
    if len(sys.argv) < 3:
        sys.exit("usage: chain_probe.py FUNCTION N [SECONDS [CELLS ...]]")
    try:
        fname = sys.argv[1] if "." in sys.argv[1] else "scipy_go." + sys.argv[1]
        rest = [int(c) for c in sys.argv[4:]] or [0, 64]
        main(fname, int(sys.argv[2]), float(sys.argv[3]) if len(sys.argv) >= 4 else 10.0, rest)
    except (InputError, ValueError) as exc:
        sys.exit(f"chain_probe: error: {exc}")
