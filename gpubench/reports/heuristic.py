"""Report section of layout "heuristic": many runs of a stochastic method per case.

For tables such as Tables 1-3 of Qin, Raimondo, Forbes & Ong (GECCO 2012): per
(function, dimension, population) the mean (std) of the runs' final errors, the
success rate with its Clopper-Pearson 95% interval, and the time, beside the
published values; a success rate matches when it lies inside the 95% interval of
the published one (k successes of the published 25 runs).  The paper's function
labels (F1 ...) come from the library functions' titles ("Shifted Rastrigin (F4)").
Numbers come only from the stored records (``history["run_error"]``,
``history["run_success"]``) and the published CSV.
"""
import re
import statistics

from ..errors import InputError
from .document import MISSING, NOT_PUBLISHED, _num, _seconds
from .stored import _group
def _clopper_pearson(k, n):
    from scipy import stats
    ci = stats.binomtest(int(k), int(n)).proportion_ci(confidence_level=0.95, method="exact")
    return float(ci.low), float(ci.high)


def _function_label(name):
    """The paper's label of a library function, from its title (e.g. 'Shifted Rastrigin (F4)')."""
    from .. import functions
    try:
        title = functions.get(name).title
    except InputError:
        return name
    m = re.search(r"\((F\d+)\)", title)
    return m.group(1) if m else name


def section(doc, experiment, variant, records, pub, figdir, reports, results=None):
    """Runs of a stochastic method per (function, dim, population): error, success rate, time."""
    import pandas as pd
    v = experiment.variant(variant == "quick")
    groups = _group(records)
    if pub is not None and len(pub):
        pub = pub.copy()
        for c in ("mean", "std", "dimension", "population"):
            pub[c] = pd.to_numeric(pub[c], errors="coerce")

    def published(flabel, dim, np_, metric):
        if pub is None or not len(pub):
            return None
        sub = pub[(pub["function"] == flabel) & (pub["dimension"] == dim) & (pub["population"] == np_)
                  & (pub["metric"] == metric)]
        return None if not len(sub) else sub.iloc[0]

    from .triangulation import run_errors
    tri = _triangulation(experiment, results) if variant == "full" else None
    rows, total_fev, mismatches = [], 0, []
    several = len({m.method for m in v.methods}) > 1
    for dim in v.dims:
        for f in v.functions:
            flabel = _function_label(f)
            for spec in v.methods:
                np_ = spec.settings.get("np")
                # every repetition of the entry (a peer's record is one run, de-gpu's all of them)
                reps = [x for x in records if (x["key"], x["function"], x["dim"]) == (spec.key, f, dim)]
                recs = groups.get((spec.key, f, dim), [])
                r = recs[0] if recs else None
                pe, ps, pt = (published(flabel, dim, np_, m) for m in ("best_efv", "success_rate", "time_s"))
                row = {"Function": f"{flabel} ({f})", "D": dim, "NP": np_}
                if several:  # e.g. a triangulation's SciPy, EvoX and evosax entries at one NP
                    row["Method"] = f"{spec.method} ({spec.key})"
                row["Error, published"] = NOT_PUBLISHED if pe is None else f"{pe['mean']:.3f} ({pe['std']:.3f})"
                if r is None:
                    row.update({"Error, measured": MISSING, "Runs": MISSING, "SR, measured (95% CI)": MISSING})
                    errs, sr_m = None, None
                else:
                    errs, run_success = run_errors(reps, experiment.success_tol)
                    n = len(errs)
                    k = sum(run_success)
                    sr_m = k / n if n else None
                    lo, hi = _clopper_pearson(k, n) if n else (None, None)
                    sd = statistics.stdev(errs) if n > 1 else 0.0
                    row["Error, measured"] = f"{statistics.fmean(errs):.3g} ({sd:.3g})" if n else MISSING
                    row["Runs"] = n
                    row["SR, measured (95% CI)"] = f"{sr_m:.2f} [{lo:.2f}, {hi:.2f}]" if n else MISSING
                    total_fev += sum(x["measured"].get("evaluations") or 0 for x in reps)
                if ps is None:
                    row["SR, published (95% CI)"] = NOT_PUBLISHED
                    row["SR matches"] = NOT_PUBLISHED
                else:
                    n_pub = 25
                    k_pub = round(float(ps["mean"]) * n_pub)
                    plo, phi = _clopper_pearson(k_pub, n_pub)
                    row["SR, published (95% CI)"] = f"{ps['mean']:.2f} [{plo:.2f}, {phi:.2f}]"
                    if sr_m is None:
                        row["SR matches"] = MISSING
                    else:
                        ok = plo - 1e-12 <= sr_m <= phi + 1e-12
                        row["SR matches"] = "yes" if ok else "no"
                        if not ok:
                            mismatches.append(f"{flabel} D={dim} NP={np_}: measured {sr_m:.2f}, "
                                              f"published {ps['mean']:.2f}")
                row["Verdict"] = _row_verdict(doc, experiment, f"{flabel} D={dim} NP={np_}", r, errs,
                                              run_success if r is not None else [], pe, ps,
                                              tri and (tri, (f, dim, np_)), reps)
                row["Time per run (s), published"] = (NOT_PUBLISHED if pt is None
                                                      else f"{pt['mean']:.3f} ({pt['std']:.3f})")
                if r is None:
                    row["Time (s), measured: all runs / per run"] = MISSING
                    row["Backend"] = MISSING
                else:
                    runs = max(1, len(errs or []))
                    sec_ = sum(x["measured"]["seconds"] for x in reps)
                    row["Time (s), measured: all runs / per run"] = f"{_seconds(sec_)} / {_seconds(sec_ / runs)}"
                    row["Backend"] = r["measured"].get("backend")
                rows.append(row)
    doc.h(3, "Final error, success rate and time")
    doc.p("Error: mean (standard deviation) over the runs of f_best - f* when the run ends. SR: the "
          "fraction of runs that ended with an error below the success threshold, with its Clopper-Pearson "
          "95% interval; the published SR (of 25 runs) is shown with the same interval, and a measured SR "
          "matches when it lies inside the published one's interval. Time: the published mean (std) per "
          "run; measured, the time of all runs together (done in one call, on a GPU in one launch) and that "
          "divided by the number of runs.")
    doc.table(pd.DataFrame(rows))
    doc.p(f"Total function evaluations in this setting: {_num(total_fev)}.")
    if mismatches:
        doc.p("Success rates outside the published interval: " + "; ".join(mismatches) + ".")
    if variant == "full":
        _hypotheses(doc, experiment, results)
    return total_fev, 0


