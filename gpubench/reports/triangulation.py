"""Triangulation of a row that differs: independent implementations at the paper's settings.

A published row whose measured figure differs from the paper's is run again by implementations
of the same algorithm that share no code with gpubench's method (for paper 002's DE/rand/1/bin:
SciPy's ``differential_evolution``, EvoX's ``DE`` and evosax's ``DifferentialEvolution``), at the
row's settings, through the same harness: an experiment of its own (named in the table's
``[verdicts] triangulate``), whose records live in ``results/<its id>/``.  Each independent
implementation gives a figure, the mean final error over its runs (with its 95 % t-interval)
and the success rate (k of n); the row's verdict then says on which side each one falls.

The agreement rule (docs/verdicts.md), one rule for both sides:

* two mean errors agree when their 95 % intervals overlap, each widened by its printed
  precision: |m_a - m_b| <= h_a + h_b + p_a + p_b, where h is the half-width of Student's 95 %
  interval of the mean over the runs (for a published mean, from its printed standard
  deviation over the paper's runs) and p is half a unit of the last printed digit (0.0005 for
  the paper's three decimals; 0 for a measured mean);
* two success rates agree when their Clopper-Pearson 95 % intervals overlap (a published rate,
  printed to two decimals, widened by 0.005);
* an independent implementation *agrees with* a side when both of its figures agree with that
  side's.  It sides with ours, with the paper, with both (they are then too close to tell
  apart) or with neither.

A row is *explained* by its triangulation when at least one independent implementation agrees
with ours and none with the paper (nor with both): the published figure is not what the printed
algorithm at the printed settings gives.  One that agrees with neither is named, with the side it
is nearer.  When one agrees with the paper, gpubench's method is in question, and the row says so.
"""
import math
from dataclasses import dataclass, replace

# the independent implementations, named as a reader knows them
LIBRARY = {"differential_evolution": "SciPy", "evox-de": "EvoX", "evosax-de": "evosax"}
OURS = "ours"
PAPER = "the paper"
BOTH = "both"
NEITHER = "neither"


@dataclass(frozen=True)
class Figure:
    """A mean final error over n runs with its 95 % half-width, and k successes of n."""
    mean: float
    half: float
    k: int
    n: int
    precision: float = 0.0      # half a unit of the last printed digit (published figures)
    rate_precision: float = 0.0

    @classmethod
    def of_runs(cls, errors, successes):
        errs = [float(e) for e in errors]
        if not errs:
            raise ValueError("Figure.of_runs(): no runs")
        return cls(_mean(errs), _half(errs), sum(bool(s) for s in successes), len(errs))

    @classmethod
    def published(cls, mean, std, rate, runs, decimals=3, rate_decimals=2):
        """A published mean (std) over ``runs`` runs, printed to ``decimals``, and its success rate."""
        half = _t975(runs - 1) * float(std) / math.sqrt(runs) if runs > 1 and std == std else 0.0
        return cls(float(mean), half, round(float(rate) * runs), runs, 0.5 * 10.0 ** -decimals,
                   0.5 * 10.0 ** -rate_decimals)

    def rate_interval(self):
        from .verdict import clopper_pearson
        lo, hi = clopper_pearson(self.k, self.n)
        return lo - self.rate_precision, hi + self.rate_precision

    def text(self):
        return f"{_g(self.mean)} +- {_g(self.half)}, success {self.k}/{self.n}"


def _mean(v):
    return math.fsum(v) / len(v)


def _t975(df):
    from scipy import stats
    return float(stats.t.ppf(0.975, df))


def _half(v):
    if len(v) < 2:
        return 0.0
    m = _mean(v)
    s = math.sqrt(math.fsum((x - m) ** 2 for x in v) / (len(v) - 1))
    return _t975(len(v) - 1) * s / math.sqrt(len(v))


def _g(x):
    return f"{x:.3g}"


