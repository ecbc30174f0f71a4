"""Paper 001's Figure 6a-d, lower-bounding speedup (lb100x) and 2-hour-limit rows on a GPU (kept: no experiment holds these rows yet), resumable row by row.

On the GPU host (after ``source scripts/gpu_host_env.sh``; about 7 minutes each)::

    python3 -m gpubench.problems.bnb_rows $REPO/results/paper001/h200 --part 1
    python3 -m gpubench.problems.bnb_rows $REPO/results/paper001/h200 --part 2
    python3 -m gpubench.problems.bnb_rows OUTDIR --plan        # the plan and its time estimate only
    python3 -m gpubench.problems.bnb_rows /tmp/x --backend cpu --quick   # CPU, tiny rows, seconds

Every finished row is written atomically (``gpubench.device.gpu.atomic_write``) to
``OUTDIR/rows/<row id>.json`` with the environment of the command that measured it; a rerun
with the same OUTDIR skips the finished rows, so a command stopped by its time limit loses at
most the row in progress, and a row the budget could not fit is done by the next command.
A row that failed (``"error"`` in its record) is retried.

Rows (MAiNGO's default tolerances, absolute and relative gap 1e-2; mean value form unless
stated):

* ``lb100x``: the issue's target, "at 1024+ subdomains the GPU lower bounding is >= 100x the
  serial CPU on Problem (2)": the same two nodes (the root box, and a node 1/8 x 1/8 of it),
  N = 1024, 4096, 16384, in one run: the kernel alone (warm, CUDA events; inputs already on
  the device) and the whole lower-bounding step (transfers and the host's argmin included),
  GPU vs serial CPU vs numba-parallel CPU, and the bound each backend finds.
* ``fig6ab``: Problem (1) (min ANN_Peaks, our network), uniform N = 1, 4, ..., 4096, natural vs
  mean value form: root-node lower bound and B&B iterations.
* ``fig6cd``: Problem (2) (min ANN_Peaks - Peaks): wall time of the B&B on the GPU and on the
  serial CPU per N; N = 1 on the serial CPU is the paper's single-interval baseline.
* ``table1``: Problem (4), d = 2, 1024 subdomains (32 x 32), each constraint set of Table 1.
* ``table3``: Problem (3), max ANN_Alpine02,d, d = 2..6, the paper's subdomain counts
  (adaptive partitioning).
* ``table4``: the library's Alpine02 (maximised) and Styblinski-Tang, 6d and 7d.

Each B&B row stops at ``ROW_LIMIT`` seconds (the paper ran Tables 3 and 4 with a 2-hour limit);
the record states the limit and the absolute gap reached.  The first (compiling) run of each
problem and backend is excluded from every time and recorded as ``compile_s``.

Our ANNs are not the authors' (theirs are unpublished): iteration counts and times of Problems
(1)-(4) compare in trend only.  The paper's GPU is an RTX A1000 laptop GPU (FP64:FP32 = 1:64);
an H200 has 1:2 (34 vs 67 TFLOP/s without tensor cores).
"""
import argparse
import dataclasses
import json
import math
import sys
import time
import traceback
from pathlib import Path

import numpy as np  # noqa: E402

from gpubench.device import environment  # noqa: E402
from gpubench.device.gpu import atomic_write  # noqa: E402
from gpubench.errors import InputError  # noqa: E402
from gpubench.paths import results_dir  # noqa: E402
from gpubench.records.read import document  # noqa: E402

ROW_LIMIT = 20.0           # seconds per B&B row of Figure 6 and Table 1 (stated in every record)
TABLE_LIMIT = 15.0         # seconds per row of Tables 3 and 4: the gap reached is reported
PAPER_LIMIT = 7200.0       # the paper's limit for Tables 3 and 4
BUDGET = 480.0             # seconds of rows per command: < 9 minutes with the host's start-up
NOTE = ("Our ANNs are trained in-repo (gpubench/problems/surrogates.py), not the authors' (unpublished): "
        "compare trends only. Paper GPU: RTX A1000 laptop, FP64:FP32 = 1:64; H200: 1:2.")
