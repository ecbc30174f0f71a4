"""GPU checks of the hardening issue (issue 10), for the GPU host: ``python scripts/gpu_harden.py OUTDIR``.

1. Early stops at n = 50 on the GPU (Levy, the paper's s = 10, p = 4) after 1, 3 and 5
   iterations: open regions, peak resident memory, seconds to build the result's
   arrays, size of ``--json``.  (Before: n = 50 was killed for memory at 24 GB.)
2. A user function with Abs, Min and Max (interval forms of sign and Heaviside) solved
   on the GPU and on the CPU: iterations, bounds and regions of both (its minimisers form a
   segment, f* = 0; the CPU's and the GPU's directed roundings differ by ulps, so near-ties
   may be pruned differently: the regions are reported, not required to be equal).
3. A function undefined on part of its box (sqrt of negatives) on the GPU: the kernel
   keeps the empty enclosure and the search stops with a one-line InputError.

``--tiny`` runs everything at toy sizes (under NUMBA_ENABLE_CUDASIM=1 without a GPU).
Writes OUTDIR/gpu_harden.json with ``gpubench.environment.capture()``.
"""
import json
import os
import resource
import sys
import tempfile
import textwrap
import time

import numpy as np

KINKS = textwrap.dedent("""
    import numpy as np
    import sympy
    from gpubench.definition import Definition, Sum, sqrt, x, y, symbols
    S = symbols("S")
    KINK = Definition(name="kink", title="kinks", source="gpu_harden",
                      terms={S: Sum(sympy.Abs(x - 1) + sympy.Max(x, y) - sympy.Min(x, 2 * y))}, expr=S,
                      domain=(-3, 4), xstar=lambda n: np.ones(n), fstar=lambda n: 0.0)
    SQ = Definition(name="sq", title="sqrt", source="gpu_harden", terms={S: Sum(sqrt(x))}, expr=S,
                    domain=(-1, 4), xstar=lambda n: np.zeros(n), fstar=lambda n: 0.0)
""")


def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def early_stops(tiny, out):
    from gpubench import functions
    from gpubench.solver.core import Search, Settings
    dim, s, p = (6, 3, 2) if tiny else (50, 10, 4)
    its = (1, 2) if tiny else (1, 3, 5)
    fn = functions.get("levy")
    t0 = time.perf_counter()
    Search(fn, dim, Settings(backend="cuda", split_dims=s, parts=p, max_iterations=1)).run()  # warm-up
    out["warmup_seconds"] = time.perf_counter() - t0
    rows = []
    for k in its:
        search = Search(fn, dim, Settings(backend="cuda", split_dims=s, parts=p, max_iterations=k))
        t0 = time.perf_counter()
        search.run()
        t_search = time.perf_counter() - t0
        before = peak_mb()
        t0 = time.perf_counter()
        r = search.result("stopped at max_iterations")
        t_result = time.perf_counter() - t0
        js = json.dumps(r.to_json(max_regions=100))
        rows.append({"dim": dim, "iterations": k, "regions": r.n_regions,
                     "array_mb": 16 * dim * r.n_regions / 2**20, "search_seconds": t_search,
                     "result_seconds": t_result, "peak_rss_mb_before_result": before,
                     "peak_rss_mb_after_result": peak_mb(), "json_bytes": len(js)})
        print(json.dumps(rows[-1]), flush=True)
        del r, search
    out["early_stops"] = rows


def kinks(tiny, out, path):
    from gpubench import functions
    from gpubench.errors import InputError
    from gpubench.solver import solve
    fn = functions.get(f"{path}:KINK")
    dim, s, p, tol = (2, 2, 2, 1e-2) if tiny else (4, 4, 4, 1e-4)
    res = {}
    for backend in ("cuda", "cpu"):
        t0 = time.perf_counter()
        r = solve(fn, dim, backend=backend, split_dims=s, parts=p, tol=tol, max_iterations=30 if tiny else 400)
        res[backend] = r
        res[backend + "_seconds"] = time.perf_counter() - t0
    g, c = res["cuda"], res["cpu"]
    out["kinks"] = {"dim": dim, "iterations": [g.iterations, c.iterations], "glb": [g.glb, c.glb],
                    "gub": [g.gub, c.gub], "regions": [g.n_regions, c.n_regions],
                    "regions_bit_identical": bool(g.regions_lo.tobytes() == c.regions_lo.tobytes()
                                              and g.regions_hi.tobytes() == c.regions_hi.tobytes()),
                    "seconds": [res["cuda_seconds"], res["cpu_seconds"]]}
    print(json.dumps(out["kinks"]), flush=True)
    try:
        solve(functions.get(f"{path}:SQ"), 2 if tiny else 10, backend="cuda", split_dims=2 if tiny else 10)
        out["undefined"] = {"stopped": False}
    except InputError as exc:
        out["undefined"] = {"stopped": True, "message": str(exc)}
    print(json.dumps(out["undefined"]), flush=True)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    tiny = "--tiny" in sys.argv
    if not args:
        sys.exit("usage: gpu_harden.py OUTDIR [--tiny]")
    outdir = args[0]
    os.makedirs(outdir, exist_ok=True)
    from gpubench.environment import capture
    out = {"environment": capture(), "tiny": tiny}
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "kinks.py")
        with open(path, "w") as fh:
            fh.write(KINKS)
        t0 = time.perf_counter()
        early_stops(tiny, out)
        kinks(tiny, out, path)
        out["total_seconds"] = time.perf_counter() - t0
    with open(os.path.join(outdir, "gpu_harden.json"), "w") as fh:
        json.dump(out, fh, indent=1, default=float)
    print(f"wrote {os.path.join(outdir, 'gpu_harden.json')} in {out['total_seconds']:.1f} s")


if __name__ == "__main__":
    main()
