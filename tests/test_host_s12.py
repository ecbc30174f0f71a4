"""gpubench/workflow/chunks.py: Tables S12/S13 at full run counts, in resumable chunks (quick variant here)."""
import json

import pytest

from gpubench.workflow import experiments_loader as loader
from gpubench import methods
from gpubench.reports import builder as report
from gpubench.workflow import runner


@pytest.fixture
def s():
    import importlib
    return importlib.import_module("gpubench.workflow.chunks")


def test_gaps_cover_what_no_chunk_covers(s):
    chunks = [{"first": 0, "last": 10}, {"first": 20, "last": 25}, {"first": 25, "last": 30}]
    assert s.gaps(40, chunks) == [(10, 20), (30, 40)]
    assert s.gaps(30, chunks) == [(10, 20)]
    assert s.gaps(5, []) == [(0, 5)]


def test_chunks_resume_and_merge_into_the_record_of_one_call(s, tmp_path, capsys):
    out = tmp_path / "out"
    args = [str(out), "--quick", "--only", "bfgs", "--workers", "2", "--chunk-seconds", "0.05"]
    # a budget too short for every chunk: the record says how many of the 100 runs are done
    assert s.main(args + ["--budget", "0.5"]) == 0
    (path,) = (out / "results" / "tableS12").glob("bfgs-*.json")
    rec = json.loads(path.read_text())
    done = rec["measured"]["runs_completed"]
    assert 0 < done < 100 and rec["measured"]["runs"] == 100 and "partial" in rec["measured"]["message"]
    exp = loader.load("tableS12")
    md = report.build(exp, out / "results", tmp_path / "rep").read_text()
    assert f"{done:,} of 100 (partial)" in md and "All seven popular CPU-based" in md
    # the rest, in a second command; the merged record is that of all 100 runs in one call
    assert s.main(args + ["--budget", "300"]) == 0
    rec = json.loads(path.read_text())
    chunks = sorted(rec["provenance"]["chunks"], key=lambda c: c["first"])
    assert len(chunks) > 2 and chunks[0]["first"] == 0 and chunks[-1]["last"] == 100
    assert all(a["last"] == b["first"] for a, b in zip(chunks, chunks[1:]))  # no run twice, none left out
    spec = next(m for m in exp.quick.methods if m.key == "bfgs")
    one = methods.minimize("ackley", 100, method="bfgs", **spec.settings)
    assert rec["history"]["run_fun"] == one.history["run_fun"]
    assert rec["measured"]["fun"] == one.fun and rec["measured"]["evaluations"] == one.nfev
    assert rec["measured"]["runs_completed"] == 100 and rec["measured"]["seconds"] == pytest.approx(
        sum(c["seconds"] for c in chunks))
    assert rec["case"] == next(c.case_id for c in runner.plan(exp, quick=True) if c.key == "bfgs")
    assert s.main([str(out), "--quick", "--only", "nope", "--plan"]) == 2
    assert "no heuristic entry 'nope'" in capsys.readouterr().err


def test_gpu_entries_run_whole_beside_the_chunks(s, tmp_path):
    """de-gpu and lbfgsb-gpu (CPU twins here) run as one call each, stored as the runner's records."""
    out = tmp_path / "out"
    assert s.main([str(out), "--quick", "--only", "de_gpu,lbfgsb_gpu", "--workers", "1", "--budget", "500"]) == 0
    recs = {r["key"]: r for r in runner.load_records(out / "results" / "tableS12")}
    assert set(recs) == {"de_gpu", "lbfgsb_gpu"}
    assert recs["de_gpu"]["measured"]["runs_completed"] == 2 and recs["lbfgsb_gpu"]["options"]["starts"] == 8
    exp = loader.load("tableS12")
    md = report.build(exp, out / "results", tmp_path / "rep").read_text()
    row = next(ln for ln in md.splitlines() if ln.startswith("| lbfgsb_gpu"))
    assert "| 8 |" in row and "of 8" in row  # its starts, and how many of them found f*
    assert "With budgets a user would choose" in md and "de_gpu:" in md
    # a second command finds them stored and runs nothing
    assert s.main([str(out), "--quick", "--only", "de_gpu,lbfgsb_gpu", "--plan"]) == 0
    assert s.pending_whole(exp, True, out / "results" / "tableS12") == []


def test_same_as_stores_one_computation_under_both_tables(s, tmp_path, monkeypatch, capsys):
    """S12 and S13 plan the same cases: --same-as copies S12's merged records as S13's (marked so);
    an experiment that plans other cases is refused in one line."""
    out = tmp_path / "out"
    folder = out / "results" / "tableS12"
    folder.mkdir(parents=True)
    cases = runner.plan(loader.load("tableS12"), quick=False)
    for c in cases[:2]:
        (folder / f"{c.case_id}.json").write_text(json.dumps({"case": c.case_id, "experiment": "tableS12"}))
    assert s.main([str(out), "--experiment", "tableS13", "--same-as", "tableS12"]) == 0
    copied = sorted((out / "results" / "tableS13").glob("*.json"))
    assert [p.name for p in copied] == sorted(f"{c.case_id}.json" for c in cases[:2])
    rec = json.loads(copied[0].read_text())
    assert rec["experiment"] == "tableS13" and "tableS12" in rec["provenance"]["same_computation_as"]
    # a different plan (a changed setting) is refused
    real = runner.plan
    monkeypatch.setattr(runner, "plan", lambda exp, quick=False: real(exp, quick)[: 1 if exp.id == "tableS13" else None])
    assert s.main([str(out), "--experiment", "tableS13", "--same-as", "tableS12"]) == 2
    assert "plan different cases" in capsys.readouterr().err


def test_cases_from_copies_only_the_cases_both_plan(s, tmp_path, capsys):
    """Table S2 plans Ackley n = 100 with the same case id as Table S12's rigorous row: --cases-from
    stores that one record as S12's (marked so, with the original provenance kept); another S2 case
    (n = 50) is not copied; an experiment with no shared case is refused in one line."""
    out = tmp_path / "out"
    folder = out / "results" / "tableS2"
    folder.mkdir(parents=True)
    for c in runner.plan(loader.load("tableS2"), quick=False):
        (folder / f"{c.case_id}.json").write_text(json.dumps(
            {"case": c.case_id, "experiment": "tableS2", "dim": c.dim, "provenance": "gpu host file"}))
    assert s.main([str(out), "--experiment", "tableS12", "--cases-from", "tableS2"]) == 0
    copied = sorted((out / "results" / "tableS12").glob("*.json"))
    s12 = {c.case_id for c in runner.plan(loader.load("tableS12"), quick=False)}
    assert len(copied) == 1 and copied[0].stem in s12
    rec = json.loads(copied[0].read_text())
    assert rec["dim"] == 100 and rec["experiment"] == "tableS12"
    assert rec["provenance"]["source"] == "gpu host file" and "tableS2" in rec["provenance"]["same_computation_as"]
    assert s.main([str(out), "--experiment", "tableS12", "--cases-from", "tableS3"]) == 2
    assert "no case in common" in capsys.readouterr().err
    assert s.main([str(out), "--experiment", "tableS12", "--cases-from", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert "unknown experiment 'nosuch'" in err and len(err.strip().splitlines()) == 1
