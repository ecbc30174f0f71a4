"""Layout "scaling" (paper 000's Tables 1, 2 and S2-S11): iterations, output regions and the
enclosure of each function and n beside the published, the time on the paper's four machines,
the fitted exponent of time against n, and the GLB/GUB history of a solve."""
import math

from .document import MISSING, NOT_PUBLISHED, _bound, _num, _ratio, _seconds
from .figures import RESOURCE_TITLES, RESOURCES, _history_figure, _time_figure, fit_exponent
from .stored import _device_of, _group, _paper_settings, planned_cases
from ..records.trace import rigorous


def section(doc, experiment, variant, records, pub, figdir, reports, results=None):
    import pandas as pd
    v = experiment.variant(variant == "quick")
    groups = _group(records)
    keys = {(c.function, c.dim) for c in planned_cases(experiment, variant)}
    keys |= {(f, n) for (_, f, n) in groups}
    order = {f: i for i, f in enumerate(v.functions)}
    keys = sorted(keys, key=lambda k: (order.get(k[0], 99), k[1]))
    method_keys = [m.key for m in v.methods]
    # the first entry is the paper's (judged, plotted); any other (the same search run another
    # way, e.g. the device loop) is shown in columns of its own beside it
    primary, extras = method_keys[0], method_keys[1:]
    resources = [r for r in RESOURCES if pub is not None and (pub["resource"] == r).any()]

    def published_row(f, n):
        if pub is None:
            return None
        rows = pub[(pub["function"] == f) & (pub["dimension"] == n)]
        return rows if len(rows) else None

    rows_a, rows_b = [], []
    measured_times, published_times, device_times = {}, {}, {}
    total_fev = total_gev = 0
    history_records = {}
    for f, n in keys:
        prow = published_row(f, n)
        recs = groups.get((primary, f, n), []) or [None]
        beside = {k: (groups.get((k, f, n)) or [None])[0] for k in extras}
        for r in recs:
            m = r["measured"] if r else None
            p_it = int(prow["iterations"].iloc[0]) if prow is not None else None
            p_rg = int(prow["output_regions"].iloc[0]) if prow is not None else None

            def mark(pv, mv):
                if r is None:
                    return MISSING
                if pv is None:
                    return "— (no published row)"
                if not _paper_settings(r):
                    return "n/a (settings differ)"
                return "yes" if pv == mv else "no"

            verdict_cell = _scaling_verdict(doc, experiment, f, n, r, p_it, p_rg)
            rows_a.append({
                "Function": f, "n": n, "Verdict": verdict_cell,
                "Iterations, published": _num(p_it) if p_it is not None else NOT_PUBLISHED,
                "Iterations, measured": _num(m["iterations"]) if m else MISSING,
                "Iterations match": mark(p_it, m["iterations"] if m else None),
                "Output regions, published": _num(p_rg) if p_rg is not None else NOT_PUBLISHED,
                "Output regions, measured": _num(m["regions"]) if m else MISSING,
                "Regions match": mark(p_rg, m["regions"] if m else None),
                **{col: val for k, e in beside.items() for col, val in _beside_counts(k, e, m, primary)},
                "GLB": _bound(m["glb"]) if m else MISSING,
                "GUB": _bound(m["gub"]) if m else MISSING,
                "f*": _num(r["fstar"], 6) if r else "",
                "f* enclosed": ("yes" if r["success"] else "no") if r else MISSING,
                "Evaluations": _num(m["evaluations"]) if m else MISSING,
                "Backend": m["backend"] if m else MISSING,
            })
            row_b = {"Function": f, "n": n}
            pub_secs = {}
            for res in resources:
                cell = NOT_PUBLISHED
                if prow is not None:
                    pr = prow[prow["resource"] == res]
                    if len(pr):
                        s = pr["seconds"].iloc[0]
                        if isinstance(s, float) and math.isnan(s):
                            cell = pr["raw"].iloc[0] or "NA"
                        else:
                            cell = _num(float(s))
                            pub_secs[res] = float(s)
                row_b[f"{RESOURCE_TITLES[res]} (published)"] = cell
            msec = m["seconds"] if m else None
            row_b["Measured"] = _seconds(msec)
            row_b["Measured on"] = _device_of(r) if r else MISSING
            for k, e in beside.items():
                esec = e["measured"]["seconds"] if e else None
                row_b[f"Measured, {k}"] = _seconds(esec)
                row_b[f"Measured on, {k}"] = _device_of(e) if e else MISSING
                row_b[f"Measured / {k}"] = (_ratio(msec, esec) if msec is not None and esec is not None
                                                      else MISSING)
            for res in resources:
                row_b[f"Measured / {RESOURCE_TITLES[res]}"] = (
                    _ratio(msec, pub_secs.get(res)) if res in pub_secs else (MISSING if msec is None else NOT_PUBLISHED))
            rows_b.append(row_b)
            if m:
                measured_times.setdefault(f, []).append((n, msec))
                device_times.setdefault((f, _device_of(r)), []).append((n, msec))
                total_fev += m["evaluations"] or 0
                total_gev += m["gradient_evaluations"] or 0
                if rigorous(r["method"], r) and (f not in history_records or n > history_records[f]["dim"]):
                    history_records[f] = r
    if pub is not None:
        for f in v.functions:
            for res in resources:
                sub = pub[(pub["function"] == f) & (pub["resource"] == res)].dropna(subset=["seconds"])
                sub = sub.drop_duplicates(subset=["dimension"])
                if len(sub):
                    published_times[(f, res)] = list(zip(sub["dimension"].astype(int), sub["seconds"].astype(float)))
    doc.h(3, "Iterations, output regions and enclosures")
    for k in extras:
        doc.p(f"Columns ending in `{k}`: the experiment's entry `{k}` (its settings are listed above), "
              f"the same search run another way; its counts should equal those of `{primary}`, the "
              f"paper's entry, which alone is judged and plotted. In the time table, "
              f"\"Measured / {k}\" above 1 means `{k}` took less time (two runs, perhaps at other commits: docs/solver-scaling.md compares the loops in one process).")
    doc.table(pd.DataFrame(rows_a))
    doc.h(3, "Computation time (seconds)")
    doc.p("Published: the paper's four machines (Table S1). Measured: the median over repetitions of "
          "the solver's own clock, on the machine named below. A ratio above 1 means the measurement "
          "took longer.")
    doc.table(pd.DataFrame(rows_b))
    doc.p(f"Total evaluations in this setting: {_num(total_fev)} evaluations "
          f"(for the rigorous solver: interval evaluations, samples included) and "
          f"{_num(total_gev)} interval-gradient evaluations.")
    # figures: none at all in a section without measurements (no published-only figure)
    doc.h(3, "Time against n")
    if measured_times:
        rel = f"figures/{experiment.id}-{variant}-time.png"
        exps = _time_figure(reports / rel, list(v.functions), measured_times, published_times,
                            f"{experiment.id} ({variant}): computation time against n")
        doc.img(rel, f"time against n, {variant}")
    else:
        exps = {f: fit_exponent(*zip(*pts)) for f, pts in published_times.items()}
        doc.p(f"Figure {MISSING}: no measurement of this setting is stored.")
    erows = []
    devices = sorted({d for (_, d) in device_times})
    for f in v.functions:
        row = {"Function": f, "Measured": (_num(exps.get((f, "measured")), 3)
                                           if exps.get((f, "measured")) is not None
                                           else (MISSING if f not in measured_times else "one n only"))}
        if len(devices) > 1:
            # a table measured on several machines: a fit across them would mix their speeds
            row["Measured"] = "mixed devices: see per device"
            for d in devices:
                pts = device_times.get((f, d), [])
                row[f"Measured, {d}"] = (_num(fit_exponent(*zip(*pts)), 3) if len({p[0] for p in pts}) > 1
                                         else ("one n only" if pts else MISSING))
        for res in resources:
            e = exps.get((f, res))
            row[f"{RESOURCE_TITLES[res]} (published)"] = _num(e, 3) if e is not None else NOT_PUBLISHED
        erows.append(row)
    doc.p("Fitted exponent b of time ≈ a·n^b (least squares on log-log axes). The paper reports about "
          "quadratic growth for the 10 multimodal functions and the discontinuous function, cubic to "
          "quartic for Rosenbrock.")
    doc.table(pd.DataFrame(erows))
    if history_records:
        recs = [history_records[f] for f in v.functions if f in history_records]
        rel = f"figures/{experiment.id}-{variant}-history.png"
        _history_figure(reports / rel, recs, f"{experiment.id} ({variant}): GLB, GUB and |L|")
        doc.h(3, "GLB, GUB and |L| against iteration")
        doc.p("The solve with the largest measured n of each function.")
        doc.img(rel, f"GLB, GUB and list size, {variant}")
    else:
        doc.h(3, "GLB, GUB and |L| against iteration")
        doc.p(f"No solve of this setting is stored: the figure is {MISSING}.")
    return total_fev, total_gev


