"""Paper 003's Figure 3, batch scaling and side-by-side runs on the GPU host (kept: no experiment holds them; Tables 1-3 are `gpubench reproduce kim_exatron_table1..3`).

    python -m gpubench.problems.tron_rows OUTDIR [--tiny]

Writes OUTDIR/tron_gpu.json (rewritten atomically after every section, so a killed
run keeps what finished), with the environment of ``gpubench.device.environment.capture()``:

table1    left- vs right-looking batched Cholesky (and the right-looking one on the 2-D
          layout), 10,000 random SPD matrices per n = 1..32, kernel ms (median of
          repeats, CUDA events), mean over n as the paper's Table 1; torch.linalg.cholesky
          on the same matrices; max |L - L_torch|.
table2    L^T x = b, explicit (L^T copied into the upper triangle inside the kernel,
          counted) vs implicit (row access), 1 and n right-hand sides; torch's
          solve_triangular on the same.
table3    TRON on 10,000 hs45-type problems (f = -prod x_i / i, 0 <= x_i <= i, start
          x_i = i/2; solution x_i = i), problem data in shared vs global memory, n = 8, 16, 32.
figure3   the same TRON batch, 1-D vs 2-D thread layout, n = 1..32: time ratio.
scaling   hs45 n = 32 (and 8), batch 10^3 .. as large as fits in about 20 s in all.
side      tron-gpu vs the numba CPU twin (all host cores) at batches 10^3, 10^4, 10^5 and
          n = 8, 16, 32, 64, and SciPy L-BFGS-B (and trust-constr) looped in one process.

Warm-up launches (compilation) are excluded from the times and reported as
``warmup_s``.  ``--tiny`` runs every section at toy sizes (the CUDA simulator can run it).
"""
import json
import os
import sys
import time

import numpy as np

from gpubench.device import environment
from gpubench.methods import tron
from gpubench.device.gpu import atomic_write, simulator
from gpubench.methods.tron import kernels

TINY = "--tiny" in sys.argv
SIM = simulator()
RECORD = {}
T_START = time.perf_counter()


def save(outdir):
    RECORD["elapsed_s"] = time.perf_counter() - T_START
    atomic_write(os.path.join(outdir, "tron_gpu.json"), json.dumps(RECORD, indent=1, default=float))


def log(*a):
    print(f"[{time.perf_counter() - T_START:7.1f}s]", *a, flush=True)


def gpu_time_ms(launch, reps, prepare=None):
    """Kernel times in ms: CUDA events around each launch (host clock under the simulator);
    ``prepare`` (e.g. restoring the input that the kernel overwrites) runs untimed before."""
    from numba import cuda
    out = []
    for _ in range(reps):
        if prepare is not None:
            prepare()
        cuda.synchronize()
        if SIM:
            t0 = time.perf_counter()
            launch()
            cuda.synchronize()
            out.append(1e3 * (time.perf_counter() - t0))
        else:
            a, b = cuda.event(), cuda.event()
            a.record()
            launch()
            b.record()
            b.synchronize()
            out.append(cuda.event_elapsed_time(a, b))
    return out


def torch_cuda():
    if SIM:
        return None
    try:
        import torch
        return torch if torch.cuda.is_available() else None
    except Exception:
        return None


def torch_time_ms(torch, fn, reps):
    out = []
    for _ in range(reps):
        torch.cuda.synchronize()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        out.append(a.elapsed_time(b))
    return out


def spd_batch(nb, n, seed):
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((nb, n, n))
    return M @ M.transpose(0, 2, 1) + n * np.eye(n)


