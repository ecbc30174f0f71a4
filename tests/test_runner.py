"""gpubench reproduce: cases, atomic records, resume after kill -9, progress, a Dask LocalCluster sweep."""
import io
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from gpubench.workflow import experiments_loader as loader
from gpubench import methods
from gpubench.workflow import runner
from gpubench.cli import main
from gpubench.result import OptimizeResult

REPO = Path(__file__).resolve().parents[1]

FAKE_SOURCE = '''
"""A stand-in method, one file: sleeps, then 'finds' x* (or misses it by offset)."""
import time
from dataclasses import dataclass

import numpy as np

from gpubench.methods.base import Method, MethodSettings, setting
from gpubench.result import OptimizeResult


@dataclass
class FakeSettings(MethodSettings):
    sleep: float = setting(0.0, "seconds to sleep", minimum=0.0)
    iterations: int = setting(3, "iterations to report", minimum=0)
    rigorous: bool = setting(True, "report an enclosure")
    offset: float = setting(0.0, "how far the value misses f*")


def run(fn, dim, s):
    t0 = time.perf_counter()
    time.sleep(s.sleep)
    x = fn.xstar(dim)
    f = fn.fstar(dim) + s.offset
    hist = {"glb": [f - 1.0, f - 1e-9], "gub": [f + 1.0, f + 1e-9], "list_size": [4, 1]}
    return OptimizeResult(
        function=fn.name, dim=dim, method="fake", x=x, fun=f,
        glb=f - 1e-9 if s.rigorous else None, gub=f + 1e-9 if s.rigorous else None,
        regions_lo=np.array([x - 1e-5]) if s.rigorous else None,
        regions_hi=np.array([x + 1e-5]) if s.rigorous else None,
        iterations=s.iterations, nfev=10 * dim, njev=dim, seconds=time.perf_counter() - t0,
        converged=True, history=hist if s.rigorous else {},
        options=s.as_dict())


METHOD = Method(name="fake", summary="a stand-in method for the tests", settings=FakeSettings, run=run)
'''

# The fake method is a plug-in: one file in a folder named by GPUBENCH_METHOD_PATH, found by the
# registry like any method (in this process, in the CLI's subprocesses and on Dask workers).
PLUGINS = Path(__import__("tempfile").mkdtemp(prefix="gpubench-methods-"))
(PLUGINS / "fake_method.py").write_text(FAKE_SOURCE)


