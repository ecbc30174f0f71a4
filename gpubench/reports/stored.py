"""The stored records as a report reads them: an experiment's records by variant, grouped over
repetitions, the cases planned and those missing, the settings and machines they state, and
whether a record ran at paper 000's settings."""
import json
import statistics

from ..records.trace import rigorous

PAPER_SOLVER_SETTINGS = {"split_dims": 10, "parts": 4, "tol": 1e-4, "samples": 10}


def records_folder(results=None):
    """The records' folder as a report names it: ``results/`` for the checkout's own, else the
    folder's real path (a report built from another folder said "under results/")."""
    from ..paths import project_root
    from ..records.read import results_dir
    p = results_dir(results).resolve()
    root = project_root()
    if root is not None and p == (root / "results").resolve():
        return "results/"
    return p.as_posix().rstrip("/") + "/"


def reports_dir(path=None):
    """``path``, $GPUBENCH_REPORTS, the checkout's reports/, or ./reports (:mod:`gpubench.paths`)."""
    from ..paths import reports_dir as where
    return where(path)


def _records(experiment, results):
    from ..records.read import load_records, results_dir
    recs = [r for r in load_records(results_dir(results) / experiment.id) if r.get("experiment") == experiment.id]
    by_variant = {}
    for r in recs:
        by_variant.setdefault(r.get("variant", "full"), []).append(r)
    return by_variant


def _settings_key(r):
    return json.dumps(r.get("settings", {}), sort_keys=True)


def _group(records):
    """{(key, function, dim): [records of each distinct setting, repetitions merged]}."""
    groups = {}
    for r in records:
        groups.setdefault((r["key"], r["function"], r["dim"], _settings_key(r)), []).append(r)
    merged = {}
    for (key, function, dim, _), rs in groups.items():
        rs = sorted(rs, key=lambda r: r["repetition"])
        first = dict(rs[0])
        m = dict(first["measured"])
        m["seconds"] = statistics.median(r["measured"]["seconds"] for r in rs)
        m["repetitions"] = len(rs)
        first["measured"] = m
        first["success"] = all(r["success"] for r in rs)
        merged.setdefault((key, function, dim), []).append(first)
    return merged


def _paper_settings(record):
    o = record.get("options", {})
    if not rigorous(record.get("method"), record):
        return False
    # a limit that did not bind (the search converged before it) changed nothing
    stopped_early = not (record.get("measured") or {}).get("converged")
    if (o.get("max_iterations") is not None or o.get("time_limit") is not None) and stopped_early:
        return False
    if o.get("spacing", "inside") != "inside":  # the paper's samples divide the diagonal into 11 pieces
        return False
    return all(o.get(k) == v for k, v in PAPER_SOLVER_SETTINGS.items())


def _settings_summary(records):
    """{method key: text}: each setting the method's records share once, as ``k=v``, and each
    that differs between cases (seed, budgets by n) as ``k in {v1, v2}``, in the records' order."""
    skip = {"paper_label", "paper_runs"}
    opts = [(r["key"], {**(r.get("settings") or {}), **(r.get("options") or {})}) for r in records]
    names = {}
    for key, o in opts:
        for k in o:
            if k not in skip:
                names.setdefault(key, {}).setdefault(k, None)
    values = {}
    for key, o in opts:
        for k in names.get(key, ()):
            v = str(o[k]) if k in o else "(not reported)"  # an older record without the setting
            seen = values.setdefault(key, {}).setdefault(k, [])
            if v not in seen:
                seen.append(v)
    def text(k, vs):
        if len(vs) == 1:
            return f"{k}={vs[0]}"
        if len(vs) > 8:  # a per-run figure a method reports among its options (compile_s)
            return f"{k}: {len(vs)} different values"
        return f"{k} in {{{' | '.join(sorted(vs, key=_natural))}}}"  # values may hold commas
    return {key: ", ".join(text(k, vs) for k, vs in kv.items()) for key, kv in values.items()}


def _natural(text):
    try:
        return (0, float(text), "")
    except ValueError:
        return (1, 0.0, text)


def _missing_cases(planned, stored):
    """The planned cases without a record, as "key function n=N (R repetitions)" in plan order."""
    groups = {}
    for c in planned:
        if c.case_id not in stored:
            k = (c.key, c.function, c.dim)
            groups[k] = groups.get(k, 0) + 1
    return [f"{key} {f} n={n}" + (f" ({k} repetitions)" if k > 1 else "") for (key, f, n), k in groups.items()]


def _run_notes(results, experiment_id):
    """The text of ``results/<experiment>/NOTES.md`` (why cases are missing, what a run met), or ""."""
    from ..records.read import results_dir
    path = results_dir(results) / experiment_id / "NOTES.md"
    try:
        return " ".join(path.read_text().split())
    except OSError:
        return ""


def _environment_lines(records):
    seen = {}
    for r in records:
        e = r.get("environment", {})
        gpu = e.get("gpu") or {}
        driver = (str(gpu.get("driver") or "").splitlines() or ["?"])[0]  # older records: one line per GPU
        gpu_text = f"{gpu.get('name')} (driver {driver})" if gpu else "none"
        line = (f"CPU {e.get('cpu')} ({e.get('cpu_count')} cores), GPU {gpu_text}, "
                f"Python {e.get('versions', {}).get('python')}, numba {e.get('versions', {}).get('numba')}, "
                f"SciPy {e.get('versions', {}).get('scipy')}, commit {e.get('commit')}")
        d = e.get("date", "")
        lo, hi = seen.get(line, (d, d))
        seen[line] = (min(lo, d), max(hi, d))
    return [f"{line}; measured {lo} to {hi}" if lo != hi else f"{line}; measured {lo}"
            for line, (lo, hi) in seen.items()]


def planned_cases(experiment, variant):
    """The cases ``experiment`` plans for ``variant`` ("full" or "quick"), in run order.
    ``experiment``: an experiment, or its id (None when no experiment file of that id exists)."""
    if isinstance(experiment, str):
        return _planned_of_id(experiment, variant)
    from ..workflow.runner import plan
    return plan(experiment, quick=(variant == "quick"))


_PLANS = {}


def _planned_of_id(experiment_id, variant):
    from ..errors import InputError
    from ..workflow import experiments_loader
    key = (experiment_id, variant)
    if key not in _PLANS:
        try:
            _PLANS[key] = planned_cases(experiments_loader.load(experiment_id), variant)
        except InputError:
            _PLANS[key] = None
    return _PLANS[key]


def _device_of(record):
    gpu = (record.get("environment") or {}).get("gpu")
    return gpu.get("name") if isinstance(gpu, dict) and gpu.get("name") else "CPU"
