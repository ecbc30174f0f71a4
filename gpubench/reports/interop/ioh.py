"""IOHprofiler's data format (IOHanalyzer, iohinspector) for the comparison's runs (docs/interop.md).

One folder per method entry, as IOHexperimenter's ``Analyzer`` logger writes it:

* ``IOHprofiler_f<K>_<name>.json`` per function: ``version``, ``suite`` ("gpubench"),
  ``function_id``, ``function_name``, ``maximization``, ``algorithm`` {``name``, ``info``},
  ``experiment_attributes`` (f*), ``attributes`` (the data columns) and ``scenarios``: per n, the
  data file's ``path`` and its ``runs`` (``instance``: the repetition, 1-based; ``evals``: the
  run's evaluations; ``best``: {``evals``, ``y``, ``x``}).
* ``data_f<K>_<name>/IOHprofiler_f<K>_DIM<n>.dat``: per run a header line
  ``evaluations raw_y seconds``, then one row per trace point: the evaluation count, the best
  value so far (raw, not minus f*) and the wall-clock seconds.

Function ids are the compared library functions in sorted name order, as in the COCO files.
A run in this format starts at evaluation 1 (readers split runs there).  A run whose trace starts
later (a batch method's first trace point is its first batch) gets a first row
``1 inf <seconds of its first point>`` (``-inf`` when maximising): no value is claimed before
the trace's first point.
"""
import json
import math
from pathlib import Path

SUITE = "gpubench"
COLUMNS = ("evaluations", "raw_y", "seconds")


def _safe(name):
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)


def _num(v):
    return repr(float(v)) if math.isfinite(v) else ("inf" if v > 0 else "-inf")


def write_ioh(records, fstars, folder, info=""):
    """Write one IOHprofiler data set per method key under ``folder/<key>/``; returns the folders.

    ``fstars`` maps (function, n) to the library's f*; ``info`` is the algorithm info string."""
    from ...records.trace import trace_of
    from ...device.gpu import atomic_write
    folder = Path(folder)
    names = sorted({r["function"] for r in records})
    fid = {f: k + 1 for k, f in enumerate(names)}
    by_key = {}
    for r in records:
        by_key.setdefault(r["key"], []).append(r)
    out = []
    for key, recs in sorted(by_key.items()):
        alg = folder / _safe(key)
        per_function = {}
        for r in recs:
            per_function.setdefault(r["function"], {}).setdefault(int(r["dim"]), []).append(r)
        for f, by_dim in sorted(per_function.items()):
            sense = next(iter(by_dim.values()))[0].get("sense", "min")
            scenarios = []
            for dim, rs in sorted(by_dim.items()):
                if (f, dim) not in fstars:
                    continue
                path = f"data_f{fid[f]}_{_safe(f)}/IOHprofiler_f{fid[f]}_DIM{dim}.dat"
                lines, runs = [], []
                for inst, r in enumerate(sorted(rs, key=lambda r: r.get("repetition", 0)), start=1):
                    rows = trace_of(r)
                    if not rows:
                        continue
                    lines.append(" ".join(COLUMNS))
                    if rows[0][0] > 1:
                        lines.append(f"1 {'inf' if sense == 'min' else '-inf'} {rows[0][1]!r}")
                    lines += [f"{int(e)} {_num(b)} {s!r}" for e, s, b in rows]
                    hit = next(row for row in rows if row[2] == rows[-1][2])  # first reach of the best
                    x = r.get("x")
                    runs.append({"instance": inst, "evals": int(rows[-1][0]),
                                 "best": {"evals": int(hit[0]), "y": rows[-1][2],
                                          "x": [float(v) for v in x] if x is not None else []}})
                if not runs:
                    continue
                atomic_write(alg / path, "\n".join(lines) + "\n", fsync=False)
                scenarios.append({"dimension": dim, "path": path, "runs": runs})
            if not scenarios:
                continue
            meta = {
                "version": "gpubench", "suite": SUITE, "function_id": fid[f], "function_name": f,
                "maximization": sense == "max",
                "algorithm": {"name": key, "info": info or f"gpubench method entry {key}"},
                "experiment_attributes": [{"fstar": repr(fstars[(f, scenarios[0]["dimension"])])}]
                if len({fstars[(f, s["dimension"])] for s in scenarios}) == 1 else [],
                "attributes": list(COLUMNS),
                "scenarios": scenarios,
            }
            atomic_write(alg / f"IOHprofiler_f{fid[f]}_{_safe(f)}.json",
                         json.dumps(meta, indent=1, allow_nan=True) + "\n", fsync=False)
        if alg.is_dir():
            out.append(alg)
    return out