@pytest.fixture(autouse=True, scope="module")
def _plugin_path():
    """GPUBENCH_METHOD_PATH for this module's tests only (and the processes they start): it was set
    at import, so every test of a session that collected this module ran with the plug-in, and
    others had to remove it by hand (tests/conftest.py's guard now fails a test that leaves it)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("GPUBENCH_METHOD_PATH", str(PLUGINS))
    yield
    mp.undo()


def experiment_file(folder, name="sweep", dims=(2, 3), quick_dims=(2,), sleep=0.0, reps=1):
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / f"{name}.toml"
    p.write_text(textwrap.dedent(f'''
        id = "{name}"
        title = "a sweep of the fake method"
        source = "the tests"
        layout = "scaling"
        functions = ["ackley"]
        dims = {list(dims)}
        repetitions = {reps}

        [methods.fake]
        sleep = {sleep}

        [quick]
        dims = {list(quick_dims)}
        note = "fewer dims"
    '''))
    return p


def test_plan_and_case_ids(tmp_path):
    e = loader.load(str(experiment_file(tmp_path, dims=(2, 3, 4), reps=2)))
    cases = runner.plan(e)
    assert len(cases) == 3 * 2
    ids = [c.case_id for c in cases]
    assert len(set(ids)) == len(ids)
    assert ids == [c.case_id for c in runner.plan(e)]          # stable
    assert all(i.startswith("fake-ackley-n") for i in ids)
    assert len(runner.plan(e, quick=True)) == 2
    s12 = loader.load("tableS12")
    a = {c.key: c for c in runner.plan(s12, quick=True)}
    b = {c.key: c for c in runner.plan(s12, quick=True, backend="cuda")}
    assert b["interval"].settings["backend"] == "cuda"
    assert a["interval"].case_id == b["interval"].case_id       # where it runs is recorded, not identity
    assert a["bfgs"].case_id == b["bfgs"].case_id
    c = {k: runner.Case(**{**vars(v), "settings": {**v.settings, "parts": 3}})
         for k, v in a.items() if "parts" in v.settings}
    assert c["interval"].case_id != a["interval"].case_id       # another setting, another case


def test_gpu_records_of_a_case_count_as_stored_and_old_names_are_converted(tmp_path, capsys):
    """qin2012_table1's committed records ran with --backend cuda: --list counts them all."""
    import shutil
    from gpubench.records import convert
    from gpubench.records.schema import normalize
    e = loader.load("qin2012_table1")
    stored = runner.stored_cases(REPO / "results" / "qin2012_table1")
    cases = runner.plan(e)
    assert len(cases) == 16 and all(c.case_id in stored for c in cases)
    assert main(["reproduce", "--list"]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.split()[1:2] == ["qin2012_table1"])
    assert " 16/16 " in line
    # a record stored under its old name (the hash once held the backend) is renamed once
    folder = tmp_path / "qin2012_table1"
    folder.mkdir()
    src = REPO / "results" / "qin2012_table1" / f"{cases[0].case_id}.json"
    rec = json.loads(src.read_text())
    old = rec["case"][:-8] + "0badc0de"
    rec["case"] = old
    (folder / f"{old}.json").write_text(json.dumps(rec))
    shutil.copy(REPO / "results" / "qin2012_table1" / f"{cases[1].case_id}.json", folder)
    assert runner.stored_cases(folder) == {old, cases[1].case_id}
    renamed, clashes = convert.rename_records(folder)
    assert renamed == [(old, cases[0].case_id)] and clashes == []
    assert runner.stored_cases(folder) == {cases[0].case_id, cases[1].case_id}
    new = json.loads((folder / f"{cases[0].case_id}.json").read_text())
    assert new["provenance"]["renamed_from"] == old
    assert new["measured"] == normalize(rec)["measured"] and new["environment"] == rec["environment"]
    assert convert.rename_records(folder) == ([], [])


def test_sweep_stores_one_complete_record_per_case_and_skips_them_later(tmp_path):
    e = loader.load(str(experiment_file(tmp_path / "exp")))
    out = io.StringIO()
    s = runner.sweep(e, results=tmp_path / "res", stream=out, fancy=False)
    assert (s.total, s.ran, s.skipped) == (2, 2, 0)
    assert "[1/2]" in out.getvalue() and "elapsed" in out.getvalue()
    folder = tmp_path / "res" / "sweep"
    files = sorted(folder.iterdir())
    assert [f.suffix for f in files] == [".json", ".json"]
    rec = json.loads(files[0].read_text())
    assert rec["experiment"] == "sweep" and rec["variant"] == "full" and rec["case"] == files[0].stem
    assert rec["method"] == "fake" and rec["settings"] == {"sleep": 0.0}
    m = rec["measured"]
    for k in ("iterations", "regions", "glb", "gub", "fun", "evaluations", "seconds", "converged", "backend"):
        assert k in m
    assert m["regions"] == 1 and m["iterations"] == 3
    assert rec["success"] is True and rec["fstar"] == 0.0
    env = rec["environment"]
    for k in ("cpu", "cpu_count", "gpu", "versions", "commit", "date", "platform"):
        assert k in env
    assert env["versions"]["python"] and env["versions"]["numpy"]
    assert "T" in env["date"]
    mtimes = {f.name: f.stat().st_mtime_ns for f in files}
    s = runner.sweep(e, results=tmp_path / "res", stream=io.StringIO(), fancy=False)
    assert (s.ran, s.skipped) == (0, 2)
    assert {f.name: f.stat().st_mtime_ns for f in folder.iterdir()} == mtimes


