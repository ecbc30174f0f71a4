"""Layout "methods" (paper 000's Tables S12 and S13): each method's best value, runs and time beside
the published, whether it found f*, and the paper's claim that all seven CPU methods fail."""
from .document import MISSING, NOT_PUBLISHED, _num, _ratio, _seconds
from .figures import _methods_figure
from .stored import _group, _paper_settings
from ..records.trace import rigorous


METHODS_RTOL = 0.5


def _methods_verdict(doc, experiment, spec, r, prow, p_val, value, runs_done, runs_p):
    """Table S12/S13: a CPU method matches when it fails to find f*, as published, with a minimum
    within the tolerance of the published one over as many runs; the rigorous solver when its
    enclosure holds f* (the paper's printed interval)."""
    from . import verdict as V
    if prow is None:
        return NOT_PUBLISHED
    label = spec.label
    vs = experiment.verdicts
    if r is None:
        return doc.verdict(label, V.not_reproduced(vs.get("not_reproduced", {}).get(
            label, "no record at the paper's settings is stored")))
    if rigorous(spec.method, r):
        v = V.exact(bool(r["success"]), True, "f* enclosed")
    else:
        parts = [V.exact(bool(r["success"]), False, "found f*")]
        if p_val is not None and value is not None:
            if runs_done != runs_p:
                return doc.verdict(label, V.not_reproduced(f"{runs_done} of the paper's {runs_p} runs stored"), [r])
            parts.append(V.relative(value, p_val, vs.get("rtol", METHODS_RTOL), "minimum value"))
        v = V.combine(parts)
    return doc.verdict(label, v.explained(vs.get("explained", {}).get(label)), [r])


def section(doc, experiment, variant, records, pub, figdir, reports, results=None):
    import pandas as pd
    v = experiment.variant(variant == "quick")
    groups = _group(records)
    rows, fig_rows, verdicts = [], [], []
    enclosure = None
    total_fev = total_gev = 0
    for spec in v.methods:
        recs = [r for f in v.functions for n in v.dims for r in groups.get((spec.key, f, n), [])] or [None]
        prow = None
        if pub is not None and spec.label:
            sub = pub[pub["method"] == spec.label]
            prow = sub.iloc[0] if len(sub) else None
        for r in recs:
            m = r["measured"] if r else None
            p_val = None if prow is None or pd.isna(prow["min_value"]) else float(prow["min_value"])
            p_sec = None if prow is None or pd.isna(prow["seconds"]) else float(prow["seconds"])
            if prow is None:
                pv_text = ps_text = pr_text = NOT_PUBLISHED
            else:
                pv_text = _num(p_val) if p_val is not None else (prow["raw"] if not p_sec else prow["raw"])
                ps_text = _num(p_sec) if p_sec is not None else (prow["raw"] or NOT_PUBLISHED)
                pr_text = _num(int(prow["runs"]))
            if prow is not None and p_val is None and p_sec is not None:
                pv_text = prow["raw"]  # the proposed method's printed interval
            if m is None:
                mv_text = MISSING
                value = None
            elif m.get("glb") is not None:
                mv_text = f"[{m['glb']:.4g}, {m['gub']:.4g}]"
                value = None
                enclosure = (m["glb"], m["gub"])
            else:
                mv_text = _num(m["fun"], 4)
                value = m["fun"]
            # a multi-start GPU method counts its starts (all done in one call)
            starts = None if r is None else (r.get("options") or {}).get("starts")
            runs_done = None if m is None else (m["runs_completed"] if m.get("runs_completed") is not None
                                                else (starts or 1))
            runs_planned = None if m is None else (m.get("runs") or starts)
            runs_m = MISSING if m is None else (
                f"{runs_done:,} of {runs_planned:,} (partial)" if runs_planned and runs_done < runs_planned
                else _num(runs_done))
            found_m = MISSING if m is None else _found_runs(r, experiment.success_tol)
            runs_p = None if prow is None else int(prow["runs"])
            if m is None:
                t_ratio = MISSING
            elif p_sec is None:
                t_ratio = NOT_PUBLISHED
            elif runs_done != runs_p:
                t_ratio = "n/a (runs differ)"
            else:
                t_ratio = _ratio(m["seconds"], p_sec)
                if rigorous(spec.method, r) and not _paper_settings(r):
                    t_ratio += " (settings differ)"
            per_run_p = _num(p_sec / runs_p, 3) if p_sec is not None and runs_p else NOT_PUBLISHED
            per_run_m = _num(m["seconds"] / runs_done, 3) if m is not None and runs_done else MISSING
            rows.append({
                "Method": spec.key + (f" ({spec.label})" if spec.label else ""),
                "Runs, published": pr_text, "Runs, measured": runs_m,
                "Minimum value, published": pv_text, "Minimum value, measured": mv_text,
                "Measured / published": _ratio(value, p_val) if m is not None and value is not None
                else (MISSING if m is None else NOT_PUBLISHED),
                "Time (s), published": ps_text, "Time (s), measured": _seconds(m["seconds"]) if m else MISSING,
                "Time measured / published": t_ratio,
                "Time per run (s), published": per_run_p, "Time per run (s), measured": per_run_m,
                "Evaluations": _num(m["evaluations"]) if m else MISSING,
                "Gradient evaluations": _num(m["gradient_evaluations"]) if m else MISSING,
                "Found f*": ("yes" if r["success"] else "no") if r else MISSING,
                "Runs that found f*": found_m,
                "Verdict": _methods_verdict(doc, experiment, spec, r, prow, p_val, value, runs_done, runs_p),
            })
            if m is not None and not rigorous(spec.method, r):
                verdicts.append((spec, r, runs_done, runs_planned))
            if m:
                total_fev += m["evaluations"] or 0
                total_gev += m["gradient_evaluations"] or 0
            if not rigorous(spec.method, r):
                fig_rows.append((spec.key, value, p_val))
    doc.h(3, "Best value found and time")
    doc.p("Published: the paper's table (minimum rounded by the paper to four significant digits). "
          "Measured: the best value over all runs, the total time of all runs (compared only when the run "
          "counts are equal; the time per run is compared always). A heuristic 'found f*' "
          f"when its best value is within {experiment.success_tol:g} of f*; the rigorous solver when its "
          "enclosure [GLB, GUB] holds f* and the search converged.")
    doc.table(pd.DataFrame(rows))
    _claim(doc, experiment, verdicts)
    doc.p(f"Total evaluations in this setting: {_num(total_fev)} function evaluations (for the rigorous "
          f"solver: interval evaluations) and {_num(total_gev)} gradient evaluations.")
    shared = [(r["key"], r["provenance"]["same_computation_as"]) for r in records
              if r is not None and isinstance(r.get("provenance"), dict) and r["provenance"].get("same_computation_as")]
    if shared:
        doc.p("Records of one computation reported in several tables (the same case id: function, n, settings "
              "and seeds): " + "; ".join(f"{key} from {src}" for key, src in shared) + ".")
    doc.h(3, "Each method's best value against the rigorous enclosure")
    if any(r is not None for r in records):
        rel = f"figures/{experiment.id}-{variant}-methods.png"
        label = ", ".join(experiment.published_tables) or "none"
        _methods_figure(reports / rel, fig_rows, enclosure, f"Table {label}",
                        f"{experiment.id} ({variant}): best value of each method and the rigorous enclosure")
        doc.img(rel, f"best values, {variant}")
    else:
        doc.p(f"Figure {MISSING}: no measurement of this setting is stored.")
    return total_fev, total_gev


