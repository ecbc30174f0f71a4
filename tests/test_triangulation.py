"""Triangulation of a differing row (gpubench.reports.triangulation): the agreement rule on both sides of its
boundary, the runs read from the three shapes of record, SciPy's DE at an exact population and
budget, and a row's verdict carrying what the independent implementations gave."""
import json
import shutil
from pathlib import Path

import pytest

from gpubench.workflow import experiments_loader as loader
from gpubench import methods
from gpubench.reports import builder as report
from gpubench.reports import triangulation as T
from gpubench.reports import verdict as V

ROOT = Path(__file__).resolve().parents[1]


def _fig(mean, half, k=0, n=25, precision=0.0, rate_precision=0.0):
    return T.Figure(mean, half, k, n, precision, rate_precision)


def test_means_agree_up_to_the_sum_of_half_widths_and_printed_precisions():
    a = _fig(1.0, 0.25)
    edge = 1.0 + 0.25 + 0.125 + 0.0005            # exactly representable sums: the boundary itself
    assert T.means_agree(a, _fig(edge, 0.125, precision=0.0005))
    assert not T.means_agree(a, _fig(edge + 1e-9, 0.125, precision=0.0005))
    # a published 0.000 (three decimals) is any mean below 0.0005 with no spread
    paper = T.Figure.published(0.0, 0.0, 1.0, 25)
    assert paper.precision == 0.0005 and paper.half == 0.0
    assert T.means_agree(_fig(0.0004, 0.0), paper)
    assert not T.means_agree(_fig(0.0006, 0.0), paper)


def test_rates_agree_when_the_clopper_pearson_intervals_overlap():
    # 0 of 25: [0, 0.137]; 9 of 25: [0.180, 0.575]; 7 of 25: [0.121, 0.494]
    none = _fig(0.0, 0.0, k=0)
    assert not T.rates_agree(none, _fig(0.0, 0.0, k=9))
    assert T.rates_agree(none, _fig(0.0, 0.0, k=7))
    # a published rate's two-decimal rounding widens its interval by 0.005: 5 of 13 starts at 0.1386,
    # just above 0 of 25's 0.1372, and within 0.005 of it
    lo, hi0 = V.clopper_pearson(5, 13)[0], V.clopper_pearson(0, 25)[1]
    assert hi0 < lo <= hi0 + 0.005
    assert not T.rates_agree(none, _fig(0.0, 0.0, k=5, n=13))
    assert T.rates_agree(none, _fig(0.0, 0.0, k=5, n=13, rate_precision=0.005))


def test_side_and_sentence():
    ours = _fig(0.205, 0.025, k=0)
    paper = T.Figure.published(0.0, 0.0, 1.0, 25)
    assert T.side(_fig(0.21, 0.02), ours, paper) == T.OURS
    assert T.side(_fig(0.0, 0.0, k=25), ours, paper) == T.PAPER
    assert T.side(_fig(5.0, 0.1), ours, paper) == T.NEITHER
    # ours at 1e-28 and a printed 0.000 agree: an exact 0 elsewhere takes no side
    tiny = _fig(2.7e-28, 1.1e-28, k=25)
    assert T.agrees(tiny, paper) and T.side(_fig(0.0, 0.0, k=25), tiny, paper) == T.BOTH
    assert "ours and the paper agree" in T.sentence([{"method": "EvoX", "side": T.BOTH,
                                                        "_figure": _fig(0.0, 0.0, k=25)}], tiny, paper)
    entries = [{"method": m, "side": T.OURS, "_figure": _fig(x, 0.02)} for m, x in
               (("SciPy", 0.21), ("EvoX", 0.19), ("evosax", 0.2))]
    s = T.sentence(entries, ours, paper)
    assert s.startswith("SciPy, EvoX and evosax at the same settings give mean error 0.21, 0.19 and 0.2")
    assert "they agree with ours, not with the paper" in s and T.explains(entries)
    entries[1]["side"] = T.NEITHER
    s = T.sentence(entries, ours, paper)
    assert "SciPy and evosax agree with ours; EvoX with neither (nearer ours)" in s and T.explains(entries)
    entries[1]["side"] = T.PAPER
    s = T.sentence(entries, ours, paper)
    assert "EvoX agrees with the paper" in s and s.endswith("de-gpu is in question") and not T.explains(entries)
    entries[1]["side"] = T.BOTH
    assert not T.explains(entries)
    assert not T.explains([dict(e, side=T.NEITHER) for e in entries])