def test_ctrl_c_keeps_the_stored_cases_says_so_and_the_same_command_resumes(tmp_path, monkeypatch):
    e = loader.load(str(experiment_file(tmp_path / "exp")))
    real = runner.run_case
    calls = []

    def second_interrupted(case, *where):
        calls.append(case)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(case, *where)
    monkeypatch.setattr(runner, "run_case", second_interrupted)
    out = io.StringIO()
    with pytest.raises(KeyboardInterrupt):
        runner.sweep(e, results=tmp_path / "res", stream=out, fancy=False)
    folder = tmp_path / "res" / "sweep"
    assert [f.suffix for f in folder.iterdir()] == [".json"]  # the case under way left nothing
    assert "interrupted; 1 case(s) stored this time, 1 of 2 in all" in out.getvalue(), out.getvalue()
    assert "runs the other 1" in out.getvalue()
    monkeypatch.setattr(runner, "run_case", real)
    s = runner.sweep(e, results=tmp_path / "res", stream=io.StringIO(), fancy=False)
    assert (s.ran, s.skipped) == (1, 1)


def test_a_corrupt_record_is_run_again_and_stale_temporary_files_go(tmp_path):
    e = loader.load(str(experiment_file(tmp_path / "exp")))
    runner.sweep(e, results=tmp_path / "res", stream=io.StringIO(), fancy=False)
    folder = tmp_path / "res" / "sweep"
    victim = sorted(folder.glob("*.json"))[0]
    victim.write_text('{"case": ')
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    stale = folder / f".{victim.stem}.{dead}.tmp"
    stale.write_text("{")
    s = runner.sweep(e, results=tmp_path / "res", stream=io.StringIO(), fancy=False)
    assert s.ran == 1
    assert not stale.exists()
    assert json.loads(victim.read_text())["case"] == victim.stem


def test_success_rules():
    r = OptimizeResult("f", 2, "m", glb=-1e-9, gub=1e-9, converged=True)
    assert runner.success(r, 0.0, 1e-6) == (True, "converged and GLB <= f* <= GUB")
    r.converged = False
    assert runner.success(r, 0.0, 1e-6)[0] is False
    r = OptimizeResult("f", 2, "m", glb=1e-12, gub=1.0, converged=True)
    assert runner.success(r, 0.0, 1e-6)[0] is False
    h = OptimizeResult("f", 2, "m", fun=5e-7)
    assert runner.success(h, 0.0, 1e-6)[0] is True
    assert runner.success(h, 0.0, 1e-7)[0] is False
    assert runner.success(OptimizeResult("f", 2, "m", fun=9.5), 10.0, 1e-6, sense="max")[0] is False


SCRIPT = '''
import sys
sys.path.insert(0, {repo!r})
from gpubench.cli import main
sys.exit(main(sys.argv[1:]))
'''


def test_resume_after_kill_9_leaves_no_duplicates_and_no_partial_files(tmp_path):
    exp = experiment_file(tmp_path / "exp", dims=(2, 3, 4, 5, 6, 7), sleep=0.4)
    script = tmp_path / "run.py"
    script.write_text(SCRIPT.format(repo=str(REPO)))
    res = tmp_path / "res"
    cmd = [sys.executable, str(script), "reproduce", str(exp), "--results", str(res)]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    folder = res / "sweep"
    deadline = time.time() + 120
    while time.time() < deadline and len(list(folder.glob("*.json")) if folder.exists() else []) < 2:
        assert proc.poll() is None, proc.stderr.read().decode()
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = sorted(folder.glob("*.json"))
    assert 2 <= len(before) < 6, "the sweep was not interrupted mid-way"
    for p in before:  # whatever was stored is complete
        assert json.loads(p.read_text())["case"] == p.stem
    first = {p.name: p.stat().st_mtime_ns for p in before}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"{len(before)} of 6 case(s) already stored" in done.stdout
    after = sorted(folder.iterdir())
    assert all(p.suffix == ".json" and not p.name.startswith(".") for p in after), after
    cases = [json.loads(p.read_text())["case"] for p in after]
    assert len(cases) == 6 == len(set(cases))
    assert {p.name: p.stat().st_mtime_ns for p in after if p.name in first} == first