def _beside_counts(key, e, m, primary):
    """The columns of another entry's record beside the paper entry's: its counts, and whether
    they equal the paper entry's."""
    em = e["measured"] if e else None
    same = (MISSING if em is None or m is None else
            "yes" if (em["iterations"], em["regions"]) == (m["iterations"], m["regions"]) else "no")
    return [(f"Iterations, {key}", _num(em["iterations"]) if em else MISSING),
            (f"Output regions, {key}", _num(em["regions"]) if em else MISSING),
            (f"Same counts as {primary}, {key}", same)]


def _scaling_verdict(doc, experiment, f, n, r, p_it, p_rg):
    """A paper-000 row matches when its iteration and output-region counts equal the published."""
    from . import verdict as V
    if p_it is None:
        return NOT_PUBLISHED
    label = f"{f} n={n}"
    vs = experiment.verdicts
    if r is None or not _paper_settings(r):
        reason = vs.get("not_reproduced", {}).get(label, "no record at the paper's settings is stored")
        return doc.verdict(label, V.not_reproduced(reason), [r] if r else ())
    m = r["measured"]
    v = V.combine([V.exact(m["iterations"], p_it, "iterations"), V.exact(m["regions"], p_rg, "output regions")])
    return doc.verdict(label, v.explained(vs.get("explained", {}).get(label)), [r])


# a minimum over many random runs varies from one set of runs to the next: judged within this
