"""Bring stored records to the current format, once, keeping where they came from.

``python -m gpubench.records.convert [RESULTS]`` renames every record whose stored
case id is not the id the runner gives its case today (ids once hashed the
backend, so a GPU record of a case was "another setting").  The old id stays in
``provenance.renamed_from``.  Running it again changes nothing.
"""
import json
import sys
from pathlib import Path

from .. import runner


def _current_id(rec):
    return runner.case_id(rec["key"], rec["function"], rec["dim"], rec["variant"],
                          rec.get("repetition", 0), rec["method"], rec.get("settings") or {})


def _provenance(rec):
    # host_s12's convention: a record's provenance is a dict (an older one held a sentence)
    prov = rec.get("provenance")
    return dict(prov) if isinstance(prov, dict) else ({"source": prov} if prov else {})


def rename_records(folder):
    """Rename the records of one experiment folder to their current case ids.

    Returns (renamed, clashes): a clash is a record whose current id another
    record in the folder already holds (the same case stored twice); it is left as it is.
    """
    folder = Path(folder)
    records = {}
    for p in sorted(folder.glob("*.json")):
        try:
            rec = json.loads(p.read_text())
        except (OSError, ValueError):
            continue
        if runner.valid_record(rec, p.stem) and all(k in rec for k in ("key", "variant")):
            records[p] = rec
    taken = {rec["case"] for rec in records.values()}
    renamed, clashes = [], []
    for p, rec in records.items():
        new = _current_id(rec)
        if new == rec["case"]:
            continue
        if new in taken:
            clashes.append(p.name)
            continue
        old = rec["case"]
        out = {}
        for k, v in rec.items():
            out[k] = new if k == "case" else v
        prov = _provenance(rec)
        prov["renamed_from"] = old
        out["provenance"] = prov
        runner.write_record(folder, out)
        p.unlink()
        taken.discard(old)
        taken.add(new)
        renamed.append((old, new))
    return renamed, clashes


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    root = runner.results_dir(argv[0] if argv else None)
    for folder in sorted(d for d in root.iterdir() if d.is_dir()):
        renamed, clashes = rename_records(folder)
        if renamed or clashes:
            print(f"{folder.name}: {len(renamed)} renamed" + (f", {len(clashes)} left (the case is stored twice: "
                  f"{', '.join(clashes)})" if clashes else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