def means_agree(a, b):
    """The two means' 95 % intervals, each widened by its printed precision, overlap."""
    return abs(a.mean - b.mean) <= a.half + b.half + a.precision + b.precision


def rates_agree(a, b):
    """The two success rates' Clopper-Pearson 95 % intervals overlap."""
    alo, ahi = a.rate_interval()
    blo, bhi = b.rate_interval()
    return alo <= bhi and blo <= ahi


def agrees(a, b):
    return means_agree(a, b) and rates_agree(a, b)


def side(independent, ours, paper):
    """Which side an independent figure takes: OURS, PAPER, BOTH or NEITHER."""
    o, p = agrees(independent, ours), agrees(independent, paper)
    if (o or p) and agrees(ours, paper):
        # ours and the paper agree by this rule (a printed 0.000 against 1e-28, say): no side to take
        return BOTH
    return BOTH if o and p else OURS if o else PAPER if p else NEITHER


# ---------------------------------------------------------------- records
def run_errors(records, success_tol):
    """(errors, successes) of every run in ``records`` (one case's repetitions): a record of many
    runs states them (``history["run_error"]``, ``run_success``; or ``run_fun`` and f*), a record
    of one run is its final error, best f - f*.  Success: error <= success_tol, unless stated."""
    errors, successes = [], []
    for r in sorted(records, key=lambda r: r.get("repetition", 0)):
        h = r.get("history") or {}
        fstar = r.get("fstar")
        sign = -1.0 if r.get("sense") == "max" else 1.0
        if h.get("run_error"):
            e = [float(x) for x in h["run_error"]]
            s = [bool(x) for x in h.get("run_success", [])] or [x <= success_tol for x in e]
        elif h.get("run_fun") and fstar is not None:
            e = [sign * (float(x) - fstar) for x in h["run_fun"]]
            s = [x <= success_tol for x in e]
        elif fstar is not None and r.get("measured", {}).get("fun") is not None:
            e = [sign * (float(r["measured"]["fun"]) - fstar)]
            s = [e[0] <= success_tol]
        else:
            continue
        errors += e
        successes += s
    return errors, successes


def by_case(records):
    """{(method, function, dim, np): [records]} of a triangulation experiment (repetitions together)."""
    out = {}
    for r in records:
        np_ = (r.get("settings") or {}).get("np")
        out.setdefault((r["method"], r["function"], r["dim"], np_), []).append(r)
    return out


def load(experiment_id, results=None):
    """The triangulation experiment and its full-setting records grouped :func:`by_case`."""
    from ..workflow import experiments_loader as loader
    from ..records.read import load_records, results_dir
    from ..workflow.runner import plan
    e = loader.load(experiment_id)
    folder = results_dir(results) / e.id
    # only the cases the experiment plans now: a record of an entry since changed or removed is not read
    planned = {c.case_id for c in plan(e)}
    recs = [dict(r, _path=f"results/{e.id}/{r['case']}.json")
            for r in load_records(folder, warn=False) if r["case"] in planned]
    return e, by_case(recs)


def triangulate(groups, success_tol, function, dim, np_, ours, paper):
    """The triangulation entries of one row, {method, figure, side, records}, one per independent
    implementation stored for it (in LIBRARY's order), and the row's sentence."""
    entries = []
    for method, lib in LIBRARY.items():
        recs = groups.get((method, function, dim, np_), [])
        errs, succ = run_errors(recs, success_tol)
        if not errs:
            continue
        fig = Figure.of_runs(errs, succ)
        seeds = sorted({_seed(r) for r in recs})
        entries.append({"method": lib, "figure": fig.text(), "runs": fig.n, "seeds": seeds,
                        "side": side(fig, ours, paper), "records": sorted(r["_path"] for r in recs),
                        "_figure": fig})
    return entries, sentence(entries, ours, paper)


def _seed(r):
    s = (r.get("options") or {}).get("seed", (r.get("settings") or {}).get("seed", 0))
    return int(s) if s is not None else 0


