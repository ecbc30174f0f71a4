"""Command-line helpers of the asv set-up (used by the Makefile; docs/benchmarks.md).

    python -m benchmarks.tools machine
        the default asv machine name: ``gpuhost-<GPU model>`` where nvidia-smi
        lists a GPU (asv's machine file has no GPU field), else the host name

    python -m benchmarks.tools conf OUT.json --results DIR [--html DIR]
        write a copy of asv.conf.json with absolute paths and other result and
        HTML folders (quick runs, tests and comparisons stay out of results/asv)

    python -m benchmarks.tools warm [--jobs N]
        compile the CPU code of every CPU benchmark into numba's disk cache
        (GPUBENCH_CACHE), N processes at a time; the benchmarks then load it in
        their setup.  Cold compilation is measured apart (bench_jit, own cache)

    python -m benchmarks.tools compare BASE [TARGET] [--factor 1.2] [--bench REGEX]
        benchmark two commits in this Python (no rebuild of numba), compare them
        with ``asv compare --factor``, and exit 1 if any benchmark got worse

``compare`` installs each commit's gpubench (``pip install --no-deps
--target``, from a detached ``git worktree`` in a
temporary folder) and runs ``asv run --python=same --set-commit-hash`` with
that install first on the benchmarks' ``PYTHONPATH`` (asv passes only
``ASV_PYTHONPATH`` on to them); the benchmark suite is always the current one,
as with ``asv continuous``.

Imports of asv are local to the functions: asv's discovery imports this module.
"""
import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BENCH = r"^(?!bench_nightly)"

# `python -m benchmarks.tools` puts the repository first on sys.path, where gpubench/ is the
# source tree without its mapped subpackages (functions/, ...): look there last, so that the
# installed gpubench (PYTHONPATH or site-packages) wins and this package is still found.
_here = [p for p in sys.path if p and Path(p).resolve() == ROOT]
sys.path[:] = [p for p in sys.path if p not in _here] + _here


def machine_name():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        out = ""
    gpus = [g.strip() for g in out.splitlines() if g.strip()]
    if gpus:
        return "gpuhost-" + re.sub(r"[^A-Za-z0-9._-]+", "-", gpus[0]).strip("-")
    return re.sub(r"[^A-Za-z0-9._-]+", "-", socket.gethostname().split(".")[0]) or "localhost"


def load_conf(path=ROOT / "asv.conf.json"):
    from asv import util
    return util.load_json(str(path), api_version=1, js_comments=True)


def write_conf(out, results, html=None, **overrides):
    """A copy of asv.conf.json with absolute paths; returns its path."""
    from asv import util
    d = load_conf()
    out = Path(out).resolve()
    d.update(repo=str(ROOT), benchmark_dir=str(ROOT / d.get("benchmark_dir", "benchmarks")),
             env_dir=str(ROOT / d.get("env_dir", ".asv/env")), results_dir=str(Path(results).resolve()),
             html_dir=str(Path(html or Path(results).with_name("html")).resolve()))
    d.update(overrides)
    out.parent.mkdir(parents=True, exist_ok=True)
    util.write_json(str(out), d, api_version=1)
    return out


def _warm_one(task):
    function, what = task
    from benchmarks import _common as C
    if what == "sweep":
        C.warm(function, C.CPU_DIM, "cpu")
    else:
        from gpubench import functions
        fn = functions.get(function)
        fn.points(fn.bounds(C.CPU_DIM)[0][None, :])
    return task


def warm(jobs=None):
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from benchmarks import _common as C
    tasks = [(f, "sweep") for f in C.FUNCTIONS12] + [(f, "points") for f in ("rosenbrock", "levy")]
    with ProcessPoolExecutor(jobs or os.cpu_count(), mp_context=multiprocessing.get_context("spawn")) as ex:
        for function, what in ex.map(_warm_one, tasks):
            print(f"warm: {function} {what}", flush=True)
    return 0


def _git(*args, cwd=ROOT):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def _install(commit, workdir):
    """gpubench of ``commit`` installed (no deps) into a fresh folder; returns that folder."""
    wt = Path(workdir) / f"wt-{commit[:8]}"
    site = Path(workdir) / f"site-{commit[:8]}"
    _git("worktree", "add", "--detach", "--force", str(wt), commit)
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-compile", "--target", str(site)]
    try:
        # an isolated build fetches a recent setuptools; offline, fall back to the installed one
        for extra in ([], ["--no-build-isolation"]):
            shutil.rmtree(site, ignore_errors=True)
            done = subprocess.run(pip + extra + [str(wt)], capture_output=True, text=True)
            if done.returncode == 0:
                break
        else:
            sys.stderr.write(done.stdout + done.stderr)
            raise SystemExit(f"cannot install gpubench of {commit[:8]}")
    finally:
        _git("worktree", "remove", "--force", str(wt))
    return site


