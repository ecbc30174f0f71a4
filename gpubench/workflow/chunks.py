"""Tables S12/S13 at the paper's full run counts in resumable chunks (kept: `gpubench reproduce` runs a case whole, and one case here is up to 50,000 runs).

    python -m gpubench.workflow.chunks OUT [--experiment tableS12] [--budget SECONDS] [--workers N]
                               [--chunk-seconds S] [--only ENTRY,...] [--quick] [--plan]
    python -m gpubench.workflow.chunks OUT --experiment tableS13 --same-as tableS12

The heuristics of Tables S12/S13 (Zhang, Shan & Cagan 2026, SI Appendix E) at the paper's
run counts (basin-hopping 1,000, BFGS 50,000, DE 100, DIRECT 1, interior point 50,000,
Nelder-Mead 10,000, trust region 50,000) take far more than one command: interior point alone
is ~0.5 s per run.  Each method entry's runs are split into run ranges [a, b) (setting
``first_run``: run k draws from ``default_rng([seed, k])`` whatever the chunking), each range
run by one process (``--workers`` at a time) and stored atomically when it ends under
``OUT/chunks/<experiment>/<entry>-<function>-n<dim>/<a>-<b>.json``.  A rerun with the same OUT
runs only the ranges no stored chunk covers, cheapest entries first, and starts a chunk only
if its estimated time fits what is left of ``--budget`` (so the command stops cleanly between
chunks).  After each command every entry with chunks is merged into the one record the report
reads, ``OUT/results/<experiment>/<case>.json``: the best value over the runs done, the number
of runs done of those planned ("k of 50,000"), how many found f*, the evaluations, and the
time: the sum of the chunks' times (each run on one core, as the paper's sequential runs),
with the commands' wall times and core counts in ``provenance``.  Copy ``OUT/results/<experiment>``
into ``results/`` and run ``gpubench report <experiment>``.

Tables S12 and S13 print one computation timed on two machines (a laptop and a server);
their experiment files plan the same cases (same settings and seeds: the case ids are equal).
``--same-as tableS12`` therefore runs nothing: it checks that the two plans are the same and
writes S12's merged records as S13's (``experiment`` changed, ``provenance.same_computation_as``
saying where they come from), so each table is compared with its own published column.

The estimate of a chunk is the entry's measured seconds per run (from its stored chunks), else
:data:`PRIOR_S_PER_RUN` (measured on one core of the development machine, see the note there);
an entry's first chunk is sized to about ``--chunk-seconds`` / 6 so that it measures cheaply.
``--plan`` prints, from the stored chunks and the priors, how many commands of ``--budget``
seconds on 16 and on 32 cores the remaining runs need, and runs nothing.  The rigorous solver's
entry is not run here (``gpubench reproduce`` or scripts/gpu_solver_runs.py run it).
"""
import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

from ..records.read import document

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

# Seconds per run at tableS12's settings, Ackley n = 100, measured with this script on one core of
# the development machine (Xeon, 2 cores shared with other jobs, 2026-11-23): basin-hopping 1,000
# runs, BFGS and trust region 50,000, DIRECT, interior point 1,142, Nelder-Mead 49, DE 1 run.
# Priors only: an entry's own stored chunks replace them as soon as one is stored.
PRIOR_S_PER_RUN = {
    "basinhopping": 0.103, "bfgs": 0.0008, "differential_evolution": 69.1, "direct": 2.1,
    "direct_scipy_defaults": 0.013, "trust_constr": 0.073, "nelder_mead": 0.71, "trust_region": 0.0015,
    "de_user_budget": 22.1,
}
DEFAULT_PRIOR = 1.0
MARGIN = 1.25  # a chunk starts only if MARGIN x its estimate fits the time left


def entries(exp, quick):
    """[(spec, function, dim)] of the chunkable entries (SciPy's methods; the solver is run elsewhere)."""
    from gpubench import methods
    v = exp.variant(quick)
    # the multi-start methods that can run a range of their runs (SciPy's seven)
    return [(spec, f, n) for spec in v.methods if "first_run" in methods.get(spec.method).settings.names()
            for f in v.functions for n in v.dims]


def pending_whole(exp, quick, results, only=()):
    """The runner's cases of the entries that run whole (the GPU methods: every run in one call),
    not yet stored under ``results``."""
    from gpubench import methods
    from gpubench.workflow import runner
    stored = runner.stored_cases(results) if Path(results).is_dir() else set()
    return [c for c in runner.plan(exp, quick=quick)
            if not methods.is_rigorous(c.method) and "first_run" not in methods.get(c.method).settings.names()
            and (not only or c.key in only) and c.case_id not in stored]