def _found_runs(record, tol):
    """'k of N' runs within tol of f*, from the stored per-run values (or a chunked record's count)."""
    h = record.get("history") or {}
    done = (record["measured"].get("runs_completed") or 1)
    if h.get("runs_found_fstar") is not None:
        return f"{h['runs_found_fstar']:,} of {done:,}"
    vals = h.get("run_fun") or h.get("fun") or h.get("start_fun")  # per run, or per start
    if not vals:
        return "not stored"
    fstar = record["fstar"]
    return f"{sum(1 for v in vals if abs(v - fstar) <= tol):,} of {len(vals):,}"


def _claim(doc, experiment, verdicts):
    """The paper's claim that all seven CPU methods fail, beside what the stored runs show."""
    published = [(spec, r, d, p) for spec, r, d, p in verdicts if spec.label]
    extra = [(spec, r, d, p) for spec, r, d, p in verdicts if not spec.label]
    if not verdicts:
        return
    doc.h(3, "The claim 'all seven fail'")
    # the figures as the published CSV prints them (never typed here)
    pub = experiment.published(as_printed=True)
    cpu = pub[pub["min_value"].str.strip() != ""] if pub is not None else []
    shown = ""
    if len(cpu):
        vals = sorted(cpu["min_value"], key=float)
        direct = cpu[cpu["method"] == "DIRECT"]["min_value"]
        shown = (f" (best values {vals[0]} to {vals[-1]} in Table {', '.join(experiment.published_tables)}"
                 + (f"; DIRECT {direct.iloc[0]}" if len(direct) else "") + ")")
    doc.p("Published (SI Appendix E): \"All seven popular CPU-based numerical optimization methods fail to "
          f"find the global minimum of the function\"{shown}.")

    def verdict(spec, r, done, planned):
        state = (f"{done:,} of {planned:,} runs done" if planned and done < planned
                 else ("its one run" if done == 1 else f"all {done:,} runs"))
        word = "found f*" if r["success"] else "did not find f*"
        return f"{spec.key}: {word} (best {_num(r['measured']['fun'], 4)}; {state})"
    partial = any(p and d < p for _, _, d, p in published)
    found = [spec.key for spec, r, _, _ in published if r["success"]]
    stored = {spec.key for spec, _, _, _ in verdicts}
    absent = [spec.key for spec in experiment.variant(False).methods
              if spec.label and spec.key not in stored and not rigorous(spec.method)]
    doc.p("Measured with the paper's stated settings: " + "; ".join(verdict(*v) for v in published) + ". "
          + (f"{len(found)} of {len(published)} stored entries found f* (within {experiment.success_tol:g})"
             + (": the claim does not hold for " + ", ".join(found) if found else ", as published")
             + (". Not stored yet: " + ", ".join(absent) if absent else "")
             + (". Some entries have not done all their runs yet; their verdict may change."
                if partial else ".")))
    if extra:
        doc.p("With budgets a user would choose (no published counterpart): "
              + "; ".join(verdict(*v) for v in extra) + ".")
