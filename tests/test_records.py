"""The one records layer (gpubench.records): one schema, one writer, one reader; stored records
written with the older field name ``best_f`` are read with today's ``fun`` and stay valid."""
import json
import re
from pathlib import Path

from gpubench.records import read, schema, write

REPO = Path(__file__).resolve().parents[1]


def test_a_stored_record_with_best_f_is_read_with_fun():
    path = REPO / "results" / "table1" / "interval-ackley-n1000-full-r0-15045fc5.json"
    stored = json.loads(path.read_text())["measured"]
    assert "best_f" in stored and "fun" not in stored          # the file on disk keeps its name
    rec = read.read_record(path)
    assert rec is not None and rec["measured"]["fun"] == stored["best_f"] and "best_f" not in rec["measured"]
    assert list(rec["measured"]) == [("fun" if k == "best_f" else k) for k in stored]   # order kept
    assert any(r["case"] == path.stem for r in read.load_records(path.parent))


def test_the_writer_writes_todays_names_and_the_schema_refuses_a_record_cut_short(tmp_path):
    rec = {"case": "c", "method": "m", "function": "f", "dim": 2, "success": True,
           "measured": {"iterations": 1, "seconds": 0.1, "converged": True, "best_f": 0.5}}
    assert schema.valid_record(rec, "c") and not schema.valid_record(rec, "d")
    on_disk = json.loads(write.write_record(tmp_path, rec).read_text())
    assert on_disk["measured"]["fun"] == 0.5 and "best_f" not in on_disk["measured"]
    assert read.load_records(tmp_path) == [on_disk]
    both = {**rec, "measured": {**rec["measured"], "fun": 0.25}}
    assert schema.normalize(both)["measured"]["fun"] == 0.25      # today's name wins
    cut = {**rec, "measured": {k: v for k, v in rec["measured"].items() if k != "best_f"}}
    assert not schema.valid_record(cut)
    (tmp_path / "d.json").write_text(json.dumps({**cut, "case": "d"}))
    assert read.stored_cases(tmp_path) == {"c"}


def test_no_module_outside_records_reads_a_stored_json_itself():
    """Every reader of a record (and of the earlier runners' files) goes through gpubench.records."""
    found = []
    for p in (REPO / "gpubench").rglob("*.py"):
        rel = p.relative_to(REPO / "gpubench").as_posix()
        if rel.startswith("records/"):
            continue
        for ln, line in enumerate(p.read_text().splitlines(), 1):
            if re.search(r"json\.load\(|json\.loads\(\w+\.read_text\(\)\)", line):
                found.append(f"{rel}:{ln}")
    # not records: a claim's owner, a checkpoint's meta, the card cache, a model's weights, a page's verdict
    # counts, de-gpu auto's cached choice of kernel
    allowed = {"workflow/claims.py", "forms/cards.py", "forms/models.py", "reports/index.py", "methods/de_auto.py"}
    assert [f for f in found if f.split(":")[0] not in allowed] == []
