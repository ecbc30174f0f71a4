"""GPU measurements of lbfgsb-gpu (paper 004, Fei et al. 2014), side by side with SciPy and jaxopt.

    python scripts/gpu_lbfgsb.py OUTDIR [--tiny] [--only table4|table1|multistart]

1. Elastic-plastic torsion (MINPACK-2, c = 5, x0 = the upper bound, m = 5), stopped at
   ||P(x - g) - x||_inf <= 1e-5 * pg(x0) (factr = 0), at 1e4, 1.6e5, 1e6, 4e6 variables:
   * gpubench.lbfgsb.minimize on CuPy arrays (approximate Cauchy point, Fei et al.'s
     GPU choice; the exact one at the two smaller sizes);
   * SciPy's L-BFGS-B on the host CPU (capped in wall time per size);
   * jaxopt's LBFGSB on the GPU (fp64, jitted update, warm), if importable.
   Each run is capped in wall time; a capped run reports its iterations and the ms per
   iteration it measured, with ``capped: true``.  The value/gradient evaluation alone is
   timed separately ("Evaluation" of the paper's Table 4).
2. Table 1's problems that the CPU record lacks (Lennard-Jones, 1-D and 2-D Ginzburg-Landau)
   at n = 40,000 on CuPy arrays (``gpubench.lbfgsb.reproduce.run_table1``, at most
   ``TABLE1_MAXITER`` iterations per run), written as OUTDIR/fei2014_table1_gpu.json.
3. Multi-start: 10^4 seeded starts of Rosenbrock at n = 10, one CUDA launch (the
   lbfgsb-gpu method's kernel), against SciPy's L-BFGS-B looped on every host core
   (a process pool over the first starts; the time for all 10^4 is extrapolated and
   labelled so).

Warm-up (compilation, CuPy/JAX start-up) is excluded from every timing and reported.
Writes OUTDIR/lbfgsb_gpu.json with the environment (and CuPy/JAX/jaxopt versions).
``--only table4`` runs the torsion side-by-side part alone.  About 3.5 minutes in all on
one H200 (the torsion caps below bound part 1 to about 100 s).  Under the CUDA simulator
(``--tiny``) the sizes are tiny and the single-problem runs use numpy (no CuPy).
"""
import json
import os
import sys
import time

# SciPy's L-BFGS-B does small dense products: OpenBLAS threads spinning on them cost far more
# than they give (see gpubench/methods/scipy_methods.py); one thread per process, set before numpy.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

