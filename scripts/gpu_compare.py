"""The full comparison experiment (experiments/compare.toml) on the GPU host, in budgeted commands.

    python scripts/gpu_compare.py OUT [--budget SECONDS] [--workers N] [--quick] [--plan]
                                      [--cpu-only | --gpu-only [--share I/K]]

Runs the cases of ``compare`` not yet stored under ``OUT/results/compare/`` through the
runner's own :func:`gpubench.runner.run_case` (the records are those of ``gpubench
reproduce compare``; copy ``OUT/results/compare`` into ``results/`` and run ``gpubench
report compare``).  Rerunning with the same OUT continues where the last command stopped.

* CPU-only cases (SciPy's methods) run ``--workers`` at a time in spawned processes (each
  method's BLAS single-threaded, so they do not compete for cores); the cases that may use
  the GPU (the rigorous solver, de-gpu, lbfgsb-gpu, tron-gpu) run one at a time in this
  process, so that no two share the GPU while timed.
* Three processes at once on a host with two GPUs (the whole comparison in one command)::

      python scripts/gpu_compare.py OUT --cpu-only --workers 28 &
      CUDA_VISIBLE_DEVICES=0 python scripts/gpu_compare.py OUT --gpu-only --share 0/2 &
      CUDA_VISIBLE_DEVICES=1 python scripts/gpu_compare.py OUT --gpu-only --share 1/2 &

  ``--cpu-only`` runs only the CPU-only cases, ``--gpu-only`` only the GPU-capable ones, and
  ``--share I/K`` only share I of K of those: the (method entry, function) groups dealt out
  by estimated time (longest first, to the share with least so far), so that a method's
  kernels for a function compile in one process only.  The deal depends on the plan and the
  time limits alone, never on what is stored, so concurrent processes agree on it and never
  take each other's cases.  Each writes its own status file (``gpu_compare-cpu.json``,
  ``gpu_compare-gpuIofK.json``).  Records go to the one results folder under distinct names
  (the case id), each by its own temporary file and rename; a process removes only temporary
  files older than an hour (a younger one may be another writer's).
* ``--budget`` (default 500 s) bounds the command: a case starts only if its estimated time
  fits in what is left, so the command stops cleanly between cases.  The estimate of a case
  is the longest stored run time of the same method entry and dimension, else its time
  limit; the first case of a (method entry, function) in a process adds a compile allowance:
  the longest warm-up stored for that method on this kind of machine (any experiment), else
  :data:`COMPILE_S`.  A case without a time limit and nothing stored counts :data:`PRIOR_S`.
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
COMPILE_S = 30.0  # allowance for compiling a method's forms for a function, where none is stored
EXPERIMENT = "compare"
CLEAN_AFTER_S = 3600.0  # a temporary file this old is no live writer's


def run_time(case, stored):
    """Seconds the case itself is expected to take (warm-up apart)."""
    seen = [r["measured"]["wall_seconds"] for r in stored if r["key"] == case.key and int(r["dim"]) == case.dim]
    if seen:
        return max(seen)
    limit = case.settings.get("time_limit")
    return float(limit) if limit else PRIOR_S


def compile_allowances(results=None, gpu=None):
    """{method: longest stored warm-up} over every stored experiment, of records made on a machine
    with (``gpu`` True) or without a GPU; methods with none stored get :data:`COMPILE_S`."""
    from gpubench import runner
    if gpu is None:
        from gpubench.device import gpu_available
        gpu = gpu_available()
    root = runner.results_dir(results)
    out = {}
    for folder in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else ():
        for r in runner.load_records(folder):
            w = r["measured"].get("warmup_seconds")
            if w is None or bool((r.get("environment") or {}).get("gpu")) != gpu:
                continue
            out[r["method"]] = max(out.get(r["method"], 0.0), float(w))
    return out


def estimates(cases, stored, allowances):
    """{case_id: seconds} in run order: run time, plus the compile allowance on the first case of
    each (method entry, function) of ``cases`` (one process's share)."""
    seen, out = set(), {}
    for c in cases:
        first = (c.key, c.function) not in seen
        seen.add((c.key, c.function))
        out[c.case_id] = run_time(c, stored) + (allowances.get(c.method, COMPILE_S) if first else 0.0)
    return out


def uses_gpu(case):
    from gpubench import methods
    return "cuda" in methods.get(case.method).backends


def deal(cases, k, allowances):
    """Share i of k of ``cases`` for i = 0 .. k-1: whole (method entry, function) groups, longest
    first to the share with the least time so far.  From the plan and time limits only (never
    what is stored), so that processes started at different moments agree."""
    groups = {}
    for c in cases:
        groups.setdefault((c.key, c.function), []).append(c)
    weight = {g: sum(run_time(c, ()) for c in cs) + allowances.get(cs[0].method, COMPILE_S)
              for g, cs in groups.items()}
    load, share = [0.0] * k, {}
    for g in sorted(groups, key=lambda g: (-weight[g], g)):
        i = min(range(k), key=lambda j: (load[j], j))
        load[i] += weight[g]
        share[g] = i
    return [[c for c in cases if share[(c.key, c.function)] == i] for i in range(k)]


def _parse_share(text):
    from gpubench.errors import InputError
    try:
        i, k = (int(p) for p in text.split("/"))
    except ValueError:
        raise InputError(f"--share must be I/K (share I of K, 0 <= I < K), got {text!r}") from None
    if not 0 <= i < k:
        raise InputError(f"--share must be I/K with 0 <= I < K, got {text!r}")
    return i, k


def _status_name(a):
    if a.cpu_only:
        return "gpu_compare-cpu.json"
    if a.share is not None:
        return f"gpu_compare-gpu{a.share[0]}of{a.share[1]}.json"
    return "gpu_compare-gpu.json" if a.gpu_only else "gpu_compare.json"


def _write_status(out, status, name="gpu_compare.json"):
    from gpubench.device import atomic_write
    atomic_write(os.path.join(out, name), json.dumps(status, indent=1, default=str))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=500.0, help="seconds this command may take (default 500)")
    ap.add_argument("--workers", type=int, default=max(1, (os.cpu_count() or 2) - 1),
                    help="processes for the CPU-only cases (default: cores - 1)")
    ap.add_argument("--quick", action="store_true", help="the quick variant (to test this script on a CPU)")
    ap.add_argument("--plan", action="store_true", help="print the estimate only")
    only = ap.add_mutually_exclusive_group()
    only.add_argument("--cpu-only", action="store_true", help="run only the CPU-only cases (SciPy's methods)")
    only.add_argument("--gpu-only", action="store_true",
                      help="run only the GPU-capable cases (one at a time, in this process)")
    ap.add_argument("--share", metavar="I/K", help="with --gpu-only: only share I of K of the GPU-capable "
                                                   "cases (one process per GPU: CUDA_VISIBLE_DEVICES=I)")
    ap.add_argument("--shares", type=int, default=2, metavar="K",
                    help="with --plan: the number of GPU processes to estimate (default 2)")
    a = ap.parse_args(argv)
    from gpubench import experiments_loader, runner
    from gpubench.device import check_writable_dir
    from gpubench.errors import InputError
    try:
        if not a.budget > 0:
            raise InputError(f"--budget must be positive, got {a.budget:g}")
        if a.workers < 1:
            raise InputError(f"--workers must be at least 1, got {a.workers}")
        if a.shares < 1:
            raise InputError(f"--shares must be at least 1, got {a.shares}")
        a.share = None if a.share is None else _parse_share(a.share)
        if a.share is not None and not a.gpu_only:
            raise InputError("--share needs --gpu-only (the CPU-only cases are shared by --workers)")
        out = check_writable_dir(a.out, "OUT")
        exp = experiments_loader.load(EXPERIMENT)
    except InputError as e:
        print(f"gpu_compare: {e}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    folder = out / "results" / exp.id
    folder.mkdir(parents=True, exist_ok=True)
    runner.clean_partial(folder, older_than=CLEAN_AFTER_S)
    cases = runner.plan(exp, quick=a.quick)
    allow = compile_allowances()
    stored = runner.load_records(folder)
    done_ids = {r["case"] for r in stored}
    k = a.share[1] if a.share else a.shares
    all_cpu = [c for c in cases if not uses_gpu(c)]
    shares = deal([c for c in cases if uses_gpu(c)], k, allow)
    mine_gpu = [] if a.cpu_only else (shares[a.share[0]] if a.share else [c for s_ in shares for c in s_])
    mine_cpu = [] if a.gpu_only else all_cpu
    gpu = [c for c in mine_gpu if c.case_id not in done_ids]
    cpu = [c for c in mine_cpu if c.case_id not in done_ids]
    pending = gpu + cpu
    est = {**estimates(gpu, stored, allow), **estimates(cpu, stored, allow)}
    sum_gpu, sum_cpu = sum(est[c.case_id] for c in gpu), sum(est[c.case_id] for c in cpu)
    wall = max(sum_gpu, sum_cpu / a.workers)
    variant = "quick" if a.quick else "full"
    who = "--cpu-only" if a.cpu_only else (f"--gpu-only --share {a.share[0]}/{a.share[1]}" if a.share
                                           else "--gpu-only" if a.gpu_only else "all cases")
    print(f"{exp.id} ({variant}), {who}: {len(cases)} cases, {len(done_ids & {c.case_id for c in cases})} "
          f"stored; this process: {len(pending)} to run: {len(gpu)} GPU-capable (one at a time, "
          f"~{sum_gpu:.0f} s) and {len(cpu)} CPU-only ({a.workers} at a time, ~{sum_cpu:.0f} core-s); "
          f"estimated wall time ~{wall:.0f} s (a case not yet measured counts its time limit, or "
          f"{PRIOR_S:.0f} s without one; a method's first case of a function adds its compile allowance)",
          flush=True)
    if a.plan:
        # the three-process layout of one command: CPU-only cases over the workers, each GPU share alone
        rest_cpu = [c for c in all_cpu if c.case_id not in done_ids]
        e_cpu = estimates(rest_cpu, stored, allow)
        # first-case compile allowances are paid once per worker process that meets the group
        print(f"  plan: --cpu-only --workers {a.workers}: {len(rest_cpu)} case(s), "
              f"~{sum(e_cpu.values()) / a.workers:.0f} s (longest case ~{max(e_cpu.values(), default=0):.0f} s)")
        for i, sh in enumerate(shares):
            left = [c for c in sh if c.case_id not in done_ids]
            print(f"  plan: --gpu-only --share {i}/{k}: {len(left)} case(s), "
                  f"~{sum(estimates(left, stored, allow).values()):.0f} s")
        print(f"  compile allowances (s): " + ", ".join(
            f"{m} {allow.get(m, COMPILE_S):.0f}" for m in sorted({c.method for c in cases})), flush=True)
    status = {"experiment": exp.id, "variant": variant, "budget_s": a.budget, "workers": a.workers,
              "share": who, "environment": runner.environment(), "ran": [], "failed": [],
              "estimated_wall_s_before": wall}
    status_name = _status_name(a)
    if a.plan or not pending:
        status["remaining"] = len(pending)
        _write_status(out, status, status_name)
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
    pool = cf.ProcessPoolExecutor(a.workers, mp_context=multiprocessing.get_context("spawn")) if cpu else None
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
            _write_status(out, status, status_name)

    try:
        top_up()
        for c in gpu:
            collect()
            top_up()
            if est[c.case_id] > left():
                continue
            # said before it starts: a case that outlives the command is named in the status file
            status["current_gpu_case"] = {"case": c.case_id, "estimate_s": est[c.case_id]}
            _write_status(out, status, status_name)
            started = time.perf_counter()
            try:
                record_done(c, runner.run_case(c), time.perf_counter() - started)
            except Exception as e:
                status["failed"].append({"case": c.case_id, "error": f"{type(e).__name__}: {e}"[:300]})
                print(f"  FAILED {c.describe()}: {type(e).__name__}: {e}"[:300], flush=True)
            _write_status(out, status, status_name)
        while running or queue:
            top_up()
            if not running:
                break  # what is queued does not fit the budget left
            collect(block=True)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    stored = runner.load_records(folder)
    ids = {r["case"] for r in stored}
    remaining = [c for c in mine_gpu + mine_cpu if c.case_id not in ids]
    rest_g = [c for c in remaining if uses_gpu(c)]
    rest_c = [c for c in remaining if not uses_gpu(c)]
    rest_wall = max(sum(estimates(rest_g, stored, allow).values()),
                    sum(estimates(rest_c, stored, allow).values()) / a.workers) if remaining else 0.0
    status.pop("current_gpu_case", None)
    status.update(remaining=len(remaining), estimated_wall_s_after=rest_wall,
                  seconds=time.perf_counter() - t0)
    _write_status(out, status, status_name)
    print(f"{len(status['ran'])} case(s) ran in {time.perf_counter() - t0:.0f} s, {len(status['failed'])} failed; "
          f"{len(remaining)} remain (~{rest_wall:.0f} s more)" + ("; rerun with the same OUT" if remaining else
                                                                    "; all stored"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
