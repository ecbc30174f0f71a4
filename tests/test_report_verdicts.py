"""Every report opens with computed verdicts: a stored value broken once changes its row's verdict."""
import json
import shutil
from pathlib import Path

from gpubench.workflow import experiments_loader as loader
from gpubench.reports import builder as report

ROOT = Path(__file__).resolve().parents[1]


def _verdicts(exp_id, results, reports):
    report.build(loader.load(exp_id), results=results, reports=reports)
    data = json.loads((reports / "verdicts" / f"{exp_id}.json").read_text())
    return {r["row"]: r for r in data["rows"]}, (reports / f"{exp_id}.md").read_text()


def _copy(exp_id, tmp_path):
    results = tmp_path / "results"
    shutil.copytree(ROOT / "results" / exp_id, results / exp_id)
    return results, tmp_path / "reports"


def test_a_changed_iteration_count_turns_a_match_into_a_difference(tmp_path):
    results, reports = _copy("tableS2", tmp_path)
    rows, md = _verdicts("tableS2", results, reports)
    assert rows["ackley n=500"]["verdict"] == "matches"
    assert "4 published rows: 4 match" in md.splitlines()[2]
    path = next(p for p in (results / "tableS2").glob("*-n500-*.json"))
    rec = json.loads(path.read_text())
    rec["measured"]["iterations"] += 1
    path.write_text(json.dumps(rec))
    rows, md = _verdicts("tableS2", results, reports)
    assert rows["ackley n=500"]["verdict"] == "differs"
    assert rows["ackley n=500"]["reason"] == "not explained"
    assert "ackley n=500: differs (iterations 501 vs 500): not explained" in md


def test_a_missing_record_is_not_reproduced_with_its_reason(tmp_path):
    results, reports = _copy("tableS2", tmp_path)
    next((results / "tableS2").glob("*-n1000-*.json")).unlink()
    rows, _ = _verdicts("tableS2", results, reports)
    assert rows["ackley n=1000"]["verdict"] == "not reproduced"
    assert rows["ackley n=1000"]["reason"]


def test_success_rates_and_mean_errors_are_judged(tmp_path):
    results, reports = _copy("qin2012_table1", tmp_path)
    rows, _ = _verdicts("qin2012_table1", results, reports)
    matching = [k for k, r in rows.items() if r["verdict"] == "matches"]
    assert matching
    # every run reported as a failure with errors a thousand times larger: no row can match
    for path in (results / "qin2012_table1").glob("*.json"):
        rec = json.loads(path.read_text())
        h = rec.get("history", {})
        h["run_error"] = [1e3 * (abs(e) + 1.0) for e in h.get("run_error", [])]
        h["run_success"] = [False] * len(h["run_error"])
        path.write_text(json.dumps(rec))
    rows, _ = _verdicts("qin2012_table1", results, reports)
    assert all(rows[k]["verdict"] == "differs" for k in matching)


def test_the_reproduction_summary_counts_every_table(tmp_path):
    results, reports = _copy("tableS2", tmp_path)
    _verdicts("tableS2", results, reports)
    from gpubench.reports.index import write_reproduction
    text = write_reproduction(reports).read_text()
    assert "| 000 | S2 | [tableS2](tableS2.md) | 4 | 4 | 0 | 0 | 0 | 0 |" in text
    # paper 001's Table 2 runs (issue 38): without its report it is not counted as not implemented
    assert "maingo_gpu_table2" not in text


def test_no_match_rests_on_a_run_at_other_settings(tmp_path):
    """fei2014_table1: the older full records stop by pg (two at maxiter 800); the experiment plans
    the paper's energy-decrease rule.  No row is judged on them (each names the records it rests on);
    the problems run at the stated rule since are judged on those runs, never on the older ones."""
    from gpubench.workflow.runner import plan
    results, reports = _copy("fei2014_table1", tmp_path)
    rows, md = _verdicts("fei2014_table1", results, reports)
    at_plan = {c.case_id for c in plan(loader.load("fei2014_table1"))}
    assert rows and all(r["records"] for r in rows.values())
    for r in rows.values():
        if r["verdict"] != "not reproduced":
            assert set(r["records"]) <= at_plan, r
        else:   # older runs at other settings, or a planned run that did not end by the rule (named)
            assert not set(r["records"]) & at_plan or "stopped at its iteration limit" in r["reason"], r
    # Lennard-Jones: its older record (pg rule) is not read now that a run at the stated rule is stored
    lj = [r for k, r in rows.items() if k.startswith("Lennard-Jones")]
    assert lj and all(set(r["records"]) <= at_plan for r in lj)
    # a problem with both kinds of record stored rests on the one at the planned settings
    torsion = [r for k, r in rows.items() if k.startswith("Elastic-Plastic Torsion")]
    assert torsion and all(r["verdict"] != "not reproduced" and set(r["records"]) <= at_plan for r in torsion)


def test_a_case_resumed_across_commands_is_judged_as_a_run_never_stopped(tmp_path):
    """fei2014_table1's 1-D Ginzburg-Landau, stored from a case resumed within itself (its record
    lists the commands' parts, ``measured.segments``): its rows rest on it as on any run at the
    stated rule, not "not reproduced" for an interrupted run; a record marked interrupted is not."""
    from gpubench.workflow.runner import plan
    results, reports = _copy("fei2014_table1", tmp_path)
    folder = results / "fei2014_table1"
    case = next(c for c in plan(loader.load("fei2014_table1")) if c.function == "minpack2:ginzburg-landau-1d")
    rec = json.loads(next(folder.glob("cauchy-minpack2_ginzburg-landau-2d-*-fd61f0df.json")).read_text())
    rec.update(case=case.case_id, function=case.function, dim=case.dim, problem={"name": case.function, "n": case.dim})
    parts = [{"iterations": [0, 9000], "seconds": 300.0, "wall_seconds": 310.0, "environment": rec["environment"]},
             {"iterations": [9000, 18000], "seconds": 290.0, "wall_seconds": 300.0, "environment": rec["environment"]}]
    rec["measured"].update(resumed=True, segments=parts, seconds=590.0, wall_seconds=610.0)
    path = folder / f"{case.case_id}.json"
    path.write_text(json.dumps(rec))
    rows, _ = _verdicts("fei2014_table1", results, reports)
    gl1 = {k: r for k, r in rows.items() if k.startswith("1-D Ginzburg-Landau")}
    assert gl1 and all(r["verdict"] != "not reproduced" and r["records"] == [case.case_id] for r in gl1.values()), gl1
    rec["measured"]["message"] = "stopped by Ctrl-C"
    path.write_text(json.dumps(rec))
    rows, _ = _verdicts("fei2014_table1", results, reports)
    cut = [r for k, r in rows.items() if k.startswith("1-D Ginzburg-Landau")]
    assert len(cut) == len(gl1) and all(r["verdict"] == "not reproduced" and "interrupted" in r["reason"] for r in cut)
