"""The one writer of records: a record made from a run (:func:`make_record`, :func:`procedure_record`)
and stored atomically (:func:`write_record`), so a record is either complete or absent.

``case`` here is any object with the fields of :class:`gpubench.workflow.runner.Case`
(experiment, variant, case_id, key, method, label, function, dim, repetition, settings, success_tol).
"""
import hashlib
import math
import time
from pathlib import Path

from .schema import SCHEMA, json_ready, normalize, success

MAX_HISTORY = 2000          # history points kept per record (evenly thinned beyond)
MAX_REGION_NUMBERS = 20000  # regions stored only when n_regions * n is at most this


def _finite(v):
    return None if v is None or (isinstance(v, float) and not math.isfinite(v)) else v


def thin(history):
    """At most MAX_HISTORY evenly spaced points of each per-iteration series, with their iterations."""
    series = {k: v for k, v in history.items() if isinstance(v, list)}
    lengths = {len(v) for k, v in series.items() if k in ("glb", "gub", "list_size")}
    if len(lengths) != 1:
        return history
    n = lengths.pop()
    if n <= MAX_HISTORY:
        idx = list(range(n))
    else:
        step = (n - 1) / (MAX_HISTORY - 1)
        idx = sorted({round(k * step) for k in range(MAX_HISTORY)})
    out = dict(history)
    for k in ("glb", "gub", "list_size"):
        if k in series:
            out[k] = [series[k][i] for i in idx]
    out["iteration"] = [i + 1 for i in idx]
    return out


def problem(fn, dim):
    """What identifies the problem a record solved beyond the function's name: its box and
    parameters at ``dim`` (digests of the exact float64 arrays; the domain's extremes for a reader)."""
    import numpy as np
    lo, hi = (np.ascontiguousarray(b, dtype=np.float64) for b in fn.bounds(dim))
    par = np.ascontiguousarray(fn.params(dim) if hasattr(fn, "params") else np.zeros((0, dim)), dtype=np.float64)
    return {"domain": [float(lo.min()), float(hi.max())],
            "domain_sha1": hashlib.sha1(lo.tobytes() + hi.tobytes()).hexdigest(),
            "params_sha1": hashlib.sha1(repr(par.shape).encode() + par.tobytes()).hexdigest()}


def _head(case, sense, problem_):
    return {"schema": SCHEMA,
            "experiment": case.experiment, "variant": case.variant, "case": case.case_id,
            "key": case.key, "method": case.method, "label": case.label,
            "function": case.function, "dim": case.dim, "sense": sense, "repetition": case.repetition,
            "problem": problem_}


def make_record(case, fn, result, wall, warm, env, provenance=None):
    """The stored record of ``case`` from its OptimizeResult and timings."""
    fstar = fn.fstar(case.dim) if hasattr(fn, "fstar") else None
    if fstar is not None and math.isnan(fstar):
        fstar = None                    # paper 001's networks: no known minimum
    ok, rule = success(result, fstar, case.success_tol, fn.sense)
    keep_regions = result.n_regions * case.dim <= MAX_REGION_NUMBERS
    d = result.to_dict(max_regions=None if keep_regions else 0)
    history = thin(d.get("history") or {})
    runs = d["options"].get("runs")
    measured = {
        "iterations": result.iterations,
        "regions": result.n_regions if result.has_regions else None,
        "glb": _finite(result.glb), "gub": _finite(result.gub),
        "fun": result.fun,
        "evaluations": result.nfev, "gradient_evaluations": result.njev,
        "seconds": result.seconds, "wall_seconds": wall, "warmup_seconds": warm,
        "converged": result.converged, "message": result.message, "backend": result.backend,
        "runs": runs, "runs_completed": history.get("runs_completed", runs),
    }
    record = {
        **_head(case, fn.sense, problem(fn, case.dim)),
        "settings": case.settings, "options": d["options"],
        "measured": measured,
        "fstar": fstar, "success": ok, "success_rule": rule,
        "x": d["x"] if d["x"] is not None and len(d["x"]) <= 10000 else None,
        "regions": d["regions"] if keep_regions else None,
        "history": history,
        "environment": env,
    }
    if provenance:
        record["provenance"] = provenance
    return json_ready(record)


def procedure_record(case, options, measured, result, env, sense="min", provenance=None):
    """The record of a procedure's case (a fixed problem's table row, no f* known): its measured
    numbers (today's names) and the table's own figures (``result``)."""
    measured = normalize({"measured": measured})["measured"]
    record = {
        **_head(case, sense, {"name": case.function, "n": case.dim}),
        "settings": case.settings, "options": options,
        "measured": measured,
        "fstar": None, "success": bool(measured["converged"]), "success_rule": "converged (no f* known)",
    }
    if result is not None:
        record["result"] = result
    record["environment"] = env
    if provenance:
        record["provenance"] = provenance
    return json_ready(record)


def write_record(folder, record):
    """Store ``record`` as ``folder/<case>.json`` atomically (temporary file, fsync, rename), in
    today's names."""
    import json
    from ..device.gpu import atomic_write
    final = Path(folder) / f"{record['case']}.json"
    atomic_write(final, json.dumps(normalize(record), indent=1))
    return final


def clean_partial(folder, older_than=None):
    """Remove temporary files that a killed writer left (``atomic_write``'s ``.NAME.XXXX.tmp``).

    ``older_than`` (seconds) spares younger ones: with several processes writing to one
    folder, a younger file may be another writer's record about to be renamed into place.
    """
    removed = 0
    now = time.time()
    for p in Path(folder).glob(".*.tmp"):
        try:
            if older_than is not None and now - p.stat().st_mtime < older_than:
                continue
        except FileNotFoundError:
            continue
        p.unlink(missing_ok=True)
        removed += 1
    return removed