# ------------------------------------------------------------------ Tables 1 and 2
def tables_1_2(outdir, nb, ns, reps, threads):
    from numba import cuda
    torch = torch_cuda()
    t0 = time.perf_counter()
    A = spd_batch(2, 3, 0)
    tron.cholesky_batch(A, "left", backend="cuda", threads=threads)
    tron.cholesky_batch(A, "right", backend="cuda", layout="2d")
    L = np.linalg.cholesky(A)
    tron.triangular_batch(L, A[:, :1, :], backend="cuda", threads=threads)
    warm = time.perf_counter() - t0
    t1 = {"batch": nb, "reps": reps, "warmup_s": warm, "rows": []}
    t2 = {"batch": nb, "reps": reps, "rows": []}
    for n in ns:
        A = spd_batch(nb, n, 1000 + n)
        flat = np.ascontiguousarray(A.transpose(0, 2, 1).reshape(nb, n * n))
        d0 = cuda.to_device(flat)
        dw = cuda.device_array_like(d0)
        dok = cuda.device_array(nb, dtype=np.int32)
        row = {"n": n}
        for name, variant, layout in (("left", 0, "1d"), ("right", 1, "1d"), ("right_2d", 1, "2d")):
            def launch():
                kernels.launch_linalg("cholesky", dw, n, variant=variant, layout=layout,
                                      threads=threads, ok=dok)
            ms = gpu_time_ms(launch, reps, prepare=lambda: dw.copy_to_device(d0))
            row[f"{name}_ms"] = float(np.median(ms))
        Lg = np.tril(dw.copy_to_host().reshape(nb, n, n).transpose(0, 2, 1))
        row["max_err_vs_numpy"] = float(np.abs(Lg[:4] - np.linalg.cholesky(A[:4])).max())
        row["all_factored"] = bool(dok.copy_to_host().all())
        if torch is not None:
            tA = torch.from_numpy(A).cuda()
            torch.linalg.cholesky(tA)
            row["torch_ms"] = float(np.median(torch_time_ms(torch, lambda: torch.linalg.cholesky(tA), reps)))
            row["max_err_vs_torch"] = float(np.abs(Lg - torch.linalg.cholesky(tA).cpu().numpy()).max())
        t1["rows"].append(row)
        # Table 2 on the factors just computed
        dL = cuda.to_device(np.ascontiguousarray(Lg.transpose(0, 2, 1).reshape(nb, n * n)))
        row2 = {"n": n}
        for nrhs in (1, n):
            B = np.random.default_rng(n).standard_normal((nb, nrhs * n))
            dB0 = cuda.to_device(B)
            dB = cuda.device_array_like(dB0)
            for name, ex in (("explicit", 1), ("implicit", 0)):
                def launch():
                    kernels.launch_linalg("backsolve", dL, n, B=dB, explicit=ex, threads=threads)
                ms = gpu_time_ms(launch, reps, prepare=lambda: dB.copy_to_device(dB0))
                row2[f"{name}_rhs{'1' if nrhs == 1 else 'n'}_ms"] = float(np.median(ms))
            if nrhs == 1:
                X = dB.copy_to_host()
                ref = np.linalg.solve(Lg[:4].transpose(0, 2, 1), B[:4, :, None])[..., 0]
                row2["max_err_vs_numpy"] = float(np.abs(X[:4] - ref).max())
                if torch is not None:
                    tU = torch.from_numpy(Lg.transpose(0, 2, 1).copy()).cuda()
                    tb = torch.from_numpy(B[:, :, None]).cuda()
                    f = lambda: torch.linalg.solve_triangular(tU, tb, upper=True)  # noqa: E731
                    f()
                    row2["torch_ms"] = float(np.median(torch_time_ms(torch, f, reps)))
        t2["rows"].append(row2)
        log(f"n={n:3d} chol left {row['left_ms']:.4f} right {row['right_ms']:.4f} "
            f"torch {row.get('torch_ms', float('nan')):.4f} | L^T explicit {row2['explicit_rhs1_ms']:.4f} "
            f"implicit {row2['implicit_rhs1_ms']:.4f} torch {row2.get('torch_ms', float('nan')):.4f} ms")
    for key in ("left_ms", "right_ms", "right_2d_ms", "torch_ms"):
        vals = [r[key] for r in t1["rows"] if key in r]
        if vals:
            t1[f"mean_{key}"] = float(np.mean(vals))
    for key in ("explicit_rhs1_ms", "implicit_rhs1_ms", "explicit_rhsn_ms", "implicit_rhsn_ms",
                "torch_ms"):
        vals = [r[key] for r in t2["rows"] if key in r]
        if vals:
            t2[f"mean_{key}"] = float(np.mean(vals))
    t1["published_v100_ms"] = {"left": 0.362, "right": 0.437}
    t2["published_v100_ms"] = {"explicit": 0.875, "implicit": 1.408}
    RECORD["table1"], RECORD["table2"] = t1, t2
    save(outdir)