def _names(xs):
    return xs[0] if len(xs) == 1 else ", ".join(xs[:-1]) + " and " + xs[-1]


def sentence(entries, ours, paper):
    """'SciPy, EvoX and evosax at the same settings give 0.21, 0.25 and 0.19: they agree with ours
    (0.205), not with the paper (0)' and its mixed and opposite forms; '' without entries."""
    if not entries:
        return ""
    names = [e["method"] for e in entries]
    give = (f"{_names(names)} at the same settings give mean error "
            + _names([_g(e["_figure"].mean) for e in entries])
            + " (success " + _names([f"{e['_figure'].k}/{e['_figure'].n}" for e in entries]) + ")")
    refs = f"ours {_g(ours.mean)} (success {ours.k}/{ours.n}), the paper {_g(paper.mean)} (success {paper.k}/{paper.n})"
    sides = {e["side"] for e in entries}
    one = len(entries) == 1
    if agrees(ours, paper):
        return (f"{give}; ours and the paper agree by the triangulation rule (the paper's figures are "
                f"printed to 3 decimals), so the difference is in the row's rule, not in the figures ({refs})")
    if sides == {OURS}:
        return f"{give}: {'it agrees' if one else 'they agree'} with ours, not with the paper ({refs})"
    if sides == {PAPER}:
        return (f"{give}: {'it agrees' if one else 'they agree'} with the paper, not with ours ({refs}): "
                "de-gpu is in question")
    groups = {}
    for e in entries:
        groups.setdefault(e["side"], []).append(e)
    parts = []
    for s_ in (OURS, PAPER, BOTH, NEITHER):
        es = groups.get(s_, [])
        if not es:
            continue
        who = _names([e["method"] for e in es])
        verb = "agrees" if len(es) == 1 else "agree"
        if s_ == NEITHER:
            near = [nearer(e["_figure"], ours, paper) for e in es]
            parts.append(f"{who} with neither (nearer {near[0]})" if len(set(near)) == 1 else
                         f"{who} with neither (" + ", ".join(
                             f"{e['method']} nearer {n}" for e, n in zip(es, near)) + ")")
        elif s_ == BOTH:
            parts.append(f"{who} {verb} with both (too few runs to tell them apart)")
        else:
            parts.append(f"{who} {verb} with {s_}")
    tail = ": de-gpu is in question" if PAPER in sides else ""
    return f"{give}: " + "; ".join(parts) + f" ({refs}){tail}"


def nearer(fig, ours, paper):
    """OURS or PAPER: whose mean the figure's is nearer to (on a log scale where all are positive)."""
    def dist(a, b):
        if a > 0 and b > 0:
            return abs(math.log(a / b))
        return abs(a - b) / max(abs(a), abs(b), 1e-300)
    return OURS if dist(fig.mean, ours.mean) <= dist(fig.mean, paper.mean) else PAPER


def explains(entries):
    """A triangulation explains a difference when no independent implementation agrees with the
    paper and at least one agrees with ours (one that agrees with neither is named in the sentence:
    EvoX, for one, is DE/rand/1/bin with indices drawn with replacement and clamped bounds)."""
    sides = [e["side"] for e in entries]
    return OURS in sides and not any(s in (PAPER, BOTH) for s in sides)


def public(entries):
    """The entries as stored in reports/verdicts/*.json (the Figure object left out)."""
    return [{k: v for k, v in e.items() if not k.startswith("_")} for e in entries]


# ---------------------------------------------------------------- paper 004, Table 1: bins
def share_side(independent, ours, paper, atol):
    """Which side an independent share of iterations (in percent) takes: within ``atol`` points of
    ours and not of the paper's ("ours"), the reverse ("the paper"), both, or neither."""
    o, p = abs(independent - ours) <= atol, abs(independent - paper) <= atol
    return BOTH if o and p else OURS if o else PAPER if p else NEITHER