# runs behind each published figure of Qin et al.'s tables
PUBLISHED_RUNS = 25
# relative tolerance on a mean error when [verdicts] rtol is not given: errors of runs that stop
# at a threshold scatter by about their own size
MEAN_RTOL = 0.5


def _triangulation(experiment, results):
    """(records of the experiment named in [verdicts] triangulate, grouped; its success_tol), or None."""
    name = experiment.verdicts.get("triangulate")
    if not name:
        return None
    from .triangulation import load
    e, groups = load(name, results)
    return groups, e.success_tol


def _row_verdict(doc, experiment, label, record, errs, run_success, pe, ps, tri=None, records=None):
    """The success rate (binomial interval), the mean error (t-interval or tolerance) and the spread
    (F test) of a row against the published, each by its rule (gpubench.reports.verdict); a row that
    differs carries what the independent implementations of ``tri`` gave at its settings
    (gpubench.reports.triangulation)."""
    from . import verdict as V
    if pe is None and ps is None:
        return NOT_PUBLISHED
    vs = experiment.verdicts
    if record is None or not errs:
        reason = vs.get("not_reproduced", {}).get(label, "no record at the paper's settings is stored")
        return doc.verdict(label, V.not_reproduced(reason))
    parts = []
    if ps is not None:
        parts.append(V.rate(sum(bool(x) for x in run_success), len(errs), float(ps["mean"])))
    if pe is not None:
        # the figures as printed (their rounding is part of the published value)
        text = experiment.published(as_printed=True).loc[pe.name]
        parts.append(V.mean(errs, float(pe["mean"]), vs.get("rtol", MEAN_RTOL), "mean error", printed=text["mean"]))
        if len(errs) > 1:
            parts.append(V.spread(errs, float(pe["std"]), PUBLISHED_RUNS, "error spread", printed=text["std"]))
    verdict = V.combine(parts).explained(vs.get("explained", {}).get(label))
    if tri and verdict.kind == V.DIFFERS and pe is not None and ps is not None:
        from . import triangulation as T
        (groups, tol), (function, dim, np_) = tri
        ours = T.Figure.of_runs(errs, run_success)
        paper = T.Figure.published(pe["mean"], pe["std"], ps["mean"], PUBLISHED_RUNS)
        entries, sentence = T.triangulate(groups, tol, function, dim, np_, ours, paper)
        verdict = verdict.triangulated(T.public(entries), sentence, T.explains(entries))
    return doc.verdict(label, verdict, records or [record])   # every run the row's figures pool


