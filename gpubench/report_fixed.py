"""The report sections of the fixed-problem tables: paper 001's B&B rows ("bnb"), paper 003's
batched kernels ("micro") and paper 004's L-BFGS-B rows ("lbfgsb").

One row per planned case (problem, n, method entry) with what its record measured, then the
published table exactly as the CSV in ``experiments/published/`` has it: the papers' rows are
of other problems (paper 001's networks are not the authors') or of a GPU generation ago, so
they are shown beside ours, never merged into a column of ours.
"""
from .report import MISSING

# the measured numbers each layout shows, in order: (record key, column title, format)
COLUMNS = {
    "bnb": (("iterations", "B&B iterations", "d"), ("seconds", "seconds", ".4g"), ("glb", "GLB", ".6g"),
            ("gub", "GUB", ".6g"), ("abs_gap", "abs gap", ".3g"), ("message", "status", "s")),
    "micro": (("ms", "ms", ".4g"), ("max_err_vs_numpy", "max err vs numpy", ".1e"),
              ("max_abs_err", "max err vs x*", ".1e"), ("converged", "all converged", "s")),
    "lbfgsb": (("iterations", "iterations", "d"), ("ms_per_iteration", "ms / iteration", ".4g"),
               ("best_f", "f", ".10g"), ("capped", "capped", "s")),
}


def _fmt(v, f):
    if v is None:
        return MISSING
    if isinstance(v, bool) or f == "s":
        return str(v)
    try:
        return format(v, f)
    except (TypeError, ValueError):
        return str(v)


def section(doc, experiment, variant, records, pub, figdir, reports, results=None):
    import pandas as pd
    from .runner import plan
    cols = COLUMNS[experiment.layout]
    by_case = {r["case"]: r for r in records}
    rows = []
    planned = plan(experiment, quick=variant == "quick")
    ids = {c.case_id for c in planned}
    # records of other settings (a shorter limit, fewer iterations) follow the planned cases, marked
    others = [r for r in records if r["case"] not in ids]
    for c, r in [(c, by_case.get(c.case_id)) for c in planned] + [(None, r) for r in others]:
        if c is None:
            from .runner import Case
            c = Case(experiment.id, variant, r["function"], r["dim"], r["key"] + " (other settings)", r["method"],
                     r.get("label", ""), r.get("settings") or {})
        m = (r or {}).get("measured", {})
        own = {k: v for k, v in c.settings.items() if k not in ("backend",)}
        row = {"Problem": c.function, "n": c.dim, "Entry": c.key + (f" ({c.label})" if c.label else ""),
               "Settings": ", ".join(f"{k}={v}" for k, v in own.items()),
               "Backend": m.get("backend", MISSING) if r else MISSING}
        for key, title, f in cols:
            row[title] = _fmt(m.get(key), f) if r else MISSING
        if r and experiment.layout == "lbfgsb" and "bins" in (r.get("result") or {}):
            res = r["result"]
            row["|t_c - t*|/t* = 0 (%)"] = _fmt(res["bins"].get("0"), ".2f")
            row["energy diff (%)"] = _fmt(res.get("energy_diff_percent"), ".2e")
        rows.append(row)
    doc.h(3, "Measured")
    if experiment.layout == "micro":
        doc.p("Times are of the kernel alone on a GPU (CUDA events), of the numba twin's call on a CPU; "
              "the first (compiling) call is not timed.")
    doc.table(pd.DataFrame(rows))
    if pub is not None and len(pub):
        doc.h(3, "Published (as printed)")
        doc.p(f"`experiments/published/{experiment.published_file}`"
              + (f", table {', '.join(experiment.published_tables)}" if experiment.published_tables else "") + ".")
        doc.table(pub.fillna("").astype(str))