def test_dask_local_cluster_sweep(tmp_path):
    pytest.importorskip("dask.distributed")
    e = loader.load(str(experiment_file(tmp_path / "exp", dims=(2, 3, 4), sleep=0.1)))
    out = io.StringIO()
    s = runner.sweep(e, results=tmp_path / "res", workers=2, processes=False, stream=out, fancy=False)
    assert (s.total, s.ran) == (3, 3)
    recs = runner.load_records(tmp_path / "res" / "sweep")
    assert sorted(r["dim"] for r in recs) == [2, 3, 4]
    assert {r["case"] for r in recs} == {c.case_id for c in runner.plan(e)}
    assert "[3/3]" in out.getvalue()


def test_gpu_worker_spec_gives_each_worker_its_gpu():
    spec = runner.gpu_worker_spec(3, ["0", "1"])
    assert [v["CUDA_VISIBLE_DEVICES"] for v in spec.values()] == ["0", "1", "0"]


def test_visible_gpus_respects_cuda_visible_devices(monkeypatch):
    from gpubench.device import gpu as device
    # a parent restricted to GPU 1 gives its one worker GPU 1, not the host's first GPU
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
    assert device.visible_gpus() == ["1"] and device.gpu_count() == 1
    assert [v["CUDA_VISIBLE_DEVICES"] for v in runner.gpu_worker_spec(2, device.visible_gpus()).values()] == ["1", "1"]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2, 3")
    assert device.visible_gpus() == ["2", "3"]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert device.gpu_count() == 0


def test_rich_progress_shows_cases_and_elapsed(tmp_path):
    e = loader.load(str(experiment_file(tmp_path / "exp")))
    out = io.StringIO()
    runner.sweep(e, results=tmp_path / "res", stream=out, fancy=True)
    text = out.getvalue()
    assert "fake ackley n=2" in text and "2/2" in text and "0:00:0" in text


def test_cli_reproduce_and_list(tmp_path, capsys):
    exp = experiment_file(tmp_path / "exp")
    assert main(["reproduce", str(exp), "--quick", "--results", str(tmp_path / "res")]) == 0
    assert "1 case(s) run" in capsys.readouterr().out
    assert main(["reproduce", "--list", "--results", str(tmp_path / "res")]) == 0
    out = capsys.readouterr().out
    for eid in loader.names():
        assert eid in out
    assert main(["reproduce", "sweep", "--workers", "0", "--experiments", str(tmp_path / "exp")]) == 2


def test_thinned_history_keeps_the_ends():
    from gpubench.records.write import MAX_HISTORY, thin
    n = MAX_HISTORY * 3 + 7
    h = thin({"glb": list(range(n)), "gub": list(range(n)), "list_size": [1] * n})
    assert len(h["glb"]) <= MAX_HISTORY
    assert h["iteration"][0] == 1 and h["iteration"][-1] == n and h["glb"][-1] == n - 1


def test_real_methods_run_as_cases(tmp_path):
    """One tiny case of a SciPy method and of the rigorous solver, end to end."""
    p = tmp_path / "real.toml"
    p.write_text(textwrap.dedent('''
        id = "real"
        title = "t"
        source = "t"
        layout = "methods"
        functions = ["ackley"]
        dims = [2]
        [methods.bfgs]
        runs = 3
        [methods.interval]
        backend = "cpu"
        split_dims = 2
        parts = 2
        [quick]
        note = "same"
    '''))
    e = loader.load(str(p))
    runner.sweep(e, results=tmp_path / "res", stream=io.StringIO(), fancy=False)
    recs = {r["key"]: r for r in runner.load_records(tmp_path / "res" / "real")}
    assert recs["bfgs"]["measured"]["runs"] == 3 and recs["bfgs"]["measured"]["fun"] is not None
    iv = recs["interval"]
    assert iv["success"] and iv["measured"]["glb"] <= 0.0 <= iv["measured"]["gub"]
    assert iv["history"]["iteration"][-1] == iv["measured"]["iterations"]
    assert np.isfinite(iv["measured"]["warmup_seconds"])


