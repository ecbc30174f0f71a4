"""Where a new ``gpubench solve`` or ``gpubench minimize --method M`` process spends its time, phase by phase.

    python benchmarks/profiling/startup_profile.py FUNCTION --dim N --backend B [--method M ... | --method all]
                                      [--cold | --cache DIR] [--runs K]
                                      [--out FILE] [--no-importtime] [-- SOLVE OPTIONS]
    python benchmarks/profiling/startup_profile.py --render FILE... [--docs docs/fast-answer.md]

Without ``--method``: ``gpubench solve`` (issue 11, item 2).  With ``--method M`` (repeatable;
``all``: every registered method with the backend): ``gpubench minimize FUNCTION --method M``, each
method in its own cache with ``--cold`` (issue 25, item 4), the output then keyed by method, each run
with ``wall_minus_solve_s`` (the process's wall time less the method's own ``seconds``) and the phases
``function`` and ``method.run`` (inside it, those below).

Runs ``python -X importtime -m gpubench solve FUNCTION --dim N --backend B --json [SOLVE OPTIONS]``
in fresh subprocesses with ``GPUBENCH_PHASES`` set (see :func:`gpubench.device.gpu.phase`), and prints
one JSON object: for each run, the wall time from launch to exit split into

* ``startup``: interpreter start and the imports of the command line, up to ``main`` running
  the command;
* the phases the command records, each in seconds exclusive of the phases inside it:
  ``command.imports`` (``minimize``: the command's first imports, the method's module among them)
  with ``numpy.import`` (numpy's, which they make first), ``function`` (importing sympy and the
  function's definition), ``cuda.driver`` (the driver's
  initialisation, asked through ctypes since 2026-11-28; before, numba-cuda's import with it, which
  now falls in the phase of the first launch), ``search.setup`` (the solver's set-up not counted
  below), ``codegen.source`` (deriving the forms' source, or finding it in the cache),
  ``codegen.import`` (running the generated modules: numba's import, the interval operations),
  ``cuda.context``, ``numba.compile_or_load`` (numba holding its compiler lock: compiling a
  kernel, or loading it from its disk cache, on its first call), ``search.first_iteration``
  (the first iteration but that: on a GPU, loading the kernel into the context and the first
  transfers), ``search.run`` (the other iterations), ``command`` (the rest of the command:
  options, printing);
* ``exit``: from the command's end to the process's exit;

and the imports, from ``-X importtime``: the seconds spent importing each top-level package
(self times, which add up without double counting) and the slowest imports with what imported
them.  Imports happen inside the phases above (sympy in ``function``, numba in
``codegen.import``), so they are a second view of the same seconds, not more of them.

``host`` holds what the host alone costs a new process (:func:`host_reference`: a bare interpreter,
numpy's, numba's and numba-cuda's imports), so that two windows' figures can be told apart from a
change of gpubench's.

``--cold`` runs in a new empty cache (``GPUBENCH_CACHE`` and ``NUMBA_CACHE_DIR``): the first run is
the cold start, the next ``--runs`` (default 2) are second processes.  ``--cache DIR`` keeps that
cache in DIR instead; neither: the caller's own caches.  ``-X importtime`` costs a few percent;
``--no-importtime`` leaves it out.

``--render`` prints the table of stored ``--method`` profiles (:func:`render`), or with ``--docs``
puts it between the ``startup table`` markers of that file (the table in docs/fast-answer.md is
rendered so, never typed).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# the phases of a run, in the order a solve meets them (any other recorded name is reported too)
ORDER = ("startup", "command.imports", "numpy.import", "function", "method.run", "cuda.driver", "search.setup",
         "codegen.source", "codegen.import", "cuda.context", "numba.compile_or_load", "search.first_iteration",
         "search.run", "command", "exit")


# ---------------------------------------------------------------- -X importtime
def parse_importtime(text):
    """[(depth, module, self seconds, cumulative seconds)] from ``-X importtime``'s stderr, in its order
    (a module's line comes after the lines of the imports it made, one level deeper)."""
    out = []
    for line in text.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        head, cum, name = line.split("|", 2)
        try:
            self_us, cum_us = int(head.split(":", 1)[1]), int(cum)
        except ValueError:  # the header line
            continue
        depth = (len(name) - len(name.lstrip(" ")) - 1) // 2
        out.append((depth, name.strip(), self_us / 1e6, cum_us / 1e6))
    return out


def import_summary(entries, top=12):
    """Seconds by top-level package (self times) and the ``top`` slowest imports that another
    package made (cumulative), each with the chain of modules that imported it."""
    by_package = {}
    for _, name, self_s, _ in entries:
        root = name.split(".")[0]
        by_package[root] = by_package.get(root, 0.0) + self_s
    largest = []
    for k, (depth, name, _, cum) in enumerate(entries):
        chain, d = [], depth
        for later in entries[k + 1:]:  # the importer is the next line one level up
            if later[0] < d:
                chain.append(later[1])
                d = later[0]
        importer = chain[0].split(".")[0] if chain else None
        if importer != name.split(".")[0]:  # the first module of a package its importer pulled in
            largest.append({"module": name, "seconds": round(cum, 4), "imported_by": " <- ".join(chain)})
    largest.sort(key=lambda r: -r["seconds"])
    return {"total_s": round(sum(e[2] for e in entries), 4),
            "by_package_s": {k: round(v, 4) for k, v in sorted(by_package.items(), key=lambda kv: -kv[1])
                             if v >= 0.001},
            "largest": largest[:top]}


# ---------------------------------------------------------------- phases
def _union(intervals):
    out = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def phase_seconds(records):
    """{name: {"seconds": exclusive, "inclusive": s, "count": k}} from the recorded intervals.

    Intervals nest (a phase holds the phases and compiler-lock intervals recorded inside it); a
    phase's exclusive seconds leave out its children's.  The lock intervals of numba and numba-cuda
    overlap (numba-cuda takes both locks), so they are merged first.
    """
    locks = _union([(r["start"], r["end"]) for r in records if r["phase"] == "numba.compile_or_load"])
    items = [(r["start"], r["end"], r["phase"]) for r in records if r["phase"] != "numba.compile_or_load"]
    items += [(s, e, "numba.compile_or_load") for s, e in locks]
    # outermost first at equal starts; a child lies inside its parent
    items.sort(key=lambda t: (t[0], -t[1]))
    child_total = [0.0] * len(items)
    stack = []
    for k, (s, e, _) in enumerate(items):
        while stack and not (s >= items[stack[-1]][0] and e <= items[stack[-1]][1]):
            stack.pop()
        if stack:
            child_total[stack[-1]] += e - s
        stack.append(k)
    out = {}
    for k, (s, e, name) in enumerate(items):
        r = out.setdefault(name, {"seconds": 0.0, "inclusive": 0.0, "count": 0})
        r["seconds"] += (e - s) - child_total[k]
        r["inclusive"] += e - s
        r["count"] += 1
    return out


def breakdown(launched, ended, records, importtime_text=None, solve_json=None):
    """One run's breakdown (see the module's docstring); times are ``time.time()`` seconds."""
    phases = phase_seconds(records)
    command = [r for r in records if r["phase"] == "command"]
    seconds = {}
    if command:
        seconds["startup"] = command[0]["start"] - launched
        seconds["exit"] = ended - command[-1]["end"]
    for name, r in phases.items():
        seconds[name] = r["seconds"]
    names = [n for n in ORDER if n in seconds] + sorted(set(seconds) - set(ORDER))
    out = {"total_s": round(ended - launched, 4),
           "phases_s": {n: round(seconds[n], 4) for n in names},
           "phase_counts": {n: r["count"] for n, r in phases.items() if r["count"] > 1}}
    if solve_json is not None:
        out["solver_seconds"] = solve_json.get("seconds")
        out["iterations"] = solve_json.get("iterations")
        if solve_json.get("seconds") is not None:
            out["wall_minus_solve_s"] = round(out["total_s"] - solve_json["seconds"], 4)
        out["stop"] = solve_json.get("stop", solve_json.get("message"))
        for k in ("fun", "glb", "gub"):
            out[k] = solve_json.get(k)
    if importtime_text is not None:
        out["imports"] = import_summary(parse_importtime(importtime_text))
    return out


# ---------------------------------------------------------------- runs
def solve_command(function, dim, backend, extra=(), importtime=True, method=None):
    how = ["solve"] if method is None else ["minimize"]
    return ([sys.executable] + (["-X", "importtime"] if importtime else [])
            + ["-m", "gpubench", *how, function, "--dim", str(dim)]
            + ([] if method is None else ["--method", method])
            + ["--backend", backend, "--json", *extra])


def every_method(backend):
    """The registered methods that run on ``backend`` (all of them for auto)."""
    from gpubench import methods
    return [m.name for m in methods.all_methods()
            if backend == "auto" or backend in m.backends]


def run_once(args, env):
    with tempfile.TemporaryDirectory() as tmp:
        phases_file = os.path.join(tmp, "phases.json")
        launched = time.time()
        p = subprocess.run(args, env=dict(env, GPUBENCH_PHASES=phases_file), capture_output=True, text=True)
        ended = time.time()
        if p.returncode != 0:
            raise SystemExit(f"startup_profile: the solve failed ({p.returncode}):\n{p.stderr[-3000:]}")
        records = json.loads(Path(phases_file).read_text())["phases"]
    solve_json = json.loads(p.stdout.strip().splitlines()[-1])
    return breakdown(launched, ended, records, p.stderr if "-X" in args else None, solve_json)


# What the host alone costs a new process: the wall seconds of a bare interpreter and of one that
# imports numpy, numba (and numba-cuda), the minimum of HOST_RUNS each.  The same code profiled in two
# windows of the H200 host differed by about 1.5x in every phase, startup and exit too (interval's second
# process 0.77 s at 31fe746, 1.16-1.21 s at a05499a): the host's own figures tell such a difference
# from one of gpubench's.
HOST_IMPORTS = {"python": "pass", "numpy": "import numpy", "numba": "import numba",
                "numba_cuda": "from numba import cuda"}
HOST_RUNS = 3


def host_reference(backend, env=None, runs=HOST_RUNS):
    """{"python_s": ..., "numpy_s": ..., "numba_s": ...} (and "numba_cuda_s" unless ``backend`` is
    cpu): see HOST_IMPORTS; None for an import that fails."""
    out = {}
    for name, code in HOST_IMPORTS.items():
        if name == "numba_cuda" and backend == "cpu":
            continue
        best = None
        for _ in range(runs):
            t0 = time.perf_counter()
            p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True)
            seconds = time.perf_counter() - t0
            if p.returncode != 0:
                best = None
                break
            best = seconds if best is None else min(best, seconds)
        out[f"{name}_s"] = None if best is None else round(best, 4)
    return out