# ------------------------------------------------------------------ TRON on hs45
def hs45(nb, n, **kw):
    res = tron.solve_hs45(nb, n, start="mid", backend=kw.pop("backend", "cuda"), **kw)
    err = float(np.abs(res.x - np.arange(1, n + 1)).max())
    return {"batch": nb, "n": n, "ms": 1e3 * res.seconds,
            "converged": int(np.sum(res.status == 0)), "iteration_limit": int(np.sum(res.status == 1)),
            "failed": int(np.sum(res.status == 2)), "max_abs_err": err,
            "mean_iterations": float(res.iterations.mean()), "options": res.options}


def best_of(reps, **kw):
    runs = [hs45(**kw) for _ in range(reps)]
    best = min(runs, key=lambda r: r["ms"])
    best["ms_all"] = [r["ms"] for r in runs]
    return best


def table3_figure3(outdir, nb, ns3, nsf, reps, threads):
    t0 = time.perf_counter()
    for layout in ("1d", "2d"):
        for memory in ("shared", "global"):
            hs45(2, 3, layout=layout, memory=memory, threads=threads if layout == "1d" else 0)
    warm = time.perf_counter() - t0
    rows = []
    for n in ns3:
        row = {"n": n}
        for memory in ("shared", "global"):
            r = best_of(reps, nb=nb, n=n, memory=memory, threads=threads)
            row[memory] = r
        rows.append(row)
        log(f"table3 n={n}: shared {row['shared']['ms']:.3f} ms, global {row['global']['ms']:.3f} ms, "
            f"err {row['shared']['max_abs_err']:.1e}, converged {row['shared']['converged']}/{nb}")
    RECORD["table3"] = {"warmup_s": warm, "batch": nb, "rows": rows,
                        "problem": "f = -prod x_i / i, 0 <= x_i <= i, x0_i = i/2, x*_i = i",
                        "published_v100_ms": {"shared": 9.536, "global": 16.293}}
    save(outdir)
    rows = []
    for n in nsf:
        r1 = best_of(reps, nb=nb, n=n, layout="1d", threads=threads)
        r2 = best_of(reps, nb=nb, n=n, layout="2d")
        rows.append({"n": n, "ms_1d": r1["ms"], "ms_2d": r2["ms"], "ratio_2d_over_1d": r2["ms"] / r1["ms"],
                     "threads_1d": r1["options"]["block"], "threads_2d": r2["options"]["block"],
                     "converged_1d": r1["converged"], "converged_2d": r2["converged"]})
        log(f"figure3 n={n}: 1d {r1['ms']:.3f} ms, 2d {r2['ms']:.3f} ms, ratio {r2['ms'] / r1['ms']:.2f}")
    RECORD["figure3"] = {"batch": nb, "rows": rows}
    save(outdir)


def scaling(outdir, ns, start, limit_s, cap, threads):
    out = {"limit_s": limit_s, "rows": []}
    spent = 0.0
    for n in ns:
        nb = start
        while nb <= cap and spent < limit_s:
            t0 = time.perf_counter()
            try:
                r = hs45(nb, n, threads=threads)
            except Exception as e:  # out of memory: the largest batch is the one before
                out["rows"].append({"n": n, "batch": nb, "error": str(e).splitlines()[0]})
                break
            spent += time.perf_counter() - t0
            out["rows"].append({k: r[k] for k in ("n", "batch", "ms", "converged", "max_abs_err")})
            log(f"scaling n={n} batch={nb}: {r['ms']:.2f} ms ({r['converged']} converged)")
            if r["ms"] > 1e3 * limit_s / 8:
                break
            nb *= 4
    RECORD["scaling"] = out
    save(outdir)


