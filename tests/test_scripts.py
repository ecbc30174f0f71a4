"""scripts/ holds only what a user runs, and the documentation names only what is there (issue 24)."""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(p for p in (ROOT / "scripts").iterdir() if p.is_file())
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def first_line_says_what_for(path):
    line = path.read_text().splitlines()[0] if path.read_text() else ""
    text = line.removeprefix('"""').removeprefix("#").strip()
    # a bare shebang or an empty docstring opener says nothing to a user listing the folder
    return line.startswith(('"""', "# ")) and len(text) >= 30


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_every_script_says_in_its_first_line_what_for(path):
    assert first_line_says_what_for(path), f"{path.name}: first line {path.read_text().splitlines()[:1]}"


def test_a_script_without_a_purpose_line_is_caught(tmp_path):
    bare = tmp_path / "x.py"
    bare.write_text('"""\nRuns things.\n"""\n')
    assert not first_line_says_what_for(bare)
    bare.write_text("#!/bin/sh\necho\n")
    assert not first_line_says_what_for(bare)


def missing_scripts(paragraphs):
    """Names of scripts/ files a paragraph mentions that are not there, unless the paragraph (or the one
    before it) says which commit last had them (a record's provenance may name a removed script)."""
    gone = []
    for k, para in enumerate(paragraphs):
        # a command block is its own paragraph: the one before it may say where the script went
        said = " ".join(paragraphs[max(k - 1, 0):k + 1]).replace("\n", " ")
        for name in re.findall(r"scripts/([A-Za-z0-9_]+\.(?:py|sh))", para):
            if not (ROOT / "scripts" / name).exists() and "last in commit" not in said:
                gone.append(name)
    return gone


def test_the_documentation_names_only_scripts_that_exist():
    paragraphs = [para for doc in DOCS for para in doc.read_text().split("\n\n")]
    assert not missing_scripts(paragraphs)
    assert missing_scripts(["run `scripts/gpu_wave9.sh` on the host"]) == ["gpu_wave9.sh"]