@pytest.mark.parametrize("processes", [False, True])
def test_dask_services_bind_to_loopback_with_no_dashboard(processes):
    psutil = pytest.importorskip("psutil")
    import urllib.error
    import urllib.request
    client, cluster = runner.start_client(workers=1, processes=processes)
    try:
        pids = {os.getpid()} | {p.pid for p in psutil.Process().children(recursive=True)}
        listening = {(c.laddr.ip, c.laddr.port) for c in psutil.net_connections("tcp")
                     if c.status == psutil.CONN_LISTEN and c.pid in pids}
        assert listening, "the cluster listens nowhere?"
        assert all(ip == "127.0.0.1" for ip, _ in listening), listening
        for _, port in listening:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/status", timeout=3) as r:
                    status = r.status
            except urllib.error.HTTPError as e:
                status = e.code
            except Exception:  # not an HTTP port (Dask's own protocol)
                continue
            assert status == 404, f"a dashboard is served on port {port}"
    finally:
        client.close()
        cluster.close()


FIXED_PROBLEM = '''
id = "torsion_rows"
paper = "004"
title = "a Table 4 row"
source = "the tests"
layout = "lbfgsb"

[methods.scipy]
method = "lbfgsb-minpack"
solver = "scipy"
cap_seconds = 20.0

[methods.approximate]
method = "lbfgsb-minpack"
cauchy = "approximate"
cap_seconds = 20.0
backend = "cpu"

[[problems]]
problem = "minpack2:torsion"
n = [100]

[quick]
note = "the same"
'''


def test_a_procedure_on_a_fixed_problem_runs_as_a_case_in_the_one_record_format(tmp_path):
    (tmp_path / "exp").mkdir()
    (tmp_path / "exp" / "torsion_rows.toml").write_text(FIXED_PROBLEM)
    e = loader.load(str(tmp_path / "exp" / "torsion_rows.toml"))
    s = runner.sweep(e, results=tmp_path / "res", stream=io.StringIO(), fancy=False)
    assert (s.total, s.ran) == (2, 2)
    recs = {r["key"]: r for r in runner.load_records(tmp_path / "res" / "torsion_rows")}
    assert set(recs) == {"scipy", "approximate"}
    for r in recs.values():
        assert r["function"] == "minpack2:torsion" and r["dim"] == 100 and r["success"] is True
        assert r["measured"]["iterations"] > 0 and r["environment"]["versions"]["numpy"]
    # the same minimum, whichever L-BFGS-B found it
    assert recs["approximate"]["measured"]["fun"] == pytest.approx(recs["scipy"]["measured"]["fun"], rel=1e-6)
    assert runner.sweep(e, results=tmp_path / "res", stream=io.StringIO(), fancy=False).skipped == 2


def test_the_papers_old_records_were_converted_with_their_provenance():
    """Paper 004's records.json files and paper 001's rows are records of their tables now."""
    from gpubench.records import convert
    res = REPO / "results"
    # (fei2014_table1's quick records are converted below: quick records are not committed)
    # (paper 001's Tables 3-4 now plan the paper's 2 h: their converted 15 s rows are of other settings)
    for eid, variant, n in (("maingo_gpu_table1", "full", 6),
                            ("kim_exatron_table1", "full", 64), ("kim_exatron_table3", "full", 6)):
        stored = runner.stored_cases(res / eid)
        planned = runner.plan(loader.load(eid), quick=variant == "quick")
        assert len(planned) == n and all(c.case_id in stored for c in planned), eid
    recs = convert.from_fei2014(res / "fei2014_table1_quick" / "records.json", loader.load)
    assert len(recs) == 8 and all(r["provenance"]["converted_from"].endswith("records.json") for r in recs)
    by = {r["function"]: r for r in recs}
    old = json.loads((res / "fei2014_table1_quick" / "records.json").read_text())
    row = old["result"]["rows"][0]
    assert by["minpack2:" + row["problem"]]["result"]["bins"] == row["bins"]
    assert by["minpack2:torsion"]["environment"]["commit"] == old["environment"]["commit"]


def test_device_micro_benchmarks_run_as_cases_on_the_cpu_twin(tmp_path):
    (tmp_path / "kim.toml").write_text('''
id = "kim"
title = "batched kernels"
source = "the tests"
layout = "micro"

[methods.left]
method = "cholesky-batch"
variant = "left"
batch = 8
reps = 1
backend = "cpu"

[methods.right]
method = "cholesky-batch"
variant = "right"
batch = 8
reps = 1
backend = "cpu"

[[problems]]
problem = "device:cholesky"
n = [1, 5]

[quick]
note = "the same"
''')
    e = loader.load(str(tmp_path / "kim.toml"))
    runner.sweep(e, results=tmp_path / "res", stream=io.StringIO(), fancy=False)
    recs = runner.load_records(tmp_path / "res" / "kim")
    assert len(recs) == 4
    for r in recs:
        m = r["measured"]
        assert m["converged"] and m["max_err_vs_numpy"] < 1e-12 and m["backend"] == "cpu" and m["ms"] > 0