def _table1_sides(experiment_id, pub, results):
    """The independent path's records of Table 1 by problem (those with bins), and the published
    rows by their label "problem, row"."""
    _, groups = load(experiment_id, results)
    by_problem = {}
    for (_, function, dim, _), recs in groups.items():
        by_problem.setdefault(function, []).extend(r for r in recs if "bins" in (r.get("result") or {}))
    return by_problem, {f"{row['problem']}, {row['row_label']}": row for _, row in pub.iterrows()}


def bin_rows(judged, pub, experiment_id, problems, atol, results=None):
    """Table 1's judged rows, each one that differs carrying the same bin's share along the
    independent path (experiment ``experiment_id``: SciPy's L-BFGS-B, the Cauchy steps by code of
    its own; records grouped by problem), and the row explained where that share sides with ours.
    ``problems``: the published problem name -> the MINPACK-2 name."""
    from . import verdict as V
    by_problem, published = _table1_sides(experiment_id, pub, results)
    out = []
    for label, v, recs, *rest in judged:
        row = published.get(label)
        if v.kind != V.DIFFERS or row is None or str(row["row_label"]) == "Energy Diff" or not recs:
            out.append((label, v, recs, *rest))
            continue
        bin_ = str(row["row_label"])
        name = "minpack2:" + problems.get(str(row["problem"]), "?")
        mine = [r for r in by_problem.get(name, []) if r["dim"] == recs[0]["dim"]]
        if not mine:
            out.append((label, v, recs, *rest))
            continue
        ours, paper = float(recs[0]["result"]["bins"].get(bin_, 0.0)), float(row["percent"])
        ind = float(mine[0]["result"]["bins"].get(bin_, 0.0))
        taken = share_side(ind, ours, paper, atol)
        its = mine[0]["measured"]
        entry = {"method": "SciPy L-BFGS-B path, Cauchy steps by independent code", "runs": 1,
                 "figure": f"{ind:.2f} % of {its['iterations']} iterations in bin {bin_} (ours {ours:.2f} %, "
                           f"the paper {paper:.2f} %)",
                 "side": taken, "records": [f"results/{experiment_id}/{mine[0]['case']}.json"]}
        words = {OURS: "it agrees with ours, not with the paper",
                 PAPER: "it agrees with the paper, not with ours: our Cauchy point code is in question",
                 BOTH: "it is within the tolerance of both", NEITHER: "it agrees with neither"}[taken]
        sentence = (f"SciPy's L-BFGS-B path (driven by the exact Cauchy point) with the approximate and exact "
                    f"Cauchy steps computed by independent code puts {ind:.2f} % of its {its['iterations']} iterations "
                    f"in bin {bin_} (within {atol:g} points): {words} (ours {ours:.2f} %, the paper {paper:.2f} %)")
        out.append((label, v.triangulated([entry], sentence, explains=taken == OURS), recs, *rest))
    return out