def compare(base, target="HEAD", factor=1.2, bench=DEFAULT_BENCH, machine=None, quick=False,
            workdir=None, extra_run_args=()):
    from asv.commands.compare import Compare
    from asv.config import Config

    base_hash, target_hash = _git("rev-parse", base + "^{commit}"), _git("rev-parse", target + "^{commit}")
    machine = machine or machine_name()
    workdir = Path(workdir or ROOT / ".asv" / "compare")
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    conf_path = write_conf(workdir / "asv.conf.json", workdir / "results", workdir / "html")
    asv = [sys.executable, "-m", "asv"]
    subprocess.run(asv + ["machine", "--yes", "--machine", machine], check=True, stdout=subprocess.DEVNULL)
    tmp = Path(tempfile.mkdtemp(prefix="gpubench-compare-"))
    try:
        for commit in (base_hash, target_hash):
            print(f"== benchmarking {commit[:8]} ({_git('log', '-1', '--format=%s', commit)[:60]})",
                  flush=True)
            site = _install(commit, tmp)
            # asv drops PYTHONPATH from the benchmark processes' environment; ASV_PYTHONPATH
            # is what it hands on to them as PYTHONPATH
            inherited = os.environ.get("ASV_PYTHONPATH") or os.environ.get("PYTHONPATH")
            path = os.pathsep.join([str(site)] + ([inherited] if inherited else []))
            env = dict(os.environ, PYTHONPATH=path, ASV_PYTHONPATH=path)
            cmd = asv + ["run", "--config", str(conf_path), "--python=same", "--set-commit-hash", commit,
                         "--machine", machine, "--bench", bench, "--show-stderr", *extra_run_args]
            if quick:
                cmd.append("--quick")
            rc = subprocess.run(cmd, env=env, cwd=ROOT).returncode
            if rc not in (0, 2):  # 2: some benchmark failed, which compare shows as failed
                raise SystemExit(f"asv run failed for {commit[:8]} (exit {rc})")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    conf = Config.load(str(conf_path))
    os.chdir(conf_path.parent)  # asv resolves the configuration's paths from here
    print(f"== asv compare --factor {factor} {base_hash[:8]} {target_hash[:8]} --machine {machine}",
          flush=True)
    worsened, improved = Compare.print_table(conf, base_hash, target_hash, factor=factor, split=False,
                                             machine=machine, sort="ratio",
                                             commit_names={base_hash: base, target_hash: target})
    if worsened:
        print(f"REGRESSION: some benchmark is slower (or worse) by more than a factor {factor}")
        return 1
    print(f"OK: no benchmark got worse by more than a factor {factor}"
          + (" (some improved)" if improved else ""))
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.tools", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("machine", help="print the default asv machine name")
    w = sub.add_parser("warm", help="fill numba's disk cache for the CPU benchmarks, in parallel")
    w.add_argument("--jobs", type=int)
    c = sub.add_parser("conf", help="write a copy of asv.conf.json with other result folders")
    c.add_argument("out")
    c.add_argument("--results", required=True)
    c.add_argument("--html")
    k = sub.add_parser("compare", help="benchmark two commits and fail on a regression")
    k.add_argument("base")
    k.add_argument("target", nargs="?", default="HEAD")
    k.add_argument("--factor", type=float, default=1.2)
    k.add_argument("--bench", default=DEFAULT_BENCH)
    k.add_argument("--machine")
    k.add_argument("--quick", action="store_true", help="one sample per benchmark (smoke test only)")
    k.add_argument("--workdir", help="results of the comparison (default .asv/compare)")
    a = p.parse_args(argv)
    if a.cmd == "machine":
        print(machine_name())
        return 0
    if a.cmd == "warm":
        return warm(a.jobs)
    if a.cmd == "conf":
        print(write_conf(a.out, a.results, a.html))
        return 0
    return compare(a.base, a.target, a.factor, a.bench, a.machine, a.quick, a.workdir)


if __name__ == "__main__":
    sys.exit(main())
