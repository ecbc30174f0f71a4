"""Tables 1 and 4 of Fei, Rong, Wang & Wang (2014), Computers & Graphics 40:1-9 (seed 004).

The rows of ``gpubench reproduce fei2014_table1|fei2014_table4`` (``gpubench.problems.lbfgsb_rows``)
run here.  ``gpubench report --all`` also renders the records this module's former command wrote,
``results/fei2014_tableX_{full,quick}/records.json``, as ``reports/fei2014_tableX_{full,quick}.md``
with the published figures (``experiments/published/fei2014_*.csv``) beside ours.  SciPy's
timings want ``OPENBLAS_NUM_THREADS=1``: its small dense products slow down with spinning
OpenBLAS threads (the quick records were made so).
"""
import csv
import time
from pathlib import Path

import numpy as np

from ..errors import InputError
from . import minpack2
from ..methods.lbfgsb import core, shared

ROOT = Path(__file__).resolve().parents[2]
BINS = [("0", 0, 0), ("0~5%", 0, 5), ("5%~10%", 5, 10), ("10%~15%", 10, 15), ("15%~20%", 15, 20),
        ("20%~25%", 20, 25), ("25%~30%", 25, 30), ("30%~35%", 30, 35), ("35%~40% (not in the paper)", 35, 40),
        (">=40%", 40, np.inf)]


def load(table, quick=False, folder=None):
    """The settings of ``table`` (table1 or table4) as this module's runs take them, read by the
    one experiment loader from ``experiments/fei2014/<table>.toml`` (or ``folder``)."""
    from ..workflow import experiments_loader as loader
    path = Path(folder or loader.experiments_dir() / "fei2014") / f"{table}.toml"
    if not path.exists():
        raise InputError(f"no experiment {str(path)!r}")
    e = loader.load(str(path))
    v = e.variant(quick)
    first = v.methods[0].settings
    names = [p.problem.partition(":")[2] for p in v.problems]
    spec = {"id": e.id, "title": e.title, "source": e.source, "note": v.note if quick else e.note,
            "variant": v.name, "m": first.get("m", 5), "pg_rel": first.get("pg_rel", 1e-5)}
    if table == "table4":
        spec.update(problem=names[0], sizes=[p.n for p in v.problems], solvers=[m.key for m in v.methods],
                    cap_seconds=first["cap_seconds"], backend=v.methods[-1].settings.get("backend", "auto"))
    else:
        sizes = {p.problem.partition(":")[2]: p.n for p in v.problems}
        spec.update(problems=names, n=next(n for k, n in sizes.items() if k != "lennard-jones"),
                    lj_n=sizes.get("lennard-jones"), box=first.get("box"), maxiter=first["maxiter"],
                    backend=first.get("backend", "auto"))
    return spec


def _xp(backend):
    if backend == "cpu":
        return np
    try:
        import cupy
        from ..device.gpu import gpu_available
        if gpu_available():
            return cupy
    except ImportError:
        pass
    if backend == "cuda":
        raise InputError("the single-problem GPU path needs CuPy and a GPU")
    return np


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def _rule(pg_rel, pg0, energy_tol):
    """(pgtol, ftol_abs) of a stop rule: pg <= pg_rel pg(x0), or with ``energy_tol`` given, Fei et
    al.'s decrease of f below energy_tol (section 5: 1e-64), the gradient test then off."""
    return (0.0, float(energy_tol)) if energy_tol is not None else (pg_rel * pg0, None)