# Readings of the paper tested against its mismatched success rates (the former
# scripts/de_hypotheses.py, last in commit be84fd4)
HYPOTHESES_FILE = "gpu/de/qin2012_hypotheses.json"


def _hypotheses(doc, experiment, results):
    """The stored runs of the former scripts/de_hypotheses.py (last in commit be84fd4), when they
    name this experiment's report."""
    import pandas as pd

    from ..records.read import document, results_dir
    path = results_dir(results) / HYPOTHESES_FILE
    if not path.is_file():
        return
    rec = document(path)
    if experiment.id not in rec.get("reports", []):
        return
    doc.h(3, "Why success rates differ: readings of the paper tested")
    doc.p(f"The paper fixes DE/rand/1/bin, CR = 0.3, F = 0.5, 10^4 D evaluations, 25 runs and success as a "
          f"best error below 1e-8 (Section 5), and its Best EFV is the best error found, not a mean over the "
          f"population, so those readings are not in doubt. It does not print the bounds rule or how evaluations "
          f"are counted. Each reading below was run on the parallel CPU twin ({rec['runs']} runs per case, "
          f"scripts/de_hypotheses.py, stored in `results/{HYPOTHESES_FILE}`); a success rate matches when it "
          f"lies inside the 95% interval of the published one (of 25 runs).")
    rows, verdicts = [], []
    for case in rec["cases"]:
        label = f"{_function_label(case['function'])} D={case['D']} NP={case['NP']}"
        ps = case.get("published_success_rate")
        plo, phi = _clopper_pearson(round(ps * 25), 25) if ps is not None else (None, None)
        matched = []
        for key, res in case["results"].items():
            sr = res["success_rate"]
            ok = None if ps is None else plo - 1e-12 <= sr <= phi + 1e-12
            if ok and key != "evaluations_to_success":
                matched.append(key)
            n2s = res.get("evaluations_to_success_median")
            rows.append({"Case": label, "Reading": rec["hypotheses"].get(key, key),
                         "Error, measured": f"{res['error_mean']:.3g} ({res['error_std']:.3g})",
                         "SR, measured": f"{sr:.2f}",
                         "SR, published (95% CI)": NOT_PUBLISHED if ps is None else f"{ps:.2f} [{plo:.2f}, {phi:.2f}]",
                         "SR matches": NOT_PUBLISHED if ok is None else ("yes" if ok else "no"),
                         "Evaluations to error 1e-8 (median)":
                             "—" if n2s is None else f"{_num(int(n2s))} ({n2s / case['budget']:.1f} x budget)"})
        verdicts.append(f"{label}: " + (", ".join(matched) + " reproduce(s) the published success rate"
                                        if matched else "no reading tested reproduces the published success rate"))
    doc.table(pd.DataFrame(rows))
    doc.p("Outcome, per case: " + "; ".join(verdicts) + ". The last column of the evaluations-to-success "
          "rows is the budget a larger-budget reading would need. A case that no reading reproduces remains "
          "unexplained: the paper's shift vectors, random number generator, bounds rule and evaluation "
          "counting are not printed, and its code is not available.")