# gpubench is the installed package (scripts/gpu_host_env.sh): functions/ and experiments/ are
# mapped into it only by the install, so the repository's own gpubench/ must not shadow it
REPO = os.environ.get("REPO", os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from gpubench import environment  # noqa: E402
from gpubench.device import atomic_write, gpu_available  # noqa: E402
from gpubench.lbfgsb import batch, core  # noqa: E402
from gpubench.problems import minpack2  # noqa: E402


TABLE1_PROBLEMS = ["lennard-jones", "ginzburg-landau-1d", "ginzburg-landau-2d"]
TABLE1_MAXITER = 800
TABLE1_BUDGET_S = 200      # default: no Table 1 problem starts after this much of the Table 1 part's time


def _functions():
    from gpubench import functions
    return functions


def _versions():
    out = {}
    for mod in ("cupy", "jax", "jaxlib", "jaxopt"):
        try:
            out[mod] = __import__(mod).__version__
        except Exception as exc:
            out[mod] = f"not importable ({type(exc).__name__})"
    return out


class _Cap(Exception):
    pass


def _sync(xp):
    if xp is not np:
        xp.cuda.Stream.null.synchronize()


def run_ours(p, xp, cauchy, cap_s):
    lo, hi, x0 = p.on(xp)
    fg = getattr(p, "fg_stencil", p.fg)   # the fused form where there is one
    f0, g0 = fg(x0)
    pg0 = core.projected_gradient_norm(xp, x0, g0, lo, hi)
    # warm-up: a few iterations compile/allocate whatever the backend needs
    t0 = time.perf_counter()
    core.minimize(fg, x0, lo, hi, m=5, pgtol=1e-5 * pg0, factr=0.0, maxiter=3, cauchy=cauchy, backend=xp)
    _sync(xp)
    warm = time.perf_counter() - t0
    state = {"nit": 0, "f": None}
    t0 = time.perf_counter()

    def cb(x, f, pg):
        state["nit"] += 1
        state["f"] = f
        if time.perf_counter() - t0 > cap_s:
            raise _Cap

    capped = False
    try:
        r = core.minimize(fg, x0, lo, hi, m=5, pgtol=1e-5 * pg0, factr=0.0, maxiter=100000,
                          maxfun=200000, cauchy=cauchy, backend=xp, callback=cb)
        nit, fun, msg = r.nit, r.fun, r.message
    except _Cap:
        capped, nit, fun, msg = True, state["nit"], state["f"], "capped"
    _sync(xp)
    dt = time.perf_counter() - t0
    # the evaluation alone
    k = 10
    t1 = time.perf_counter()
    for _ in range(k):
        fg(x0)
    _sync(xp)
    ev = (time.perf_counter() - t1) / k
    return {"solver": "lbfgsb-gpu" if xp is not np else "gpubench.lbfgsb (numpy)", "cauchy": cauchy,
            "iterations": nit, "fun": fun, "seconds": dt, "ms_per_iteration": 1e3 * dt / max(nit, 1),
            "eval_ms": 1e3 * ev, "capped": capped, "message": msg, "warmup_s": warm, "pg0": pg0}


def run_scipy(p, cap_s):
    from scipy.optimize import minimize
    fg = getattr(p, "fg_stencil", p.fg)
    f0, g0 = fg(p.x0)
    pg0 = core.projected_gradient_norm(np, p.x0, g0, p.lo, p.hi)
    state = {"nit": 0, "f": None}
    t0 = time.perf_counter()

    def cb(intermediate_result):
        state["nit"] += 1
        state["f"] = float(intermediate_result.fun)
        if time.perf_counter() - t0 > cap_s:
            raise StopIteration

    r = minimize(fg, p.x0, jac=True, method="L-BFGS-B", bounds=np.stack([p.lo, p.hi], 1), callback=cb,
                 options=dict(maxcor=5, gtol=1e-5 * pg0, ftol=0.0, maxiter=100000, maxfun=200000))
    dt = time.perf_counter() - t0
    capped = time.perf_counter() - t0 > cap_s and r.status != 0
    return {"solver": "scipy L-BFGS-B (host CPU)", "iterations": int(r.nit), "fun": float(r.fun),
            "seconds": dt, "ms_per_iteration": 1e3 * dt / max(int(r.nit), 1), "capped": bool(capped),
            "message": str(r.message)}


def run_jaxopt(p, cap_s):
    try:
        import jax
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
        import jaxopt
    except Exception as exc:
        return {"solver": "jaxopt LBFGSB", "skipped": f"not importable: {type(exc).__name__}: {exc}"}
    ny, nx = p.shape
    hx, hy = 1.0 / (nx + 1), 1.0 / (ny + 1)
    c = p.params["c"]

    def energy(v):
        V = jnp.pad(v.reshape(ny, nx), 1)
        dx = (V[:, 1:] - V[:, :-1]) / hx
        dy = (V[1:, :] - V[:-1, :]) / hy
        # minpack2.torsion's sum over triangles: every edge belongs to two of them
        return 0.5 * hx * hy * (jnp.sum(dx * dx) + jnp.sum(dy * dy)) - c * hx * hy * jnp.sum(v)

    lo, hi, x0 = jnp.asarray(p.lo), jnp.asarray(p.hi), jnp.asarray(p.x0)
    solver = jaxopt.LBFGSB(fun=energy, history_size=5, maxiter=10 ** 6, tol=0.0)
    g0 = jax.grad(energy)(x0)
    pg0 = float(jnp.max(jnp.abs(jnp.clip(x0 - g0, lo, hi) - x0)))
    update = jax.jit(lambda x, s: solver.update(x, s, bounds=(lo, hi)))
    t0 = time.perf_counter()
    state = solver.init_state(x0, bounds=(lo, hi))
    x, state = update(x0, state)
    jax.block_until_ready(x)
    warm = time.perf_counter() - t0
    x, state = x0, solver.init_state(x0, bounds=(lo, hi))
    pgfun = jax.jit(lambda x: jnp.max(jnp.abs(jnp.clip(x - jax.grad(energy)(x), lo, hi) - x)))
    nit, capped = 0, False
    t0 = time.perf_counter()
    while True:
        x, state = update(x, state)
        nit += 1
        if float(pgfun(x)) <= 1e-5 * pg0:
            break
        if time.perf_counter() - t0 > cap_s:
            capped = True
            break
    dt = time.perf_counter() - t0
    return {"solver": "jaxopt LBFGSB (GPU, fp64, jitted)", "iterations": nit, "fun": float(energy(x)),
            "seconds": dt, "ms_per_iteration": 1e3 * dt / nit, "capped": capped, "warmup_s": warm,
            "note": "ms per iteration includes our stop-rule check (one gradient) each iteration"}


def _scipy_start(args):
    from scipy.optimize import minimize
    name, x0, lo, hi = args
    fn = _functions().get(name)
    r = minimize(lambda x: (fn.point(x), fn.gradient(x)), x0, jac=True, method="L-BFGS-B",
                 bounds=np.stack([lo, hi], 1), options=dict(maxcor=5))
    return float(r.fun), int(r.nit)


def multistart(name, n, starts, scipy_starts, backend):
    fn = _functions().get(name)
    lo, hi = fn.bounds(n)
    X0 = lo + (hi - lo) * np.random.default_rng(0).random((starts, n))
    t0 = time.perf_counter()
    batch.solve(fn, X0[:64], lo, hi, m=5, backend=backend)
    warm = time.perf_counter() - t0
    t0 = time.perf_counter()
    X, f, nit, nfev, status, pg = batch.solve(fn, X0, lo, hi, m=5, backend=backend)
    ours = time.perf_counter() - t0
    from multiprocessing import Pool
    procs = len(os.sched_getaffinity(0))  # the cores this process may use (taskset), not the host's
    t0 = time.perf_counter()
    with Pool(procs) as pool:
        res = pool.map(_scipy_start, [(name, X0[k], lo, hi) for k in range(scipy_starts)], chunksize=8)
    sp = time.perf_counter() - t0
    sf = np.array([r[0] for r in res])
    agree = float(np.mean(np.abs(sf - f[:scipy_starts]) <= 1e-6 * np.maximum(1, np.abs(sf))))
    sp_all = sp * starts / scipy_starts
    return {"function": name, "n": n, "starts": starts, "backend": backend, "seconds": ours, "warmup_s": warm,
            "best": float(f.min()), "status_counts": np.bincount(status, minlength=3).tolist(),
            "mean_iterations": float(nit.mean()),
            "scipy_starts_run": scipy_starts, "scipy_processes": procs, "scipy_seconds": sp,
            "scipy_seconds_all_starts_extrapolated": sp_all, "speedup_vs_scipy_pool": sp_all / ours,
            "same_minimum_fraction": agree, "scipy_mean_iterations": float(np.mean([r[1] for r in res]))}


def _guard(what, f, *args):
    """One failing comparison must not lose the others: its error is recorded instead."""
    try:
        return f(*args)
    except Exception as exc:
        import traceback
        return {"solver": what, "error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}


def table1(outdir, tiny, env, problems=None, budget_s=TABLE1_BUDGET_S):
    """Table 1's GPU rows into OUTDIR/fei2014_table1_gpu.json.  Rows already there are kept (each
    with the environment of the run that made it) and only the missing problems run, so a record
    carried in from an earlier command is completed, never redone."""
    from gpubench.lbfgsb import reproduce as R
    spec = R.load("table1", quick=tiny, folder=os.path.join(REPO, "experiments", "fei2014"))
    spec["maxiter"] = min(spec["maxiter"], TABLE1_MAXITER)
    path = os.path.join(outdir, "fei2014_table1_gpu.json")
    old = json.load(open(path)) if os.path.exists(path) else {}
    rows = [dict(r, environment=r.get("environment", old.get("environment"))) for r in old.get("result", {}).get("rows", [])]
    done = {r["problem"] for r in rows}
    skipped, backend, t_start = [], old.get("backend", "none"), time.perf_counter()
    for name in (problems or TABLE1_PROBLEMS):
        if name in done:
            continue
        if time.perf_counter() - t_start > budget_s:
            skipped.append(name)
            continue
        t0 = time.perf_counter()
        res = _guard(name, R.run_table1, spec, "auto", [name])
        if "rows" in res:
            res["rows"][0]["wall_s"] = time.perf_counter() - t0
            res["rows"][0]["environment"] = env
            rows += res["rows"]
            print(json.dumps({k: res["rows"][0][k] for k in ("problem", "n", "bins", "wall_s")}), flush=True)
        else:
            skipped.append(f"{name}: {res['error']}")
        backend = res.get("backend", "cpu")
    ran = [r["problem"] for r in rows]
    rec = dict(spec, result={"backend": backend if rows else "none", "rows": rows}, backend=backend if rows else "none",
               skipped=skipped, environment=env, seconds=time.perf_counter() - t_start,
               note=spec.get("note", "") + f" GPU host runs of scripts/gpu_lbfgsb.py: {', '.join(ran) or 'none'}, "
               f"at most {spec['maxiter']} iterations per run; each row carries the environment of its run.")
    atomic_write(path, json.dumps(rec, indent=1, default=float))
    return path


def main(outdir, tiny, only=None, problems=None, table1_budget=TABLE1_BUDGET_S):
    os.makedirs(outdir, exist_ok=True)
    t_start = time.perf_counter()
    env = environment.capture()
    try:
        import cupy as xp
        if not gpu_available():
            raise ImportError("no GPU")
        note = "single-problem runs on CuPy arrays"
    except Exception:
        xp, note = np, "CuPy or a GPU not available: single-problem runs on numpy"
    if tiny:
        sizes = {100: (5, 5, 5), 400: (5, 5, 5)}
        exact_sizes = (100,)
        ms = dict(name="rosenbrock", n=3, starts=4, scipy_starts=4)
    else:
        # (cap for ours, cap for SciPy, cap for jaxopt) in seconds
        sizes = {10_000: (6, 5, 5), 160_000: (10, 10, 8), 1_000_000: (10, 8, 8), 4_000_000: (12, 8, 5)}
        exact_sizes = (10_000, 160_000)
        ms = dict(name="rosenbrock", n=10, starts=10_000, scipy_starts=1_000)
    out = {"environment": env, "versions_extra": _versions(), "note": note, "tiny": tiny,
           "openblas_threads": os.environ.get("OPENBLAS_NUM_THREADS"), "torsion": [], "multistart": None}
    path = os.path.join(outdir, "lbfgsb_gpu.json")
    for n, (c_ours, c_sp, c_jx) in (sizes.items() if only in (None, "table4") else ()):
        p = minpack2.make("torsion", n)
        row = {"n": n, "runs": []}
        row["runs"].append(_guard("lbfgsb-gpu approximate", run_ours, p, xp, "approximate", c_ours))
        if n in exact_sizes:
            row["runs"].append(_guard("lbfgsb-gpu exact", run_ours, p, xp, "exact", c_ours / 2))
        row["runs"].append(_guard("scipy", run_scipy, p, c_sp))
        row["runs"].append(_guard("jaxopt", run_jaxopt, p, c_jx) if not tiny
                           else {"solver": "jaxopt", "skipped": "tiny run"})
        out["torsion"].append(row)
        print(json.dumps({"n": n, "runs": [{k: r.get(k) for k in ("solver", "cauchy", "iterations",
                                                                   "ms_per_iteration", "fun", "capped", "skipped")}
                                            for r in row["runs"]]}), flush=True)
        atomic_write(path, json.dumps(out, indent=1, default=float))
    if only in (None, "table1"):
        print("wrote", table1(outdir, tiny, env, problems, table1_budget), flush=True)
    backend = "cuda" if (gpu_available() or os.environ.get("NUMBA_ENABLE_CUDASIM") == "1") else "cpu"
    if only in (None, "multistart"):
        out["multistart"] = _guard("multistart", multistart, ms["name"], ms["n"], ms["starts"],
                                   ms["scipy_starts"], backend)
        print(json.dumps(out["multistart"]), flush=True)
    out["total_seconds"] = time.perf_counter() - t_start
    atomic_write(path, json.dumps(out, indent=1, default=float))
    print("wrote", path, "in", round(out["total_seconds"], 1), "s")


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(prog="gpu_lbfgsb.py")
    ap.add_argument("outdir")
    ap.add_argument("--tiny", action="store_true", help="tiny sizes (CPU / CUDA simulator check)")
    ap.add_argument("--only", choices=("table4", "table1", "multistart"), default=None,
                    help="run one part: table4 = the torsion side-by-side part")
    ap.add_argument("--problems", default=None,
                    help=f"Table 1 problems to run, comma-separated (default: {','.join(TABLE1_PROBLEMS)})")
    ap.add_argument("--table1-budget", type=float, default=TABLE1_BUDGET_S,
                    help="no Table 1 problem starts after this many seconds of the Table 1 part")
    a = ap.parse_args()
    probs = a.problems.split(",") if a.problems else None
    if probs and set(probs) - set(TABLE1_PROBLEMS):
        ap.error(f"unknown problem(s) {', '.join(sorted(set(probs) - set(TABLE1_PROBLEMS)))}; expected {', '.join(TABLE1_PROBLEMS)}")
    main(a.outdir, a.tiny, a.only, probs, a.table1_budget)
