"""The one schema of a stored record: its fields, its case id, when it is whole, and its judgement.

A record is one JSON file, ``results/<experiment>/<case-id>.json``::

    schema, experiment, variant, case, key, method, label, function, dim, sense, repetition,
    problem, settings, options,
    measured: {iterations, seconds, converged, fun, ...}   (the method's result, in its names)
    fstar, success, success_rule, x, regions, history, environment, [result, provenance, certification]

``measured`` uses the result's vocabulary (:class:`gpubench.result.OptimizeResult`): ``fun`` is
the best value found and ``converged`` that the method's own convergence test was met;
``success`` is the record's judgement that the run found f* (:func:`success`, its rule in
``success_rule``).  Records stored before ``fun`` said ``best_f``; :func:`normalize` reads them
in today's names, so every stored record stays valid unchanged on disk.
"""
import hashlib
import json

SCHEMA = 1

# The fields every reader relies on: a record without one is cut short or edited.
MEASURED_KEYS = ("iterations", "seconds", "converged", "fun")
RECORD_KEYS = ("method", "function", "dim", "success")

# A stored record's older name of a measured field -> the name it has today.
LEGACY_MEASURED = {"best_f": "fun"}

# Where a case ran is what the record measured, not what was asked: a case run on a GPU
# and the same case run on a CPU are one case, so a GPU record counts as stored.
NOT_IDENTITY = ("backend",)


def case_id(key, function, dim, variant, repetition, method, settings):
    """The stored name of a case: entry, function, n, variant, repetition and a hash of the
    method and its settings (a changed setting is a new case; the backend is not one)."""
    kept = {k: v for k, v in settings.items() if k not in NOT_IDENTITY}
    blob = json.dumps({"method": method, "settings": kept}, sort_keys=True)
    h = hashlib.sha1(blob.encode()).hexdigest()[:8]
    return f"{key}-{function.replace(':', '_')}-n{dim}-{variant}-r{repetition}-{h}"


def normalize_measured(measured):
    """``measured`` in today's names (a copy when a legacy name was renamed; its order kept)."""
    if not isinstance(measured, dict) or not any(k in measured for k in LEGACY_MEASURED):
        return measured
    out = {}
    for k, v in measured.items():
        new = LEGACY_MEASURED.get(k, k)
        if new != k and new in measured:
            continue                        # both names stored: today's wins
        out[new] = v
    return out


def normalize(record):
    """``record`` in today's names (a stored record's ``best_f`` read as ``fun``); the rest as is."""
    if isinstance(record, dict) and isinstance(record.get("measured"), dict):
        m = normalize_measured(record["measured"])
        if m is not record["measured"]:
            record = {**record, "measured": m}
    return record


def valid_record(rec, case=None):
    """True when ``rec`` (in today's names) has the shape every reader relies on (a record cut
    short or edited is not); with ``case``, it must also be that case's record."""
    if not isinstance(rec, dict) or not isinstance(rec.get("case"), str):
        return False
    if case is not None and rec["case"] != case:
        return False
    m = normalize_measured(rec.get("measured"))
    if not isinstance(m, dict) or any(k not in m for k in MEASURED_KEYS):
        return False
    return all(k in rec for k in RECORD_KEYS)


def success(result, fstar, tol, sense="min"):
    """(success, rule): whether the run found f*, rigorous methods by enclosure, the others by
    distance to f*; without a known f*, the method's convergence."""
    if fstar is None:
        return bool(result.converged), "converged (no f* known)"
    if result.glb is not None and result.gub is not None:
        ok = bool(result.converged and result.glb <= fstar <= result.gub)
        return ok, "converged and GLB <= f* <= GUB"
    if result.fun is None:
        return False, "no value"
    gap = (result.fun - fstar) if sense == "min" else (fstar - result.fun)
    return bool(gap <= tol), f"|best f - f*| <= {tol:g}"


def json_ready(value):
    """``value`` as plain JSON types (NumPy scalars and arrays as numbers and lists)."""
    return json.loads(json.dumps(value, default=_json_default))


def _json_default(v):
    import numpy as np
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    return str(v)
