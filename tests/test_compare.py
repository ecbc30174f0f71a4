"""The comparison of every method: certified gaps, time to target, COCO files, the summary page."""
import json
import shutil

import numpy as np
import pytest

from gpubench.reports import coco_data, compare, builder as report
from gpubench.workflow import runner
from gpubench.workflow import experiments_loader as loader
from gpubench.cli import main

import shared


# The quick comparison on one of its five functions: every method's code path is the same for each
# function, and each function costs every compiled method a compile of its own (the fixture took
# 140-258 s with five on the 2-core CI, 66 CPU seconds with two, ackley's half of it its compiles);
# levy is the one the tests below read.  What needs two functions (one COCO data set per function)
# is checked on the records copied under a second name (test_coco_files_read_back).
QUICK_FUNCTIONS = ["levy"]


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    """`gpubench reproduce compare --quick` for real (the shipped file, QUICK_FUNCTIONS only), then
    its report."""
    def build(root):
        res, rep, exps = root / "res", root / "rep", root / "experiments"
        exps.mkdir()
        text = (loader.experiments_dir() / "compare.toml").read_text()
        shipped = 'functions = ["ackley", "levy", "rastrigin", "rosenbrock", "styblinski"]'
        assert text.count(shipped) == 1, "the quick variant's functions changed: update QUICK_FUNCTIONS"
        (exps / "compare.toml").write_text(text.replace(shipped, f"functions = {json.dumps(QUICK_FUNCTIONS)}"))
        assert main(["reproduce", "compare", "--quick", "--results", str(res), "--experiments", str(exps)]) == 0
        assert main(["report", "compare", "--results", str(res), "--reports", str(rep), "--experiments", str(exps)]) == 0
    # once a session, not once a worker (tests/shared.py); each worker reads a copy of its own
    root = shared.folder(tmp_path_factory, "compare-quick", build)
    return root / "res", root / "rep"


def test_report_has_certified_gaps_ecdfs_and_summary(quick):
    res, rep = quick
    md = (rep / "compare.md").read_text()
    assert "Certified gaps" in md and "Time to target" in md
    for axis in ("evaluations", "seconds"):
        assert (rep / "figures" / f"compare-quick-ecdf-{axis}.png").stat().st_size > 1000
    summary = (rep / "summary.md").read_text()
    assert "Fastest to GLB + 1e-8" in summary and "levy" in summary
    # the quick solver certifies n = 4 itself: every row names its source record
    lines = [ln for ln in summary.splitlines() if ln.startswith("| levy | 4 |")]
    assert len(lines) == 2 and "compare: interval-levy-n4-quick-r0-" in lines[0]
    assert "Source (experiment: case)" in md and "compare: interval-levy-n4-quick-r0-" in md


def test_gap_is_best_minus_the_certified_lower_bound(quick):
    res, _ = quick
    recs = runner.load_records(res / "compare")
    certs = compare.certificates(res)
    solver = [r for r in recs if r["method"] == "interval"]
    assert solver and all(r["measured"]["converged"] for r in solver)
    for r in solver:
        cert = certs[(r["function"], r["dim"])]
        assert cert["glb"] <= r["fstar"] <= cert["gub"]
    rows = compare.rows([r for r in recs if r["method"] == "bfgs"], certs)
    for row in rows:
        cert = certs[(row["function"], row["dim"])]
        assert row["gap"] == pytest.approx(row["best"] - cert["glb"])
        assert row["gap"] >= row["best"] - row["fstar"] - 1e-12  # never smaller than the true gap