def test_device_micro_benchmarks_on_the_gpu_path_under_the_simulator():
    code = ("from gpubench.problems import device_rows as d\n"
            "for f, v in ((d.cholesky, 'right'), (d.triangular, 'implicit')):\n"
            "    m, _ = f('device:x', 3, {'variant': v, 'batch': 2, 'reps': 1, 'backend': 'cuda'})\n"
            "    assert m['backend'] == 'cuda' and m['converged'] and m['max_err_vs_numpy'] < 1e-12 and m['ms'] > 0, m\n")
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]


def test_a_case_on_a_paper001_problem_gets_that_problem():
    from gpubench.problems import catalog
    fn = catalog.function_of("paper001:P4_1")
    lo, hi = fn.bounds(2)
    assert list(lo) == [3.0, 3.0] and list(hi) == [9.0, 9.0] and fn.sense == "min"
    assert catalog.function_of("alpine02").name == "alpine02"
    case = runner.plan(loader.load("maingo_gpu_table1"))[0]
    assert case.function == "paper001:P4_1" and runner.runnable(case)


def test_shards_split_the_functions_so_that_together_they_run_every_case_once():
    """``--shard k/N``: N processes side by side each run whole functions, every case exactly once."""
    from gpubench.workflow import experiments_loader as loader
    from gpubench.commands.reproduce import shard_of
    from gpubench.workflow.runner import of_shard, plan
    cases = plan(loader.load("scipy_go_certify"), False, None)
    assert len({c.function for c in cases}) > 50
    shares = [of_shard(cases, k, 7) for k in range(1, 8)]
    ids = [c.case_id for share in shares for c in share]
    assert sorted(ids) == sorted(c.case_id for c in cases)  # a partition: none lost, none twice
    owners = {}
    for k, share in enumerate(shares):
        for c in share:
            assert owners.setdefault(c.function, k) == k  # a function's cases stay in one share
    assert max(map(len, shares)) - min(map(len, shares)) < len(cases) // 4
    assert shard_of("3/7") == (3, 7)
    with pytest.raises(Exception, match="not K/N"):
        shard_of("0/7")
    # one function at 13 sizes (paper 004's Table 4) in 13 shares: a size each, not all in one
    table4 = [c for c in plan(loader.load("fei2014_table4"), False, None) if c.key == "scipy"]
    shares = [of_shard(table4, k, 13) for k in range(1, 14)]
    assert [len(s) for s in shares] == [1] * 13
    assert sorted(c.case_id for s in shares for c in s) == sorted(c.case_id for c in table4)


def test_a_case_that_runs_past_the_stall_dump_time_prints_its_stacks(monkeypatch, capfd):
    import time
    import types
    from gpubench.errors import InputError
    monkeypatch.setattr(runner, "_run_case", lambda case, *where: time.sleep(0.7) or {"ok": True})
    case = types.SimpleNamespace(case_id="demo-case")
    monkeypatch.setenv("GPUBENCH_STALL_DUMP", "0.3")
    assert runner.run_case(case) == {"ok": True}
    err = capfd.readouterr().err
    assert "[stall dump] case demo-case" in err and "most recent call last" in err and "sleep" not in err.split("[stall dump]")[0]
    assert "_run_case" in err or "<lambda>" in err   # the stack of the case that was running
    monkeypatch.delenv("GPUBENCH_STALL_DUMP")
    assert runner.run_case(case) == {"ok": True} and "most recent call last" not in capfd.readouterr().err
    monkeypatch.setenv("GPUBENCH_STALL_DUMP", "soon")
    with pytest.raises(InputError, match="GPUBENCH_STALL_DUMP"):
        runner.run_case(case)