def test_the_documentation_names_no_per_paper_entry():
    pattern = re.compile(r"python3? -m gpubench\.(report_paper001|tron\.report|lbfgsb\.reproduce)")
    hits = [f"{doc.name}: {m.group(0)}" for doc in DOCS for m in pattern.finditer(doc.read_text())]
    assert not hits


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_gpu_queue_parses_and_runs_reproduce_with_resume():
    queue = ROOT / "scripts" / "gpu_queue.sh"
    assert subprocess.run(["bash", "-n", str(queue)], capture_output=True).returncode == 0
    text = queue.read_text()
    # resume: the records already in the checkout (and the last pack) are copied in before the
    # queue starts, so that `reproduce` skips them
    assert "cp -rn $ROOT/results/$id $Q/results/" in text and ".whl/queue.tgz" in text
    # a usage error is one line and exit 2, before anything is installed
    r = subprocess.run(["bash", str(queue), "5"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1


def _queue_checkout(tmp_path):
    """(root, bin folder, calls file): a checkout holding gpu_queue.sh, a host environment that only
    changes folder, and a stand-in python3 that writes its GPU and arguments to the calls file."""
    root = tmp_path / "repo"
    (root / "scripts").mkdir(parents=True)
    (root / "scripts" / "gpu_queue.sh").write_text((ROOT / "scripts" / "gpu_queue.sh").read_text())
    (root / "scripts" / "gpu_host_env.sh").write_text(f"mkdir -p {tmp_path}/run && cd {tmp_path}/run\n")
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    calls = tmp_path / "calls"
    stub = bin_ / "python3"
    stub.write_text(f'#!/bin/bash\necho "${{CUDA_VISIBLE_DEVICES-unset}} $*" >> {calls}\n')
    stub.chmod(0o755)
    return root, bin_, calls


def test_the_gpu_queue_runs_gpu_and_cpu_queues_with_entries_and_shares(tmp_path):
    """What each queue runs, with a stand-in python3 and host environment: ID@ENTRIES%K/N on a
    GPU gets --backend cuda, --entries and --shard; `cpu:ID@ENTRIES%N` starts N CPU queues, share
    1/N to N/N, with no GPU visible and no backend override."""
    root, bin_, calls = _queue_checkout(tmp_path)
    (root / "results" / "table1").mkdir(parents=True)
    (root / "results" / "table1" / "stored.json").write_text("{}")
    q = tmp_path / "q"
    env = {**os.environ, "PATH": f"{bin_}:{os.environ['PATH']}", "GPUBENCH_QUEUE_DIR": str(q), "GPUBENCH_QUEUE_POLL": "0.2",
           "GPUBENCH_COMMIT": "abc", "OUT": str(tmp_path / "out")}
    env.pop("CUDA_VISIBLE_DEVICES", None)
    r = subprocess.run(["bash", "scripts/gpu_queue.sh", "20", "table1@a,b%1/2 table2",
                        "cpu:maingo_gpu_table2@maingo%3"],
                       capture_output=True, text=True, cwd=root, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    got = sorted(calls.read_text().splitlines())
    assert got == sorted([
        "unset -m gpubench reproduce table1 --backend cuda --entries a,b --shard 1/2",
        "unset -m gpubench reproduce table2 --backend cuda",
        " -m gpubench reproduce maingo_gpu_table2 --entries maingo --shard 1/3",
        " -m gpubench reproduce maingo_gpu_table2 --entries maingo --shard 2/3",
        " -m gpubench reproduce maingo_gpu_table2 --entries maingo --shard 3/3",
    ])
    # the checkout's records of a queued experiment were copied in (reproduce skips them), and
    # the pack holds them
    assert (q / "results" / "table1" / "stored.json").exists()
    assert (tmp_path / "out" / "queue.tgz").exists()


def test_the_gpu_queue_takes_up_the_last_packs_half_done_case(tmp_path):
    """A pack carried back (.whl/queue.tgz) from a machine given back mid-case holds that case's
    checkpoint and its process's claim: the claim is dropped (its process is gone), the checkpoint
    kept, so the next machine's `reproduce` goes on from it."""
    import tarfile
    root, bin_, calls = _queue_checkout(tmp_path)
    old = tmp_path / "old" / "results" / "table1"
    old.mkdir(parents=True)
    (old / ".case.claim").write_text('{"pid": 1, "host": "the-last-gpu-host"}')
    (old / "case.checkpoint.npz").write_text("state")
    (root / ".whl").mkdir()
    with tarfile.open(root / ".whl" / "queue.tgz", "w:gz") as tar:
        tar.add(tmp_path / "old" / "results", arcname="results")
    q = tmp_path / "q"
    env = {**os.environ, "PATH": f"{bin_}:{os.environ['PATH']}", "GPUBENCH_QUEUE_DIR": str(q), "GPUBENCH_QUEUE_POLL": "0.2",
           "GPUBENCH_COMMIT": "abc", "OUT": str(tmp_path / "out")}
    env.pop("CUDA_VISIBLE_DEVICES", None)
    r = subprocess.run(["bash", "scripts/gpu_queue.sh", "20", "table1"], capture_output=True, text=True, cwd=root,
                       env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    assert (q / "results" / "table1" / "case.checkpoint.npz").exists()
    assert not (q / "results" / "table1" / ".case.claim").exists()
    assert calls.read_text().split() == ["unset", "-m", "gpubench", "reproduce", "table1", "--backend", "cuda"]


def test_the_gpu_queue_pins_gN_queues_to_one_gpu(tmp_path):
    """`gN:ID%K` starts K queues that all see GPU N alone, beside unpinned queues numbered 0, 1, ...
    (several shares of many short cases on one GPU, the asv history alone on another)."""
    root, bin_, calls = _queue_checkout(tmp_path)
    env = {**os.environ, "PATH": f"{bin_}:{os.environ['PATH']}", "GPUBENCH_QUEUE_DIR": str(tmp_path / "q"), "GPUBENCH_QUEUE_POLL": "0.2",
           "GPUBENCH_COMMIT": "abc", "OUT": str(tmp_path / "out")}
    env.pop("CUDA_VISIBLE_DEVICES", None)
    (root / "benchmarks").mkdir()
    (root / ".whl" / "asv").mkdir(parents=True)
    q = tmp_path / "q"
    r = subprocess.run(["bash", "scripts/gpu_queue.sh", "20", "table1", "g3:table2@a%2", "table3", "g2:asv-history%1/2"],
                       capture_output=True, text=True, cwd=root, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    assert sorted(calls.read_text().splitlines()) == sorted([
        "0 -m gpubench reproduce table1 --backend cuda",
        "3 -m gpubench reproduce table2 --backend cuda --entries a --shard 1/2",
        "3 -m gpubench reproduce table2 --backend cuda --entries a --shard 2/2",
        "1 -m gpubench reproduce table3 --backend cuda",
        # the history runs from a copy of the benchmarks and the pack (the checkout is replaced
        # at every command of the device tool)
        f"2 -m benchmarks.history run {q}/history/asv --results {q}/results/asv --work /tmp/asvh-4 --shard 1/2",
    ])
    assert (q / "history" / "benchmarks").is_dir() and (q / "history" / "asv").is_dir()


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_gpu_window_runs_its_jobs_once_and_packs_only_what_changed(tmp_path):
    """A job file runs once, in the background, from a copy of the checkout, with the results
    folder and $SOL set; the pack holds the records it wrote, not the checkout's stored ones, and
    a checkpoint apart; a second call only waits and packs.  A missing job file is one line, exit 2."""
    import tarfile
    root = tmp_path / "repo"
    (root / "scripts").mkdir(parents=True)
    (root / "scripts" / "gpu_window.sh").write_text((ROOT / "scripts" / "gpu_window.sh").read_text())
    (root / "scripts" / "gpu_host_env.sh").write_text("true\n")
    (root / "results" / "t").mkdir(parents=True)
    (root / "results" / "t" / "stored.json").write_text("{}")
    (root / "jobs.sh").write_text(
        'echo run >> $W/runs; echo "{}" > $GPUBENCH_RESULTS/t/new.json; echo x > $SOL/loose.txt\n'
        'echo c > $GPUBENCH_RESULTS/t/case.checkpoint.npz; touch $W/all.done\n')
    w = tmp_path / "w"
    env = {**os.environ, "GPUBENCH_WINDOW_DIR": str(w), "GPUBENCH_WINDOW_POLL": "0.2", "OUT": str(tmp_path / "out")}
    for _ in range(2):
        r = subprocess.run(["bash", "scripts/gpu_window.sh", "20", "jobs.sh"], capture_output=True, text=True,
                           cwd=root, env=env, timeout=60)
        assert r.returncode == 0, r.stderr
    assert (w / "runs").read_text() == "run\n"
    with tarfile.open(tmp_path / "out" / "res.tgz") as tar:
        names = set(tar.getnames())
    assert "results/t/new.json" in names and "results/gpu/solve-unknown/loose.txt" in names
    assert "results/t/stored.json" not in names and "results/t/case.checkpoint.npz" not in names
    with tarfile.open(tmp_path / "out" / "ckpt.tar") as tar:
        assert tar.getnames() == ["results/t/case.checkpoint.npz"]
    r = subprocess.run(["bash", "scripts/gpu_window.sh", "5", "nothing.sh"], capture_output=True, text=True,
                       cwd=root, env=env, timeout=30)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1


@pytest.mark.skipif(shutil.which("bash") is None or shutil.which("git") is None, reason="needs bash and git")
def test_the_gpu_pack_holds_the_code_the_wheels_and_the_records_named(tmp_path):
    """.gpurun/ from HEAD's code, the wheels and COMMIT, and only the records named; a path outside
    results/ or no wheels is one line and exit 2, before anything is written."""
    root = tmp_path / "repo"
    (root / "scripts").mkdir(parents=True)
    (root / "scripts" / "gpu_pack.sh").write_text((ROOT / "scripts" / "gpu_pack.sh").read_text())
    (root / "gpubench").mkdir()
    (root / "gpubench" / "x.py").write_text("X = 1\n")
    for folder in ("a", "b"):
        (root / "results" / folder).mkdir(parents=True)
        (root / "results" / folder / "r.json").write_text("{}")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "c"]):
        subprocess.run(git + cmd, cwd=root, check=True, capture_output=True)
    r = subprocess.run(["bash", "scripts/gpu_pack.sh", "results/a"], capture_output=True, text=True, cwd=root)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and not (root / ".gpurun").exists()
    (root / ".whl").mkdir()
    (root / ".whl" / "w-1-py3-none-any.whl").write_text("w")
    r = subprocess.run(["bash", "scripts/gpu_pack.sh", "gpubench"], capture_output=True, text=True, cwd=root)
    assert r.returncode == 2 and "not under results/" in r.stderr
    r = subprocess.run(["bash", "scripts/gpu_pack.sh", "results/a"], capture_output=True, text=True, cwd=root)
    assert r.returncode == 0, r.stderr
    pack = root / ".gpurun"
    assert (pack / "gpubench" / "x.py").exists() and (pack / ".whl" / "w-1-py3-none-any.whl").exists()
    assert (pack / ".whl" / "COMMIT").read_text().strip() and (pack / "results" / "a" / "r.json").exists()
    assert not (pack / "results" / "b").exists() and (pack / "scripts" / "gpu_pack.sh").exists()