def median(runs):
    """The median of each phase over ``runs`` (the total too)."""
    if not runs:
        return None
    names = [n for n in ORDER if any(n in r["phases_s"] for r in runs)]
    names += sorted({n for r in runs for n in r["phases_s"]} - set(names))
    return {"total_s": round(statistics.median(r["total_s"] for r in runs), 4),
            "phases_s": {n: round(statistics.median(r["phases_s"].get(n, 0.0) for r in runs), 4)
                         for n in names}}


def profile(args, extra, method=None):
    """The cold and later runs of one command (``gpubench solve``, or ``minimize --method``)."""
    cmd = solve_command(args.function, args.dim, args.backend, extra, not args.no_importtime, method)
    # the child inherits this process's folder and paths, so it imports the gpubench imported here
    env = dict(os.environ)
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        cache = tmp if args.cold else args.cache
        if cache:
            env.update(GPUBENCH_CACHE=cache, NUMBA_CACHE_DIR=os.path.join(cache, "numba"))
        labels = (["cold"] if args.cold else []) + [("second" if args.cold else "run")] * args.runs
        for label in labels:
            try:
                r = run_once(cmd, env)
            except SystemExit as exc:  # kept, with why: the other methods are still measured
                runs.append({"cache": label, "failed": str(exc)[-2000:]})
                print(f"{(method or 'solve')[:14]:14s} {label:7s} failed", file=sys.stderr)
                break
            runs.append(dict(r, cache=label))
            print(f"{(method or 'solve')[:14]:14s} {label:7s} {r['total_s']:7.2f} s  "
                  + "  ".join(f"{k} {v:.2f}" for k, v in r["phases_s"].items()), file=sys.stderr)
    return {"command": " ".join(cmd[1:]), "cache": "cold" if args.cold else (args.cache or "the caller's"),
            "runs": runs, "median_second": median([r for r in runs if r["cache"] != "cold" and "failed" not in r])}