def test_run_errors_reads_every_shape_of_record():
    many = {"history": {"run_error": [0.0, 2.0], "run_success": [True, False]}, "fstar": 0.0}
    runs = {"history": {"run_fun": [1.0, 3.0]}, "fstar": 1.0, "repetition": 0}
    one = {"history": {}, "fstar": 1.0, "measured": {"fun": 1.5}, "repetition": 1}
    assert T.run_errors([many], 1e-8) == ([0.0, 2.0], [True, False])
    assert T.run_errors([one, runs], 1e-8) == ([0.0, 2.0, 0.5], [True, False, False])


def test_scipy_de_at_an_exact_population_and_budget():
    # 12 members in 3 dimensions (popsize would make a multiple of 3), 10 populations' evaluations
    r = methods.minimize("shifted_sphere", 3, method="differential_evolution", strategy="rand1bin",
                         np=12, max_evaluations=120, mutation=[0.5], recombination=0.3,
                         updating="deferred", polish=False, runs=2, seed=1)
    assert r.nfev == 2 * 120
    assert r.options["population"] == 12 and r.options["maxiter"] == 9
    r2 = methods.minimize("shifted_sphere", 3, method="differential_evolution", strategy="rand1bin",
                          np=12, max_evaluations=120, mutation=[0.5], recombination=0.3,
                          updating="deferred", polish=False, runs=2, seed=1)
    assert r2.history["run_fun"] == r.history["run_fun"]


def test_a_differing_row_carries_its_triangulation(tmp_path):
    """Independent runs stored for F1 D=10 NP=1000 that end as ours did explain the row; moved to
    the paper's figures (every run at error 0), they side with the paper and the row says so."""
    results, reports = tmp_path / "results", tmp_path / "reports"
    shutil.copytree(ROOT / "results" / "qin2012_table1", results / "qin2012_table1")
    ours = next((results / "qin2012_table1").glob("de_p1000-shifted_sphere-*.json"))
    errors = json.loads(ours.read_text())["history"]["run_error"]
    tri = results / "qin2012_triangulate_table1"
    tri.mkdir()
    exp = loader.load("qin2012_triangulate_table1")
    spec = next(m for m in exp.full.methods if m.key == "scipy_p1000")
    from gpubench.workflow import runner
    case = next(c for c in runner.plan(exp) if c.key == spec.key and c.function == "shifted_sphere")

    def store(errs):
        rec = {"schema": 1, "experiment": exp.id, "variant": "full", "case": case.case_id, "key": spec.key,
               "method": spec.method, "function": "shifted_sphere", "dim": 10, "sense": "min", "repetition": 0,
               "settings": spec.settings, "options": {"seed": 0}, "fstar": 0.0, "success": False,
               "measured": {"fun": min(errs), "seconds": 1.0, "evaluations": 100000, "iterations": 99,
                            "converged": True},
               "history": {"run_fun": list(errs)}}
        (tri / f"{case.case_id}.json").write_text(json.dumps(rec))

    def row():
        report.build(loader.load("qin2012_table1"), results=results, reports=reports)
        data = json.loads((reports / "verdicts" / "qin2012_table1.json").read_text())
        return next(r for r in data["rows"] if r["row"] == "F1 D=10 NP=1000")

    store(errors)
    r = row()
    assert r["verdict"] == "differs"
    assert [t["method"] for t in r["triangulation"]] == ["SciPy"]
    assert r["triangulation"][0]["side"] == "ours"
    assert r["triangulation"][0]["records"] == [f"results/qin2012_triangulate_table1/{case.case_id}.json"]
    assert r["reason"].startswith("SciPy at the same settings give mean error")
    assert "it agrees with ours, not with the paper" in r["reason"]
    store([0.0] * len(errors))
    r = row()
    assert r["triangulation"][0]["side"] == "the paper"
    assert r["reason"].startswith("not explained: ") and "de-gpu is in question" in r["reason"]