def energy_rows(judged, pub, experiment_id, problems, atol, results=None):
    """Table 1's "Energy Diff" rows that differ, each beside SciPy's L-BFGS-B run on the same problem,
    n, box, m and stop rule (experiment ``experiment_id``).  SciPy's run is driven by the exact Cauchy
    point, as our "exact" arm is: the row's difference, (f_approximate - f_exact) / |f_exact| in
    percent, is taken again with SciPy's end energy as the exact arm.  That figure within ``atol``
    (percent) of ours and not of the paper's explains the row (our exact arm's end is where an
    independent implementation ends too); otherwise the row stays unexplained, with the figures."""
    from . import verdict as V
    by_problem, published = _table1_sides(experiment_id, pub, results)
    out = []
    for label, v, recs, *rest in judged:
        row = published.get(label)
        if v.kind != V.DIFFERS or row is None or str(row["row_label"]) != "Energy Diff" or not recs:
            out.append((label, v, recs, *rest))
            continue
        name = "minpack2:" + problems.get(str(row["problem"]), "?")
        # a run that ended by the rule, else one that met a point where f is not a number
        mine = sorted((r for r in by_problem.get(name, []) if r["dim"] == recs[0]["dim"]
                       and ((r.get("measured") or {}).get("converged")
                            or not math.isfinite(float((r.get("measured") or {}).get("fun", 0.0))))),
                      key=lambda r: not (r.get("measured") or {}).get("converged"))
        res = recs[0].get("result") or {}
        a, e = res.get("approximate") or {}, res.get("exact") or {}
        if not mine or a.get("fun") is None or e.get("fun") is None:
            out.append((label, v, recs, *rest))
            continue
        its = mine[0]["measured"]
        f_ind, f_a, f_e = float(its["fun"]), float(a["fun"]), float(e["fun"])
        ours, paper = float(res.get("energy_diff_percent") or 0.0), float(row["percent"])
        where = [f"results/{experiment_id}/{mine[0]['case']}.json"]
        if not math.isfinite(f_ind):
            # SciPy's line search does not step back from a trial point where f is not a number (it
            # ends ABNORMAL): the independent run has no end energy on this instance, and says so
            taken = NEITHER
            sentence = figure = (
                f"SciPy's exact-Cauchy run at the same settings stops after {its['iterations']} iteration(s) "
                f"with f = {f_ind} ({its.get('message', '')}): its line search met a point where the energy is "
                f"not a number, so it gives no end energy to set beside ours ({ours:.4g} %) or the paper's ({paper:g} %)")
        else:
            ind = (f_a - f_ind) / max(abs(f_ind), 1e-300) * 100.0
            o, pp = abs(ind - ours) <= atol, abs(ind - paper) <= atol
            taken = BOTH if o and pp else OURS if o else PAPER if pp else NEITHER
            figure = (f"SciPy's exact-Cauchy run ends at f = {f_ind:.10g} after {its['iterations']} iterations "
                      f"(our exact arm {f_e:.10g} after {e.get('iterations')}, our approximate arm {f_a:.10g} after "
                      f"{a.get('iterations')}): the difference with SciPy's run as the exact arm is {ind:.4g} % "
                      f"(ours {ours:.4g} %, the paper {paper:g} %)")
            words = {OURS: "it agrees with ours, not with the paper",
                     PAPER: "it agrees with the paper, not with ours: our exact arm is in question",
                     BOTH: "it is within the tolerance of both", NEITHER: "it agrees with neither"}[taken]
            sentence = f"{figure}; within {atol:g} points: {words}"
        entry = {"method": "SciPy L-BFGS-B (exact Cauchy point), same problem, n, box, m and stop",
                 "runs": 1, "figure": figure, "side": taken, "records": where}
        out.append((label, v.triangulated([entry], sentence, explains=taken == OURS), recs, *rest))
    return out


def _at_safeguard(record):
    """Whether ``record`` ran under the stated rule (f_k - f_{k+1} < energy_tol) and stopped at its
    iteration safeguard (``maxiter``) with the rule not met."""
    s, m = record.get("settings") or {}, record.get("measured") or {}
    under_rule = s.get("stop", "energy_decrease" if "energy_tol" in s else "pg") == "energy_decrease"
    cap = s.get("maxiter")
    return (under_rule and not m.get("converged") and not m.get("capped") and isinstance(cap, int)
            and int(m.get("iterations") or 0) >= cap)


def _fun(record):
    m = record.get("measured") or {}
    return m.get("fun", m.get("best_f"))


