"""The full comparison experiment (experiments/compare.toml) on the GPU host, in budgeted commands.

    python scripts/gpu_compare.py OUT [--budget SECONDS] [--workers N] [--quick] [--plan]

Runs the cases of ``compare`` not yet stored under ``OUT/results/compare/`` through the
runner's own :func:`gpubench.runner.run_case` (the records are those of ``gpubench
reproduce compare``; copy ``OUT/results/compare`` into ``results/`` and run ``gpubench
report compare``).  Rerunning with the same OUT continues where the last command stopped.

* CPU-only cases (SciPy's methods) run ``--workers`` at a time in spawned processes (each
  method's BLAS single-threaded, so they do not compete for cores); the cases that may use
  the GPU (the rigorous solver, de-gpu, lbfgsb-gpu, tron-gpu) run one at a time in this
  process, so that no two share the GPU while timed.
* ``--budget`` (default 500 s) bounds the command: a case starts only if its estimated time
  fits in what is left, so the command stops cleanly between cases.  The estimate of a case
  is the longest stored time (warm-up included) of the same method entry and dimension, else
  its time limit plus a compile allowance, else a prior (:data:`PRIOR_S`).
* Every record is written atomically when its case ends; ``OUT/gpu_compare.json`` (the
  environment, what ran in this command, what remains and its estimated time) is rewritten
  after each case.  ``--plan`` prints the estimate and runs nothing.
"""
import argparse
import json
import os
import sys
import time

# SciPy's local searches do small dense products: one BLAS thread per process (see
# gpubench/methods/scipy_methods.py); set before numpy is imported, inherited by the workers.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

PRIOR_S = 60.0  # a case of a method without a time limit and nothing stored yet
COMPILE_S = 30.0  # allowance for numba compiling a function's forms on first use
EXPERIMENT = "compare"


def estimate(case, stored):
    """Seconds the case is expected to take (warm-up included)."""
    seen = [r["measured"]["wall_seconds"] + (r["measured"].get("warmup_seconds") or 0.0)
            for r in stored if r["key"] == case.key and int(r["dim"]) == case.dim]
    if seen:
        return max(seen)
    limit = case.settings.get("time_limit")
    return float(limit) + COMPILE_S if limit else PRIOR_S


def uses_gpu(case):
    from gpubench import methods
    return "cuda" in methods.get(case.method).backends