@pytest.mark.parametrize("t", [1, 2, 3])
def test_the_triangulation_experiments_run_the_papers_settings(t):
    e = loader.load(f"qin2012_triangulate_table{t}")
    table = loader.load(f"qin2012_table{t}")
    assert table.verdicts["triangulate"] == e.id
    assert e.full.dims == table.full.dims and e.full.functions == table.full.functions
    budget = 10_000 * e.full.dims[0]
    by_method = {}
    for m in e.full.methods:
        by_method.setdefault(m.method, set()).add(m.settings["np"])
        assert m.settings["max_evaluations"] == budget
        if m.method == "differential_evolution":
            assert (m.settings["strategy"], m.settings["mutation"], m.settings["recombination"],
                    m.settings["polish"], m.settings["updating"]) == ("rand1bin", [0.5], 0.3, False, "deferred")
        else:
            assert (m.settings["F"], m.settings["CR"]) == (0.5, 0.3)
    # evosax's DE at NP = 500 and 1000 is too slow on a CPU for the seeds (the experiments' note says why)
    assert by_method == {"differential_evolution": {50, 100, 500, 1000}, "evox-de": {50, 100, 500, 1000},
                         "evosax-de": {50, 100}}


def test_share_and_count_sides_on_both_sides_of_their_tolerances():
    # paper 004 Table 1: within 10 points (absolute) of a side
    assert T.share_side(1.0, 0.0, 12.19, 10.0) == T.OURS
    assert T.share_side(9.5, 0.0, 12.19, 10.0) == T.BOTH
    assert T.share_side(10.5, 0.0, 25.0, 10.0) == T.NEITHER
    assert T.share_side(20.0, 0.0, 25.0, 10.0) == T.PAPER
    # paper 004 Table 4: within rtol of a side, relatively
    assert T.count_side(2981, 2968, 1907, 0.25) == T.OURS
    assert T.count_side(2019, 2344, 1793, 0.25) == T.BOTH
    assert T.count_side(1900, 2968, 1907, 0.25) == T.PAPER
    assert T.count_side(100, 2968, 1907, 0.25) == T.NEITHER


def test_table4_triangulates_each_differing_column_with_the_other_implementation():
    rec = lambda case, it: {"case": case, "measured": {"iterations": it}}   # noqa: E731
    row = {"cpu_itr": 2310, "gpu_itr": 1907}
    # both columns differ; SciPy sides with our GPU column, our exact L-BFGS-B with SciPy's CPU column
    entries, sentence, explains = T.table4_entries(rec("s", 2981), rec("g", 2968), rec("e", 3134), row, 0.25)
    assert [(e["method"].split()[0], e["side"], e["records"]) for e in entries] == \
        [("SciPy", T.OURS, ["s"]), ("gpubench", T.OURS, ["e"])]
    assert explains and "GPU column" in sentence and "CPU column" in sentence
    # only the GPU column differs, and SciPy lies within the tolerance of both: not an explanation
    entries, _, explains = T.table4_entries(rec("s", 2300), rec("g", 2968), rec("e", 2300), row, 0.25)
    assert [e["side"] for e in entries] == [T.BOTH] and not explains
    # SciPy siding with the paper's GPU column puts ours in question
    entries, sentence, explains = T.table4_entries(rec("s", 1900), rec("g", 2968), None, row, 0.25)
    assert entries[0]["side"] == T.PAPER and not explains and "agrees with the paper" in sentence