NS = (1, 4, 16, 64, 256, 1024, 4096)
LB_NS = (1024, 4096, 16384)
COUNTS3 = {2: (1024, 1600, 2304), 3: (1000, 1728, 2197), 4: (625, 1296, 2058),
           5: (1024, 1280, 1600, 2000, 2500), 6: (1296, 1728, 2304, 4096)}
COUNTS4 = (("alpine02", 6, (1296, 1728, 2304, 4096)), ("styblinski_tang", 6, (1296, 1728, 2304, 4096)),
           ("alpine02", 7, (1458, 2187)), ("styblinski_tang", 7, (1458, 2187)))
# first-run (compile) seconds of a problem on the GPU when no earlier record has it: generated
# interval kernels take 17-50 s (../shared/notes/gpu.md); an ANN's mean value form is the slow one
# (the first row of a command also creates the CUDA context); a constraint set of Table 1 reuses
# Problem (4)'s compiled objective
COMPILE_GUESS = {"first": 60.0, "ann": 30.0, "P4": 8.0, "library": 10.0, "cpu": 3.0}
RECORDS = results_dir() / "paper001"    # stored rows: the estimates of the plan come from them


@dataclasses.dataclass
class Row:
    id: str
    section: str
    part: int
    problem: str                  # P1, P2, P3_d, P4_k, or a library function's name
    dim: int
    kw: dict                      # SubdomainBnBSettings fields
    limit: float = ROW_LIMIT
    extra: dict = dataclasses.field(default_factory=dict)

    def compile_key(self):
        return (self.problem, self.dim, self.kw.get("backend"), self.kw.get("cpu_parallel", True))


def plan_rows(backend="cuda", quick=False):
    """Every row in the order the commands run them; ``part`` splits them over two commands."""
    ns = (1, 4, 16) if quick else NS
    cap = 2.0 if quick else ROW_LIMIT
    tcap = 2.0 if quick else TABLE_LIMIT
    small = {"max_nodes": 3} if quick else {}
    rows = []
    for n in ((16, 64) if quick else LB_NS):
        rows.append(Row(f"lb100x_N{n}", "lb100x", 1, "P2", 2, {"backend": backend, "subdomains": n},
                        limit=0.0, extra={"reps": 2 if quick else 30}))
    for form in ("natural", "mean-value"):
        for n in ns:
            rows.append(Row(f"fig6ab_{form}_N{n}", "fig6ab", 1, "P1", 2,
                            dict(backend=backend, subdomains=n, form=form, time_limit=cap, **small), cap))
    for n in ns:
        for key, be, par in (("gpu", backend, True), ("cpu_serial", "cpu", False)):
            rows.append(Row(f"fig6cd_{key}_N{n}", "fig6cd", 1, "P2", 2,
                            dict(backend=be, cpu_parallel=par, subdomains=n, time_limit=cap, **small), cap,
                            {"series": key}))
    for k in (range(1, 3) if quick else range(1, 7)):
        rows.append(Row(f"table1_P4_{k}", "table1", 1, f"P4_{k}", 2,
                        dict(backend=backend, subdomains=16 if quick else 1024, time_limit=cap, **small), cap,
                        {"constraint_set": k}))
    counts3 = {2: (8,)} if quick else COUNTS3
    for d, counts in counts3.items():
        for n in counts:
            rows.append(Row(f"table3_d{d}_N{n}", "table3", 1 if d <= 3 else 2, f"P3_{d}", d,
                            dict(backend=backend, subdomains=n, partition="adaptive", time_limit=tcap, **small),
                            tcap, {"paper_limit_s": PAPER_LIMIT}))
    counts4 = (("alpine02", 3, (8,)), ("styblinski_tang", 3, (8,))) if quick else COUNTS4
    for name, d, counts in counts4:
        for n in counts:
            rows.append(Row(f"table4_{name}_{d}d_N{n}", "table4", 2, name, d,
                            dict(backend=backend, subdomains=n, partition="adaptive", time_limit=tcap, **small),
                            tcap, {"paper_limit_s": PAPER_LIMIT}))
    return rows