def safeguard_rows(judged, experiment_id, results=None):
    """Table 1's rows whose run stopped at its iteration safeguard (``maxiter``) under the stated rule,
    each beside SciPy's L-BFGS-B path (experiment ``experiment_id``) for the same problem, n, m, box,
    rule and safeguard.  Where SciPy's run reaches the safeguard too, the rule does not end the paper's
    algorithm on our instance of the problem within it, by two independent implementations: the row
    is *not reproduced* for that definition reason (the paper prints neither Table 1's stop rule nor
    the problem's free parameters), with both runs' figures.  Where SciPy's ends by the rule, ours is in
    question: the row is left to the validity gate (not yet run at the paper's settings), the
    sentence saying so.  No SciPy record: left as it is."""
    from . import verdict as V
    _, groups = load(experiment_id, results)
    theirs = [r for recs in groups.values() for r in recs]
    out = []
    for label, v, recs, *rest in judged:
        ours = recs[0] if recs else None
        if ours is None or not _at_safeguard(ours):
            out.append((label, v, recs, *rest))
            continue
        same = ("m", "box", "energy_tol", "maxiter")
        ind = next((r for r in theirs if r["function"] == ours["function"] and r["dim"] == ours["dim"]
                    and all((r.get("settings") or {}).get(k) == ours["settings"].get(k) for k in same)), None)
        if ind is None:
            out.append((label, v, recs, *rest))
            continue
        cap, n = int(ours["settings"]["maxiter"]), int(ours["dim"])
        res = ours.get("result") or {}
        ofun = ", ".join(f"{k} f = {res[k]['fun']:.6g}" for k in ("approximate", "exact") if k in res) \
            or f"f = {_fun(ours):.6g}"
        mi = ind["measured"]
        path = f"results/{experiment_id}/{ind['case']}.json"
        if _at_safeguard(ind):
            figure = f"{int(mi['iterations']):,} iterations, the rule not met, f = {_fun(ind):.6g}"
            # it takes the course ours took: no end by the rule within the safeguard
            entry = {"method": "SciPy L-BFGS-B path", "figure": figure, "side": OURS, "records": [path]}
            reason = (f"definition: the paper bins every iteration of runs that ended, but on our instance of this "
                      f"problem the stated rule (an iteration decreasing f by less than "
                      f"{ours['settings'].get('energy_tol', 1e-64):g}) ends neither our L-BFGS-B ({ofun}) nor "
                      f"SciPy's, an independent implementation ({figure}), within {cap:,} iterations at n = {n:,}: "
                      f"the paper prints neither Table 1's stop rule (section 4.1; the 1e-64 rule is section 5's) "
                      f"nor this problem's free parameters, so its runs were not of this instance at this rule")
            out.append((label, V.Verdict(V.NOT_REPRODUCED, v.rule, reason, records=v.records,
                                         triangulation=tuple(v.triangulation) + (entry,)), recs + [ind], *rest))
            continue
        # SciPy ended by the rule where ours did not: the gate keeps the row not yet run; say so
        sentence = (f"SciPy's L-BFGS-B path ended by the stated rule after {int(mi['iterations']):,} iterations "
                    f"(f = {_fun(ind):.6g}) where ours reached its safeguard {cap:,}: our L-BFGS-B is in question")
        entry = {"method": "SciPy L-BFGS-B path", "figure": sentence, "side": PAPER, "records": [path]}
        out.append((label, _noted(v, sentence, entry), recs, *rest))
    return out


def _noted(v, sentence, entry):
    """``v`` with an independent run's ``entry`` and ``sentence`` attached, whatever its kind."""
    reason = f"{v.reason}; {sentence}" if v.reason else sentence
    return replace(v, reason=reason, triangulation=tuple(v.triangulation) + (entry,))


# ---------------------------------------------------------------- paper 004, Table 4: iteration counts
def count_side(independent, measured, published, rtol):
    """Which side an independent iteration count takes: within ``rtol`` (relatively) of ours and not
    of the paper's ("ours"), the reverse ("the paper"), within both ("both"), or neither."""
    i, m, p = float(independent), float(measured), float(published)
    o, q = abs(i - m) <= rtol * abs(m), abs(i - p) <= rtol * abs(p)
    return BOTH if o and q else OURS if o else PAPER if q else NEITHER