def test_without_a_rigorous_record_there_is_no_certificate(quick, tmp_path):
    res, _ = quick
    copy = tmp_path / "res"
    shutil.copytree(res, copy)
    for p in (copy / "compare").glob("interval-*.json"):
        p.unlink()
    assert compare.certificates(copy) == {}
    md = report.build(loader.load("compare"), copy, tmp_path / "rep").read_text()
    table = [ln for ln in md.splitlines() if ln.startswith("| levy | 4 | bfgs")]
    assert table and compare.NO_CERTIFICATE in table[0]
    summary = (tmp_path / "rep" / "summary.md").read_text()
    rows = [ln for ln in summary.splitlines() if ln.startswith("| levy | 4 |")]
    # no fastest method and no success rate without a certificate, only times
    assert rows and all(compare.NO_CERTIFICATE in ln for ln in rows) and "/2;" not in rows[1]


def test_runtimes_read_the_trace():
    rec = {"key": "m", "method": "bfgs", "function": "levy", "dim": 2, "sense": "min",
           "measured": {"fun": 1e-9, "evaluations": 100, "seconds": 1.0},
           "history": {"trace": [[1, 0.1, 50.0], [10, 0.2, 0.5], [60, 0.7, 1e-9]]}}
    rt = dict((k, (e, s)) for k, e, s in coco_data.runtimes(rec, 0.0))
    assert rt[2] == (1, 0.1) and rt[1] == (10, 0.2) and rt[0] == (10, 0.2)
    assert rt[-1] == (60, 0.7) and rt[-8] == (60, 0.7)
    rec["history"]["trace"][-1][2] = 2e-8
    assert dict((k, e) for k, e, _ in coco_data.runtimes(rec, 0.0))[-8] is None
    # a maximised function's targets lie below f*
    rec_max = dict(rec, sense="max", history={"trace": [[5, 0.5, 9.0], [7, 0.9, 10.0 - 1e-9]]})
    rt = dict((k, e) for k, e, _ in coco_data.runtimes(rec_max, 10.0))
    assert rt[0] == 5 and rt[-8] == 7


def test_coco_files_read_back(quick, tmp_path):
    res, rep = quick
    recs = runner.load_records(res / "compare")
    bfgs = [r for r in recs if r["key"] == "bfgs"]
    fstars = compare._fstars(bfgs)
    # the same runs again under a second function's name: one data set per (function, n)
    bfgs += [dict(r, function="zz_" + r["function"]) for r in bfgs]
    fstars.update({("zz_" + f, n): v for (f, n), v in fstars.items()})
    (folder,) = coco_data.write_coco(bfgs, fstars, tmp_path / "coco")
    data = coco_data.read_coco(folder)
    assert len(data) == len({(r["function"], r["dim"]) for r in bfgs}) == 2 * len(QUICK_FUNCTIONS)
    for (fid, dim), d in data.items():
        assert d["algId"] == "bfgs" and dim == 4
        assert len(d["runs"]) == 2  # the two repetitions
        for run in d["runs"]:
            evals = [e for e, _, _ in run]
            errs = [err for _, err, _ in run]
            secs = [s for _, _, s in run]
            assert evals == sorted(evals) and errs == sorted(errs, reverse=True)
            assert all(err >= 0 for err in errs) and all(s is not None and s >= 0 for s in secs)
    info = next(folder.glob("*.info")).read_text()
    assert "funcId = " in info and "DIM = 4" in info and "data_format = 'bbob-new2'" in info


def test_trace_of_a_scipy_run_matches_its_result():
    from gpubench import methods
    r = methods.minimize("rastrigin", 3, method="bfgs", runs=3, seed=2)
    tr = np.array(r.history["trace"])
    assert tr[-1, 0] == r.nfev and tr[-1, 2] == pytest.approx(r.fun)
    assert np.all(np.diff(tr[:, 0]) > 0) and np.all(np.diff(tr[:, 2]) <= 0)


