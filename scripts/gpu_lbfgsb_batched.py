"""The fused L-BFGS-B driver on the GPU host, per-evaluation (sync_every=1) against batched (16):
ms an iteration on torsion at issue 43's four sizes, the host reads, and whether the two give the
same iterations, evaluations, f and x (they must, where two per-evaluation runs agree: the batched
driver's decisions are the same; the block sums' atomics may make any two GPU runs differ).

    python scripts/gpu_lbfgsb_batched.py [--sizes 10000,160000,1000000,4000000] [--iterations 200]

Prints one JSON line a case; needs CuPy and a GPU.  Each case runs once untimed first (compiles).
"""
import argparse
import json
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,160000,1000000,4000000")
    ap.add_argument("--iterations", type=int, default=200)
    a = ap.parse_args()
    import cupy as cp
    from gpubench.methods.lbfgsb import fused, shared
    from gpubench.problems import minpack2
    for n in (int(v) for v in a.sizes.split(",")):
        p = minpack2.make("torsion", n)
        lo, hi, x0 = p.on(cp)
        _, g0 = p.fg_stencil(x0)
        pg0 = float(cp.abs(cp.clip(x0 - g0, lo, hi) - x0).max())
        out = {}
        for run, every in enumerate((1, 16, 1)):
            args = dict(m=5, pgtol=1e-5 * pg0, factr=0.0, backend=cp, sync_every=every)
            fused.minimize(p.fg_stencil, x0, lo, hi, maxiter=3, **args)
            cp.cuda.Stream.null.synchronize()
            s0 = shared.SYNC["count"]
            t = time.perf_counter()
            r = fused.minimize(p.fg_stencil, x0, lo, hi, maxiter=a.iterations, **args)
            cp.cuda.Stream.null.synchronize()
            dt = time.perf_counter() - t
            out[run] = r
            print(json.dumps({"n": n, "sync_every": every, "iterations": r.iterations, "nfev": r.nfev,
                              "host_reads": shared.SYNC["count"] - s0,
                              "ms_per_iteration": 1e3 * dt / max(r.iterations, 1),
                              "fun": r.fun, "message": r.message}), flush=True)
        def same(u, v):
            return ((u.iterations, u.nfev, u.fun, u.message) == (v.iterations, v.nfev, v.fun, v.message)
                    and bool(cp.array_equal(u.x, v.x)))
        # the block sums' atomics make two runs of one driver differ in the last bits where the
        # order of the blocks does: the batched one is compared with that baseline
        print(json.dumps({"n": n, "same_1_vs_16": same(out[0], out[1]), "same_1_vs_1": same(out[0], out[2])}),
              flush=True)


if __name__ == "__main__":
    main()