# ---------------------------------------------------------------- the table of docs/fast-answer.md
BEGIN, END = "<!-- startup table: begin -->", "<!-- startup table: end -->"
# the phases of a run, grouped as the table shows them
GROUPS = {"import": ("startup", "command.imports", "numpy.import"),
          "forms": ("function", "codegen.source"),
          "compile or load": ("cuda.driver", "codegen.import", "cuda.context", "numba.compile_or_load")}


def _row(case, method, label, run):
    if "failed" in run:
        return f"| {case} | {method} | {label} | failed: {run['failed'].splitlines()[-1][:120]} |||||||||"
    ph = run["phases_s"]
    cells = {g: sum(ph.get(k, 0.0) for k in keys) for g, keys in GROUPS.items()}
    solve = run.get("solver_seconds")
    bounds = ("" if run.get("glb") is None or run.get("gub") is None
              else f"[{run['glb']:.4g}, {run['gub']:.4g}]")
    fmt = (lambda v: "" if v is None else f"{v:.2f}")
    return (f"| {case} | {method} | {label} | {fmt(run['total_s'])} | {fmt(solve)} | "
            f"**{fmt(run.get('wall_minus_solve_s'))}** | {fmt(cells['import'])} | {fmt(cells['forms'])} | "
            f"{fmt(cells['compile or load'])} | {fmt(ph.get('exit'))} | {run.get('stop') or ''} | {bounds} |")


