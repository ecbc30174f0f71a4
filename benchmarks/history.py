"""The GPU history: asv results of many commits of main, measured on the GPU host (docs/benchmarks.md).

    python -m benchmarks.history pack [COMMIT ...] [--count 12] [--out .whl/asv]
        here, in the checkout: for each commit, a tar of what its benchmark run needs (its
        gpubench source and its own benchmarks/), and one skeleton git repository that holds
        the commit objects of the branch only (asv reads commits' dates and parents, never their
        files), a few hundred kB in all.  Without COMMITs: --count commits of the branch that
        changed gpubench/, spread evenly from the first with benchmarks/ to HEAD.

    python -m benchmarks.history run DIR --results RESULTS [--machine M] [--shard K/N] [--bench RE]
        on the GPU host (scripts/gpu_queue.sh's `asv-history` queue item): for each packed commit
        whose results are not stored yet under RESULTS/M/ (so a killed run resumes), unpack it,
        install that commit's gpubench with no dependencies into its own folder, and run the
        commit's own benchmarks with ``asv run --python=same --set-commit-hash``.  --shard K/N
        takes every N-th commit (one queue per GPU).

    python -m benchmarks.history regressions HTML_DIR [--out regressions.md]
        the steps that `asv publish` flagged (its regressions.json), one line each with the two
        commits of the step, as Markdown too, with a table of every step between two consecutive
        measured commits (asv flags only what is still slower at the newest); exit 1 if asv
        flagged any.

Why a skeleton: the checkout's history with its records is over the 64 MiB that travels to the
GPU host, and git 2.39 cannot clone a blob-less bundle.  asv's ``--set-commit-hash`` needs the
commit in a repository (its date, its place on the branch): the commit objects, rewritten byte
for byte into an empty repository, keep their hashes, and nothing else is read.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# what a commit's benchmark run needs: its package (installed) and its benchmarks (run)
SOURCE = ("gpubench", "functions", "baselines", "experiments", "pyproject.toml", "setup.py",
          "setup.cfg", "README.md", "MANIFEST.in")
BENCH = ("benchmarks", "asv.conf.json")


def _git(*args, cwd=ROOT, **kw):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, **kw).stdout


def _lines(*args, cwd=ROOT):
    return _git(*args, cwd=cwd, text=True).split()


def choose(count, branch="HEAD"):
    """``count`` commits of ``branch`` that changed gpubench/, evenly spread from the first one
    that has benchmarks/ to ``branch`` itself (always included), oldest first."""
    first = _lines("log", "--format=%H", "--diff-filter=A", branch, "--", "asv.conf.json")
    if not first:
        raise SystemExit(f"history: no commit of {branch} has asv.conf.json")
    since = first[-1]
    candidates = _lines("rev-list", "--reverse", "--first-parent", f"{since}^..{branch}", "--",
                        "gpubench")
    head = _lines("rev-parse", branch)[0]
    if head not in candidates:
        candidates.append(head)
    if len(candidates) <= count:
        return candidates
    step = (len(candidates) - 1) / (count - 1)
    return [candidates[round(i * step)] for i in range(count)]


def skeleton(out, branch="HEAD"):
    """A bare repository holding the commit objects of ``branch`` only, same hashes, ref main."""
    out = Path(out)
    shutil.rmtree(out, ignore_errors=True)
    _git("init", "-q", "--bare", str(out))
    commits = _lines("rev-list", branch)
    # one cat-file --batch and one hash-object --stdin-paths would be faster; 600 commits take
    # a second or two this way, which is fine for a step run once per GPU session
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for c in commits:
            p = Path(tmp) / c
            p.write_bytes(_git("cat-file", "commit", c))
            paths.append(str(p))
        made = _git("hash-object", "-t", "commit", "-w", "--literally", "--stdin-paths",
                    cwd=out, input="\n".join(paths).encode()).decode().split()
    if made != commits:
        raise SystemExit("history: a commit object did not keep its hash")
    _git("update-ref", "refs/heads/main", commits[0], cwd=out)
    _git("symbolic-ref", "HEAD", "refs/heads/main", cwd=out)
    return out


def pack(commits, out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    full = [_lines("rev-parse", c + "^{commit}")[0] for c in commits]
    for c in full:
        present = set(_lines("ls-tree", "--name-only", c))
        paths = [p for p in SOURCE + BENCH if p in present]
        if "benchmarks" not in paths:
            raise SystemExit(f"history: {c[:8]} has no benchmarks/")
        tar = out / f"{c}.tar.gz"
        tmp = out / f"{c}.part"
        tmp.write_bytes(_git("archive", "--format=tar.gz", c, *paths))
        os.replace(tmp, tar)
    with tarfile.open(out / "repo.tar.gz", "w:gz") as t:
        with tempfile.TemporaryDirectory() as tmp:
            t.add(skeleton(Path(tmp) / "repo.git"), arcname="repo.git")
    (out / "commits").write_text("".join(c + "\n" for c in full))
    return full


def _stored(results, machine, commit):
    return any(p.name.startswith(commit[:8] + "-") for p in (Path(results) / machine).glob("*.json"))


def run(pack_dir, results, machine, shard=None, bench=None, work=None, quick=False):
    pack_dir, results = Path(pack_dir).resolve(), Path(results).resolve()
    commits = (pack_dir / "commits").read_text().split()
    if shard:
        k, n = shard
        commits = commits[k - 1::n]
    work = Path(work or tempfile.mkdtemp(prefix="asv-history-"))
    work.mkdir(parents=True, exist_ok=True)
    repo = work / "repo.git"
    if not repo.exists():
        with tarfile.open(pack_dir / "repo.tar.gz") as t:
            t.extractall(work, filter="data")
    asv = [sys.executable, "-m", "asv"]
    failed = 0
    for c in commits:
        if _stored(results, machine, c):
            print(f"history: {c[:8]} already stored, skipped", flush=True)
            continue
        src, site = work / f"src-{c[:8]}", work / f"site-{c[:8]}"
        shutil.rmtree(src, ignore_errors=True)
        src.mkdir()
        with tarfile.open(pack_dir / f"{c}.tar.gz") as t:
            t.extractall(src, filter="data")
        pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-compile", "--no-index",
               "--no-build-isolation", "--target", str(site), str(src)]
        if subprocess.run(pip, cwd=work).returncode != 0:
            print(f"history: cannot install {c[:8]}, skipped", flush=True)
            failed += 1
            continue
        # the benchmarks run from a folder without the source tree: its gpubench/ (without the
        # subpackages the install maps in) would shadow the installed one
        bench_dir = work / f"bench-{c[:8]}"
        shutil.rmtree(bench_dir, ignore_errors=True)
        bench_dir.mkdir()
        shutil.move(str(src / "benchmarks"), bench_dir / "benchmarks")
        conf = _conf(src / "asv.conf.json", bench_dir, repo, results)
        inherited = os.environ.get("ASV_PYTHONPATH") or os.environ.get("PYTHONPATH")
        path = os.pathsep.join([str(site)] + ([inherited] if inherited else []))
        env = dict(os.environ, PYTHONPATH=path, ASV_PYTHONPATH=path, ASV_CONF_DIR=str(bench_dir))
        subprocess.run(asv + ["machine", "--yes", "--machine", machine, "--config", str(conf)],
                       cwd=bench_dir, env=env, stdout=subprocess.DEVNULL)
        # one round a commit: every round is a new process that compiles the commit's CUDA kernels
        # again (older commits cache none), which made a commit take 6-8 minutes on the H200; the
        # history's statistic is the step between commits, and a commit's samples stay repeated
        cmd = asv + ["run", "--config", str(conf), "--python=same", "--set-commit-hash", c,
                     "--machine", machine, "--show-stderr", "-a", "rounds=1"] \
            + (["--bench", bench] if bench else []) + (["--quick"] if quick else [])
        print(f"history: {c[:8]}: {' '.join(cmd[2:])}", flush=True)
        rc = subprocess.run(cmd, cwd=bench_dir, env=env).returncode
        if rc not in (0, 2):  # 2: some benchmark failed, which asv stores as such
            failed += 1
        shutil.rmtree(src, ignore_errors=True)
    return 1 if failed else 0


def _conf(commit_conf, bench_dir, repo, results):
    """The commit's own asv configuration (comments allowed, as asv reads it), pointed at the
    skeleton repository, its benchmarks and the shared results folder."""
    import json5  # asv's own reader of asv.conf.json (a dependency of asv)
    conf = json5.loads(Path(commit_conf).read_text()) if Path(commit_conf).exists() else {}
    conf.update(repo=str(repo), benchmark_dir=str(bench_dir / "benchmarks"),
                results_dir=str(results), html_dir=str(bench_dir / "html"),
                env_dir=str(bench_dir / "env"), branches=["main"])
    out = bench_dir / "asv.conf.json"
    out.write_text(json.dumps(conf, indent=1))
    return out


def regressions(html_dir, out=None, threshold=None):
    """The steps `asv publish` flagged as regressions (its regressions.json), one line each,
    between the two commits of the step; written as Markdown to ``out`` too, with every step
    between two consecutive measured commits (:func:`steps`).  1 if asv flagged any."""
    html_dir = Path(html_dir)
    path = html_dir / "regressions.json"
    if not path.exists():
        raise SystemExit(f"history: {path} not found: run `asv publish` first (make nightly)")
    found = json.loads(path.read_text()).get("regressions", [])
    index = json.loads((html_dir / "index.json").read_text())
    commit = _commits(index)
    lines = []
    for entry in found:
        # asv 0.6: [benchmark, graph, params, index, last value, best value, jumps], each jump
        # (revision before, revision after, value before, value after)
        name, graph, jumps = entry[0], entry[1], entry[-1]
        for before, after, old, new in jumps:
            lines.append(f"- **{name}** on {_machine(graph)}: {old:.4g} -> {new:.4g} ({new / old:.2f}x) "
                         f"between {commit.get(before, before)} and {commit.get(after, after)}")
    threshold = _threshold() if threshold is None else threshold
    table = steps(html_dir, threshold)
    worse = sum(1 for s in table if s["kind"] == "regression")
    better = sum(1 for s in table if s["kind"] == "improvement")
    text = ("# Regressions flagged by asv\n\n"
            "Steps of more than `regressions_thresholds` (asv.conf.json) between two measured commits "
            "of main, from `asv publish` of results/asv/ (`make nightly PUBLISH_ONLY=1`). asv flags "
            "only a regression still present at the newest commit.\n\n"
            + ("\n".join(lines) if lines else "None.") + "\n\n"
            "## Every step between two consecutive measured commits\n\n"
            f"A benchmark's value changed by more than {threshold:.0%} from one measured commit to the next "
            "(time benchmarks: slower is a regression, faster an improvement; a track benchmark's change "
            "is shown without a direction). A regression later undone is listed here and not above. "
            f"{worse} regression(s), {better} improvement(s), {len(table) - worse - better} other change(s).\n\n"
            + (_steps_table(table, commit) if table else "None.\n"))
    if out:
        Path(out).write_text(text)
    print("\n".join(lines) if lines else "no regression flagged")
    if worse:
        print(f"{worse} regression step(s) between consecutive commits (listed in the Markdown)")
    return 1 if lines else 0


def _commits(index):
    return {int(r): h[:8] for r, h in index.get("revision_to_hash", {}).items()}


def _machine(graph):
    return next((part[len("machine-"):] for part in str(graph).split("/") if part.startswith("machine-")), "?")


def _threshold():
    """asv.conf.json's regressions_thresholds for every benchmark (".*"), else asv's default 0.05."""
    try:
        import json5
        conf = json5.loads((ROOT / "asv.conf.json").read_text())
        return float(conf.get("regressions_thresholds", {}).get(".*", 0.05))
    except Exception:  # no asv installed, or no file: asv's own default
        return 0.05


def steps(html_dir, threshold):
    """Every change by more than ``threshold`` (a fraction) of one benchmark at one parameter
    set, between two consecutive commits measured on one machine, read from `asv publish`'s
    graphs (revision order, i.e. the branch's order): a list of dicts (benchmark, params,
    machine, before, after (revisions), old, new, ratio, kind)."""
    html_dir = Path(html_dir)
    index = json.loads((html_dir / "index.json").read_text())
    benchmarks = index.get("benchmarks", {})
    out = []
    for graph in sorted((html_dir / "graphs").glob("branch-*/**/*.json")):
        name = graph.stem
        if name == "summary" or name not in benchmarks:
            continue
        info = benchmarks[name]
        combos = _combinations(info.get("params") or [])
        series = [(rev, v if isinstance(v, list) else [v]) for rev, v in json.loads(graph.read_text())]
        for k, combo in enumerate(combos):
            points = [(rev, vals[k]) for rev, vals in series
                      if k < len(vals) and isinstance(vals[k], (int, float)) and vals[k] > 0]
            for (r0, a), (r1, b) in zip(points, points[1:]):
                ratio = b / a
                if max(ratio, 1 / ratio) <= 1 + threshold:
                    continue
                if info.get("type") in ("time", "memory", "peakmemory"):
                    kind = "regression" if ratio > 1 else "improvement"
                else:
                    kind = "change"
                out.append({"benchmark": name, "params": combo, "machine": _machine(graph.relative_to(html_dir)),
                            "before": r0, "after": r1, "old": a, "new": b, "ratio": ratio, "kind": kind})
    return out


def _combinations(params):
    """asv's parameter sets in its order (the cartesian product, the last parameter fastest)."""
    import itertools
    return [", ".join(c) for c in itertools.product(*params)] if params else [""]