def test_table1_rows_carry_the_bin_along_scipys_path(tmp_path):
    """A differing bin of fei2014_table1 beside the same bin of the independent path (a stored record of
    fei2014_triangulate_table1): explained when it sides with ours; a row that matches is left alone."""
    from gpubench.workflow import runner
    e = loader.load("fei2014_table1")
    assert e.verdicts["triangulate"] == "fei2014_triangulate_table1"
    tri = loader.load("fei2014_triangulate_table1")
    case = next(c for c in runner.plan(tri) if c.function == "minpack2:torsion")
    bins = {"0": 91.0, "0~5%": 0.34}
    rec = {"schema": 1, "experiment": tri.id, "variant": "full", "case": case.case_id, "key": case.key,
           "method": case.method, "label": "", "function": case.function, "dim": case.dim, "sense": "min",
           "repetition": 0, "settings": case.settings, "options": case.settings,
           "measured": {"iterations": 590, "seconds": 1.0, "converged": True, "message": "m", "best_f": -0.4},
           "result": {"bins": bins}, "success": True, "environment": {}}
    runner.write_record(tmp_path / tri.id, rec)
    pub = e.published()
    ours = {"case": "ours", "dim": 40000, "result": {"bins": {"0": 92.3, "0~5%": 0.0}}}
    judged = [("Elastic-Plastic Torsion, 0~5%", V.absolute(0.0, 12.19, 10.0, "share"), [ours]),
              ("Elastic-Plastic Torsion, 0", V.absolute(92.3, 85.23, 10.0, "share"), [ours])]
    out = T.bin_rows(judged, pub, tri.id, {"Elastic-Plastic Torsion": "torsion"}, 10.0, tmp_path)
    (_, v, _), (_, same, _) = out
    assert v.kind == V.DIFFERS and v.triangulation[0]["side"] == T.OURS and "0.34 %" in v.reason
    assert v.triangulation[0]["records"] == [f"results/{tri.id}/{case.case_id}.json"]
    assert same.kind == V.MATCHES and not same.triangulation
    bins["0~5%"] = 9.5            # now within 10 points of both: the row stays not explained
    runner.write_record(tmp_path / tri.id, rec)
    (_, v, _), _ = T.bin_rows(judged, pub, tri.id, {"Elastic-Plastic Torsion": "torsion"}, 10.0, tmp_path)
    assert v.triangulation[0]["side"] == T.BOTH and v.reason.startswith("not explained")


def test_table1_rows_at_the_safeguard_beside_scipys_run_at_the_same_safeguard(tmp_path):
    """A fei2014_table1 run stopped at its iteration safeguard under the stated rule: not reproduced for a
    definition reason when SciPy's path (fei2014_triangulate_table1) reaches the same safeguard too; left
    to the validity gate (not yet run) when SciPy's ends by the rule, or when ours did not reach it."""
    from gpubench.workflow import runner
    tri = loader.load("fei2014_triangulate_table1")
    case = next(c for c in runner.plan(tri) if c.function == "minpack2:ginzburg-landau-1d")
    cap = case.settings["maxiter"]

    def store(iterations, converged):
        rec = {"schema": 1, "experiment": tri.id, "variant": "full", "case": case.case_id, "key": case.key,
               "method": case.method, "label": "", "function": case.function, "dim": case.dim, "sense": "min",
               "repetition": 0, "settings": case.settings, "options": case.settings,
               "measured": {"iterations": iterations, "seconds": 1.0, "converged": converged, "message": "m",
                            "best_f": -1.68e-4}, "result": {"bins": {"0": 99.9}}, "success": converged,
               "environment": {}}
        runner.write_record(tmp_path / tri.id, rec)

    def ours(iterations, converged=False):
        s = {"m": 5, "stop": "energy_decrease", "energy_tol": 1e-64, "maxiter": cap, "box": 1.0, "backend": "cpu"}
        return {"case": "ours", "function": case.function, "dim": case.dim, "settings": s,
                "measured": {"iterations": iterations, "converged": converged, "fun": -1.6757e-4},
                "result": {"bins": {"0": 99.955}, "approximate": {"fun": -1.6757e-4}, "exact": {"fun": -1.6774e-4}}}

    def judge(rec):
        (_, v, recs), = T.safeguard_rows([("1-D Ginzburg-Landau, 0", V.absolute(99.955, 100.0, 10.0, "share"),
                                           [rec])], tri.id, tmp_path)
        return v, recs
    # no SciPy record yet: the row is left as it is (the gate then says not yet run)
    v, _ = judge(ours(cap))
    assert v.kind == V.MATCHES and not v.triangulation
    store(cap, False)             # SciPy reaches the same safeguard, the rule not met
    v, recs = judge(ours(cap))
    assert v.kind == V.NOT_REPRODUCED and v.reason.startswith("definition: ")
    assert f"within {cap:,} iterations" in v.reason and "approximate f = -0.00016757" in v.reason
    assert v.triangulation[-1]["side"] == T.OURS and len(recs) == 2
    # ours one iteration short of the safeguard (stopped otherwise): not this rule's row
    assert judge(ours(cap - 1))[0].kind == V.MATCHES
    assert judge(ours(800, converged=True))[0].kind == V.MATCHES
    store(cap - 1, True)          # SciPy ends by the rule before the safeguard: ours is in question
    v, _ = judge(ours(cap))
    assert v.kind == V.MATCHES and v.triangulation[-1]["side"] == T.PAPER
    assert "our L-BFGS-B is in question" in v.reason