def whole_estimate(case):
    limit = case.settings.get("time_limit")
    return float(limit) + 30.0 if limit else PRIOR_S_PER_RUN.get(case.key, DEFAULT_PRIOR * 60)


def _k(e):
    """A hashable name of an entry (spec, function, dim): its settings are a dict."""
    return e[0].key, e[1], e[2]


def chunk_dir(out, exp, spec, f, n):
    return Path(out) / "chunks" / exp.id / f"{spec.key}-{f}-n{n}"


def load_chunks(folder, variant):
    """Stored chunks of one entry, in run order; a file that is not a complete chunk is ignored."""
    out = []
    for p in sorted(Path(folder).glob("*.json")):
        try:
            c = document(p)
        except (OSError, ValueError):
            continue
        if isinstance(c, dict) and c.get("variant") == variant and {"first", "last", "run_fun", "seconds"} <= set(c) \
                and p.stem == f"{c['first']}-{c['last']}":
            out.append(c)
    return sorted(out, key=lambda c: c["first"])


def gaps(runs, chunks):
    """Run ranges [a, b) of 0 .. runs-1 that no chunk covers."""
    out, at = [], 0
    for c in chunks:
        if c["first"] > at:
            out.append((at, min(c["first"], runs)))
        at = max(at, c["last"])
    if at < runs:
        out.append((at, runs))
    return [(a, b) for a, b in out if b > a]


def runs_done(chunks):
    seen = set()
    for c in chunks:
        seen.update(range(c["first"], c["first"] + len(c["run_fun"])))
    return len(seen)


def per_run(spec, chunks):
    """(seconds per run, where the figure comes from)."""
    k = sum(len(c["run_fun"]) for c in chunks)
    if k:
        return sum(c["seconds"] for c in chunks) / k, "measured"
    return PRIOR_S_PER_RUN.get(spec.key, DEFAULT_PRIOR), "prior"


def run_chunk(exp_id, quick, key, function, dim, first, last):
    """One run range of one entry, in a worker process; returns the chunk (a JSON-ready dict)."""
    from gpubench.workflow import experiments_loader, runner
    from gpubench.records.schema import json_ready
    from gpubench import functions, methods
    exp = experiments_loader.load(exp_id)
    spec = next(s for s in exp.variant(quick).methods if s.key == key)
    method = methods.get(spec.method)
    fn = functions.get(function)
    values = dict(spec.settings, runs=last - first, first_run=first, workers=1)
    settings = method.make_settings(values)
    case = runner.Case(exp.id, "quick" if quick else "full", function, dim, key, spec.method, spec.label,
                       dict(spec.settings), 0, exp.success_tol)
    warm = runner.warm_up(fn, dim, method, settings)
    t0 = time.perf_counter()
    r = method.run(fn, dim, settings)
    wall = time.perf_counter() - t0
    env = runner.environment()
    return json_ready({
        "experiment": exp.id, "variant": case.variant, "key": key, "function": function, "dim": dim,
        "first": first, "last": last, "run_fun": r.history["run_fun"], "best_f": r.fun, "x": r.x,
        "nfev": r.nfev, "njev": r.njev, "iterations": r.iterations, "seconds": r.seconds, "wall_seconds": wall,
        "warmup_seconds": warm, "options": r.options, "message": r.message,
        "host": env.get("host"), "date": env.get("date"), "environment": env})