def table4_entries(cpu, gpu, exact, row, rtol):
    """Table 4's triangulation of a differing row, one entry per column that differs: the GPU column
    (ours, approximate Cauchy point) beside SciPy's L-BFGS-B (the CPU column's record, independent of
    ours); the CPU column (SciPy's) beside gpubench's L-BFGS-B with the exact Cauchy point (the
    algorithm of the paper's CPU column, code independent of SciPy's).  Returns (entries, sentence,
    explains): explained when every differing column's independent figure sides with ours alone."""
    s, g = int(cpu["measured"]["iterations"]), int(gpu["measured"]["iterations"])
    pc, pg = float(row["cpu_itr"]), float(row["gpu_itr"])
    entries, words = [], []
    if abs(g - pg) > rtol * abs(pg):
        taken = count_side(s, g, pg, rtol)
        entries.append({"method": "SciPy L-BFGS-B (the CPU column's run)", "side": taken,
                        "figure": f"{s} iterations (ours, GPU column {g}; the paper's GPU column {pg:g})",
                        "records": [cpu["case"]]})
        words.append(f"GPU column: SciPy's L-BFGS-B, independent of ours, takes {s} iterations at the same size and "
                     f"stop ({_count_words(taken)}: ours {g}, the paper {pg:g})")
    if abs(s - pc) > rtol * abs(pc) and exact is not None:
        e = int(exact["measured"]["iterations"])
        taken = count_side(e, s, pc, rtol)
        entries.append({"method": "gpubench L-BFGS-B, exact Cauchy point", "side": taken,
                        "figure": f"{e} iterations (SciPy, CPU column {s}; the paper's CPU column {pc:g})",
                        "records": [exact["case"]]})
        words.append(f"CPU column: gpubench's L-BFGS-B with the exact Cauchy point (the paper's CPU algorithm, code "
                     f"independent of SciPy's) takes {e} iterations ({_count_words(taken)}: SciPy {s}, the paper {pc:g})")
    explains = bool(entries) and all(t["side"] == OURS for t in entries)
    return entries, "; ".join(words), explains


def _count_words(taken):
    return {OURS: "it agrees with ours, not with the paper", PAPER: "it agrees with the paper, not with ours",
            BOTH: "within the tolerance of both", NEITHER: "it agrees with neither"}[taken]


# ---------------------------------------------------------------- paper 003, Tables 1-3: time ratios
# the independent implementations of paper 003's compared pairs, named as the row says them
RATIO_METHODS = {"cholesky-torch": "PyTorch (column loop, vectorised over the batch)",
                 "triangular-torch": "PyTorch (column loop, vectorised over the batch)",
                 "newton-batch-independent": "a projected Newton kernel written apart from our TRON (numba-CUDA)"}


def ratio_side(independent, ours, paper, rtol):
    """Which side an independent time ratio (the second of a table's pair over the first) takes, by
    the row's own rule: the same one of the pair faster, and the ratio within ``rtol`` (relatively)
    of that side's."""
    def agree(a, b):
        return (a > 1) == (b > 1) and abs(a - b) <= rtol * abs(b)
    o, p = agree(independent, ours), agree(independent, paper)
    return BOTH if o and p else OURS if o else PAPER if p else NEITHER


def pair_means(records, keys):
    """({key: mean ms over the n both keys have}, the figure used, those n) of GPU records: the mean
    of ``ms_graph`` where every such record has one (the GPU's own work), else of ``ms``; ({}, '', [])
    without a GPU record of both keys."""
    gpu = [r for r in records if r.get("key") in keys and (r.get("measured") or {}).get("backend") == "cuda"
           and r["measured"].get("ms") is not None]     # (a CPU's or the CUDA simulator's times are not judged)
    ns = sorted(set.intersection(*[{r["dim"] for r in gpu if r["key"] == k} for k in keys])) if gpu else []
    if not ns:
        return {}, "", []
    used = [r for r in gpu if r["dim"] in ns]
    field = "ms_graph" if all(r["measured"].get("ms_graph") is not None for r in used) else "ms"
    means = {}
    for k in keys:
        by_n = {r["dim"]: float(r["measured"][field]) for r in used if r["key"] == k}
        means[k] = math.fsum(by_n[n] for n in ns) / len(ns)
    return means, field, ns


