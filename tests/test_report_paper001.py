"""Paper 001's reproduction: the report renders from the committed rows (number for number), shows
the published values exactly as published beside ours, and gpubench/problems/bnb_rows.py resumes row by row."""
import csv
import importlib.util
import json
from pathlib import Path

import pytest

from gpubench.reports import paper001 as rp

REPO = Path(__file__).resolve().parents[1]


def _script():
    return importlib.import_module("gpubench.problems.bnb_rows")


def test_committed_report_is_rendered_from_committed_rows():
    folders = rp.default_folders(REPO / "results")
    assert folders, "no committed paper001 records"
    assert rp.render(folders) == (REPO / "reports" / "paper001_bnb.md").read_text()


def _bnb(section, rid, **kw):
    rec = {"id": rid, "section": section, "backend": "cuda", "status": "time_limit", "iterations": 77,
           "seconds": 123.456, "abs_gap": 9.5, "limit_s": 15.0, "root_lower_bound": -1.0, "fun": -0.5,
           "environment": {"gpu": {"name": "TestGPU"}, "cpu": "cpu", "cpu_count": 1, "commit": "abc",
                           "date": "2026-01-01"}}
    rec.update(kw)
    return rec


def _cells(md, startswith):
    line = next(ln for ln in md.splitlines() if ln.startswith("| " + startswith))
    return [c.strip() for c in line.strip("|").split("|")]


def test_published_values_are_shown_as_published_never_replaced(tmp_path):
    rows = tmp_path / "run" / "rows"
    rows.mkdir(parents=True)
    recs = [_bnb("table1", "table1_P4_1", constraint_set=1, problem="P4_1", dim=2, subdomains=1024),
            _bnb("table3", "table3_d6_N4096", problem="P3_6", dim=6, subdomains=4096, counts_root=[4] * 6),
            _bnb("table4", "table4_alpine02_6d_N1296", problem="alpine02", dim=6, subdomains=1296,
                 counts_root=[4, 4, 3, 3, 3, 3])]
    for r in recs:
        (rows / f"{r['id']}.json").write_text(json.dumps(r))
    md = rp.render([tmp_path / "run"])
    with open(REPO / "experiments" / "published" / "maingo_gpu_subdomain.csv", newline="") as fh:
        pub1 = next(csv.DictReader(fh))
    c = _cells(md, pub1["constraint"])
    # ours, then the paper's four columns verbatim (6.0E+02 stays as printed)
    assert c[1] == "123.5" and c[3] == "77"
    assert c[6:] == [pub1["subdomain_seconds"], pub1["subdomain_iterations"], pub1["mccormick_seconds"],
                     pub1["mccormick_iterations"]]
    assert _cells(md, "6 | 4096")[-1] == "795"            # Table 3, d = 6: the paper's gap at 2 h
    assert _cells(md, "6 | 4096")[3] == "123.5"
    c = _cells(md, "Alpine02 function 6d | 1296")
    assert c[3] == "123.5" and c[-1] == "5.0"
    assert "not reproduced" in md and "Kinetic ODE" in md and "differ from the authors'" in md


def test_report_all_rebuilds_every_paper_page_byte_identical(tmp_path):
    """The pages whose rows are no experiment's cases (paper 001's, paper 003's Figure 3, paper
    004's first records) are built by `gpubench report --all`, from the committed records."""
    from gpubench.commands.report import paper_pages
    written = paper_pages(REPO / "results", tmp_path)
    names = sorted(p.name for p in written)
    assert {"paper001_bnb.md", "kim_exatron.md", "fei2014_table1_full.md"} <= set(names)
    for name in names:
        assert (tmp_path / name).read_text() == (REPO / "reports" / name).read_text(), name


def test_report_all_writes_the_paper_pages_it_has_records_for(tmp_path, capsys):
    from gpubench.cli import main
    res, exps = tmp_path / "results", tmp_path / "experiments"
    (res / "gpu" / "tron").mkdir(parents=True)
    (res / "gpu" / "tron" / "tron_gpu.json").write_text((REPO / "results" / "gpu" / "tron" / "tron_gpu.json").read_text())
    exps.mkdir()
    (exps / "kim_exatron_table4.toml").write_text((REPO / "experiments" / "kim_exatron" / "table4.toml").read_text())
    assert main(["report", "--all", "--results", str(res), "--reports", str(tmp_path / "out"),
                 "--experiments", str(exps)]) == 0
    assert (tmp_path / "out" / "kim_exatron.md").read_text() == (REPO / "reports" / "kim_exatron.md").read_text()
    # no paper 001 rows stored here: no page, and the index does not link one
    assert not (tmp_path / "out" / "paper001_bnb.md").exists()
    assert "kim_exatron.md" in (tmp_path / "out" / "index.md").read_text()


class Killed(BaseException):
    """Stands for the command's kill (not an Exception: execute must not catch it)."""


