"""The verdict rules: each judged against hand-checked cases on both sides of its boundary."""
import pytest

from gpubench.reports import verdict as V


def test_exact_counts():
    assert V.exact(450, 450, "iterations").kind == V.MATCHES
    d = V.exact(451, 450, "iterations")
    assert d.kind == V.DIFFERS and d.reason == V.NOT_EXPLAINED
    assert d.explained("the paper's sample spacing").cell == (
        "differs (iterations 451 vs 450): the paper's sample spacing")


def test_clopper_pearson_known_values():
    # 0 of 25: [0, 1 - 0.025^(1/25)] = [0, 0.1372]; 25 of 25 mirrors it
    lo, hi = V.clopper_pearson(0, 25)
    assert lo == 0 and hi == pytest.approx(1 - 0.025 ** (1 / 25), rel=1e-9)
    lo, hi = V.clopper_pearson(25, 25)
    assert hi == 1 and lo == pytest.approx(0.025 ** (1 / 25), rel=1e-9)


def test_rate_inside_and_outside_the_interval():
    # 0 of 25 measured: the interval reaches 0.137, so a published 0.12 matches and 0.16 does not
    assert V.rate(0, 25, 0.12).kind == V.MATCHES
    assert V.rate(0, 25, 0.16).kind == V.DIFFERS
    assert V.rate(13, 25, 0.52).kind == V.MATCHES
    assert V.rate(25, 25, 0.6).kind == V.DIFFERS


def test_mean_by_interval_or_tolerance():
    vals = [1.0, 1.2, 0.8, 1.1, 0.9]           # mean 1.0, s = 0.158, t(4) = 2.776: half-width 0.196
    assert V.mean(vals, 1.19).kind == V.MATCHES
    assert V.mean(vals, 1.21).kind == V.DIFFERS
    assert V.mean(vals, 1.21, rtol=0.2).kind == V.MATCHES
    # zero against zero success, errors 1e5 apart: the mean is judged, not only the rate
    assert V.mean([1e-3] * 25, 1e-8).kind == V.DIFFERS


def test_relative_and_ordering():
    assert V.relative(1.04, 1.0, 0.05).kind == V.MATCHES
    assert V.relative(1.06, 1.0, 0.05).kind == V.DIFFERS
    assert V.relative(0.0, 0.0, 0.05).kind == V.MATCHES
    assert V.ordering(True, True, "implicit slower").kind == V.MATCHES
    assert V.ordering(False, True, "implicit slower").kind == V.DIFFERS


def test_not_reproduced_needs_a_reason_and_combine_takes_the_worst():
    with pytest.raises(ValueError):
        V.Verdict(V.NOT_REPRODUCED, "not measured")
    nr = V.not_reproduced("the authors' networks are unpublished")
    assert nr.cell == "not reproduced: the authors' networks are unpublished"
    assert V.combine([V.exact(1, 1), V.exact(2, 2)]).kind == V.MATCHES
    both = V.combine([V.exact(1, 1, "iterations"), V.exact(2, 3, "regions")])
    assert both.kind == V.DIFFERS and both.failed == "regions 2 vs 3"
    assert V.combine([V.exact(2, 3), nr]).kind == V.NOT_REPRODUCED


def test_headline_counts():
    vs = [V.exact(1, 1), V.exact(1, 1), V.exact(1, 2), V.exact(1, 2).explained("spacing"),
          V.not_reproduced("data"), V.not_implemented()]
    assert V.counts(vs) == {V.MATCHES: 2, V.DIFFERS: 2, V.NOT_REPRODUCED: 1, V.NOT_IMPLEMENTED: 1}
    assert V.headline(vs) == ("6 published rows: 2 match, 2 differ (1 explained, 1 not explained), "
                              "1 not reproduced, 1 not implemented yet")
    assert V.headline([]) == "no published rows"


def test_spread_by_f_test():
    vals = [1.0, 1.2, 0.8, 1.1, 0.9] * 5           # s = 0.144 over 25 runs
    assert V.spread(vals, 0.15, 25).kind == V.MATCHES
    assert V.spread(vals, 0.5, 25).kind == V.DIFFERS
    assert V.spread([0.0] * 25, 0.0, 25).kind == V.MATCHES
    assert V.spread([0.0] * 25, 0.1, 25).kind == V.DIFFERS


def test_absolute():
    assert V.absolute(80.0, 85.23, 10).kind == V.MATCHES
    assert V.absolute(70.0, 85.23, 10).kind == V.DIFFERS