def _write_status(out, status):
    from gpubench.device import atomic_write
    atomic_write(os.path.join(out, "gpu_compare.json"), json.dumps(status, indent=1, default=str))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=500.0, help="seconds this command may take (default 500)")
    ap.add_argument("--workers", type=int, default=max(1, (os.cpu_count() or 2) - 1),
                    help="processes for the CPU-only cases (default: cores - 1)")
    ap.add_argument("--quick", action="store_true", help="the quick variant (to test this script on a CPU)")
    ap.add_argument("--plan", action="store_true", help="print the estimate only")
    a = ap.parse_args(argv)
    from gpubench import experiments_loader, runner
    from gpubench.device import check_writable_dir
    from gpubench.errors import InputError
    try:
        if not a.budget > 0:
            raise InputError(f"--budget must be positive, got {a.budget:g}")
        if a.workers < 1:
            raise InputError(f"--workers must be at least 1, got {a.workers}")
        out = check_writable_dir(a.out, "OUT")
        exp = experiments_loader.load(EXPERIMENT)
    except InputError as e:
        print(f"gpu_compare: {e}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    folder = out / "results" / exp.id
    folder.mkdir(parents=True, exist_ok=True)
    runner.clean_partial(folder)
    cases = runner.plan(exp, quick=a.quick)
    stored = runner.load_records(folder)
    done_ids = {r["case"] for r in stored}
    pending = [c for c in cases if c.case_id not in done_ids]
    gpu = [c for c in pending if uses_gpu(c)]
    cpu = [c for c in pending if not uses_gpu(c)]
    est = {c.case_id: estimate(c, stored) for c in pending}
    sum_gpu, sum_cpu = sum(est[c.case_id] for c in gpu), sum(est[c.case_id] for c in cpu)
    wall = max(sum_gpu, sum_cpu / a.workers)
    variant = "quick" if a.quick else "full"
    print(f"{exp.id} ({variant}): {len(cases)} cases, {len(done_ids & {c.case_id for c in cases})} stored, "
          f"{len(pending)} to run: {len(gpu)} GPU-capable (one at a time, ~{sum_gpu:.0f} s) and {len(cpu)} "
          f"CPU-only ({a.workers} at a time, ~{sum_cpu:.0f} core-s); estimated wall time ~{wall:.0f} s "
          f"(~{max(1, -(-wall // a.budget)):.0f} command(s) of {a.budget:.0f} s; a case not yet measured counts "
          f"its time limit plus {COMPILE_S:.0f} s, or {PRIOR_S:.0f} s without one)", flush=True)
    status = {"experiment": exp.id, "variant": variant, "budget_s": a.budget, "workers": a.workers,
              "environment": runner.environment(), "ran": [], "failed": [],
              "estimated_wall_s_before": wall}
    if a.plan or not pending:
        status["remaining"] = len(pending)
        _write_status(out, status)
        return 0

    def left():
        return a.budget - (time.perf_counter() - t0)

    def record_done(case, rec, secs):
        runner.write_record(folder, rec)
        status["ran"].append({"case": case.case_id, "seconds": round(secs, 2),
                              "best_f": rec["measured"]["best_f"], "backend": rec["measured"]["backend"]})
        print(f"  done {case.describe()} ({rec['measured']['backend']}): {secs:.1f} s", flush=True)

    import concurrent.futures as cf
    import multiprocessing
    # spawned, not forked: this process initialises CUDA for the GPU cases
    pool = cf.ProcessPoolExecutor(a.workers, mp_context=multiprocessing.get_context("spawn"))
    running = {}
    queue = list(cpu)

    def top_up():
        while queue and len(running) < a.workers:
            c = queue[0]
            if est[c.case_id] > left():
                return
            queue.pop(0)
            running[pool.submit(runner.run_case, c)] = (c, time.perf_counter())

    def collect(block=False):
        if not running:
            return
        done, _ = cf.wait(list(running), timeout=None if block else 0,
                          return_when=cf.FIRST_COMPLETED)
        for fut in done:
            c, started = running.pop(fut)
            try:
                record_done(c, fut.result(), time.perf_counter() - started)
            except Exception as e:  # one failed case must not lose the others
                status["failed"].append({"case": c.case_id, "error": f"{type(e).__name__}: {e}"[:300]})
                print(f"  FAILED {c.describe()}: {type(e).__name__}: {e}"[:300], flush=True)
            _write_status(out, status)

    try:
        top_up()
        for c in gpu:
            collect()
            top_up()
            if est[c.case_id] > left():
                continue
            # said before it starts: a case that outlives the command is named in the status file
            status["current_gpu_case"] = {"case": c.case_id, "estimate_s": est[c.case_id]}
            _write_status(out, status)
            started = time.perf_counter()
            try:
                record_done(c, runner.run_case(c), time.perf_counter() - started)
            except Exception as e:
                status["failed"].append({"case": c.case_id, "error": f"{type(e).__name__}: {e}"[:300]})
                print(f"  FAILED {c.describe()}: {type(e).__name__}: {e}"[:300], flush=True)
            _write_status(out, status)
        while running or queue:
            top_up()
            if not running:
                break  # what is queued does not fit the budget left
            collect(block=True)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    stored = runner.load_records(folder)
    ids = {r["case"] for r in stored}
    remaining = [c for c in cases if c.case_id not in ids]
    rest = {c.case_id: estimate(c, stored) for c in remaining}
    rest_wall = max(sum(rest[c.case_id] for c in remaining if uses_gpu(c)),
                    sum(rest[c.case_id] for c in remaining if not uses_gpu(c)) / a.workers) if remaining else 0.0
    status.pop("current_gpu_case", None)
    status.update(remaining=len(remaining), estimated_wall_s_after=rest_wall,
                  seconds=time.perf_counter() - t0)
    _write_status(out, status)
    print(f"{len(status['ran'])} case(s) ran in {time.perf_counter() - t0:.0f} s, {len(status['failed'])} failed; "
          f"{len(remaining)} remain (~{rest_wall:.0f} s more)" + ("; rerun with the same OUT" if remaining else
                                                                    "; all stored"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