def render(records):
    """A markdown table of stored profiles (``--out`` files of ``--method``): per case and method its
    first process (cold cache) and each later one, in seconds: wall, the solve's own clock, wall minus
    solve, and the phases grouped as import (interpreter and the command line's imports), forms
    (the function's definition and forms: sympy, or the cached card), compile or load (numba or
    numba-cuda compiling, or loading from the disk cache, and CUDA's set-up) and exit; then the stop
    reason and, for a rigorous method, its bounds.  Under it, the environment of each file."""
    lines = ["| case | method | process | wall | solve | wall − solve | import | forms | compile or load "
             "| exit | stop | bounds |", "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"]
    envs = []
    for rec in records:
        case = f"{rec['function']} n = {rec['dim']}"
        for method, prof in rec["methods"].items():
            later = 0
            for run in prof["runs"]:
                if run.get("cache") == "cold":
                    label = "first"
                else:  # after a cold one, a second process; else a run in a cache already there
                    later += 1
                    label = f"{'second' if prof['cache'] == 'cold' else 'run'} #{later}"
                lines.append(_row(case, method, label, run))
        e = rec.get("environment") or {}
        gpu = e.get("gpu") or {}
        gpu_text = gpu.get("name") if isinstance(gpu, dict) else str(gpu)
        envs.append(f"- {case}, backend {rec.get('backend')}: {gpu_text or 'no GPU'}"
                    + (f", driver {gpu.get('driver')}" if isinstance(gpu, dict) and gpu.get("driver") else "")
                    + f"; {e.get('cpu', '')}; commit {e.get('commit', '?')}; {e.get('date', '')}; "
                    + ", ".join(f"{k} {v}" for k, v in (e.get("versions") or {}).items()
                                if k in ("numba", "numba-cuda", "sympy", "python"))
                    + _host_text(rec.get("host")))
    return "\n".join(lines + [""] + envs) + "\n"


def _host_text(host):
    """The host's own figures (:func:`host_reference`) as the table's footnote says them."""
    if not host:
        return ""
    parts = [f"{k[:-2].replace('_', '-')} {v:.2f}" for k, v in host.items() if v is not None]
    return "; a new process on this host (s): " + ", ".join(parts) if parts else ""


def render_into(doc, files):
    """Replace the text between the markers of ``doc`` with :func:`render` of the stored ``files``."""
    from gpubench.device.gpu import atomic_write
    text = Path(doc).read_text()
    if BEGIN not in text or END not in text:
        raise SystemExit(f"startup_profile: {doc} has no {BEGIN} ... {END} block")
    records = [json.loads(Path(f).read_text()) for f in files]
    sources = "".join(f"<!-- rendered from {f} by benchmarks/profiling/startup_profile.py --render -->\n" for f in files)
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    atomic_write(doc, head + BEGIN + "\n" + sources + render(records) + END + tail)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "--render":
        # --render FILE... [--docs DOC]: the table of stored profiles, printed or put into DOC
        files = argv[1:]
        doc = None
        if "--docs" in files:
            k = files.index("--docs")
            files, doc = files[:k] + files[k + 2:], files[k + 1]
        if doc:
            render_into(doc, files)
        else:
            print(render([json.loads(Path(f).read_text()) for f in files]), end="")
        return
    extra = []
    if "--" in argv:
        k = argv.index("--")
        argv, extra = argv[:k], argv[k + 1:]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("function")
    ap.add_argument("--dim", type=int, required=True)
    ap.add_argument("--backend", default="cpu", choices=("cpu", "cuda", "auto"))
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--cold", action="store_true", help="a new empty cache: one cold run, then --runs")
    where.add_argument("--cache", metavar="DIR", help="GPUBENCH_CACHE and NUMBA_CACHE_DIR under DIR")
    ap.add_argument("--runs", type=int, default=2, help="runs (after the cold one with --cold)")
    ap.add_argument("--out", metavar="FILE", help="also write the JSON to FILE")
    ap.add_argument("--no-importtime", action="store_true", help="without -X importtime")
    ap.add_argument("--method", action="append", default=[],
                    help="gpubench minimize --method M (repeatable; 'all': every method with the backend)")
    args = ap.parse_args(argv)

    from gpubench.device import environment
    from gpubench.device.gpu import atomic_write

    if args.method:
        names = every_method(args.backend) if args.method == ["all"] else args.method
        rec = {"function": args.function, "dim": args.dim, "backend": args.backend,
               "methods": {}, "environment": environment.capture(), "host": host_reference(args.backend)}
        for m in names:  # stored after each method: a run cut short keeps what it measured
            rec["methods"][m] = profile(args, extra, m)
            if args.out:
                atomic_write(args.out, json.dumps(rec, indent=1) + "\n")
    else:
        rec = dict(profile(args, extra), environment=environment.capture(), host=host_reference(args.backend))
    text = json.dumps(rec, indent=1)
    if args.out:
        atomic_write(args.out, text + "\n")
    print(text)


if __name__ == "__main__":
    main()
