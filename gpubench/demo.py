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

Then it writes reports/functions12.*, reports/tableS12.* and reports/index.md.
Records go to results/ and are reused: a second run only rebuilds the reports.
"""
import sys
import time

from .device import gpu_available


EXPERIMENTS = ("functions12", "tableS12")


def _start_s12(results):
    """The quick S12 sweep in a child process (its methods are serial: it takes the second core)."""
    import subprocess
    import tempfile
    from .runner import results_dir
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
    from . import experiments_loader as loader
    from . import report, runner
    stream = stream or sys.stdout
    t0 = time.perf_counter()
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
    index = report.write_index(reports, results)
    total = time.perf_counter() - t0
    _summary(s12, results, stream)
    for p in paths:
        print(f"wrote {p} and {p.with_suffix('.html')}", file=stream)
    print(f"wrote {index}", file=stream)
    print(f"demo: {t_runs:.1f} s of runs, {total:.1f} s in all", file=stream, flush=True)
    return total


def _summary(s12, results, stream):
    from .runner import load_records, results_dir
    recs = [r for r in load_records(results_dir(results) / s12.id) if r.get("variant") == "quick"]
    if not recs:
        return
    print("S12 quick (Ackley, n = 100, f* = 0):", file=stream)
    order = {m.key: i for i, m in enumerate(s12.quick.methods)}
    for r in sorted(recs, key=lambda r: order.get(r["key"], 99)):
        m = r["measured"]
        value = (f"[{m['glb']:.4g}, {m['gub']:.4g}]" if m.get("glb") is not None else f"{m['best_f']:.4g}")
        print(f"  {r['key']:24s} {value:>26s}  {m['seconds']:7.2f} s  "
              f"{'found f*' if r['success'] else 'not found'}", file=stream)
