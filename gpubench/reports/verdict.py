"""Verdicts on reproduced rows: every published row is judged by a stated rule, never by eye.

A row *matches* when its rule holds: exact equality for counts (iterations, regions); for a
success rate, the published rate lies inside the Clopper-Pearson 95 % interval of the measured
k of n; for a mean over runs, the published mean lies inside the measured mean's 95 % interval
(Student's t) or within a stated relative tolerance; for any other statistic, a stated relative
tolerance.  A row that fails its rule *differs*, with the explanation the suite found or "not
explained".  A row that is not measured is *not reproduced* with a reason about data or
definition (budget is never a reason), or *not implemented yet* while the capability is missing.
Timings on other hardware are facts beside the row, not a verdict: they are never judged.

The rule of each verdict is stored with it, so a report can say how every row was judged.
"""
import math
from collections import Counter
from dataclasses import dataclass, replace

MATCHES = "matches"
DIFFERS = "differs"
NOT_REPRODUCED = "not reproduced"
NOT_IMPLEMENTED = "not implemented yet"
# the rule held, but on this row it could not have told the published figure from none: counted
# apart from the matches (a 10-point tolerance on a cell the paper prints as 0.35 %)
NOT_INFORMATIVE = "not informative"
KINDS = (MATCHES, DIFFERS, NOT_INFORMATIVE, NOT_REPRODUCED, NOT_IMPLEMENTED)
NOT_EXPLAINED = "not explained"


@dataclass(frozen=True)
class Verdict:
    kind: str
    rule: str
    reason: str = ""        # differs: the explanation found (or NOT_EXPLAINED); not reproduced: why
    failed: str = ""        # differs: the rule(s) that did not hold
    # differs: what independent implementations at the row's settings gave, each
    # {method, figure, records, ...} (gpubench.reports.triangulation); stored with the row
    triangulation: tuple = ()
    records: tuple = ()     # the case ids of the stored records the verdict rests on

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown verdict {self.kind!r}")
        if self.kind in (NOT_REPRODUCED, NOT_INFORMATIVE) and not self.reason:
            raise ValueError(f"a row {self.kind} needs its reason")

    def explained(self, explanation):
        """This verdict with an explanation attached where it differs (others are unchanged)."""
        if self.kind != DIFFERS or not explanation:
            return self
        return replace(self, reason=explanation)

    def triangulated(self, entries, sentence, explains):
        """This verdict with its triangulation (a difference only): the entries, and the sentence as
        its reason when it ``explains`` the difference, else after the reason it had."""
        if self.kind != DIFFERS or not entries:
            return self
        for t in entries:
            if not {"method", "figure", "records"} <= set(t):
                raise ValueError(f"a triangulation entry needs method, figure and records, got {sorted(t)}")
        if explains:
            reason = sentence
        elif self.reason == NOT_EXPLAINED:
            reason = f"{NOT_EXPLAINED}: {sentence}"
        else:
            reason = f"{self.reason}; {sentence}"
        return replace(self, reason=reason, triangulation=tuple(entries))

    @property
    def cell(self):
        """One table cell: the verdict, and for a difference or a missing row its reason."""
        out = self.kind + (f" ({self.failed})" if self.kind == DIFFERS and self.failed else "")
        if self.kind in (DIFFERS, NOT_REPRODUCED, NOT_INFORMATIVE) and self.reason:
            out += f": {self.reason}"
        return out


def _differs(rule, failed):
    return Verdict(DIFFERS, rule, NOT_EXPLAINED, failed)


def exact(measured, published, what="count"):
    """Counts: equal or not."""
    rule = f"{what} equal to the published"
    if measured is None:
        raise ValueError("exact(): a measured value is needed (use not_reproduced for a missing row)")
    return Verdict(MATCHES, rule) if measured == published else _differs(rule, f"{what} {measured} vs {published}")


def clopper_pearson(k, n, level=0.95):
    """The exact (Clopper-Pearson) interval of a binomial proportion k of n."""
    from scipy import stats
    if n <= 0 or not 0 <= k <= n:
        raise ValueError(f"clopper_pearson(): need 0 <= k <= n, n > 0 (got k={k}, n={n})")
    ci = stats.binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method="exact")
    return float(ci.low), float(ci.high)


def rate(k, n, published):
    """A success rate: the published rate inside the 95 % interval of the measured k of n."""
    lo, hi = clopper_pearson(k, n)
    rule = f"published rate inside the Clopper-Pearson 95% interval of the measured {k} of {n} [{lo:.2f}, {hi:.2f}]"
    # a rate printed to two decimals is judged with that rounding's half-width
    ok = lo - 0.005 <= float(published) <= hi + 0.005
    return Verdict(MATCHES, rule) if ok else _differs(rule, f"success rate {k}/{n} [{lo:.2f}, {hi:.2f}] vs {published}")


