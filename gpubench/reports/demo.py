"""``gpubench demo`` (``make demo``): the quick reproduction of paper 000, records and reports.

Zhang, Shan & Cagan (2026), PNAS Nexus 5(4) pgag103.

On a CPU (no usable CUDA GPU): all 12 functions of the paper at n = 10 with the
rigorous solver (experiment ``functions12``, quick variant: p = 2 parts per cut
coordinate, so 1,024 subregions per iteration instead of the paper's 4^10), and
the quick comparison of Table S12 (``tableS12 --quick``: the seven SciPy
methods with cut run counts and the rigorous solver on Ackley, n = 100).  About
a minute on 2 cores once the virtual environment exists (the first run also
compiles each function, about 3 s each).

On a GPU host: the published n = 50 rows of the 12 functions at the paper's
settings on the GPU (``functions12``, full variant), and the same quick S12
comparison.

Its records and reports go to a folder of its own, ``.demo/results`` and
``.demo/reports`` of the checkout (``$GPUBENCH_DEMO`` or ``--results``/``--reports``
to move them; ``.demo/`` is ignored by git), so the demo never rewrites a tracked
file and never makes the records of a later run read ``+dirty``.  Records are
reused: a second run only rebuilds the reports.

Its output leads with what a newcomer can hold against the paper: the counting
rule that gives every published iteration count of Tables 1, 2, S2-S10 and S14,
(n/s) * ceil(log_p(width/tol)), beside the published n = 50 rows and the
iterations measured here, and the Table S12 rows with the published values beside.
"""
import math
import sys
import time

from ..device.gpu import gpu_available


EXPERIMENTS = ("functions12", "tableS12")


def _start_s12(results):
    """The quick S12 sweep in a child process (its methods are serial: it takes the second core)."""
    import subprocess
    import tempfile
    from ..records.read import results_dir
    log = tempfile.TemporaryFile(mode="w+")
    cmd = [sys.executable, "-m", "gpubench", "reproduce", "tableS12", "--quick",
           "--results", str(results_dir(results))]
    return subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, text=True), log


def _finish_s12(child, log, stream):
    rc = child.wait()
    log.seek(0)
    text = log.read()
    log.close()
    stream.write(text)
    if rc != 0:
        raise RuntimeError(f"the S12 sweep failed (exit {rc}); its output is above")


def run(results=None, reports=None, gpu=None, workers=None, stream=None, parallel=True):
    """Run the demo's sweeps (S12 beside the 12 functions unless ``parallel`` is false or
    ``workers`` is given) and write the reports; returns the seconds it took."""
    from ..workflow import experiments_loader as loader
    from . import builder as report, index as report_index
    from ..workflow import runner
    from ..paths import demo_dir
    stream = stream or sys.stdout
    t0 = time.perf_counter()
    results = results or str(demo_dir() / "results")
    reports = reports or str(demo_dir() / "reports")
    print(f"demo: records go to {results}, reports to {reports} (tracked files are not touched)",
          file=stream, flush=True)
    gpu = gpu_available() if gpu is None else gpu
    functions12 = loader.load("functions12")
    s12 = loader.load("tableS12")
    child = log = None
    if parallel and not workers:
        print("demo: the quick S12 comparison runs in a second process; its log follows the 12 functions",
              file=stream, flush=True)
        child, log = _start_s12(results)
    try:
        if gpu:
            print("demo: GPU found: the n = 50 rows of the 12 functions at the paper's settings, "
                  "and the quick S12 comparison", file=stream, flush=True)
            runner.sweep(functions12, quick=False, backend="cuda", results=results, workers=workers,
                         stream=stream)
        else:
            print("demo: no GPU: the 12 functions at n = 10 (quick setting) and the quick S12 comparison, "
                  "on the CPU", file=stream, flush=True)
            runner.sweep(functions12, quick=True, backend="cpu", results=results, workers=workers,
                         stream=stream)
    except BaseException:
        if child is not None:
            child.terminate()
            child.wait()
        raise
    if child is not None:
        _finish_s12(child, log, stream)
    else:
        runner.sweep(s12, quick=True, results=results, workers=workers, stream=stream)
    t_runs = time.perf_counter() - t0
    paths = [report.build(e, results, reports) for e in (functions12, s12)]
    index = report_index.write_index(reports, results)
    total = time.perf_counter() - t0
    _counting_rule(functions12, results, stream, quick=not gpu)
    _summary(s12, results, stream)
    for p in paths:
        print(f"wrote {p} and {p.with_suffix('.html')}", file=stream)
    print(f"wrote {index}", file=stream)
    print(f"demo: {t_runs:.1f} s of runs, {total:.1f} s in all", file=stream, flush=True)
    return total