def _solve(p, xp, cauchy, m, pg_rel, maxiter=100000, cap=None, record=False, energy_tol=None, resume=None,
           checkpoint=None):
    """One timed L-BFGS-B run of ``p``.  ``checkpoint(take)``: called after every iteration that does
    not end the run, ``take()`` giving the run's state (the loop's, its evaluations and seconds so
    far); ``resume``: such a state to go on from, the seconds and counts adding up across the parts."""
    lo, hi, x0 = p.on(xp)
    fg = getattr(p, "fg_stencil", p.fg)     # torsion's fused form; the same f and g
    _, g0 = fg(x0)
    pg0 = core.projected_gradient_norm(xp, x0, g0, lo, hi)
    if xp is not np:
        # untimed: the first call in a process compiles the GPU kernels (numba, CuPy), as the
        # jaxopt peer's first update compiles untimed
        core.minimize(fg, x0, lo, hi, m=m, pgtol=0.0, factr=0.0, maxiter=2, cauchy=cauchy, backend=xp)
    seen = {"nit": 0, "f": None, "evaluations": 0, "saving": 0.0}
    before = 0.0            # seconds of the earlier parts of a resumed run
    if resume is not None:
        before = float(resume["seconds"])
        seen.update(nit=int(resume["loop"]["nit"]), f=float(resume["loop"]["f"]),
                    evaluations=int(resume["evaluations"]))

    def counted(v):
        """The objective, its calls counted: the line search's evaluations (the memory floor's model).
        The fused driver counts them itself (``r.evaluations``), a CUDA graph's replays included,
        which call no Python: so ``counted`` may be captured where ``fg`` may."""
        seen["evaluations"] += 1
        return fg(v)
    counted.capturable = getattr(fg, "capturable", False)
    evaluations0 = seen["evaluations"]
    t0 = time.perf_counter()

    def spent():
        """Seconds of the run so far, its earlier parts included and checkpoint writes left out."""
        return before + time.perf_counter() - t0 - seen["saving"]

    def over():
        """The cap, asked before each iteration (the fused path: before each batch of them): unlike
        a callback it leaves the fused path its batches of iterations with no host read."""
        return spent() > cap

    def saved(snapshot):
        t = time.perf_counter()
        try:
            checkpoint(lambda: {"loop": snapshot(), "evaluations": seen["evaluations"], "seconds": spent()})
        finally:
            seen["saving"] += time.perf_counter() - t

    pgtol, ftol_abs = _rule(pg_rel, pg0, energy_tol)
    reads, launches = core.SYNC["count"], dict(shared.LAUNCHES)
    r = core.minimize(counted, x0, lo, hi, m=m, pgtol=pgtol, factr=0.0, maxiter=maxiter,
                      maxfun=10 * maxiter, cauchy=cauchy, backend=xp, record_cauchy=record,
                      until=over if cap else None,     # None or 0: no cap
                      ftol_abs=ftol_abs, resume=None if resume is None else resume["loop"],
                      checkpoint=None if checkpoint is None else saved)
    capped = r.message == core.STOPPED_UNTIL
    if r.evaluations is not None:
        seen["evaluations"] = evaluations0 + r.evaluations
    out = {"iterations": r.iterations, "fun": r.fun, "status": r.status, "message": "capped" if capped else r.message,
           "capped": capped, "cauchy_log": r.cauchy}
    dt = spent()
    out.update(seconds=dt, ms_per_iteration=1e3 * dt / max(out["iterations"], 1), pg0=pg0,
               evaluations=seen["evaluations"], host_reads=core.SYNC["count"] - reads,
               launches=shared.launches_since(launches, out["iterations"]))   # the fused path's, an iteration
    if r.graph:
        out["graph"] = r.graph
    return out


