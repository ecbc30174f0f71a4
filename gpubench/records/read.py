"""The one reader of stored records, and of the stored documents of the papers' earlier runners.

:func:`load_records` reads the records of one experiment folder in today's names (a record stored
with ``best_f`` is read with ``fun``: :func:`gpubench.records.schema.normalize`); a file that is
not a whole record is named once and counts as missing.  The earlier runners' formats are read
here too, each by its own function, so that every report takes what is stored from this module:
paper 001's rows (:func:`bnb_rows`), paper 003's ``tron_gpu.json`` and paper 004's
``records.json`` (:func:`document`; :mod:`gpubench.records.convert` makes records of their
tables from them), the interval check's JSON (:func:`document`).
"""
import json
import sys
from pathlib import Path

from .schema import normalize, valid_record

_WARNED = set()


def results_dir(path=None):
    """``path``, $GPUBENCH_RESULTS, the checkout's results/, or ./results (:mod:`gpubench.paths`)."""
    from ..paths import results_dir as where
    return where(path)


def _json(path):
    with open(path) as fh:
        return json.load(fh)


def read_record(path):
    """The record stored at ``path`` in today's names, or None when it is not a whole record."""
    try:
        rec = normalize(_json(path))
    except (OSError, ValueError):
        return None
    return rec if valid_record(rec, Path(path).stem) else None


def load_records(folder, warn=True):
    """Every complete, well-formed record in ``folder``, in today's names.  Any other ``.json``
    file there is named on stderr (once per process; ``warn=False`` for a folder read only in
    passing, not an experiment's) and its case counts as missing, so it is re-run."""
    out = []
    for p in sorted(Path(folder).glob("*.json")):
        rec = read_record(p)
        if rec is not None:
            out.append(rec)
        elif warn and str(p) not in _WARNED:
            _WARNED.add(str(p))
            print(f"gpubench: warning: {p} is not a complete record (truncated or edited); its case "
                  f"counts as missing", file=sys.stderr)
    return out


def stored_cases(folder):
    """The case ids of the whole records stored in ``folder``."""
    return {r["case"] for r in load_records(folder)}


def document(path):
    """A stored JSON document other than a record (an earlier runner's file: paper 003's
    ``tron_gpu.json``, paper 004's ``records.json``, the interval check's JSON, a page's own
    data), as stored; a file that is not JSON raises ``ValueError``."""
    return _json(path)


def bnb_rows(folder):
    """Paper 001's rows as ``gpubench/problems/bnb_rows.py`` stored them under ``folder/rows``, by section
    (a row that failed, holding ``error``, left out)."""
    from ..errors import InputError
    rows = {}
    for p in sorted((Path(folder) / "rows").glob("*.json")):
        try:
            rec = document(p)
        except ValueError as exc:
            raise InputError(f"{p}: not a JSON record ({exc})") from None
        if "error" not in rec:
            rows.setdefault(rec.get("section"), []).append(rec)
    return rows