# functions whose published counts the rule does not give (Rosenbrock: many regions survive)
OFF_RULE = ("rosenbrock",)


def rule_iterations(function, n, tol, s, p):
    """The counting rule behind the published iteration counts: (n/s) * ceil(log_p(width/tol))."""
    from .. import functions
    lo, hi = functions.get(function).bounds(n)
    return (n // min(s, n)) * math.ceil(math.log(float(hi[0] - lo[0]) / tol, p))


def _counting_rule(experiment, results, stream, quick):
    """The rule at the paper's settings against the published n = 50 rows, then against this run."""
    from ..records.read import load_records, results_dir
    v = experiment.variant(quick)
    spec = v.methods[0].settings
    n, s, p, tol = v.dims[0], spec.get("split_dims", 10), spec.get("parts", 4), spec.get("tol", 1e-4)
    pub = experiment.published()
    published = {}
    if pub is not None:
        for _, row in pub[pub["dimension"] == 50].iterrows():
            published.setdefault(row["function"], int(row["iterations"]))
    measured = {r["function"]: r["measured"] for r in load_records(results_dir(results) / experiment.id)
                if r.get("variant") == v.name and r["dim"] == n}
    print(f"Counting rule (n/s) * ceil(log_p(width/tol)) against the paper (Tables 2, S2-S11, S14) "
          f"and against this run (n = {n}, s = {s}, p = {p}, tol = {tol:g}):", file=stream)
    print(f"  {'function':12s} {'n=50 published':>14s} {'n=50 rule':>9s}   {f'n={n} rule':>9s} "
          f"{f'n={n} measured':>13s}  regions", file=stream)
    for f in v.functions:
        m = measured.get(f)
        rule50 = "—" if f in OFF_RULE else str(rule_iterations(f, 50, 1e-4, 10, 4))
        rule_n = "—" if f in OFF_RULE else str(rule_iterations(f, n, tol, s, p))
        got = str(m["iterations"]) if m else "not run"
        regions = str(m["regions"]) if m else ""
        print(f"  {f:12s} {str(published.get(f, '—')):>14s} {rule50:>9s}   {rule_n:>9s} {got:>13s}  {regions}",
              file=stream)
    print("  (— : the rule does not give Rosenbrock's counts; Levy+delta's measured count differs from the published one with samples at t = m/(samples+1): docs/reproduction.md)",
          file=stream)


def _summary(s12, results, stream):
    from ..records.read import load_records, results_dir
    recs = [r for r in load_records(results_dir(results) / s12.id) if r.get("variant") == "quick"]
    if not recs:
        return
    pub = s12.published()
    published = {}
    if pub is not None:
        for _, row in pub.iterrows():
            proposed = row["method"] == "Proposed method"
            value = row["raw"] if proposed and row["raw"] else row["min_value"]
            seconds = row["raw"] if not proposed and row["raw"] and math.isnan(row["seconds"]) else row["seconds"]
            published[row["method"]] = (value, row["runs"], seconds)
    print("Table S12 (Ackley, n = 100, f* = 0): the quick run (cut run counts) beside the published laptop rows:",
          file=stream)
    print(f"  {'method':24s} {'best value here':>26s} {'runs':>6s} {'time':>9s} {'compiling':>10s}   "
          f"{'published value':>26s} {'runs':>6s} {'time':>7s}", file=stream)
    order = {m.key: i for i, m in enumerate(s12.quick.methods)}
    for r in sorted(recs, key=lambda r: order.get(r["key"], 99)):
        m = r["measured"]
        value = (f"[{m['glb']:.4g}, {m['gub']:.4g}]" if m.get("glb") is not None else f"{m['fun']:.4g}")
        runs = r.get("settings", {}).get("runs", 1)
        pv, pr, ps = published.get(r.get("label"), ("", "", ""))
        pv = pv if isinstance(pv, str) else f"{pv:.4g}"
        pr = "" if pr == "" or (isinstance(pr, float) and math.isnan(pr)) else f"{int(pr)}"
        ps = ps if isinstance(ps, str) else ("" if math.isnan(ps) else f"{ps:.0f} s")
        warm = m.get("warmup_seconds")
        warm = f"{warm:8.2f} s" if isinstance(warm, (int, float)) else f"{'-':>10s}"
        print(f"  {r['key']:24s} {value:>26s} {runs!s:>6s} {m['seconds']:7.2f} s {warm}   {pv:>26s} {pr:>6s} "
              f"{ps:>7s}", file=stream)
    print("  (time: the method's run as timed; compiling: numba compiling its forms and kernels before it, "
          "once per function and method, cached on disk for the next run)", file=stream)