def ratio_rows(judged, experiment, pub, results=None):
    """Paper 003's Tables 1-3 judged rows, each that differs carrying the time ratio of the same pair
    by an independent implementation (the experiment ``[verdicts] triangulate`` names, whose entries
    have the table's keys), with the side it takes (:func:`ratio_side`); explained where it sides
    with ours.  Without its GPU records the row says the triangulation is not yet measured."""
    from . import verdict as V
    name = experiment.verdicts["triangulate"]
    rtol = experiment.verdicts.get("rtol", 0.25)
    keys = [spec.key for spec in experiment.variant(False).methods]
    labels = [str(x) for x in pub.iloc[:, 0]]
    times = [float(x) for x in pub["time_ms"]]
    e, groups = load(name, results)
    theirs = [r for rs in groups.values() for r in rs]
    procs = sorted({spec.method for spec in e.variant(False).methods})
    method = RATIO_METHODS.get(procs[0], procs[0]) if len(procs) == 1 else ", ".join(procs)
    out = []
    for label, v, recs, *rest in judged:
        if v.kind != V.DIFFERS or len(keys) != 2 or len(times) != 2:
            out.append((label, v, recs, *rest))
            continue
        ours_m, _, ours_n = pair_means(recs, keys)
        ind_m, field, ind_n = pair_means(theirs, keys)
        if not ours_m:
            out.append((label, v, recs, *rest))
            continue
        what = f"time ratio {labels[1]} / {labels[0]}"
        if not ind_m:
            out.append((label, v.explained(f"{v.reason}: its triangulation ({name}, the same pair by {method}) "
                                           "is not yet measured (no GPU record of both entries)"), recs, *rest))
            continue
        ro, rp = ours_m[keys[1]] / ours_m[keys[0]], times[1] / times[0]
        ri = ind_m[keys[1]] / ind_m[keys[0]]
        if set(ours_n) - set(ind_n):
            # a mean over fewer n is another statistic (the small matrices only): reported, not judged
            out.append((label, v.explained(
                f"{v.reason}: its triangulation ({name}, the same pair by {method}) is partly measured "
                f"({len(ind_n)} of ours' {len(ours_n)} n: {what} {ri:.4g} over those n), not judged until "
                "every n is measured"), recs, *rest))
            continue
        taken = ratio_side(ri, ro, rp, rtol)
        of = f"{len(ind_n)} n"
        figure = (f"{what} {ri:.4g} (mean {field.replace('_', ' ')} over {of}: {labels[0]} {ind_m[keys[0]]:.4g} ms, "
                  f"{labels[1]} {ind_m[keys[1]]:.4g} ms)")
        paths = sorted(r["_path"] for r in theirs if r.get("key") in keys and r["dim"] in ind_n
                       and (r.get("measured") or {}).get("backend") == "cuda")
        entry = {"method": method, "figure": figure, "runs": len(ind_n), "side": taken, "records": paths}
        words = {OURS: "it agrees with ours, not with the paper",
                 PAPER: "it agrees with the paper, not with ours: our kernels are in question",
                 BOTH: "it is within the tolerance of both",
                 NEITHER: f"it agrees with neither (nearer {_nearer_ratio(ri, ro, rp)})"}[taken]
        sentence = (f"the same pair by {method} ({name}) gives a {figure}: {words} "
                    f"(ours {ro:.4g}, the paper {rp:.4g}; the row's rule: the same one faster, within rtol {rtol:g})")
        out.append((label, v.triangulated([entry], sentence, explains=taken == OURS), recs, *rest))
    return out


def _nearer_ratio(r, ours, paper):
    return OURS if abs(math.log(r / ours)) <= abs(math.log(r / paper)) else PAPER