def _paper_seconds():
    """{(table, N, dim or name): seconds} of Tables 3 and 4 where the paper gives a time (not a gap)."""
    import csv
    out = {}
    from gpubench import experiments
    with open(Path(experiments.__path__[0]) / "published" / "maingo_gpu_subdomain_times.csv") as f:
        for row in csv.DictReader(f):
            if row["table"] not in ("3", "4") or "gap" in row["raw"] or not row["subdomains"]:
                continue
            out[(row["table"], int(row["subdomains"]), row["problem"])] = float(row["seconds_or_gap"])
    return out


def _paper_limited(r):
    """The row with its time limit raised to the paper's time for it, where the paper gives one."""
    if r.section not in ("table3", "table4"):
        return r
    table = r.section[-1]
    n = r.kw["subdomains"]
    for (t, pn, problem), secs in _paper_seconds().items():
        same = (f"d={r.dim})" in problem if t == "3" else
                problem.lower().startswith(r.problem.replace("_", "-").split("-")[0]) and f"{r.dim}d" in problem)
        if t == table and pn == n and same and secs > r.limit:
            kw = dict(r.kw, time_limit=secs)
            return dataclasses.replace(r, kw=kw, limit=secs, extra=dict(r.extra, limit_rule="the paper's time"))
    return r


# ------------------------------------------------------------------ estimates and plan
def _evidence(folder=RECORDS):
    """{(problem, form, N, serial?, dim): seconds} and {problem: compile s} from the stored rows
    under ``folder`` (a GPU figure wins over a CPU one)."""
    secs, comp = {}, {}
    recs = []
    for p in sorted(Path(folder).glob("*/rows/*.json")):
        try:
            recs.append(document(p))
        except (OSError, ValueError):
            continue
    recs.sort(key=lambda r: r.get("backend") == "cuda")      # GPU rows last: they override
    for r in recs:
        if "error" in r or "seconds" not in r or "subdomains" not in r:
            continue
        serial = r.get("backend") == "cpu" and not r.get("cpu_parallel", True)
        secs[(r["problem"], r.get("form"), r["subdomains"], serial, r["dim"])] = r["seconds"]
        if r.get("backend") == "cuda" and r.get("compile_s"):
            comp[r["problem"]] = max(comp.get(r["problem"], 0.0), r["compile_s"])
    return secs, comp


