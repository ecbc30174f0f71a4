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
from dataclasses import dataclass

MATCHES = "matches"
DIFFERS = "differs"
NOT_REPRODUCED = "not reproduced"
NOT_IMPLEMENTED = "not implemented yet"
KINDS = (MATCHES, DIFFERS, NOT_REPRODUCED, NOT_IMPLEMENTED)
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

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown verdict {self.kind!r}")
        if self.kind == NOT_REPRODUCED and not self.reason:
            raise ValueError("a row not reproduced needs its reason (data or definition)")

    def explained(self, explanation):
        """This verdict with an explanation attached where it differs (others are unchanged)."""
        if self.kind != DIFFERS or not explanation:
            return self
        return Verdict(self.kind, self.rule, explanation, self.failed, self.triangulation)

    def triangulated(self, entries, sentence, explains):
        """This verdict with its triangulation (a difference only): the entries, and the sentence as
        its reason when it ``explains`` the difference, else after the reason it had."""
        if self.kind != DIFFERS or not entries:
            return self
        if explains:
            reason = sentence
        elif self.reason == NOT_EXPLAINED:
            reason = f"{NOT_EXPLAINED}: {sentence}"
        else:
            reason = f"{self.reason}; {sentence}"
        return Verdict(self.kind, self.rule, reason, self.failed, tuple(entries))

    @property
    def cell(self):
        """One table cell: the verdict, and for a difference or a missing row its reason."""
        out = self.kind + (f" ({self.failed})" if self.kind == DIFFERS and self.failed else "")
        if self.kind in (DIFFERS, NOT_REPRODUCED) and self.reason:
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


def mean(values, published, rtol=0.0, what="mean"):
    """A mean over runs: the published mean inside the measured mean's 95 % t-interval, or within
    ``rtol`` of it (relative to the published value)."""
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
    tol = max(half, rtol * abs(p))
    rule = (f"published {what} inside the measured mean's 95% interval ({m:.3g} +- {half:.2g})"
            + (f" or within {rtol:g} of it, relatively" if rtol else ""))
    return Verdict(MATCHES, rule) if abs(p - m) <= tol else _differs(rule, f"{what} {m:.3g} +- {half:.2g} vs {p:.3g}")


def spread(values, published_std, n_published, what="standard deviation"):
    """A spread over runs: the two-sided F test of the measured variance against the published one
    (of ``n_published`` runs) does not reject equality at the 5 % level."""
    from scipy import stats
    vals = [float(v) for v in values]
    if len(vals) < 2 or n_published < 2:
        raise ValueError("spread(): need at least two runs on each side")
    m = math.fsum(vals) / len(vals)
    s2 = math.fsum((v - m) ** 2 for v in vals) / (len(vals) - 1)
    p2 = float(published_std) ** 2
    rule = f"{what}: F test of the measured variance against the published ({n_published} runs) at 5%"
    failed = f"{what} {math.sqrt(s2):.3g} vs {float(published_std):.3g}"
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


def absolute(measured, published, atol, what="value"):
    """A figure in fixed units (a percentage of iterations, say): within ``atol`` of the published."""
    p, m = float(published), float(measured)
    rule = f"{what} within {atol:g} of the published"
    return Verdict(MATCHES, rule) if abs(m - p) <= atol else _differs(rule, f"{what} {m:.4g} vs {p:.4g} (atol {atol:g})")


def ordering(measured_first_smaller, published_first_smaller, what):
    """A qualitative claim (which of two is faster, larger ...): the same direction or not."""
    rule = f"the same direction as published: {what}"
    same = bool(measured_first_smaller) == bool(published_first_smaller)
    return Verdict(MATCHES, rule) if same else _differs(rule, f"the opposite direction: {what}")


def not_reproduced(reason):
    return Verdict(NOT_REPRODUCED, "not measured", reason)


def not_implemented(what="its method or problem is not implemented yet"):
    return Verdict(NOT_IMPLEMENTED, "not measured", what)


def combine(verdicts):
    """One verdict from the verdicts of a row's parts: it matches only when each part does."""
    vs = list(verdicts)
    if not vs:
        raise ValueError("combine(): no verdicts")
    for kind in (NOT_IMPLEMENTED, NOT_REPRODUCED, DIFFERS):
        bad = [v for v in vs if v.kind == kind]
        if bad:
            reasons = sorted({v.reason for v in bad if v.reason})
            return Verdict(kind, "; ".join(v.rule for v in vs), "; ".join(reasons),
                           "; ".join(v.failed for v in bad if v.failed))
    return Verdict(MATCHES, "; ".join(v.rule for v in vs))


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
             NOT_REPRODUCED: ("not reproduced", "not reproduced"), NOT_IMPLEMENTED: ("not implemented yet",) * 2}
    parts = []
    for k, n in c.items():
        part = f"{n} {words[k][0] if n == 1 else words[k][1]}"
        if k == DIFFERS:
            # "not explained: <what a triangulation found>" is not explained either
            unexplained = sum(v.kind == DIFFERS and v.reason.startswith(NOT_EXPLAINED) for v in vs)
            part += f" ({n - unexplained} explained, {unexplained} not explained)"
        parts.append(part)
    return f"{len(vs)} published row{'s' if len(vs) != 1 else ''}: " + ", ".join(parts)