def _scipy(p, m, pg_rel, cap, energy_tol=None, maxiter=100000):
    """SciPy's L-BFGS-B to pg <= pg_rel pg(x0), or (``energy_tol``) until an iteration decreases f by
    less than energy_tol: a callback ends the run then, and SciPy's own end at no decrease (ftol = 0:
    its relative-reduction test, or a line search finding no decrease: "ABNORMAL" in SciPy >= 1.15,
    "ABNORMAL_TERMINATION_IN_LNSRCH" before) is the same rule met.
    ``cap`` seconds (None or 0: none) end it early, marked capped."""
    from scipy.optimize import minimize
    fg = getattr(p, "fg_stencil", p.fg)
    f0, g0 = fg(p.x0)
    pg0 = core.projected_gradient_norm(np, p.x0, g0, p.lo, p.hi)
    pgtol, ftol_abs = _rule(pg_rel, pg0, energy_tol)
    t0 = time.perf_counter()
    seen = {"f": float(f0), "rule": False, "capped": False}

    def cb(intermediate_result):
        f = float(intermediate_result.fun)
        if core.decrease_stop(seen["f"], f, ftol_abs):
            seen["rule"] = True
            raise StopIteration
        seen["f"] = f
        if cap and time.perf_counter() - t0 > cap:
            seen["capped"] = True
            raise StopIteration

    r = minimize(fg, p.x0, jac=True, method="L-BFGS-B", bounds=np.stack([p.lo, p.hi], 1), callback=cb,
                 options=dict(maxcor=m, gtol=pgtol, ftol=0.0, maxiter=maxiter, maxfun=100 * maxiter))
    dt = time.perf_counter() - t0
    status, message = int(r.status), str(r.message)
    if ftol_abs is not None and not seen["capped"] and (seen["rule"] or status == 0 or message.startswith("ABNORMAL")):
        status, message = 0, core.CONVERGED_FDEC + (f" (SciPy: {message})" if not seen["rule"] else "")
    return {"iterations": int(r.nit), "fun": float(r.fun), "status": status, "message": message,
            "capped": seen["capped"], "seconds": dt,  # r: SciPy's result
            "ms_per_iteration": 1e3 * dt / max(int(r.nit), 1)}


def _jaxopt(p, m, pg_rel, cap):
    """jaxopt's LBFGSB (a peer, run as a competitor; jaxopt is deprecated upstream) on the same
    torsion energy in float64, its update jitted, on JAX's default device (the GPU where there is
    one).  The stop test (one gradient and a host read per iteration) is ours: pg <= pg_rel pg(x0)."""
    try:
        import jax
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
        import jaxopt
    except Exception as exc:   # an optional peer: the row says why it did not run
        raise InputError(f"jaxopt is not importable here ({type(exc).__name__}: {exc}); "
                         "install it with: pip install jaxopt") from None
    if p.name != "torsion":
        raise InputError(f"the jaxopt peer runs the torsion problem only, not {p.name}")
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
    solver = jaxopt.LBFGSB(fun=energy, history_size=m, maxiter=10 ** 6, tol=0.0)
    pgfun = jax.jit(lambda x: jnp.max(jnp.abs(jnp.clip(x - jax.grad(energy)(x), lo, hi) - x)))
    pg0 = float(pgfun(x0))
    update = jax.jit(lambda x, s: solver.update(x, s, bounds=(lo, hi)))
    x, state = update(x0, solver.init_state(x0, bounds=(lo, hi)))   # compile, untimed
    jax.block_until_ready(x)
    x, state = x0, solver.init_state(x0, bounds=(lo, hi))
    nit, capped = 0, False
    t0 = time.perf_counter()
    while True:
        x, state = update(x, state)
        nit += 1
        if float(pgfun(x)) <= pg_rel * pg0:
            break
        if time.perf_counter() - t0 > cap:
            capped = True
            break
    dt = time.perf_counter() - t0
    return {"iterations": nit, "fun": float(energy(x)), "status": 1 if capped else 0,
            "message": "capped" if capped else "pg <= pg_rel pg(x0)", "capped": capped, "seconds": dt,
            "ms_per_iteration": 1e3 * dt / nit, "backend": f"jaxopt {_version('jaxopt')} on {jax.default_backend()}"}


def _version(dist):
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version(dist)
    except PackageNotFoundError:
        return "(version unknown)"


def run_table4(spec, backend="auto", sizes=None):
    xp = _xp(backend)
    rows = []
    for n in sizes or spec["sizes"]:
        p = minpack2.make(spec["problem"], n)
        row = {"n": n}
        for s in spec["solvers"]:
            if s == "scipy":
                row[s] = _scipy(p, spec["m"], spec["pg_rel"], spec["cap_seconds"])
            else:
                r = _solve(p, xp, s, spec["m"], spec["pg_rel"], cap=spec["cap_seconds"])
                r.pop("cauchy_log")
                row[s] = r
        if "scipy" in row and "approximate" in row:
            a, b = row["approximate"], row["scipy"]
            row["energy_difference"] = (a["fun"] - b["fun"]) if not (a["capped"] or b["capped"]) else None
        rows.append(row)
    return {"backend": "cuda" if xp is not np else "cpu", "rows": rows}