def test_rows_checkpoint_and_resume(tmp_path):
    gb = _script()
    rows = [gb.Row(f"r{k}", "table4", 1, "p", 2, {}, limit=0.0) for k in range(5)]
    calls, seen = [], []

    def measure(row):
        calls.append(row.id)
        seen.append(row.id)
        if row.id == "r1" and seen.count("r1") == 1:
            raise ValueError("boom")                    # a failed row: stored, retried next time
        if row.id == "r3" and seen.count("r3") == 1:
            raise Killed                                # the command is killed in row r3
        return {"seconds": 1.0}

    with pytest.raises(Killed):
        gb.execute(rows, tmp_path, measure, budget=100, env={}, log=lambda *a: None)
    store = gb.Store(tmp_path)
    assert [r.id for r in rows if store.done(r.id)] == ["r0", "r2"]
    assert "error" in json.loads(store.path("r1").read_text())
    calls.clear()
    done, left = gb.execute(rows, tmp_path, measure, budget=100, env={}, log=lambda *a: None)
    assert calls == ["r1", "r3", "r4"] and done == calls and left == []
    rec = json.loads(store.path("r4").read_text())
    assert rec["limit_s"] == 0.0 and rec["environment"] == {} and rec["section"] == "table4"
    calls.clear()
    assert gb.execute(rows, tmp_path, measure, budget=100, env={}, log=lambda *a: None) == ([], [])
    assert calls == []


def test_rows_that_do_not_fit_the_budget_are_left(tmp_path):
    gb = _script()
    rows = [gb.Row("short", "table3", 1, "p", 2, {}, limit=1.0), gb.Row("long", "table3", 1, "p", 2, {}, limit=50.0)]
    done, left = gb.execute(rows, tmp_path, lambda r: {"seconds": 0.0}, budget=10, env={}, log=lambda *a: None)
    assert done == ["short"] and left == ["long"] and not gb.Store(tmp_path).done("long")


def test_plan_rows_and_limits():
    gb = _script()
    rows = gb.plan_rows("cuda")
    ids = [r.id for r in rows]
    assert len(ids) == len(set(ids))
    assert {r.section for r in rows if r.part == 2} == {"table3", "table4"}
    assert [r.kw["subdomains"] for r in rows if r.section == "lb100x"] == [1024, 4096, 16384]
    for r in rows:
        if r.section != "lb100x":
            assert r.kw["time_limit"] == r.limit > 0      # the stated limit is the one the run uses
    assert len([r for r in rows if r.section == "table1"]) == 6
    assert len([r for r in rows if r.section == "table3"]) == 18
    assert len([r for r in rows if r.section == "table4"]) == 12


def test_script_bad_budget_is_one_line(tmp_path, capsys):
    gb = _script()
    assert gb.main([str(tmp_path), "--budget", "-1"]) == 2
    assert capsys.readouterr().err.strip() == "error: --budget must be positive, got -1.0"


def test_a_gpu_record_names_the_published_rows_it_lacks(tmp_path):
    """A GPU folder with one Table 3 row lists every other published Table 3 row and every Table 4
    row as not measured, so that a row the device time did not reach is never silently absent."""
    rows = tmp_path / "run" / "rows"
    rows.mkdir(parents=True)
    r = _bnb("table3", "table3_d6_N4096", problem="P3_6", dim=6, subdomains=4096, counts_root=[4] * 6)
    (rows / f"{r['id']}.json").write_text(json.dumps(r))
    md = rp.render([tmp_path / "run"])
    t3, t4 = [ln for ln in md.splitlines() if ln.startswith("Not measured in this record")]
    assert "d = 6, N = 1296" in t3 and "d = 6, N = 4096" not in t3 and "d = 2, N = 1024" in t3
    assert "Alpine02 function 6d, N = 1296" in t4 and "Styblinski-Tang function 7d, N = 2187" in t4
    assert "Kinetic" not in t3 + t4


def test_verdict_against_the_papers_times():
    """A row counts as faster only if it converged in less than the paper's time; a row cut by a
    limit shorter than the paper's time is named as not compared, never counted either way."""
    from gpubench.reports.paper001 import _verdict
    rows = [("a", {"status": "converged", "seconds": 1.0, "limit_s": 15}, "2.0"),
            ("b", {"status": "converged", "seconds": 3.0, "limit_s": 15}, "2.0"),
            ("c", {"status": "time_limit", "seconds": 15.0, "limit_s": 15}, "40"),
            ("d", {"status": "time_limit", "seconds": 15.0, "limit_s": 15}, "10"),
            ("e", {"status": "converged", "seconds": 1.0, "limit_s": 15}, "-")]
    (line,) = [x for x in _verdict(rows) if x]
    assert line.startswith("Against the paper's times: 1 of 4 rows converged faster")
    assert "within the paper's time: b, d;" in line and line.endswith("not compared: c.")