def printed_halfwidth(text):
    """Half a unit of the last digit a published figure was printed with ('0.000': 0.0005,
    '1.2E-05': 5e-07, '52': 0.5): the true value lies within it of the printed one.  0 for a
    figure with no printed text (None, '')."""
    t = str(text or "").strip().lower().replace("\u2212", "-")
    if not t:
        return 0.0
    mant, _, exp = t.partition("e")
    digits = len(mant.partition(".")[2]) if "." in mant else 0
    try:
        e = int(exp) if exp else 0
        float(mant)
    except ValueError:
        return 0.0
    return 0.5 * 10.0 ** (e - digits)


def mean(values, published, rtol=0.0, what="mean", printed=None):
    """A mean over runs: the published mean inside the measured mean's 95 % t-interval, or within
    ``rtol`` of it (relative to the published value), the published figure's rounding allowed
    (``printed``: its text as printed, e.g. '0.000' stands for anything under 0.0005)."""
    from scipy import stats
    vals = [float(v) for v in values]
    if not vals:
        raise ValueError("mean(): no values")
    m = math.fsum(vals) / len(vals)
    if len(vals) > 1:
        s = math.sqrt(math.fsum((v - m) ** 2 for v in vals) / (len(vals) - 1))
        half = float(stats.t.ppf(0.975, len(vals) - 1)) * s / math.sqrt(len(vals))
    else:
        half = 0.0
    p = float(published)
    h = printed_halfwidth(printed)
    tol = max(half, rtol * abs(p)) + h
    rule = (f"published {what} inside the measured mean's 95% interval ({m:.3g} +- {half:.2g})"
            + (f" or within {rtol:g} of it, relatively" if rtol else "")
            + (f", its printed rounding ({printed}: +- {h:.2g}) allowed" if h else ""))
    return Verdict(MATCHES, rule) if abs(p - m) <= tol else _differs(rule, f"{what} {m:.3g} +- {half:.2g} vs {p:.3g}")


def spread(values, published_std, n_published, what="standard deviation", printed=None):
    """A spread over runs: the two-sided F test of the measured variance against the published one
    (of ``n_published`` runs) does not reject equality at the 5 % level.  With ``printed`` (the
    published figure's text), the published spread is anywhere within its rounding: a measured one
    inside that range matches, else it is tested against the range's nearer end."""
    from scipy import stats
    vals = [float(v) for v in values]
    if len(vals) < 2 or n_published < 2:
        raise ValueError("spread(): need at least two runs on each side")
    m = math.fsum(vals) / len(vals)
    s2 = math.fsum((v - m) ** 2 for v in vals) / (len(vals) - 1)
    h = printed_halfwidth(printed)
    ps = float(published_std)
    rule = (f"{what}: F test of the measured variance against the published ({n_published} runs) at 5%"
            + (f", its printed rounding ({printed}: +- {h:.2g}) allowed" if h else ""))
    failed = f"{what} {math.sqrt(s2):.3g} vs {ps:.3g}"
    if h:
        if ps - h <= math.sqrt(s2) <= ps + h:
            return Verdict(MATCHES, rule)
        ps = ps + h if math.sqrt(s2) > ps + h else ps - h
    p2 = ps ** 2
    if s2 == 0 or p2 == 0:
        return Verdict(MATCHES, rule) if s2 == p2 else _differs(rule, failed)
    f = s2 / p2
    d1, d2 = len(vals) - 1, n_published - 1
    p = 2 * min(float(stats.f.cdf(f, d1, d2)), float(stats.f.sf(f, d1, d2)))
    return Verdict(MATCHES, rule) if p >= 0.05 else _differs(rule, f"{failed} (F test p = {p:.2g})")


def relative(measured, published, rtol, what="value"):
    """Any other statistic: within ``rtol`` of the published value (absolute when it is 0)."""
    p, m = float(published), float(measured)
    rule = f"{what} within {rtol:g} of the published, relatively"
    ok = abs(m - p) <= rtol * abs(p) if p != 0 else abs(m) <= rtol
    return Verdict(MATCHES, rule) if ok else _differs(rule, f"{what} {m:.4g} vs {p:.4g} (rtol {rtol:g})")