def test_gpu_methods_are_compared_with_their_traces(quick):
    res, rep = quick
    recs = runner.load_records(res / "compare")
    for key in ("de_gpu", "lbfgsb_gpu"):
        mine = [r for r in recs if r["key"] == key]
        assert len(mine) == len(QUICK_FUNCTIONS) * 2  # each function, two repetitions
        for r in mine:
            tr = np.array(r["history"]["trace"])
            assert r["measured"]["backend"] == "cpu"  # no GPU here: the CPU twin
            assert tr[-1, 0] == r["measured"]["evaluations"] and tr[-1, 2] == pytest.approx(r["measured"]["fun"])
            assert np.all(np.diff(tr[:, 0]) > 0) and np.all(np.diff(tr[:, 2]) <= 0)
            assert len(tr) >= 2  # several launches (DE) or rounds (L-BFGS-B), not only the end
    md = (rep / "compare.md").read_text()
    assert "| levy | 4 | de_gpu" in md and "| levy | 4 | lbfgsb_gpu" in md
    fstars = compare._fstars(recs)
    curves = compare.ecdf(recs, fstars, "seconds")
    assert curves["de_gpu"][0].size > 0 and curves["lbfgsb_gpu"][0].size > 0
    # tron-gpu is in the full variant only (its CPU twin compiles too long for the quick one)
    exp = loader.load("compare")
    assert "tron_gpu" in [m.key for m in exp.full.methods]
    assert "tron_gpu" not in [m.key for m in exp.quick.methods]


def test_gpu_method_traces_on_both_backends():
    """The CPU twin and the CUDA kernels (simulator here) keep the same kind of trace."""
    from gpubench import methods
    for backend in ("cpu", "cuda"):
        # Levy: the quick fixture's function, so the CPU twin is the one it compiled (not one more)
        r = methods.minimize("levy", 2, method="de-gpu", np=6, runs=2, max_evaluations=6 * 7,
                             generations_per_launch=2, backend=backend, seed=3)
        tr = np.array(r.history["trace"])
        assert r.backend == backend and tr[-1, 0] == r.nfev and tr[-1, 2] == r.fun
        assert tr[0, 0] == 12  # the initial populations of both runs, read before the first launch
        assert np.all(np.diff(tr[:, 0]) > 0) and np.all(np.diff(tr[:, 2]) <= 0)
    one = methods.minimize("levy", 2, method="lbfgsb-gpu", starts=4, backend="cpu", seed=5)
    four = methods.minimize("levy", 2, method="lbfgsb-gpu", starts=4, rounds=4, backend="cpu", seed=5)
    assert one.history["fun"] == four.history["fun"]  # start k is the same whatever the rounds
    assert len(one.history["trace"]) == 1 and one.history["trace"][0][2] == one.fun
    tr = np.array(four.history["trace"])
    assert tr[0, 2] == four.history["fun"][0] and tr[-1, 0] == four.nfev and tr[-1, 2] == four.fun
    # each row counts every evaluation of the rounds done so far (the first k starts: the same points)
    prefix = [methods.minimize("levy", 2, method="lbfgsb-gpu", starts=k, backend="cpu", seed=5).nfev
              for k in (1, 2, 3, 4)]
    assert set(tr[:, 0].astype(int)) <= set(prefix) and tr[0, 0] == prefix[0]


@pytest.mark.parametrize("name, module", [("lbfgsb-gpu", "gpubench.methods.lbfgsb_gpu"),
                                          ("tron-gpu", "gpubench.methods.tron_gpu")])
def test_warmup_settings_of_a_multi_round_entry_are_valid(name, module, monkeypatch):
    """The warm-up runs one start; with rounds = 4 kept (dataclasses.replace skips validate) it
    split that start into three empty rounds, and a CUDA launch of zero blocks failed every
    such case on the GPU host."""
    import importlib

    from gpubench import functions, methods
    mod = importlib.import_module(module)
    seen = []
    monkeypatch.setattr(mod, "_run", lambda fn, dim, s: seen.append(s))
    m = methods.get(name)
    m.warmup(functions.get("levy"), 3, m.make_settings({"starts": 8, "rounds": 4, "backend": "cpu"}))
    assert len(seen) == 1
    seen[0].validate()  # raises InputError when rounds > starts
    assert seen[0].rounds <= seen[0].starts


