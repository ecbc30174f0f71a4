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


def _record(case="c-1", settings=None, **measured):
    return {"case": case, "key": "k", "function": "f", "dim": 2, "settings": dict(settings or {"maxiter": 3000}),
            "measured": {"converged": True, **measured}}


def test_a_match_needs_a_record_at_the_settings_that_ended_as_the_paper_s_did():
    ok = V.relative(10, 10, 0.25, "iterations")
    planned = {"maxiter": 3000}
    # at the planned settings and converged: the match stands, naming its record
    v = V.validated(ok, [_record()], lambda r: planned)
    assert v.kind == V.MATCHES and v.records == ("c-1",)
    # stopped at its (lower) iteration limit: not reproduced, the limit named
    cut = _record("c-2", {"maxiter": 800}, converged=False, iterations=800,
                  message="STOP: TOTAL NO. OF ITERATIONS REACHED LIMIT")
    v = V.validated(ok, [cut], lambda r: planned)
    assert v.kind == V.NOT_REPRODUCED and "iteration limit 800" in v.reason and v.records == ("c-2",)
    # a lower limit that did not bind (converged before it) changes nothing
    assert V.validated(ok, [_record("c-3", {"maxiter": 800}, iterations=687)], lambda r: planned).kind == V.MATCHES
    # another stated setting: not reproduced, the setting named
    v = V.validated(ok, [_record("c-4", {"maxiter": 3000, "stop": "pg"})], lambda r: {"maxiter": 3000, "stop": "energy"})
    assert v.kind == V.NOT_REPRODUCED and "stop=pg (the experiment: energy)" in v.reason
    # where it ran is no setting
    assert V.validated(ok, [_record(settings={"maxiter": 3000, "backend": "cuda"})],
                       lambda r: {"maxiter": 3000, "backend": "auto"}).kind == V.MATCHES
    # capped by a time cap, or a difference on a capped run: not reproduced either way
    capped = _record(settings={"maxiter": 3000, "cap_seconds": 120}, converged=False, capped=True)
    assert "capped at 120 s" in V.validated(ok, [capped]).reason
    assert V.validated(V.relative(20, 10, 0.25), [capped]).kind == V.NOT_REPRODUCED
    # not all runs done
    part = _record(settings={"runs": 25}, runs_completed=10)
    assert "10 of its 25 runs" in V.validated(ok, [part]).reason


def test_convergence_is_required_only_where_the_paper_converged():
    ok = V.exact(1, 1)
    admm = _record(settings={"iterations": 200}, converged=False, iterations=200)
    assert "iteration limit 200" in V.validated(ok, [admm]).reason
    assert V.validated(ok, [admm], converged=False).kind == V.MATCHES
    unconverged = _record(settings={}, converged=False, message="abnormal")
    assert "did not converge" in V.validated(ok, [unconverged]).reason


def test_a_measured_verdict_names_its_records():
    with pytest.raises(ValueError):
        V.validated(V.exact(1, 1), [])
    nr = V.validated(V.not_reproduced("no data"), [])
    assert nr.kind == V.NOT_REPRODUCED and nr.records == ()
    both = V.combine([V.validated(V.exact(1, 1), [_record("a")]), V.validated(V.exact(2, 2), [_record("b")])])
    assert both.records == ("a", "b")


def test_printed_precision_of_a_published_figure():
    assert V.printed_halfwidth("0.000") == pytest.approx(5e-4)
    assert V.printed_halfwidth("1.2E-05") == pytest.approx(5e-7)
    assert V.printed_halfwidth("52") == pytest.approx(0.5)
    assert V.printed_halfwidth("") == 0.0 and V.printed_halfwidth(None) == 0.0
    # 002 Table 3, F1 D = 100: published 0.000, measured 2.7e-28 in every run: within the rounding
    runs = [2.7e-28] * 25
    assert V.mean(runs, 0.0, 0.5, printed="0.000").kind == V.MATCHES
    assert V.mean(runs, 0.0, 0.5).kind == V.DIFFERS          # without the printed digits, it would not
    # either side of the half-unit: 0.00049 matches '0.000', 0.00051 does not
    assert V.mean([4.9e-4] * 5, 0.0, 0.0, printed="0.000").kind == V.MATCHES
    assert V.mean([5.1e-4] * 5, 0.0, 0.0, printed="0.000").kind == V.DIFFERS


def test_spread_within_the_printed_rounding():
    # a published std printed 0.000: a measured spread under 0.0005 matches, one well above it does not
    tiny = [1e-28 * (i % 3) for i in range(25)]
    assert V.spread(tiny, 0.0, 25, printed="0.000").kind == V.MATCHES
    assert V.spread(tiny, 0.0, 25).kind == V.DIFFERS
    wide = [0.01 * (i % 3) for i in range(25)]
    assert V.spread(wide, 0.0, 25, printed="0.000").kind == V.DIFFERS


def test_a_tolerance_that_cannot_fail_is_not_a_match():
    """004 Tables 1 and 3: a bin within 10 points, where the paper prints 0.35 % and we measure 1.2 %,
    says nothing: not informative.  A cell above the tolerance on either side is judged."""
    v = V.absolute(1.2, 0.35, 10.0, "bin", floor=True)
    assert v.kind == V.NOT_INFORMATIVE and "cannot tell" in v.reason
    assert V.absolute(1.2, 0.35, 10.0, "bin").kind == V.MATCHES          # without floor: the plain rule
    assert V.absolute(85.0, 85.23, 10.0, "bin", floor=True).kind == V.MATCHES
    assert V.absolute(11.0, 0.0, 10.0, "bin", floor=True).kind == V.DIFFERS
    assert V.absolute(9.99, 0.0, 10.0, "bin", floor=True).kind == V.NOT_INFORMATIVE
    # a row matches on the parts that can fail; all parts uninformative: the row is not informative
    mixed = V.combine([V.absolute(1, 0, 10, floor=True), V.relative(10, 10, 0.25)])
    assert mixed.kind == V.MATCHES
    assert V.combine([V.absolute(1, 0, 10, floor=True)] * 2).kind == V.NOT_INFORMATIVE
    assert "1 not informative" in V.headline([V.absolute(1, 0, 10, floor=True), V.exact(1, 1)])


def test_a_difference_carries_the_figures_of_independent_implementations():
    entry = {"method": "scipy", "figure": "19 iterations", "records": ["s-1"]}
    v = V.validated(V.relative(20, 10, 0.25, "iterations"), [_record()]).triangulated([entry], "scipy sides with ours", True)
    assert v.kind == V.DIFFERS and v.triangulation[0]["method"] == "scipy" and v.reason == "scipy sides with ours"
    # not explaining: the sentence follows "not explained", and the headline counts it so
    u = V.relative(20, 10, 0.25).triangulated([entry], "scipy sides with neither", False)
    assert u.reason == "not explained: scipy sides with neither" and "0 explained, 1 not explained" in V.headline([u])
    # kept through the validity gate; a match carries none
    cut = _record(settings={"maxiter": 3000, "cap_seconds": 1}, converged=False, capped=True)
    assert V.validated(u, [cut]).triangulation
    assert V.exact(1, 1).triangulated([entry], "x", True).triangulation == ()
    with pytest.raises(ValueError):
        V.relative(20, 10, 0.25).triangulated([{"method": "scipy"}], "x", True)


def test_the_side_an_independent_implementation_takes():
    assert V.side(100, 94, 28, 0.25) == "ours"
    assert V.side(30, 94, 28, 0.25) == "the paper"
    assert V.side(60, 94, 28, 0.25) == "neither"