def absolute(measured, published, atol, what="value", floor=False):
    """A figure in fixed units (a percentage of iterations, say): within ``atol`` of the published.
    ``floor``: where the published and the measured figure are both under ``atol``, the rule holds
    whatever they are -- the row is *not informative*, not a match."""
    p, m = float(published), float(measured)
    rule = f"{what} within {atol:g} of the published"
    if abs(m - p) > atol:
        return _differs(rule, f"{what} {m:.4g} vs {p:.4g} (atol {atol:g})")
    if floor and abs(p) < atol and abs(m) < atol:
        return Verdict(NOT_INFORMATIVE, rule, f"{m:.4g} measured and {p:.4g} published are both under the "
                       f"tolerance {atol:g}: the rule cannot tell either from 0")
    return Verdict(MATCHES, rule)


def ordering(measured_first_smaller, published_first_smaller, what):
    """A qualitative claim (which of two is faster, larger ...): the same direction or not."""
    rule = f"the same direction as published: {what}"
    same = bool(measured_first_smaller) == bool(published_first_smaller)
    return Verdict(MATCHES, rule) if same else _differs(rule, f"the opposite direction: {what}")


def side(independent, measured, published, rtol):
    """Which side an independent implementation's figure takes on a difference: "ours" (within
    ``rtol`` of our figure, not of the published), "the paper" (the reverse: our code is suspect),
    or "neither"."""
    i, m, p = float(independent), float(measured), float(published)
    near_ours, near_paper = abs(i - m) <= rtol * abs(m), abs(i - p) <= rtol * abs(p)
    return "ours" if near_ours and not near_paper else "the paper" if near_paper and not near_ours else "neither"


def not_reproduced(reason):
    return Verdict(NOT_REPRODUCED, "not measured", reason)


# The reason of a row whose experiment plans the paper's settings but whose records of them are
# not stored yet (a budget is never a reason: the run is planned, see docs/verdicts.md).
NOT_YET_RUN = "not yet run at the paper's settings (planned)"

# Settings that only bound a run: a record run under another bound is at the paper's settings
# when it ended by its own stop rule before that bound (the bound changed nothing).
LIMITS = ("maxiter", "max_iter", "max_iterations", "iterations", "time_limit", "cap_seconds",
          "max_seconds", "maxfev", "maxfun")
# where a record ran is shown beside the row, never a setting of the paper
PLACE = ("backend",)
# stop messages of a run ended by a bound, not by its stop rule
_LIMIT_WORDS = ("LIMIT", "time_limit", "time limit", "Ctrl-C", "interrupted")


def _limit_hit(record):
    """'' or how a run was cut short: capped by a time cap, interrupted, or stopped at a limit."""
    m = record.get("measured") or {}
    s = record.get("settings") or {}
    msg = str(m.get("message") or "")
    if m.get("capped"):
        cap = s.get("cap_seconds")
        return f"the stored run was capped{f' at {cap:g} s' if isinstance(cap, (int, float)) else ''}"
    if m.get("interrupted") or "Ctrl-C" in msg or "interrupted" in msg:
        return "the stored run was interrupted"
    if m.get("converged") is False:
        if "time" in msg.lower() and "limit" in msg.lower() and s.get("time_limit") is not None:
            return f"the stored run stopped at its time limit {float(s['time_limit']):g} s"
        its = m.get("iterations")
        for k in LIMITS:
            if k in s and isinstance(s[k], (int, float)) and not isinstance(s[k], bool) \
                    and k not in ("time_limit", "cap_seconds", "max_seconds") and its is not None and its >= s[k]:
                return f"the stored run stopped at its iteration limit {s[k]:g}"
        if any(w in msg for w in _LIMIT_WORDS):
            return f"the stored run stopped at a limit ({msg})"
    done, runs = m.get("runs_completed"), s.get("runs")
    if isinstance(done, int) and isinstance(runs, int) and done < runs:
        return f"{done} of its {runs} runs are stored"
    return ""


def _differing(record, planned):
    """The settings of ``record`` that differ from the planned case's (``planned``: its settings),
    as (bounds, others): keys of LIMITS, and the rest (where it ran, PLACE, left out)."""
    s = record.get("settings") or {}
    keys = [k for k in sorted(set(s) | set(planned)) if k not in PLACE and s.get(k) != planned.get(k)]
    text = {k: f"{k}={s.get(k, 'unset')} (the experiment: {planned.get(k, 'unset')})" for k in keys}
    return [text[k] for k in keys if k in LIMITS], [text[k] for k in keys if k not in LIMITS]