def _steps_table(table, commit):
    rows = ["| benchmark | parameters | machine | from | to | before | after | ratio | kind |",
            "|---|---|---|---|---|---|---|---|---|"]
    for s in table:
        rows.append(f"| {s['benchmark']} | {s['params'] or '-'} | {s['machine']} | "
                    f"{commit.get(s['before'], s['before'])} | {commit.get(s['after'], s['after'])} | "
                    f"{s['old']:.4g} | {s['new']:.4g} | {s['ratio']:.2f}x | {s['kind']} |")
    return "\n".join(rows) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.history", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    k = sub.add_parser("pack", help="pack commits and a skeleton repository for the GPU host")
    k.add_argument("commits", nargs="*")
    k.add_argument("--count", type=int, default=12)
    k.add_argument("--out", default=str(ROOT / ".whl" / "asv"))
    r = sub.add_parser("run", help="run the packed commits' benchmarks (resumable)")
    r.add_argument("dir")
    r.add_argument("--results", required=True)
    r.add_argument("--machine")
    r.add_argument("--shard")
    r.add_argument("--bench", default=os.environ.get("GPUBENCH_HISTORY_BENCH"),
                   help="asv --bench regex (default: $GPUBENCH_HISTORY_BENCH, else every benchmark)")
    r.add_argument("--work")
    r.add_argument("--quick", action="store_true", help="one sample per benchmark (a smoke test)")
    g = sub.add_parser("regressions", help="list the steps asv publish flagged")
    g.add_argument("html")
    g.add_argument("--out", help="also write the list as Markdown here")
    a = p.parse_args(argv)
    if a.cmd == "pack":
        if a.count < 2 and not a.commits:
            p.error("--count must be at least 2")
        done = pack(a.commits or choose(a.count), a.out)
        print(f"packed {len(done)} commit(s) into {a.out}: " + " ".join(c[:8] for c in done))
        return 0
    if a.cmd == "regressions":
        return regressions(a.html, a.out)
    shard = None
    if a.shard:
        try:
            shard = tuple(int(x) for x in a.shard.split("/"))
            assert len(shard) == 2 and 1 <= shard[0] <= shard[1]
        except (ValueError, AssertionError):
            p.error(f"--shard must be K/N with 1 <= K <= N, not {a.shard!r}")
    if a.machine is None:
        from benchmarks.tools import machine_name
        a.machine = machine_name()
    return run(a.dir, a.results, a.machine, shard, a.bench, a.work, a.quick)


if __name__ == "__main__":
    sys.exit(main())
