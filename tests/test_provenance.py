"""Provenance: every stored measurement names the code that ran it by a real commit."""
import gzip
import json
import os
import pathlib
import re
import subprocess

import pytest

from gpubench.device import environment

ROOT = pathlib.Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"


def _records():
    for p in sorted(RESULTS.rglob("*")):
        if p.suffix == ".json" or p.name.endswith((".jsonl", ".jsonl.gz")):
            if "asv" in p.parts:  # asv's own files name commits by its own keys
                continue
            yield p


def _load(p):
    opener = gzip.open if p.name.endswith(".gz") else open
    with opener(p, "rt") as f:
        text = f.read()
    if p.suffix == ".json":
        return [json.loads(text)]
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _commits(obj, out):
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k in ("commit", "git_commit") and (v is None or isinstance(v, str)):
                out.append((v, obj.get("commit_label")))
            else:
                _commits(v, out)
    elif isinstance(obj, list):
        for v in obj:
            _commits(v, out)


def _git(*args):
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)


def _have_history():
    r = _git("rev-parse", "--is-shallow-repository")
    return r.returncode == 0 and r.stdout.strip() == "false"


@pytest.mark.skipif(not _have_history(), reason="needs the repository's full git history")
def test_every_stored_commit_is_a_commit_of_this_repository():
    named = {}
    for p in _records():
        found = []
        for rec in _load(p):
            _commits(rec, found)
        for commit, label in found:
            if commit is None:
                # allowed only where a label says what ran and a note says why no commit is given
                assert label, f"{p.relative_to(ROOT)}: a record with neither a commit nor a label"
                continue
            base = re.sub(r"\+dirty(-[0-9a-f]{12})?$", "", commit)
            assert re.fullmatch(r"[0-9a-f]{40}", base), f"{p.relative_to(ROOT)}: commit {commit!r} is not a full hash"
            named.setdefault(base, p)
    assert named, "no record names a commit"
    # reachable from HEAD, not merely present: a local clone copies unreachable objects too, a CI clone does not
    history = set(_git("rev-list", "HEAD").stdout.split())
    missing = [c for c in named if c not in history]
    assert not missing, "not commits in this branch's history: " + ", ".join(
        f"{c} ({named[c].relative_to(ROOT)})" for c in missing)


def test_capture_names_a_commit_or_keeps_a_label_apart(tmp_path, monkeypatch):
    # outside a git checkout (the GPU host's copy) only a hash-shaped GPUBENCH_COMMIT is a commit
    monkeypatch.setenv("GPUBENCH_COMMIT", "merge-scale")
    assert environment.commit_fields(str(tmp_path)) == {"commit": None, "commit_label": "merge-scale"}
    monkeypatch.setenv("GPUBENCH_COMMIT", "c7c75d5a51af39ea26aa2df4b0126e6d17a44183")
    assert environment.commit_fields(str(tmp_path)) == {"commit": "c7c75d5a51af39ea26aa2df4b0126e6d17a44183"}


def test_a_dirty_tree_is_named_by_the_hash_of_its_diff(tmp_path, monkeypatch):
    monkeypatch.delenv("GPUBENCH_COMMIT", raising=False)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    run = lambda *a: subprocess.run(["git", "-C", str(tmp_path), *a], check=True, capture_output=True, env=env)  # noqa: E731
    run("init", "-q")
    (tmp_path / "f.txt").write_text("one\n")
    run("add", "f.txt")
    run("commit", "-qm", "one")
    head = subprocess.run(["git", "-C", str(tmp_path), "rev-parse", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    assert environment.git_commit(str(tmp_path)) == head
    (tmp_path / "f.txt").write_text("two\n")
    first = environment.git_commit(str(tmp_path))
    (tmp_path / "f.txt").write_text("three\n")
    second = environment.git_commit(str(tmp_path))
    assert first.startswith(head + "+dirty-") and second.startswith(head + "+dirty-") and first != second