# ------------------------------------------------------------------ side by side
def scipy_hs45(nb, n, method):
    from scipy.optimize import Bounds, minimize
    c = np.arange(1, n + 1, dtype=float)

    def f(x):
        return -np.prod(x / c)

    def g(x):
        # prod over j != i from prefix and suffix products (x_i may be 0 at the bound)
        q = x / c
        pre = np.concatenate(([1.0], np.cumprod(q[:-1])))
        suf = np.concatenate((np.cumprod(q[::-1][:-1])[::-1], [1.0]))
        return -pre * suf / c

    x0 = 0.5 * c
    t0 = time.perf_counter()
    errs, its = [], []
    for _ in range(nb):
        if method == "L-BFGS-B":
            # ftol = gtol = 0: SciPy's defaults stop at the start (|pg| ~ 1e-10 at n = 32)
            r = minimize(f, x0, jac=g, method="L-BFGS-B", bounds=list(zip(0 * c, c)),
                         options={"ftol": 0.0, "gtol": 0.0, "maxiter": 1000})
        else:
            r = minimize(f, x0, jac=g, hess="2-point", method="trust-constr",
                         bounds=Bounds(0 * c, c), options={"gtol": 1e-12, "xtol": 1e-12, "maxiter": 1000})
        errs.append(float(np.abs(r.x - c).max()))
        its.append(int(r.nit))
    return {"method": method, "batch": nb, "n": n, "s": time.perf_counter() - t0,
            "max_abs_err": max(errs), "mean_iterations": float(np.mean(its))}


def side_by_side(outdir, batches, ns, cpu_batches, scipy_n, scipy_nb, tc_nb, threads):
    out = {"gpu": [], "cpu_twin": [], "scipy": [], "cpu_threads": None}
    import numba
    out["cpu_threads"] = numba.get_num_threads()
    t0 = time.perf_counter()
    hs45(2, 3, backend="cpu")
    out["cpu_warmup_s"] = time.perf_counter() - t0
    for n in ns:
        memory = "shared" if kernels.dynamic_shared_bytes(n, 32 * max(1, -(-n // 32)), "shared") \
            <= kernels.MAX_SHARED_BYTES else "global"
        for nb in batches:
            r = hs45(nb, n, memory=memory, threads=threads if n <= 32 else 0)
            out["gpu"].append({k: r[k] for k in ("n", "batch", "ms", "converged", "max_abs_err")} | {"memory": memory})
            log(f"side gpu n={n} batch={nb}: {r['ms']:.2f} ms, err {r['max_abs_err']:.1e}")
        for nb in cpu_batches:
            r = hs45(nb, n, backend="cpu")
            out["cpu_twin"].append({k: r[k] for k in ("n", "batch", "ms", "converged", "max_abs_err")})
            log(f"side cpu twin n={n} batch={nb}: {r['ms']:.1f} ms")
        save(outdir)
    for n in scipy_n:
        for method, nb in (("L-BFGS-B", scipy_nb), ("trust-constr", tc_nb)):
            r = scipy_hs45(nb, n, method)
            out["scipy"].append(r)
            log(f"side scipy {method} n={n} batch={nb}: {r['s']:.2f} s, err {r['max_abs_err']:.1e}, "
                f"{r['mean_iterations']:.0f} its")
            save(outdir)
    RECORD["side_by_side"] = out
    save(outdir)


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    RECORD.update(environment=environment.capture(), tiny=TINY, simulator=SIM,
                  paper="Kim, Pacaud, Kim, Anitescu: ExaTron (seed 003)",
                  settings={"problem": "hs45-type: f = -prod x_i / i, 0 <= x_i <= i, x0_i = i/2, x*_i = i",
                            "stopping": "||pg|| <= 1e-8 ||pg(x0)|| or actual and predicted reduction "
                                        "<= 1e-12 |f|; max_iter 100",
                            "timing": "CUDA events around kernels (Tables 1-2); TRON: host clock "
                                      "around the launch after synchronize, compile excluded"})
    save(outdir)
    if TINY:
        threads = 4
        tables_1_2(outdir, 3, [1, 2, 4], 1, threads)
        table3_figure3(outdir, 2, [3], [2, 3], 1, threads)
        scaling(outdir, [3], 2, 1e9, 4, threads)
        RECORD["side_by_side"] = {}
        side_by_side(outdir, [2], [3], [2], [3], 2, 1, threads)
    else:
        tables_1_2(outdir, 10_000, list(range(1, 33)), 5, 0)
        table3_figure3(outdir, 10_000, [8, 16, 32], list(range(1, 9)) + [12, 16, 20, 24, 28, 32], 2, 0)
        scaling(outdir, [32, 8], 1000, 20.0, 4_096_000, 0)
        side_by_side(outdir, [1000, 10_000, 100_000], [8, 16, 32, 64], [1000, 10_000], [8, 32], 1000, 5, 0)
    log("done")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 1:
        sys.exit("usage: python -m gpubench.problems.tron_rows OUTDIR [--tiny]")
    main(args[0])
