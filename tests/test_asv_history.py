"""The GPU history's packing and resuming (benchmarks/history.py): what travels to the GPU host is a
skeleton repository whose commits keep their hashes, and a run skips the commits already stored."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
history = pytest.importorskip("benchmarks.history")


def _git(*args, cwd=ROOT):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.split()


@pytest.fixture(scope="module")
def has_history():
    try:
        if len(_git("rev-list", "--max-count=3", "HEAD")) < 2 or _git("rev-parse", "--is-shallow-repository") == ["true"]:
            pytest.skip("needs the checkout's git history")
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("needs git and the checkout's git history")


def test_the_skeleton_keeps_every_commit_hash_and_the_branch_order(tmp_path, has_history):
    repo = history.skeleton(tmp_path / "repo.git", "HEAD~1")
    assert _git("rev-list", "main", cwd=repo) == _git("rev-list", "HEAD~1")
    # what asv reads of a commit: its date
    c = _git("rev-parse", "HEAD~1")[0]
    assert _git("log", "-1", "--format=%ct", c, cwd=repo) == _git("log", "-1", "--format=%ct", c)


def test_choose_spreads_commits_from_the_first_benchmarked_one_to_head(has_history):
    chosen = history.choose(3)
    head = _git("rev-parse", "HEAD")[0]
    assert chosen[-1] == head and len(chosen) == len(set(chosen)) <= 3
    # oldest first, each an ancestor of the next
    for a, b in zip(chosen, chosen[1:]):
        assert subprocess.run(["git", "merge-base", "--is-ancestor", a, b], cwd=ROOT).returncode == 0


def test_pack_then_run_skips_the_commits_already_stored_and_takes_its_share(tmp_path, has_history):
    commits = _git("rev-parse", "HEAD~1", "HEAD")
    out = tmp_path / "pack"
    assert history.pack(commits, out) == commits
    assert (out / "commits").read_text().split() == commits
    for c in commits:
        assert (out / f"{c}.tar.gz").stat().st_size > 0
    results = tmp_path / "results"
    (results / "box").mkdir(parents=True)
    for c in commits:  # both already measured: nothing is installed or run
        (results / "box" / f"{c[:8]}-existing-py.json").write_text("{}")
    seen = []
    real = history.subprocess.run

    def spy(cmd, *a, **kw):
        seen.append(cmd)
        return real(cmd, *a, **kw)

    history.subprocess.run = spy
    try:
        assert history.run(out, results, "box", work=tmp_path / "w") == 0
        assert history.run(out, results, "box", shard=(2, 2), work=tmp_path / "w") == 0
    finally:
        history.subprocess.run = real
    assert not [c for c in seen if "asv" in c or "pip" in c], seen


def test_regressions_names_the_two_commits_of_each_flagged_step(tmp_path, capsys):
    html = tmp_path / "html"
    html.mkdir()
    (html / "index.json").write_text(json.dumps({"revision_to_hash": {"5": "a" * 40, "9": "b" * 40}}))
    (html / "regressions.json").write_text(json.dumps({"regressions": [
        ["bench_solve.CudaSolve.time_solve('levy', 50)",
         "graphs/branch-main/machine-gpuhost-NVIDIA-H200/python-x/bench_solve.CudaSolve.time_solve.json",
         {}, 0, 0.3, 0.1, [[5, 9, 0.1, 0.3]]]]}))
    assert history.regressions(html, tmp_path / "r.md") == 1
    text = (tmp_path / "r.md").read_text()
    assert "time_solve('levy', 50)** on gpuhost-NVIDIA-H200: 0.1 -> 0.3 (3.00x) between aaaaaaaa and bbbbbbbb" in text
    (html / "regressions.json").write_text(json.dumps({"regressions": []}))
    assert history.regressions(html) == 0


def test_every_step_between_consecutive_commits_is_listed_even_when_undone(tmp_path):
    """asv flags only a regression still present at the newest commit; the rendered report also
    lists each step between two consecutive measured commits, so a regression later undone shows."""
    html = tmp_path / "html"
    graphs = html / "graphs" / "branch-main" / "machine-gpuhost-NVIDIA-H200" / "python-x"
    graphs.mkdir(parents=True)
    (html / "index.json").write_text(json.dumps({
        "revision_to_hash": {"1": "a" * 40, "2": "b" * 40, "3": "c" * 40},
        "benchmarks": {"bench_solve.CudaSolve.time_solve": {"type": "time", "params": [["50", "100"]]},
                       "bench_x.X.track_regions": {"type": "track", "params": []}}}))
    (html / "regressions.json").write_text(json.dumps({"regressions": []}))
    # n = 50: 1.0 -> 1.5 (a regression) -> 1.0 (undone); n = 100: 2.0 -> 2.2 (within 20 %) -> 1.0
    (graphs / "bench_solve.CudaSolve.time_solve.json").write_text(json.dumps(
        [[1, [1.0, 2.0]], [2, [1.5, 2.2]], [3, [1.0, 1.0]]]))
    (graphs / "bench_x.X.track_regions.json").write_text(json.dumps([[1, 10], [2, 30], [3, None]]))
    found = history.steps(html, 0.2)
    seen = {(s["benchmark"].split(".")[-1], s["params"], s["before"], s["after"], s["kind"]) for s in found}
    assert seen == {("time_solve", "50", 1, 2, "regression"), ("time_solve", "50", 2, 3, "improvement"),
                    ("time_solve", "100", 2, 3, "improvement"), ("track_regions", "", 1, 2, "change")}
    assert history.regressions(html, tmp_path / "r.md", threshold=0.2) == 0   # asv flagged none
    text = (tmp_path / "r.md").read_text()
    assert "| bench_solve.CudaSolve.time_solve | 50 | gpuhost-NVIDIA-H200 | aaaaaaaa | bbbbbbbb | 1 | 1.5 | 1.50x | regression |" in text
    assert "1 regression(s), 2 improvement(s), 1 other change(s)" in text