def estimate(rows):
    """Seconds per row (compile included on a problem's first row): the earlier record's time where
    there is one, else the row's limit; the lower-bounding rows from their repetitions."""
    secs, comp = _evidence()
    seen, out = set(), {}
    for r in rows:
        be = r.kw.get("backend", "cuda")
        t = 0.0
        if r.compile_key() not in seen:
            kind = ("cpu" if be != "cuda" else "first" if not seen else "P4" if r.problem.startswith("P4_")
                    and any(k[0].startswith("P4_") for k in seen) else "ann" if r.problem[0] == "P" else "library")
            seen.add(r.compile_key())
            t += comp.get(r.problem, COMPILE_GUESS[kind])
        if r.section == "lb100x":
            # serial CPU at 1024 subdomains: 15 ms a bound (H200 host); linear in N, 4 timed loops
            t += 0.015 * r.kw["subdomains"] / 1024 * (r.extra["reps"] // 3 + 2) * 4 + 3.0
        else:
            serial = r.kw.get("backend") == "cpu" and not r.kw.get("cpu_parallel", True)
            form = r.kw.get("form", "mean-value")
            t += min(r.limit, secs.get((r.problem, form, r.kw["subdomains"], serial, r.dim), r.limit)) + 0.3
        out[r.id] = t
    return out


def print_plan(rows, est, log=print):
    for part in sorted({r.part for r in rows}):
        tot = 0.0
        log(f"part {part}:")
        for sec in dict.fromkeys(r.section for r in rows if r.part == part):
            sel = [r for r in rows if r.part == part and r.section == sec]
            t = sum(est[r.id] for r in sel)
            tot += t
            log(f"  {sec:8s} {len(sel):3d} rows  ~{t:6.0f} s")
        log(f"  total ~{tot:.0f} s (budget {BUDGET:.0f} s a command; rows that do not fit are left for a rerun)")


# ------------------------------------------------------------------ running
class Store:
    """One JSON file per finished row under OUTDIR/rows/."""

    def __init__(self, out):
        self.dir = Path(out) / "rows"

    def path(self, row_id):
        return self.dir / f"{row_id}.json"

    def done(self, row_id):
        p = self.path(row_id)
        if not p.is_file():
            return False
        try:
            return "error" not in document(p)
        except (OSError, ValueError):       # unreadable: measure again
            return False

    def write(self, rec):
        atomic_write(self.path(rec["id"]), json.dumps(rec, indent=1, default=_json) + "\n")


def _json(v):
    if isinstance(v, (np.floating, np.integer)):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    return str(v)


def execute(rows, out, measure, budget=BUDGET, est=None, env=None, log=print):
    """Measure every unfinished row that fits in ``budget`` seconds; each written as it finishes.

    A row is started only if its worst case (its limit, or its estimate when larger) fits in what
    is left, so the command ends within the budget; the rows left are listed and done by a rerun.
    Returns (measured ids, left ids).
    """
    store = Store(out)
    est = est or {}
    t_end = time.perf_counter() + budget
    env = env if env is not None else environment.capture()
    done, left = [], []
    for r in rows:
        if store.done(r.id):
            continue
        need = max(r.limit, est.get(r.id, 0.0)) + 2.0
        if t_end - time.perf_counter() < need:
            left.append(r.id)
            continue
        t0 = time.perf_counter()
        try:
            rec = measure(r)
        except Exception as exc:  # one failed row must not lose the others; it is retried next time
            rec = {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc(limit=3)}
        rec = {"id": r.id, "section": r.section, "part": r.part, "problem": r.problem, "dim": r.dim,
               "limit_s": r.limit, **r.extra, **rec, "row_wall_s": time.perf_counter() - t0,
               "environment": env, "note": NOTE}
        store.write(rec)
        done.append(r.id)
        log(f"{r.id}: " + json.dumps({k: rec.get(k) for k in ("status", "iterations", "seconds", "error",
                                                                "speedup_kernel_serial") if k in rec},
                                       default=_json))
    return done, left


# ------------------------------------------------------------------ measurements
def _problem(name):
    from gpubench import functions
    from gpubench.forms.function import TestFunction
    if name.startswith(("P1", "P2", "P3_", "P4_")):
        import importlib
        obj = importlib.import_module("gpubench.functions._paper001").get(name)
        return functions.get(obj) if hasattr(obj, "objective") else TestFunction(obj)
    return functions.get(name)


class Measure:
    """Runs one row: a B&B (compile run first, excluded) or the lower-bounding comparison."""

    def __init__(self):
        self.compiled = set()

    def __call__(self, row):
        if row.section == "lb100x":
            return lb_compare(_problem(row.problem), row.dim, row.kw["subdomains"], row.kw["backend"],
                              row.extra["reps"])
        return self.solve(row)

    def solve(self, row):
        from gpubench.methods import subdomain_bnb as sb
        fn = _problem(row.problem)
        s = sb.SubdomainBnBSettings(**row.kw)
        s.check(sb.NAME)
        compile_s = None
        if row.compile_key() not in self.compiled:
            t0 = time.perf_counter()
            sb.METHOD.warmup(fn, row.dim, s)
            compile_s = time.perf_counter() - t0
            self.compiled.add(row.compile_key())
        r = sb.run(fn, row.dim, s)
        return {"backend": r.backend, "cpu_parallel": s.cpu_parallel, "form": s.form, "partition": s.partition,
                "subdomains": int(np.prod(r.options["counts_root"])), "counts_root": r.options["counts_root"],
                "status": r.status, "iterations": r.iterations, "seconds": r.seconds,
                "lower_bounding_seconds": r.timing["lower_bounding_seconds"],
                "root_lower_bound": r.timing["root_lower_bound"], "glb": r.glb, "gub": r.gub, "fun": r.fun,
                "x": None if r.x is None else r.x.tolist(),
                "abs_gap": None if r.fun is None else r.gub - r.glb, "compile_s": compile_s,
                "settings": s.as_dict()}


def lb_nodes(lo0, hi0):
    """The nodes the lower-bounding comparison uses: the root, and a node 1/8 of it per side."""
    w = hi0 - lo0
    return [("root", lo0.copy(), hi0.copy()), ("node_1_8", lo0 + 0.375 * w, lo0 + 0.5 * w)]


def lb_compare(fn, dim, n, backend, reps):
    """Lower bounding of the same nodes at N subdomains: ``backend`` (the GPU) vs serial vs parallel CPU.

    ``kernel_s``: the enclosure computation alone, warm, median of ``reps`` (CUDA events on the
    GPU, inputs already on the device; wall clock on the CPU).  ``step_s``: one whole
    ``SubdomainSearch.lower_bound`` (transfers, infeasibility tests, argmin, the best box).
    """
    from gpubench.device.gpu import Timer
    from gpubench.methods.subdomain_bnb import FORM_CODE, SubdomainBnBSettings, SubdomainSearch, parts_per_dim
    impls = {"gpu": (backend, True), "cpu_parallel": ("cpu", True), "cpu_serial": ("cpu", False)}
    out = {"subdomains": n, "form": "mean-value", "reps": reps, "nodes": []}
    try:
        import numba
        out["cpu_threads"] = int(numba.get_num_threads())
    except Exception:  # noqa: BLE001  (only informative)
        pass
    searches = {k: SubdomainSearch(fn, dim, SubdomainBnBSettings(backend=be, cpu_parallel=par, subdomains=n))
                for k, (be, par) in impls.items()}
    form = FORM_CODE["mean-value"]
    for name, lo, hi in lb_nodes(searches["gpu"].lo0, searches["gpu"].hi0):
        counts = parts_per_dim(hi - lo, n, "uniform")
        node = {"node": name, "lo": lo.tolist(), "hi": hi.tolist(), "counts": counts.tolist()}
        for key, search in searches.items():
            b = search.bounders[0]
            lb, _ = search.lower_bound(lo, hi)               # compiles and allocates
            k_reps = reps if key != "cpu_serial" else max(2, reps // 10)
            if b.backend == "cuda":
                cu = b.cuda
                args = (cu.to_device(lo), cu.to_device(hi), cu.to_device(counts))
            else:
                args = (lo, hi, counts)
            timer = Timer(cuda=b.backend == "cuda")
            for i in range(k_reps):
                with timer.time(i):
                    b.compute(*args, form)
            steps = []
            for _ in range(k_reps):
                t0 = time.perf_counter()
                search.lower_bound(lo, hi)
                steps.append(time.perf_counter() - t0)
            node[key] = {"backend": b.backend, "parallel": b.parallel, "lower_bound": lb,
                         "kernel_s": float(np.median(list(timer.seconds.values()))),
                         "step_s": float(np.median(steps)), "reps": k_reps}
        g, s, p = node["gpu"], node["cpu_serial"], node["cpu_parallel"]
        node["speedup_kernel_serial"] = s["kernel_s"] / g["kernel_s"]
        node["speedup_kernel_parallel"] = p["kernel_s"] / g["kernel_s"]
        node["speedup_step_serial"] = s["step_s"] / g["step_s"]
        node["speedup_step_parallel"] = p["step_s"] / g["step_s"]
        out["nodes"].append(node)
    out["speedup_kernel_serial"] = min(nd["speedup_kernel_serial"] for nd in out["nodes"])
    out["target_100x_met"] = bool(backend == "cuda" and out["speedup_kernel_serial"] >= 100.0)
    return out


# ------------------------------------------------------------------ legacy records
def import_legacy(path, out):
    """Split an earlier monolithic ``gpu_bnb.json`` into row files (``legacy``: true), unchanged."""
    data = document(path)
    env, cap = data.get("environment", {}), data.get("settings", {}).get("row_cap_s")
    store, n = Store(out), 0

    def put(row_id, section, r, limit):
        nonlocal n
        if "error" in r:
            return
        rec = {"id": row_id, "section": section, "limit_s": limit, **r, "environment": env,
               "legacy": True, "legacy_source": Path(path).name,
               "legacy_settings": data.get("settings"), "note": data.get("note", NOTE)}
        store.write(rec)
        n += 1

    for r in data.get("fig6ab", []):
        put(f"fig6ab_{r['form']}_N{r['subdomains']}", "fig6ab", r, cap)
    cd = data.get("fig6cd") or {}
    for key in ("gpu", "cpu_serial"):
        for r in cd.get(key, []):
            put(f"fig6cd_{key}_N{r['subdomains']}", "fig6cd", {**r, "series": key}, cap)
    for r in cd.get("lower_bounding", []):
        # the earlier measurement: one whole lower-bounding step at the root, GPU vs serial CPU
        put(f"lb_step_N{r['subdomains']}", "lb_step", r, None)
    for r in data.get("table1", []):
        put(f"table1_{r['problem']}", "table1", {**r, "constraint_set": int(r["problem"].split("_")[1])}, cap)
    for r in data.get("table3", []):
        put(f"table3_d{r['dim']}_N{r['subdomains']}", "table3", r, cap)
    for r in data.get("table4", []):
        # the earlier script gave Table 4's rows twice the cap
        put(f"table4_{r['problem']}_{r['dim']}d_N{r['subdomains']}", "table4", r, 2 * cap if cap else None)
    return n


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--part", default="all", choices=("1", "2", "all"), help="which command's rows")
    ap.add_argument("--plan", action="store_true", help="print the rows and their estimated time, run nothing")
    ap.add_argument("--budget", type=float, default=BUDGET, help="seconds of rows in this command")
    ap.add_argument("--backend", default="cuda", choices=("cuda", "cpu"),
                    help="cpu: the CPU parallel backend in the GPU's place (no speedup claims)")
    ap.add_argument("--quick", action="store_true", help="tiny rows (node limits of 3, small N)")
    ap.add_argument("--sections", default=None, help="comma-separated subset of: lb100x, fig6ab, fig6cd, "
                                                     "table1, table3, table4")
    ap.add_argument("--paper-limit", action="store_true",
                    help="Tables 3 and 4: each row's limit is the paper's time for it (at least TABLE_LIMIT), "
                         "so a row that does not converge has run at least as long as the paper's")
    ap.add_argument("--rows", default=None, help="comma-separated row ids (one process per row runs them side by side)")
    ap.add_argument("--import-legacy", metavar="JSON", help="split an earlier gpu_bnb.json into OUTDIR/rows")
    a = ap.parse_args(argv)
    try:
        if a.budget <= 0:
            raise InputError(f"--budget must be positive, got {a.budget}")
        if a.import_legacy:
            print(f"{import_legacy(a.import_legacy, a.outdir)} rows written to {a.outdir}/rows")
            return 0
        rows = plan_rows(a.backend, a.quick)
        if a.sections:
            want = set(a.sections.split(","))
            bad = want - {r.section for r in rows}
            if bad:
                raise InputError(f"unknown section(s): {', '.join(sorted(bad))}")
            rows = [r for r in rows if r.section in want]
        if a.part != "all":
            rows = [r for r in rows if r.part == int(a.part)]
        if a.rows:
            want = set(a.rows.split(","))
            bad = want - {r.id for r in rows}
            if bad:
                raise InputError(f"unknown row(s): {', '.join(sorted(bad))}")
            rows = [r for r in rows if r.id in want]
        if a.paper_limit:
            rows = [_paper_limited(r) for r in rows]
        store = Store(a.outdir)
        todo = [r for r in rows if not store.done(r.id)]
        est = estimate(rows)
        print_plan(todo, est)
        if a.plan:
            return 0
        Path(a.outdir).mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        done, left = execute(todo, a.outdir, Measure(), budget=a.budget, est=est)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"measured {len(done)} rows in {time.perf_counter() - t0:.0f} s into {a.outdir}/rows; "
          + (f"left for a rerun: {', '.join(left)}" if left else "every row of this part is done"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