def merge(out, exp, quick, spec, f, n, chunks, commands):
    """The one record of this entry from its chunks (written under OUT/results/<experiment>/)."""
    import numpy as np
    from gpubench import functions
    from gpubench.workflow import runner
    from gpubench.result import OptimizeResult
    fn = functions.get(f)
    planned = int(spec.settings.get("runs", 1))
    fstar = fn.fstar(n)
    vals = [v for c in chunks for v in c["run_fun"]]
    sign = 1.0 if fn.sense == "min" else -1.0
    b = min(range(len(chunks)), key=lambda i: sign * chunks[i]["best_f"])
    k = runs_done(chunks)
    found = sum(1 for v in vals if abs(v - fstar) <= exp.success_tol)
    q = np.quantile(np.asarray(vals), [0.0, 0.25, 0.5, 0.75, 1.0]).tolist()
    history = {"runs_completed": k, "runs_planned": planned, "runs_found_fstar": found,
               "run_fun_quantiles": dict(zip(("min", "q25", "median", "q75", "max"), q))}
    if k <= 1000:
        history["run_fun"] = vals
    options = dict(chunks[0]["options"], runs=planned, first_run=0,
                   chunking="runs split into ranges [first, last), run k from default_rng([seed, k])")
    secs = sum(c["seconds"] for c in chunks)
    result = OptimizeResult(
        function=f, dim=n, method=spec.method, backend="cpu", x=np.asarray(chunks[b]["x"]),
        fun=float(chunks[b]["best_f"]), iterations=sum(c["iterations"] for c in chunks),
        nfev=sum(c["nfev"] for c in chunks), njev=sum(c["njev"] for c in chunks), seconds=secs,
        converged=k == planned,
        message=f"best of {k:,} of {planned:,} run(s), {found:,} within {exp.success_tol:g} of f*"
                + ("" if k == planned else " (partial: the remaining runs are not done yet)"),
        history=history, options=options)
    case = runner.Case(exp.id, "quick" if quick else "full", f, n, spec.key, spec.method, spec.label,
                       dict(spec.settings), 0, exp.success_tol)
    prov = {"chunked": True, "runs_planned": planned, "runs_completed": k,
            "seconds_rule": "seconds: sum of the chunks' times, each run on one core",
            "chunks": [{k2: c[k2] for k2 in ("first", "last", "seconds", "host", "date")} for c in chunks],
            "commands": commands}
    rec = runner.make_record(case, fn, result, secs, sum(c["warmup_seconds"] for c in chunks),
                             chunks[0]["environment"], provenance=prov)
    folder = Path(out) / "results" / exp.id
    folder.mkdir(parents=True, exist_ok=True)
    runner.write_record(folder, rec)
    return rec


def plan_lines(todo, budget):
    """Lines of the plan: per entry and the commands needed on 16 and 32 cores."""
    lines, total = [], 0.0
    longest = 0.0
    for (key, f, n), (done, planned, spr, src) in todo.items():
        left = (planned - done) * spr
        total += left
        longest = max(longest, spr if planned > done else 0.0)
        lines.append(f"  {key:24s} {done:>7,} of {planned:>7,} runs done; {spr:9.4f} s/run ({src}); "
                     f"~{left:10,.0f} core-s left")
    lines.append(f"  total ~{total:,.0f} core-s left (~{total / 3600:.1f} core-hours); longest single run ~{longest:.0f} s")
    for cores in (16, 32):
        usable = budget / MARGIN * cores
        lines.append(f"  on {cores} cores: ~{max(0, math.ceil(total / usable)) if total else 0} command(s) of "
                     f"{budget:.0f} s ({budget / 60:.0f} min; chunks start only if {MARGIN}x their estimate fits)")
    return lines, total


