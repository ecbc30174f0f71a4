"""The certification report with two method entries (experiments/scipy_go_certify.toml: the stored
entry `interval` and `interval_gub` beside it): each entry is counted and judged on its own
records only, an entry with none stored is said to be missing rather than shown as another's, and
the side-by-side table lists the cases whose verdicts differ."""
from gpubench.workflow import experiments_loader as loader
from gpubench.reports import builder as report
from gpubench.workflow import runner
from gpubench.functions import scipy_go
from test_reports import no_computation, record, table, tables  # noqa: F401  (a fixture)


def certified_record(case, gap, verdict):
    r = record(case, glb=0.0, gub=gap)
    r["certification"] = {"verdict": verdict, "ftol": 1e-6, "stated_fstar": 0.0,
                          "stated_minimisers": [[0.0] * case.dim], "minimisers_in_regions": True,
                          "evidence": {}, "reason": "" if verdict == "agrees" else "budget"}
    return r


def cases(e, key, names):
    return {c.function: c for c in runner.plan(e) if c.key == key and c.function in names and c.dim == 2}


def entry_table(md, key):
    """The table under the '### Entry `key`' heading."""
    part = md[md.index(f"### Entry `{key}`"):]
    part = part[:part.index("### ", 4)] if "### " in part[4:] else part
    return {r["function"]: r for _, head, rows in tables(part) for r in rows if head[0] == "function"}


def test_two_entries_are_judged_each_on_its_own_records(tmp_path, no_computation):  # noqa: F811
    e = loader.load("scipy_go_certify")
    keys = [m.key for m in e.full.methods]
    assert keys == ["interval", "interval_gub", "interval_strong", "maingo"]
    first, second = (cases(e, k, {"scipy_go.Beale", "scipy_go.Bukin06"}) for k in keys[:2])
    folder = tmp_path / "res" / "scipy_go_certify"
    runner.write_record(folder, certified_record(first["scipy_go.Beale"], 1e-12, "agrees"))
    runner.write_record(folder, certified_record(first["scipy_go.Bukin06"], 1.5e-6, "not certified"))
    md = report.build(e, tmp_path / "res", tmp_path / "rep").read_text()
    planned = sum(len(en.dims) for en in scipy_go.ENTRIES.values())       # each entry's cases
    assert f"Cases certified (GUB - GLB <= ftol, or 1024 ulp of the values where wider): 1 of 2 stored (50.0 %); {planned} planned." in md
    assert "No record of `interval_gub` is stored yet" in md
    assert "no case is stored for both yet" in md
    assert set(entry_table(md, "interval")) >= {"Beale", "Bukin06"}
    # the second entry's record: it alone is counted under its heading, and the first entry's
    # verdict on the same case stays its own
    runner.write_record(folder, certified_record(second["scipy_go.Bukin06"], 1e-160, "agrees"))
    md = report.build(e, tmp_path / "res", tmp_path / "rep").read_text()
    one = entry_table(md, "interval")
    two = entry_table(md, "interval_gub")
    assert one["Bukin06"]["verdict"] == "not certified within budget"
    assert two["Bukin06"]["verdict"] == "agrees" and two["Beale"]["verdict"] == "missing"
    part = md[md.index("### Entry `interval_gub`"):]
    assert f"Cases certified (GUB - GLB <= ftol, or 1024 ulp of the values where wider): 1 of 1 stored (100.0 %); {planned} planned." in part
    side = table(md, "Full", "function", "verdict, interval_gub")
    assert [(r["function"], r["verdict, interval"], r["verdict, interval_gub"]) for r in side] == \
        [("Bukin06", "not certified within budget", "agrees")]
    assert "on the 1 case(s) stored for both: `interval` certifies 0, `interval_gub` 1" in md


def test_the_quick_variant_runs_the_second_entry_only():
    e = loader.load("scipy_go_certify")
    assert [m.key for m in e.quick.methods] == ["interval_gub"]
    one, two, *_ = e.full.methods
    # the same search but the multistart and the polish: a record of one is never a record of the other
    extra = {"polish": True, "local_starts": 8}
    assert {k: v for k, v in two.settings.items() if k not in extra} == one.settings
    assert {k: two.settings[k] for k in extra} == extra and not set(extra) & set(one.settings)
    ids = {c.key: set() for c in runner.plan(e)}
    for c in runner.plan(e):
        ids[c.key].add(c.case_id)
    planned = sum(len(en.dims) for en in scipy_go.ENTRIES.values())
    assert len(ids["interval"]) == len(ids["interval_gub"]) == planned   # --list counts both
    assert not ids["interval"] & ids["interval_gub"]