def invalidity(record, planned=None, converged=True):
    """Why ``record`` cannot support a verdict on a published row, or '' when it can.

    A row is judged only on records run at its stated settings (``planned``: the settings of the
    experiment's case; None skips the check; a bound, LIMITS, that did not bind is no difference)
    that ended as the paper's runs did: not capped by a time cap, not interrupted, all runs done,
    and, where ``converged`` (the paper's runs converged), converged rather than stopped at an
    iteration or time limit."""
    m = record.get("measured") or {}
    bounds, others = _differing(record, planned) if planned is not None else ([], [])
    if others:
        return "run at other settings: " + ", ".join(others)
    hit = _limit_hit(record)
    suffix = "; the paper ran to its stop rule"
    if bounds and not m.get("converged"):
        return (hit + suffix if hit else "run at other settings: " + ", ".join(bounds))
    if hit and (converged or m.get("capped") or "interrupted" in hit or "runs are stored" in hit):
        return hit + (suffix if "limit" in hit or "capped" in hit else "")
    if converged and m.get("converged") is False:
        return f"the stored run did not converge ({m.get('message') or 'no stop message'}); the paper's did"
    return ""


def validated(v, records, planned=None, converged=True):
    """``v`` with the case ids of its ``records``; a measured verdict (matches or differs) on a
    record that is not valid (:func:`invalidity`) becomes *not reproduced*, its reason the record's
    fault (and what the rule said on it, for the reader).  ``planned``: a function from a record to
    its planned settings (or None)."""
    records = [r for r in records if r]
    ids = tuple(dict.fromkeys(r["case"] for r in records))
    v = replace(v, records=tuple(dict.fromkeys(v.records + ids)))
    if v.kind not in (MATCHES, DIFFERS, NOT_INFORMATIVE):
        return v
    if not records:
        raise ValueError("a measured verdict names the records it rests on")
    faults = sorted({w for w in (invalidity(r, planned(r) if planned else None, converged) for r in records) if w})
    if not faults:
        return v
    said = f"the rule on them: {v.failed}" if v.kind == DIFFERS else "the rule holds on them"
    return Verdict(NOT_REPRODUCED, v.rule, f"{NOT_YET_RUN}: " + "; ".join(faults) + f" ({said}, not judged)",
                   records=v.records, triangulation=v.triangulation)


def stated_not_reproduced(experiment, label, default):
    """Row ``label`` not reproduced, for the reason its experiment file states
    (``[verdicts.not_reproduced]``), else ``default``."""
    return not_reproduced(experiment.verdicts.get("not_reproduced", {}).get(label, default))


def not_implemented(what="its method or problem is not implemented yet"):
    return Verdict(NOT_IMPLEMENTED, "not measured", what)


def combine(verdicts):
    """One verdict from the verdicts of a row's parts: it matches only when each part does."""
    vs = list(verdicts)
    if not vs:
        raise ValueError("combine(): no verdicts")
    for kind in (NOT_IMPLEMENTED, NOT_REPRODUCED, DIFFERS, NOT_INFORMATIVE):
        bad = [v for v in vs if v.kind == kind]
        if kind == NOT_INFORMATIVE and len(bad) < len(vs):
            break           # a part that can fail held: the row matches on it
        if bad:
            reasons = sorted({v.reason for v in bad if v.reason})
            return Verdict(kind, "; ".join(v.rule for v in vs), "; ".join(reasons),
                           "; ".join(v.failed for v in bad if v.failed), _ids(vs))
    return Verdict(MATCHES, "; ".join(v.rule for v in vs), records=_ids(vs))


def _ids(vs):
    return tuple(dict.fromkeys(i for v in vs for i in v.records))


def counts(verdicts):
    """{kind: count} in the fixed order of KINDS, kinds with no row left out."""
    c = Counter(v.kind for v in verdicts)
    return {k: c[k] for k in KINDS if c[k]}


def headline(verdicts):
    """'14 published rows: 12 match, 1 differs (explained), 1 not reproduced'."""
    vs = list(verdicts)
    if not vs:
        return "no published rows"
    c = counts(vs)
    words = {MATCHES: ("matches", "match"), DIFFERS: ("differs", "differ"),
             NOT_REPRODUCED: ("not reproduced", "not reproduced"), NOT_IMPLEMENTED: ("not implemented yet",) * 2,
             NOT_INFORMATIVE: ("not informative",) * 2}
    parts = []
    for k, n in c.items():
        part = f"{n} {words[k][0] if n == 1 else words[k][1]}"
        if k == DIFFERS:
            # "not explained: <what a triangulation found>" is not explained either
            unexplained = sum(v.kind == DIFFERS and v.reason.startswith(NOT_EXPLAINED) for v in vs)
            part += f" ({n - unexplained} explained, {unexplained} not explained)"
        parts.append(part)
    return f"{len(vs)} published row{'s' if len(vs) != 1 else ''}: " + ", ".join(parts)