def _slow_rounds(monkeypatch, name):
    """Replace the batched solver of ``name`` by one that takes 0.2 s per launch and returns each
    start's own value, so that the round logic is tested without compiling anything."""
    import time as _time
    from gpubench import functions

    if name == "lbfgsb-gpu":
        from gpubench.methods.lbfgsb import batch

        def solve(fn, X0, lo, hi, **kw):
            _time.sleep(0.2)
            k = X0.shape[0]
            f = np.array([fn.point(x) for x in X0])
            return X0.copy(), f, np.ones(k, int), np.full(k, 3), np.zeros(k, int), np.zeros(k)
        monkeypatch.setattr(batch, "solve", solve)
    else:
        from gpubench.methods import tron

        def solve_batch(x0, lo, hi, par, fn=None, **kw):
            _time.sleep(0.2)
            k = x0.shape[0]
            return tron.BatchResult(x=x0.copy(), f=np.array([fn.point(x) for x in x0]),
                                    iterations=np.ones(k, int), status=np.zeros(k, int),
                                    nfev=np.full(k, 3), pgnorm=np.zeros(k), seconds=0.2, backend="cpu")
        monkeypatch.setattr(tron, "solve_batch", solve_batch)
    return functions.get("levy")


# lbfgsb-gpu checks its limit between capped launches, not rounds: tests/test_time_limit.py and
# tests/test_lbfgsb.py's faked-clock test cover it
@pytest.mark.parametrize("name", ["tron-gpu"])
def test_time_limit_stops_launching_rounds(name, monkeypatch):
    from gpubench import methods
    fn = _slow_rounds(monkeypatch, name)
    full = methods.minimize("levy", 3, method=name, starts=10, rounds=10, backend="cpu", seed=1)
    assert full.converged and full.history["rounds_completed"] == 10 and "time_limit" not in full.message
    cut = methods.minimize("levy", 3, method=name, starts=10, rounds=10, backend="cpu", seed=1,
                           time_limit=0.5)
    # rounds of 0.2 s: launched at 0, 0.2, 0.4 s, none at 0.6 s
    assert cut.history["rounds_completed"] == 3 and cut.history["starts_completed"] == 3
    assert not cut.converged and "stopped at time_limit after 3 of 10 rounds" in cut.message
    assert len(cut.history["trace"]) <= 3 + 1 and cut.nfev == 3 * 3
    # the best of the starts solved, which are the first starts of the full call
    assert cut.fun == min(full.history["fun" if name == "lbfgsb-gpu" else "start_fun"][:3])
    assert cut.fun == pytest.approx(fn.point(cut.x))
    # the limit is a declared setting with its bounds
    with pytest.raises(Exception, match="time_limit must be greater than 0"):
        methods.minimize("levy", 3, method=name, time_limit=0.0)


def _store(folder, rec):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{rec['case']}.json").write_text(json.dumps(rec))


def test_certificate_from_another_experiment_only_for_the_same_problem(tmp_path):
    """A stored rigorous record of another experiment certifies the comparison's (function, n) only
    when it is converged and of the very problem: the library function, its box and parameters at n."""
    from gpubench import functions
    src = runner.load_records(runner.results_dir() / "tableS2")
    (rec,) = [r for r in src if r["function"] == "ackley" and r["dim"] == 50]
    assert "problem" not in rec  # an older record: decided by its experiment's definition
    res = tmp_path / "res"
    _store(res / "tableS2", rec)
    certs = compare.certificates(res)
    assert certs[("ackley", 50)]["case"] == rec["case"] and certs[("ackley", 50)]["experiment"] == "tableS2"
    assert compare.source(certs[("ackley", 50)]) == f"tableS2: {rec['case']}"
    assert certs[("ackley", 50)]["glb"] == rec["measured"]["glb"]

    def refused(changed, why):
        one = tmp_path / why.replace(" ", "_")
        _store(one / "x", changed)
        assert compare.certificates(one) == {}, why
        assert compare.certifies(changed) is not None

    refused(dict(rec, measured=dict(rec["measured"], converged=False)), "not converged")
    refused(dict(rec, dim=60), "another n than its experiment's case")
    refused(dict(rec, experiment="nowhere"), "no experiment states it")
    refused(dict(rec, method="no-such-method"), "not declared rigorous")
    refused(dict(rec, fstar=1.0), "another f star")
    fn = functions.get("ackley")
    from gpubench.records import write as records_write
    here = records_write.problem(fn, 50)
    # a record that states its problem is judged by it, wherever it comes from
    ok = dict(rec, experiment="nowhere", problem=here)
    assert compare.certifies(ok) is None
    refused(dict(ok, problem=dict(here, domain_sha1=records_write.problem(functions.get("rastrigin"), 50)["domain_sha1"])),
            "another domain")
    refused(dict(ok, problem=dict(here, params_sha1="0" * 40)), "other parameters")
    refused(dict(ok, problem=records_write.problem(fn, 51)), "another dimension")