def bin_counts(log):
    """Percent of iterations in each |t_c - t*| / t* bin of Table 1."""
    if len(log) == 0:
        return {label: 0.0 for label, _, _ in BINS}
    tc, ts = np.array(log, dtype=float).T
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(ts > 0, np.abs(tc - ts) / ts * 100.0, np.where(tc == ts, 0.0, np.inf))
    same = rel <= 1e-10            # equal up to rounding
    out = {}
    for label, a, b in BINS:
        if b == 0:
            k = same
        else:
            k = ~same & (rel > a) & (rel <= b) if a > 0 else ~same & (rel <= b)
            if np.isinf(b):
                k = ~same & (rel > a)
        out[label] = 100.0 * float(np.count_nonzero(k)) / rel.size
    return out


def run_table1(spec, backend="auto", problems=None, n=None):
    xp = _xp(backend)
    rows = []
    for name in problems or spec["problems"]:
        nn = n or spec["n"]
        if name == "lennard-jones":
            nn = spec.get("lj_n", 3 * (nn // 3)) if n is None else 3 * max(2, nn // 3)
        p = minpack2.make(name, nn, box=spec.get("box"))
        a = _solve(p, xp, "approximate", spec["m"], spec["pg_rel"], maxiter=spec["maxiter"], record=True)
        e = _solve(p, xp, "exact", spec["m"], spec["pg_rel"], maxiter=spec["maxiter"])
        diff = (a["fun"] - e["fun"]) / max(abs(e["fun"]), 1e-300) * 100.0
        log = a.pop("cauchy_log")
        e.pop("cauchy_log")
        rows.append({"problem": name, "n": nn, "bins": bin_counts(log), "energy_diff_percent": diff,
                     "approximate": a, "exact": e})
    return {"backend": "cuda" if xp is not np else "cpu", "rows": rows}


def _published(fname):
    from ..workflow.experiments_loader import published_dir
    path = published_dir() / fname      # the package's copy: a wheel has no checkout
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


# Paper 004's other tables, stated in every report of the paper so that a reader never wonders
NOT_REPRODUCED = ["## Not reproduced", "",
                  "Tables 2 and 3 (centroidal Voronoi tessellation, VTGPU): **not reproduced**. They need a "
                  "Voronoi (jump-flooding) evaluation of the CVT energy and its gradient on the GPU, which the "
                  "suite does not have (experiments/fei2014/README.md)."]


def report_table4(rec, gpu_path=None):
    pub = {int(r["size"]): r for r in _published("fei2014_lbfgsb.csv")}
    lines = [f"# {rec['title']}", "", f"Source: {rec['source']}. Variant: {rec['variant']}; ours on "
             f"{rec['backend']}.  ms per iteration; iterations to pg <= {rec['pg_rel']} pg(x0).", "",
             "| n | paper CPU itr | paper CPU ms | paper GPU itr | paper GPU ms | SciPy itr | SciPy ms | "
             "ours (approx.) itr | ours ms | ours (exact) itr | ours ms | f(ours) - f(SciPy) | paper energy diff |",
             "| " + " | ".join(["---"] * 13) + " |"]

    def cell(r, key, fmt):
        if r is None:
            return "-"
        v = r.get(key)
        s = "-" if v is None else format(v, fmt)
        return s + (" (capped)" if r.get("capped") and key == "iterations" else "")

    for row in rec["result"]["rows"]:
        pr = pub.get(row["n"], {})
        ed = row.get("energy_difference")
        lines.append(" | ".join([
            f"| {row['n']:,}", pr.get("cpu_itr", "-"), pr.get("cpu_lbfgsb_ms", "-"), pr.get("gpu_itr", "-"),
            pr.get("gpu_lbfgsb_ms", "-"), cell(row.get("scipy"), "iterations", "d"),
            cell(row.get("scipy"), "ms_per_iteration", ".2f"), cell(row.get("approximate"), "iterations", "d"),
            cell(row.get("approximate"), "ms_per_iteration", ".2f"), cell(row.get("exact"), "iterations", "d"),
            cell(row.get("exact"), "ms_per_iteration", ".2f"), "-" if ed is None else f"{ed:.2e}",
            pr.get("energy_difference", "-")]) + " |")
    lines += ["", rec.get("note", "")]
    gpu = load_gpu_record(gpu_path)
    if gpu is not None:
        lines += ["", *gpu_table4_lines(gpu, pub)]
    lines += ["", *NOT_REPRODUCED]
    return "\n".join(lines) + "\n"


GPU_RECORD = ROOT / "results" / "gpu" / "lbfgsb" / "lbfgsb_gpu.json"


def load_gpu_record(path=None):
    """The stored GPU measurements (the former ``scripts/gpu_lbfgsb.py``, last in commit be84fd4),
    or None where there are none."""
    path = Path(path or GPU_RECORD)
    if not path.exists():
        return None
    from ..records.read import document
    return document(path)


def _run_of(row, prefix, cauchy=None):
    for r in row["runs"]:
        if str(r.get("solver", "")).startswith(prefix) and (cauchy is None or r.get("cauchy") == cauchy):
            return r
    return None


def gpu_table4_lines(gpu, pub):
    """Table 4's torsion sizes measured on the GPU host, beside the published GPU and CPU columns."""
    env = gpu.get("environment", {})
    dev = env.get("gpu") or {}
    ver = env.get("versions", {})
    lines = ["## Measured on the GPU host (`scripts/gpu_lbfgsb.py`, stored in `results/gpu/lbfgsb/lbfgsb_gpu.json`)", "",
             f"GPU: {dev.get('name', 'none')} (driver {str(dev.get('driver', '-')).splitlines()[0]}, CUDA runtime "
             f"{dev.get('cuda_runtime', '-')}); host CPU: {env.get('cpu', '-')} x {env.get('cpu_count', '-')}; "
             + ", ".join(f"{k} {v}" for k, v in ver.items()) + f"; commit {env.get('commit', '-')}; "
             f"{env.get('date', '-')}.  {gpu.get('note', '')}." + (f"  Host: {gpu['host_load']}." if gpu.get("host_load") else ""), "",
             "Iterations / ms per iteration (capped: stopped at the run's wall-time cap before the stop rule; "
             "its ms per iteration is still measured).  Stop rule: pg <= 1e-5 pg(x0), m = 5, x0 = the upper "
             "bound.  The paper's GPU is a GTX 780, its CPU an Intel CPU running L-BFGS-B 3.0.", "",
             "| n | paper GPU itr / ms | paper CPU itr / ms | lbfgsb-gpu approx. itr / ms | lbfgsb-gpu exact itr / ms "
             "| jaxopt LBFGSB (GPU) itr / ms | SciPy (host CPU) itr / ms | f(lbfgsb-gpu) - f(SciPy) |",
             "| " + " | ".join(["---"] * 8) + " |"]

    def cell(r):
        if r is None:
            return "-"
        if "skipped" in r or "error" in r:
            return "not run: " + str(r.get("skipped") or r.get("error")).replace("|", "/")
        capped = " (capped)" if r.get("capped") else ""
        return f"{r['iterations']:,}{capped} / {r['ms_per_iteration']:.2f}"

    for row in gpu.get("torsion", []):
        pr = pub.get(row["n"], {})
        ours, sp = _run_of(row, "lbfgsb-gpu", "approximate"), _run_of(row, "scipy")
        diff = "-"
        if ours and sp and "fun" in ours and "fun" in sp and not (ours.get("capped") or sp.get("capped")):
            diff = f"{ours['fun'] - sp['fun']:.2e}"
        lines.append(" | ".join([
            f"| {row['n']:,}", f"{pr.get('gpu_itr', '-')} / {pr.get('gpu_lbfgsb_ms', '-')}",
            f"{pr.get('cpu_itr', '-')} / {pr.get('cpu_lbfgsb_ms', '-')}", cell(ours),
            cell(_run_of(row, "lbfgsb-gpu", "exact")), cell(_run_of(row, "jaxopt")), cell(sp), diff]) + " |")
    jx = next((r for row in gpu.get("torsion", []) for r in row["runs"] if r.get("note")
               and str(r.get("solver", "")).startswith("jaxopt")), None)
    if jx:
        lines += ["", f"jaxopt: {jx['note']}."]
    return lines


GPU_TABLE1 = ROOT / "results" / "gpu" / "lbfgsb" / "fei2014_table1_gpu.json"


def _bins_table(rows, pub):
    heads = [minpack2.TABLE1_NAMES[r["problem"]] for r in rows]
    lines = ["| bin | " + " | ".join(f"{h} (n={r['n']:,})" for h, r in zip(heads, rows)) + " |",
             "| --- | " + " | ".join("---" for _ in rows) + " |"]
    for label, _, _ in BINS:
        cells = []
        for h, r in zip(heads, rows):
            p = pub.get((h, label), "-")
            cells.append(f"{r['bins'][label]:.2f} / {p}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines.append("| Energy Diff (%) | " + " | ".join(
        f"{r['energy_diff_percent']:.2e} / {pub.get((h, 'Energy Diff'), '-')}" for h, r in zip(heads, rows)) + " |")
    lines.append("| iterations (approx. / exact) | " + " | ".join(
        f"{r['approximate']['iterations']} / {r['exact']['iterations']}" for r in rows) + " |")
    return lines


def report_table1(rec, gpu_path=None):
    pub = {}
    for r in _published("fei2014_cauchy_minpack.csv"):
        pub[(r["problem"], r["row_label"])] = r["percent"]
    rows = rec["result"]["rows"]
    lines = [f"# {rec['title']}", "", f"Source: {rec['source']}. Variant: {rec['variant']}; ours on "
             f"{rec['backend']}.  Percent of iterations per bin of |t_c - t*|/t*: ours / published.", "",
             *_bins_table(rows, pub)]
    done = {r["problem"] for r in rows}
    gpu = None
    gpath = Path(gpu_path or GPU_TABLE1)
    if rec.get("variant") == "full" and gpath.exists():
        from ..records.read import document
        gpu = document(gpath)
        done |= {r["problem"] for r in gpu["result"]["rows"]}
    missing = [minpack2.TABLE1_NAMES[p] for p in minpack2.TABLE1_NAMES if p not in done]
    if missing:
        lines += ["", f"Not run in this record: {', '.join(missing)}."]
    note = rec.get("note", "")
    if gpu is not None:  # the CPU record's note predates the GPU rows: it must not say they are missing
        note = note.replace(" The 1-D and 2-D Ginzburg-Landau problems are not written (not reproduced).", "")
    lines += ["", note]
    if gpu is not None:
        def measured(env):
            g = env.get("gpu") or {}
            return (f"{g.get('name', 'a GPU')} (driver {str(g.get('driver', '?')).splitlines()[0]}), "
                    f"commit {str(env.get('commit', '?'))[:7]}, {env.get('date', '')}")
        envs = [(minpack2.TABLE1_NAMES[r["problem"]], r.get("environment") or gpu.get("environment", {}))
                for r in gpu["result"]["rows"]]
        lines += ["", f"## The other problems, on the GPU host (`scripts/gpu_lbfgsb.py`, stored in "
                      f"`{gpath.relative_to(ROOT) if gpath.is_relative_to(ROOT) else gpath}`)", "",
                  "Measured on " + "; ".join(f"{name}: {measured(env)}" for name, env in envs)
                  + f"; ours on {gpu['result']['backend']}. Percent of iterations per bin: ours / published.", "",
                  *_bins_table(gpu["result"]["rows"], pub), "", gpu.get("note", "")]
    lines += ["", *NOT_REPRODUCED]
    return "\n".join(lines) + "\n"
