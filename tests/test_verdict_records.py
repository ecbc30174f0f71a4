"""Issue 37's first Done-when item, on the stored reports: every measured row of
``reports/verdicts/*.json`` (matches, differs, not informative) names records that are stored, and
none rests on a record that was capped, interrupted, or (where the table's figures depend on how a
run ended) stopped unconverged: the gate makes such a row *not reproduced* (docs/verdicts.md).
Reads JSON only (no report is built)."""
import json
from pathlib import Path

from gpubench.reports.fixed import _stated_rule_end

ROOT = Path(__file__).resolve().parents[1]
MEASURED = ("matches", "differs", "not informative")
# tables whose figures do not depend on how a run ended (the judge tells the gate so):
# paper 003 Table 4 counts the generators, branches and buses of each case file
ENDS_DO_NOT_MATTER = {"kim_exatron_table4"}


def _index(results):
    return {p.stem: p for p in Path(results).glob("*/*.json")}


def faults(verdicts, results):
    """(experiment, row, what) for each row against the rule above."""
    index, out = _index(results), []
    for path in sorted(Path(verdicts).glob("*.json")):
        doc = json.loads(path.read_text())
        for row in doc.get("rows", []):
            if row["verdict"] not in MEASURED:
                continue
            if not row.get("records"):
                out.append((doc["experiment"], row["row"], "names no records"))
            for case in row.get("records", []):
                if case not in index:
                    out.append((doc["experiment"], row["row"], f"{case}: not stored"))
                    continue
                # as the judge reads it (paper 004: SciPy's end at no decrease is the stated rule met)
                m = _stated_rule_end(json.loads(index[case].read_text())).get("measured") or {}
                if m.get("capped") or m.get("interrupted"):
                    out.append((doc["experiment"], row["row"], f"{case}: capped or interrupted"))
                elif m.get("converged") is False and doc["experiment"] not in ENDS_DO_NOT_MATTER:
                    out.append((doc["experiment"], row["row"], f"{case}: unconverged ({m.get('message')})"))
    return out


def test_no_stored_verdict_rests_on_a_cut_or_unconverged_run():
    assert faults(ROOT / "reports" / "verdicts", ROOT / "results") == []


def test_a_cut_or_unconverged_record_under_a_verdict_is_found(tmp_path):
    (tmp_path / "verdicts").mkdir()
    (tmp_path / "results" / "t").mkdir(parents=True)
    rows = [{"row": "a", "verdict": "matches", "records": ["ok"]},
            {"row": "b", "verdict": "matches", "records": ["cut"]},
            {"row": "c", "verdict": "matches", "records": ["stuck"]},
            {"row": "d", "verdict": "differs", "records": ["cut"]},
            {"row": "e", "verdict": "matches", "records": ["gone"]},
            {"row": "f", "verdict": "not reproduced", "records": []}]
    (tmp_path / "verdicts" / "t.json").write_text(json.dumps({"experiment": "t", "rows": rows}))
    for case, m in {"ok": {"converged": True}, "cut": {"capped": True},
                    "stuck": {"converged": False, "message": "STOP: TOTAL NO. OF ITERATIONS REACHED LIMIT"}}.items():
        (tmp_path / "results" / "t" / f"{case}.json").write_text(json.dumps({"measured": m}))
    found = faults(tmp_path / "verdicts", tmp_path / "results")
    assert [(r, w.split(":")[0]) for _, r, w in found] == [("b", "cut"), ("c", "stuck"), ("d", "cut"), ("e", "gone")]