def test_maingo_is_a_second_opinion_whose_glb_is_labelled_not_verified(tmp_path, no_computation):  # noqa: F811
    import pytest
    pytest.importorskip("maingopy")
    e = loader.load("scipy_go_certify")
    assert [m.key for m in e.full.methods][-1] == "maingo"
    third = cases(e, "maingo", {"scipy_go.Beale", "scipy_go.Bukin06", "scipy_go.Matyas"})
    folder = tmp_path / "res" / "scipy_go_certify"
    agrees = certified_record(third["scipy_go.Beale"], 1e-12, "agrees")
    below = certified_record(third["scipy_go.Bukin06"], 1e-12, "value wrong")     # f* below its GLB
    below["certification"]["evidence"] = {"glb": 0.0}
    above = certified_record(third["scipy_go.Matyas"], 1e-12, "value wrong")      # f* above its GUB
    above["certification"]["evidence"] = {"point": [0.0, 0.0], "enclosure": [0.0, 0.0]}
    for r in (agrees, below, above):
        r["measured"].update(glb=0.0, gub=1e-12)     # the test helper writes bounds for `interval` only
        r["options"]["verified"] = {"glb": False, "gub": True}
        runner.write_record(folder, r)
    md = report.build(e, tmp_path / "res", tmp_path / "rep").read_text()
    assert "### Entry `maingo` (a second opinion: its GLB is not verified)" in md
    part = md[md.index("### Entry `maingo`"):]
    assert "Cases whose gap closed (GUB - GLB <= ftol, GLB not verified: a second opinion, not a certificate): " \
           "3 of 3 stored" in part
    assert "in 2 case(s); 1 of them proved by the verified GUB" in part
    t = entry_table(md, "maingo")
    assert t["Beale"]["verdict"] == "agrees (not verified)" and "GLB (not verified)" in t["Beale"]
    assert t["Bukin06"]["verdict"] == "SciPy's value is wrong (not verified)"
    assert t["Matyas"]["verdict"] == "SciPy's value is wrong"          # rests on the verified GUB
    # a function MAiNGO cannot express says so instead of "missing"
    assert t["Step"]["verdict"] == "not run: the method cannot express it" and "Floor" in t["Step"]["evidence / reason"]
    # beside the rigorous entry: its record certifies, MAiNGO's gap only closes
    runner.write_record(folder, certified_record(cases(e, "interval", {"scipy_go.Bukin06"})["scipy_go.Bukin06"],
                                                 1e-12, "agrees"))
    md = report.build(e, tmp_path / "res", tmp_path / "rep").read_text()
    assert "Cases certified (GUB - GLB <= ftol, or 1024 ulp of the values where wider): 1 of 1 stored" in md[:md.index("### Entry `maingo`")]
    assert "`interval` certifies 1, `maingo` 1 (its gap closed; its GLB not verified)" in md
    side = table(md, "Full", "function", "verdict, maingo")
    assert [(r["function"], r["verdict, maingo"]) for r in side] == [("Bukin06", "SciPy's value is wrong (not verified)")]


def test_f_star_stated_for_another_dimension_is_not_called_wrong(tmp_path, no_computation):  # noqa: F811
    """SciPy gives EggHolder's n = 2 value and Trid's n = 6 value for every n (``Entry.fglob_dim``):
    a point below it at another n is said to be that, not "SciPy's value is wrong"; Sargan's f* = 0
    is claimed for every n (its minimiser is the zero vector of n coordinates) and stays wrong."""
    e = loader.load("scipy_go_certify")
    names = {"scipy_go.EggHolder", "scipy_go.Trid", "scipy_go.Sargan"}
    planned = [c for c in runner.plan(e) if c.key == "interval" and c.function in names and c.dim == 5]
    folder = tmp_path / "res" / "scipy_go_certify"
    for c in planned:
        r = certified_record(c, 1e-12, "value wrong")
        r["certification"]["evidence"] = {"point": [0.0] * 5, "enclosure": [-1.0, -1.0]}
        runner.write_record(folder, r)
    md = report.build(e, tmp_path / "res", tmp_path / "rep").read_text()
    part = md[md.index("### Entry `interval`"):md.index("### Entry `interval_gub`")]
    t = {(r["function"], r["n"]): r["verdict"] for _, head, rows in tables(part) for r in rows
         if head[0] == "function"}
    assert t[("EggHolder", "5")] == "f* stated for n = 2 only (not judged at n = 5)"
    assert t[("Trid", "5")] == "f* stated for n = 6 only (not judged at n = 5)"
    assert t[("Sargan", "5")] == "SciPy's value is wrong"
    assert "Where SciPy's statement is wrong (1 case(s)):" in part
    wrong = part[part.index("Where SciPy's statement is wrong"):]
    assert "scipy_go.Sargan n=5" in wrong.split("Where the library states")[0]
    assert "scipy_go.EggHolder n=5: stated f* 0 (for n = 2); the minimum at n = 5 lies in [0, 1e-12]" in wrong
    assert "Where the library states f* for another dimension only (2 case(s)" in wrong