def same_as(out, src, dst, quick=False, shared_only=False):
    """Store ``src``'s merged records as ``dst``'s, after checking that both plan the same cases
    (``shared_only``: only the cases both plan, e.g. Table S12's rigorous row, which Table S2
    plans with the same case id: the same function, n, settings and seed)."""
    from gpubench.workflow import experiments_loader, runner
    from gpubench.device.gpu import atomic_write
    if src == dst:
        print(f"host_s12: --same-as names the experiment itself ({dst})", file=sys.stderr)
        return 2
    plans = {e: {c.case_id for c in runner.plan(experiments_loader.load(e), quick)} for e in (src, dst)}
    if shared_only:
        plans[dst] &= plans[src]
        if not plans[dst]:
            print(f"host_s12: {src} and {dst} plan no case in common", file=sys.stderr)
            return 2
    elif plans[src] != plans[dst]:
        print(f"host_s12: {src} and {dst} plan different cases; run {dst} itself", file=sys.stderr)
        return 2
    folder = Path(out) / "results" / src
    recs = [document(p) for p in sorted(folder.glob("*.json"))] if folder.is_dir() else []
    if not recs:
        print(f"host_s12: no merged records of {src} under {folder}", file=sys.stderr)
        return 2
    recs = [rec for rec in recs if rec.get("case") in plans[dst]]
    for rec in recs:
        rec["experiment"] = dst
        prov = rec.get("provenance")
        rec["provenance"] = prov if isinstance(prov, dict) else ({"source": prov} if prov else {})
        rec["provenance"]["same_computation_as"] = (
            f"{src}: the same case (settings and seeds), one computation reported against each table")
        atomic_write(Path(out) / "results" / dst / f"{rec['case']}.json", json.dumps(rec, indent=1))
    print(f"{dst}: {len(recs)} record(s) of {src} stored as {dst}'s", flush=True)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--experiment", default="tableS12", choices=("tableS12", "tableS13"))
    ap.add_argument("--budget", type=float, default=540.0, help="seconds this command may take (default 540)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: every core)")
    ap.add_argument("--chunk-seconds", type=float, default=120.0, help="target seconds of one chunk (default 120)")
    ap.add_argument("--quick", action="store_true", help="the quick variant (to test this script on a CPU)")
    ap.add_argument("--plan", action="store_true", help="print what remains and the commands it needs; run nothing")
    ap.add_argument("--only", default="", help="comma-separated entry names (default: every heuristic entry)")
    ap.add_argument("--same-as", default=None, choices=("tableS12", "tableS13"),
                    help="store that experiment's merged records as this one's (same cases), run nothing")
    ap.add_argument("--cases-from", default=None, metavar="EXPERIMENT",
                    help="store that experiment's records of the cases both plan (same case id) as this one's, "
                         "run nothing (e.g. tableS2 for the rigorous row)")
    a = ap.parse_args(argv)
    from gpubench.workflow import experiments_loader
    from gpubench.device.gpu import atomic_write, check_writable_dir
    from gpubench.errors import InputError
    if a.same_as or a.cases_from:
        try:
            return same_as(a.out, a.same_as or a.cases_from, a.experiment, a.quick, shared_only=bool(a.cases_from))
        except InputError as e:  # an unknown experiment name
            print(f"host_s12: {e}", file=sys.stderr)
            return 2
    try:
        for name, v in (("--budget", a.budget), ("--chunk-seconds", a.chunk_seconds)):
            if not v > 0:
                raise InputError(f"{name} must be positive, got {v:g}")
        if a.workers < 1:
            raise InputError(f"--workers must be at least 1, got {a.workers}")
        out = check_writable_dir(a.out, "OUT")
        exp = experiments_loader.load(a.experiment)
        ents = entries(exp, a.quick)
        from gpubench import methods
        whole_keys = {s.key for s in exp.variant(a.quick).methods if not methods.is_rigorous(s.method)
                      and "first_run" not in methods.get(s.method).settings.names()}
        only = [k for k in a.only.split(",") if k]
        names = {e[0].key for e in ents} | whole_keys
        unknown = sorted(set(only) - names)
        if unknown:
            raise InputError(f"--only: {exp.id} has no heuristic entry {unknown[0]!r}; its entries: "
                             + ", ".join(sorted(names)))
        only_whole = [k for k in only if k in whole_keys]
        if only:
            ents = [e for e in ents if e[0].key in only]
    except InputError as e:
        print(f"host_s12: {e}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    variant = "quick" if a.quick else "full"
    results = out / "results" / exp.id
    log_path = out / "chunks" / exp.id / f"commands-{variant}.json"
    commands = document(log_path) if log_path.is_file() else []

    def state():
        todo, chunks_of = {}, {}
        for e in ents:
            spec, f, n = e
            cs = load_chunks(chunk_dir(out, exp, spec, f, n), variant)
            chunks_of[_k(e)] = cs
            spr, src = per_run(spec, cs)
            todo[_k(e)] = (runs_done(cs), int(spec.settings.get("runs", 1)), spr, src)
        return todo, chunks_of

    todo, chunks_of = state()
    lines, total = plan_lines(todo, a.budget)
    gpu_left = pending_whole(exp, a.quick, results, only_whole) if (not a.only or only_whole) else []
    lines += [f"  {c.key:24s} one call (GPU when there is one), not stored; ~{whole_estimate(c):.0f} s "
              + ("at most (its time limit)" if c.settings.get("time_limit") else "(a prior; it has no time limit)")
              for c in gpu_left]
    print(f"{exp.id} ({variant}), {len(ents)} chunked entries:\n" + "\n".join(lines), flush=True)
    if a.plan:
        return 0
    results.mkdir(parents=True, exist_ok=True)

    # the chunks to run: cheapest entries first; an entry's first chunk small (it measures the entry)
    # the chunks to run: first a small chunk of every entry not yet measured (it replaces the prior
    # by a measurement, so the plan printed at the end is measured), then cheapest entries first
    probes, tasks = [], []
    for e in sorted(ents, key=lambda e: (todo[_k(e)][1] - todo[_k(e)][0]) * todo[_k(e)][2]):
        spec, f, n = e
        done, planned, spr, src = todo[_k(e)]
        size = max(1, int(a.chunk_seconds / max(spr, 1e-9)))
        first = max(1, int(a.chunk_seconds / 6 / max(spr, 1e-9))) if src == "prior" else size
        probe = src == "prior"
        for lo, hi in gaps(planned, chunks_of[_k(e)]):
            k = lo
            while k < hi:
                step = min(hi - k, first)
                (probes if probe else tasks).append((e, k, k + step, step * spr))
                probe = False
                k += step
                first = size
    tasks = probes + tasks
    whole = [] if a.only and not only_whole else pending_whole(exp, a.quick, results, only_whole)
    import concurrent.futures as cf
    import multiprocessing

    def left():
        return a.budget - (time.perf_counter() - t0)

    ran, failed, running = [], [], {}

    def top_up():
        while tasks and len(running) < a.workers:
            e, lo, hi, est = tasks[0]
            if MARGIN * est > left():
                # this entry's next chunk does not fit; a cheaper later one may (other entries)
                fit = next((i for i, t in enumerate(tasks) if MARGIN * t[3] <= left()), None)
                if fit is None:
                    return
                e, lo, hi, est = tasks.pop(fit)
            else:
                tasks.pop(0)
            spec, f, n = e
            running[pool.submit(run_chunk, exp.id, a.quick, spec.key, f, n, lo, hi)] = (e, lo, hi)

    def collect(block):
        if not running:
            return
        done, _ = cf.wait(list(running), timeout=None if block else 0, return_when=cf.FIRST_COMPLETED)
        for fut in done:
            e, lo, hi = running.pop(fut)
            spec, f, n = e
            try:
                c = fut.result()
            except Exception as exc:  # one failed chunk must not lose the others
                failed.append(f"{spec.key} [{lo}, {hi}): {type(exc).__name__}: {exc}"[:300])
                print("  FAILED " + failed[-1], flush=True)
                continue
            atomic_write(chunk_dir(out, exp, spec, f, n) / f"{lo}-{hi}.json", json.dumps(c))
            ran.append((spec.key, lo, hi, c["seconds"]))
            print(f"  {spec.key} runs [{lo:,}, {hi:,}): {c['seconds']:.1f} s, best {c['best_f']:.6g}", flush=True)

    # spawned, not forked: this process may initialise CUDA for the GPU entries
    pool = cf.ProcessPoolExecutor(a.workers, mp_context=multiprocessing.get_context("spawn"))
    try:
        top_up()

        def run_whole():
            # the GPU entries (one call each, all their runs in one launch), one at a time, in a
            # thread of this process while the workers run chunks
            from gpubench.workflow import runner
            for case in whole:
                est = whole_estimate(case)
                if MARGIN * est > left():
                    print(f"  {case.key}: not started (~{est:.0f} s does not fit the {max(left(), 0):.0f} s left)")
                    continue
                try:
                    rec = runner.run_case(case)
                    runner.write_record(results, rec)
                    ran.append((case.key, 0, 1, rec["measured"]["seconds"]))
                    print(f"  {case.key} ({rec['measured']['backend']}): {rec['measured']['seconds']:.1f} s, "
                          f"best {rec['measured']['fun']:.6g}", flush=True)
                except Exception as exc:
                    failed.append(f"{case.key}: {type(exc).__name__}: {exc}"[:300])
                    print("  FAILED " + failed[-1], flush=True)
        import threading
        gpu_thread = threading.Thread(target=run_whole, daemon=True)
        gpu_thread.start()
        while tasks or running or gpu_thread.is_alive():
            top_up()
            if not running:
                if not gpu_thread.is_alive():
                    break
                gpu_thread.join(1.0)
                continue
            collect(False) if gpu_thread.is_alive() else collect(True)
            if gpu_thread.is_alive():
                time.sleep(0.2)
        gpu_thread.join()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    wall = time.perf_counter() - t0
    if ran:
        from gpubench.workflow import runner
        commands.append({"date": runner.environment()["date"], "host": runner.environment().get("host"),
                         "workers": a.workers, "budget_s": a.budget, "wall_s": round(wall, 1),
                         "chunks": len(ran), "core_seconds": round(sum(r[3] for r in ran), 1)})
        atomic_write(log_path, json.dumps(commands, indent=1))
    todo, chunks_of = state()
    for e in ents:
        if chunks_of[_k(e)]:
            merge(out, exp, a.quick, *e, chunks_of[_k(e)], commands)
    lines, total = plan_lines(todo, a.budget)
    lines += [f"  {c.key:24s} one call, not stored yet" for c in pending_whole(exp, a.quick, results, only_whole)
              if not a.only or only_whole]
    print(f"{len(ran)} chunk(s) in {wall:.0f} s on {a.workers} worker(s), {len(failed)} failed; "
          + ("all runs done" if not total else "remaining:") + "\n" + "\n".join(lines), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