def test_clean_partial_spares_young_temporary_files(tmp_path):
    """Concurrent writers share one results folder: a starting process must not remove another
    process's temporary record before its rename."""
    import os
    import time
    young, old = tmp_path / ".a.json.x1.tmp", tmp_path / ".b.json.x2.tmp"
    young.write_text("{}")
    old.write_text("{}")
    os.utime(old, (time.time() - 7200, time.time() - 7200))
    assert runner.clean_partial(tmp_path, older_than=3600) == 1
    assert young.exists() and not old.exists()


def test_coco_archive_holds_the_folder_and_is_reproducible(quick, tmp_path):
    """reports/coco/<experiment>-<variant>.zip: every file of the folder under the folder's name,
    read back by read_coco once unpacked; the same records give the same bytes."""
    import zipfile
    res, rep = quick
    recs = [r for r in runner.load_records(res / "compare") if r["key"] == "bfgs"]
    (folder,) = coco_data.write_coco(recs, compare._fstars(recs), tmp_path / "coco" / "set")
    first = coco_data.zip_folder(tmp_path / "coco" / "set").read_bytes()
    again = coco_data.zip_folder(tmp_path / "coco" / "set").read_bytes()
    assert first == again
    files = sorted(p.relative_to(tmp_path / "coco").as_posix() for p in (tmp_path / "coco" / "set").rglob("*") if p.is_file())
    with zipfile.ZipFile(tmp_path / "coco" / "set.zip") as z:
        assert sorted(z.namelist()) == files
        z.extractall(tmp_path / "unpacked")
    assert coco_data.read_coco(tmp_path / "unpacked" / "set" / "bfgs") == coco_data.read_coco(folder)


def test_maingo_best_is_its_verified_point_and_its_lower_bound_not_verified():
    """MAiNGO in the comparison: its best is GUB (its point valued with the outward-rounded interval
    form), the certified gap is taken from it, and its own GLB is shown labelled not verified."""
    rec = {"function": "levy", "dim": 4, "key": "maingo", "method": "maingo", "sense": "min",
           "options": {"verified": {"glb": False, "gub": True}},
           "measured": {"glb": -1e-9, "gub": 2e-12, "fun": 1e-12, "seconds": 1.0, "evaluations": 0,
                        "converged": True}, "x": None}
    cert = {"glb": -1e-10, "gub": 1e-10, "regions": None, "experiment": "x", "case": "c"}
    [row] = compare.rows([rec], {("levy", 4): cert})
    assert row["best"] == 2e-12 and row["gap"] == pytest.approx(2e-12 + 1e-10)
    assert row["own_bounds"] == ["[-1e-09 (not verified), 2e-12]"]
    # a heuristic without bounds of its own: its best f, no own bounds
    plain = {**rec, "key": "bfgs", "method": "bfgs", "options": {}}
    [row] = compare.rows([plain], {("levy", 4): cert})
    assert row["best"] == 1e-12 and row["own_bounds"] is None