def test_table1_energy_row_beside_scipys_exact_run(tmp_path):
    """fei2014_table1's Energy Diff row that differs, taken again with SciPy's end energy as the exact arm
    (fei2014_triangulate_table1, Lennard-Jones): explained when that difference sides with ours within
    the row's tolerance, not explained (with the figures) when it sides with neither; an unconverged
    SciPy run, or a matching row, is left alone."""
    from gpubench.reports.fixed import ENERGY_NEGLIGIBLE as tol
    from gpubench.workflow import runner
    tri = loader.load("fei2014_triangulate_table1")
    case = next(c for c in runner.plan(tri) if c.function == "minpack2:lennard-jones")
    assert case.settings["backend"] == "auto" and case.dim == 39999

    def store(fun, converged=True):
        rec = {"schema": 1, "experiment": tri.id, "variant": "full", "case": case.case_id, "key": case.key,
               "method": case.method, "label": "", "function": case.function, "dim": case.dim, "sense": "min",
               "repetition": 0, "settings": case.settings, "options": case.settings,
               "measured": {"iterations": 6000, "seconds": 1.0, "converged": converged, "message": "m", "fun": fun},
               "result": {"bins": {"0": 99.0}}, "success": converged, "environment": {}}
        runner.write_record(tmp_path / tri.id, rec)

    f_a, f_e = 1.0348412287732326e17, 1.0321239970255827e17
    diff = (f_a - f_e) / f_e * 100
    ours = {"case": "ours", "dim": 39999, "result": {"energy_diff_percent": diff, "approximate": {"fun": f_a, "iterations": 3835},
                                                      "exact": {"fun": f_e, "iterations": 5921}}}
    pub = loader.load("fei2014_table1").published()

    def judge():
        (_, v, _), (_, same, _) = T.energy_rows(
            [("Lennard-Jones Clusters, Energy Diff", V.absolute(diff, 0.0, tol, "energy difference (%)"), [ours]),
             ("Lennard-Jones Clusters, 0", V.absolute(1.0, 0.0, 10.0, "share"), [ours])],
            pub, tri.id, {"Lennard-Jones Clusters": "lennard-jones"}, tol, tmp_path)
        assert same.kind == V.MATCHES and not same.triangulation
        return v
    assert not judge().triangulation                  # no SciPy record: left as it is
    store(f_e * (1 + 1e-8))                           # SciPy ends where our exact arm ends
    v = judge()
    assert v.kind == V.DIFFERS and v.triangulation[0]["side"] == T.OURS and not v.reason.startswith("not explained")
    assert v.triangulation[0]["records"] == [f"results/{tri.id}/{case.case_id}.json"]
    store(f_e * (1 + 2e-6))                           # 2e-4 % away from ours, 0.26 % from the paper's 0
    v = judge()
    assert v.triangulation[0]["side"] == T.NEITHER and v.reason.startswith("not explained")
    assert "SciPy's exact-Cauchy run ends at f = " in v.reason
    store(f_e, converged=False)                       # a SciPy run that did not end by the rule proves nothing
    assert not judge().triangulation
    store(float("nan"), converged=False)              # SciPy's line search met a NaN: said, not explained
    v = judge()
    assert v.triangulation[0]["side"] == T.NEITHER and v.reason.startswith("not explained")
    assert "f = nan" in v.reason and "no end energy" in v.reason
