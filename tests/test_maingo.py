"""The ``maingo`` method (baselines/maingo.py): MAiNGO run on the MAiNGO form of a definition.

Small cases solve with glb <= f* <= gub; the side of the bounds that is interval-verified is
stated; an operation MAiNGO cannot express is refused in one line; a wrong translation of one
operation is caught against the point form before MAiNGO solves anything.
"""
import math
import time

import numpy as np
import pytest
import sympy as sp

from gpubench import functions, methods
from gpubench.errors import InputError

pytest.importorskip("maingopy")

from gpubench.baselines import maingo as M   # noqa: E402  (after the skip)
from gpubench.forms import maingoform     # noqa: E402

TIGHT = dict(eps_abs=1e-4, eps_rel=1e-4, time_limit=30.0)


@pytest.mark.parametrize("name, n", [("levy", 2), ("levy", 3), ("levy", 4), ("rosenbrock", 2)])
def test_small_cases_bracket_the_minimum(name, n):
    fn = functions.get(name)
    r = methods.minimize(name, n, "maingo", **TIGHT)
    fstar = fn.fstar(n)
    assert r.stop == "converged" and r.converged, r.message
    assert r.glb <= fstar <= r.gub
    assert r.gub - r.glb <= max(1e-4, 1e-4 * abs(r.gub)) + 1e-12
    # the upper side is the point's interval enclosure (verified), the lower MAiNGO's bound (not)
    assert r.options["verified"] == {"glb": False, "gub": True}
    assert r.gub == fn.interval(r.x, r.x)[1] and r.fun == fn.point(r.x)
    assert r.iterations >= 1 and r.method == "maingo"


def test_a_maximum_is_in_its_own_sense_with_the_verified_side_below():
    fn = functions.get("alpine02")
    r = methods.minimize("alpine02", 2, "maingo", **TIGHT)
    assert r.glb <= fn.fstar(2) <= r.gub
    assert r.options["verified"] == {"glb": True, "gub": False}
    assert r.glb == fn.interval(r.x, r.x)[0]


def _stepped():
    from gpubench.forms.definition import Definition, Floor, Sum, symbols, x
    S = symbols("S")
    from gpubench.forms.function import TestFunction
    return TestFunction(Definition(
        name="floored", title="floored", source="test", terms={S: Sum(Floor(x) + x ** 2)}, expr=S,
        domain=(-2, 2), xstar=lambda d: np.zeros(d), fstar=lambda d: 0.0))


def test_an_operation_maingo_cannot_express_is_refused_in_one_line():
    with pytest.raises(InputError) as exc:
        methods.minimize(_stepped(), 2, "maingo")
    msg = str(exc.value)
    assert "\n" not in msg and "Floor" in msg and "MAiNGO cannot express" in msg


def test_the_refusal_on_the_command_line(tmp_path):
    import subprocess
    import sys
    src = tmp_path / "floored.py"
    src.write_text("import numpy as np\nfrom gpubench.forms.definition import Definition, Sum, sign, symbols, x\n"
                   "S = symbols('S')\nDEFINITION = Definition(name='signed', title='signed', source='t', "
                   "terms={S: Sum(sign(x) + x**2)}, expr=S, domain=(-2, 2), xstar=lambda d: np.zeros(d), "
                   "fstar=lambda d: 0.0)\n")
    p = subprocess.run([sys.executable, "-m", "gpubench", "minimize", f"{src}:DEFINITION", "--dim", "2",
                        "--method", "maingo"], capture_output=True, text=True)
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gpubench: error:") and "sign" in lines[0], p.stderr


def test_a_wrong_translation_is_caught_against_the_point_form(monkeypatch):
    # sin written as cos: MAiNGO would solve another function; its own value of the graph at the
    # first check point differs from the point form's, and the run stops before solving
    monkeypatch.setitem(maingoform.OPERATIONS, sp.sin, "cos")
    with pytest.raises(M.TranslationMismatch, match="levy.*the translation is wrong"):
        methods.minimize("levy", 2, "maingo", **TIGHT)


def test_plain_float_constants_would_be_single_precision_and_are_caught(monkeypatch):
    # maingopy 0.10.3 takes a Python float in + - * with an FFVar as C++ float; the form writes
    # constants as FFVar doubles.  Written plainly, Levy's pi/4 terms would be another function:
    monkeypatch.setattr(maingoform, "_const", lambda mp, v: v)
    with pytest.raises(M.TranslationMismatch):
        methods.minimize("levy", 2, "maingo", **TIGHT)


def test_settings_are_checked_before_anything_runs():
    with pytest.raises(InputError, match="cannot both be 0"):
        methods.minimize("levy", 2, "maingo", eps_abs=0.0, eps_rel=0.0)
    with pytest.raises(InputError, match="lbp_solver must be one of"):
        methods.minimize("levy", 2, "maingo", lbp_solver="gurobi")
    import maingopy
    if not maingopy.cplex_use:
        with pytest.raises(InputError, match="without CPLEX"):
            methods.minimize("levy", 2, "maingo", lbp_solver="cplex")
    with pytest.raises(InputError, match="has no setting 'epsilonA'"):
        methods.minimize("levy", 2, "maingo", epsilonA=1e-3)


def test_bound_tightening_options_reach_maingo():
    r = methods.minimize("levy", 2, "maingo", constraint_propagation=False, dbbt=False, obbt=False,
                         probing=True, lbp_solver="interval", ubp_solver="lbfgs", max_nodes=5)
    o = r.options["maingo_options"]
    assert (o["BAB_constraintPropagation"], o["BAB_dbbt"], o["BAB_alwaysSolveObbt"], o["PRE_obbtMaxRounds"],
            o["BAB_probing"], o["BAB_maxIterations"]) == (False, False, False, 0, True, 5)
    assert r.options["lbp_solver_used"] == "interval"
    assert r.glb <= 0.0 <= r.gub


def test_listed_with_its_rigor():
    m = methods.get("maingo")
    assert "maingo" in methods.names() and not m.rigorous and m.available
    assert m.describe()["name"] == "maingo"


def test_no_file_is_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    methods.minimize("levy", 2, "maingo")
    assert list(tmp_path.iterdir()) == []


def test_the_form_values_floats_as_the_point_form_does():
    for name, n in (("ackley", 3), ("griewank", 3), ("styblinski_tang", 2), ("alpine02", 3)):
        fn = functions.get(name)
        form = maingoform.maingo_form(fn, n)
        x = np.random.default_rng(1).uniform(*fn.bounds(n))
        assert math.isclose(form.objective(list(x)), fn.point(x), rel_tol=1e-12, abs_tol=1e-12), name


@pytest.mark.parametrize("name", functions.names())
def test_every_library_function_translates_or_is_refused_by_name(name):
    """MAiNGO values its own graph at random points as the point form does, or the function is
    refused in one line naming what MAiNGO cannot express (levy_delta's spike)."""
    import maingopy
    fn = functions.get(name)
    dim = fn.definition.dim or 3
    lo, hi = fn.bounds(dim)
    try:
        form = maingoform.maingo_form(fn, dim)
    except InputError as exc:
        assert "\n" not in str(exc) and "MAiNGO" in str(exc) and fn.definition.spike is not None, name
        return
    solver = maingopy.MAiNGO(model := M._model(maingopy, form, lo, hi))   # noqa: F841  (kept alive)
    solver.set_option("loggingDestination", 0)
    for x in np.random.default_rng(2).uniform(lo, hi, size=(3, dim)):
        M._check(fn, 1.0, solver, x, "a random point")


def _rec(key, fn, dim, seconds, converged, backend="cpu", time_limit=6000.0):
    return {"variant": "full", "key": key, "function": fn, "dim": dim, "settings": {"time_limit": time_limit},
            "measured": {"seconds": seconds, "converged": converged, "backend": backend}}


def test_paper001_table2_is_judged_cell_by_cell():
    from gpubench.workflow import experiments_loader as loader
    from gpubench.reports.fixed import _judge_table2, table2_grid
    exp = loader.load("maingo_gpu_table2")
    pub = exp.published()
    recs = [_rec("mccormick_no_bt", "alpine02", 6, 0.3, True),
            _rec("mccormick_cp", "alpine02", 6, 0.2, True),
            _rec("mccormick_cp_dbbt", "alpine02", 6, 0.1, True),
            _rec("mccormick_default", "alpine02", 6, 0.05, False),               # not converged: not the best
            _rec("subdomain_no_bt", "alpine02", 6, 1.0, True),                   # a CPU twin: not a GPU row
            _rec("subdomain_cp", "alpine02", 6, 1.0, True, backend="cuda"),
            _rec("mccormick_no_bt", "styblinski_tang", 7, 6000.0, False)]        # ran past the paper's time
    v = {label: verdict for label, verdict, *_ in _judge_table2(exp, recs, pub)}
    assert len(v) == 25
    assert v["Alpine02 function 6d, mccormick_no_bt"].kind == "matches"
    assert v["Alpine02 function 6d, subdomain_cp"].kind == "matches"
    assert v["Alpine02 function 6d, subdomain_no_bt"].kind == "not reproduced"
    assert "GPU" in v["Alpine02 function 6d, subdomain_no_bt"].reason
    assert v["Styblinski-Tang function 7d, mccormick_no_bt"].kind == "differs"
    assert v["Kinetic ODE parameter estimation, best"].kind == "not reproduced"
    assert "ODE" in v["Kinetic ODE parameter estimation, best"].reason
    assert v["Alpine02 function 6d, best"].kind == "matches" and "cp_dbbt" in v["Alpine02 function 6d, best"].rule
    grid = {r["Problem"]: r for r in table2_grid(recs, pub)}
    assert grid["Alpine02 function 6d"]["best: ours s"] == "0.1 (cp_dbbt)"


def test_reproduce_runs_only_the_entries_named(tmp_path, capsys):
    """`--entries`: a table's CPU rows (MAiNGO) here, its GPU rows on the GPU host."""
    import json
    from gpubench.cli import main
    res = tmp_path / "results"
    assert main(["reproduce", "maingo_gpu_table2", "--quick", "--entries", "mccormick_cp",
                 "--results", str(res)]) == 0
    recs = [json.loads(p.read_text()) for p in (res / "maingo_gpu_table2").glob("*.json")]
    assert sorted((r["key"], r["function"]) for r in recs) == [("mccormick_cp", "alpine02"),
                                                              ("mccormick_cp", "styblinski_tang")]
    assert all(r["measured"]["converged"] for r in recs)
    assert main(["reproduce", "maingo_gpu_table2", "--entries", "nope", "--results", str(res)]) == 2
    assert "has no method entry 'nope'" in capsys.readouterr().err


def test_the_rigorous_report_says_who_proves_what_and_the_ratio_to_maingo():
    from gpubench.workflow import experiments_loader as loader
    from gpubench.workflow import runner
    from gpubench.reports.rigorous import headline, rows
    planned = [c for c in runner.plan(loader.load("rigorous_peers")) if c.function == "levy" and c.dim in (2, 5)]

    def rec(key, dim, s, conv, glb, gub, verified=None):
        return {"key": key, "function": "levy", "dim": dim, "options": {"verified": verified} if verified else {},
                "measured": {"seconds": s, "converged": conv, "glb": glb, "gub": gub, "message": "m"}}
    recs = [rec("maingo", 2, 0.5, True, 0.0, 1e-9, {"glb": False, "gub": True}),
            rec("subdomain_gpu_strong", 2, 0.25, True, -1e-5, 1e-9),
            rec("interval_gpu_device", 2, 2.0, True, 0.0, 1e-3),       # converged, but a gap above 1e-4
            rec("maingo", 5, 600.0, False, -1.0, 1e-9, {"glb": False, "gub": True}),
            rec("subdomain_gpu_strong", 5, 3.0, True, -1e-5, 1e-9)]
    recs.append(rec("interval_gpu_device", 5, 1.0, False, -1.0, 1e-9))  # stopped: MAiNGO alone neither
    recs.append(rec("interval_gpu_paper", 2, 1.0, True, None, 1e-9))      # converged, GLB not finite: not proved
    table, ratios = rows(recs, planned)
    two = next(r for r in table if r["n"] == 2)
    assert two["maingo"].startswith("closed, GLB not verified") and two["subdomain_gpu_strong"].startswith("proved")
    assert "x0.5 of MAiNGO" in two["subdomain_gpu_strong"] and ratios["subdomain_gpu_strong"] == [0.5]
    # converged with a gap above the matched 1e-4: not proved, and no ratio
    assert two["interval_gpu_device"].startswith("converged, gap above 1e-4") and "MAiNGO" not in two["interval_gpu_device"]
    assert ratios["interval_gpu_device"] == []
    assert two["interval_cpu_paper"] == "missing"
    assert two["interval_gpu_paper"].startswith("converged, no finite GLB stored")
    lines = headline(recs, planned)
    by = {ln.split("`")[1]: ln for ln in lines if ln.startswith("`")}
    assert ("proved to 0.0001 in 2 of 2 stored case(s); 1 where MAiNGO (stored) did not close the gap, 0 where MAiNGO did "
            "and it did not; on the 1 case(s) both closed, faster in 1, slower in 0") in by["subdomain_gpu_strong"]
    assert "in 0 of 2 stored case(s); 0 where MAiNGO (stored) did not close the gap, 1 where MAiNGO did" in by["interval_gpu_device"]
    assert "no case both closed" in by["interval_gpu_device"]
    best = next(ln for ln in lines if ln.startswith("gpubench's best entry"))
    assert "proved in 2 case(s); alone (MAiNGO stored, gap not closed) in 1 (levy n=5)" in best
    assert "closed the gap to 0.0001 in 1 of 2 stored case(s)" in by["maingo"] and "GLB not verified" in by["maingo"]
    assert "above the library's f*" not in by["maingo"]
    recs[0]["fstar"], recs[0]["measured"]["glb"] = 0.0, 3e-15       # MAiNGO's GLB above f*: said
    by = {ln.split("`")[1]: ln for ln in headline(recs, planned) if ln.startswith("`")}
    assert "Its GLB lies above the library's f* in 1 case(s) (levy n=2 by 3e-15)" in by["maingo"]


def _disk_problem(equality=False):
    """min x1 + x2 on [-2, 2]^2 with (x1^2 + x2^2 - 1) <= 0 (or = 0): minimum -sqrt(2) at -(1, 1)/sqrt(2)."""
    from gpubench.forms.definition import Definition, Problem, variables
    from gpubench.forms.function import ConstrainedProblem
    x1, x2 = variables(2)
    obj = Definition(name="lin", title="lin", source="test", expr=x1 + x2, domain=(-2, 2), dim=2,
                     xstar=lambda d: np.full(d, -2 ** -0.5), fstar=lambda d: -math.sqrt(2))
    disk = x1 ** 2 + x2 ** 2 - 1
    return ConstrainedProblem(Problem(name="disk", objective=obj, inequalities=() if equality else (disk,),
                                      equalities=(disk,) if equality else ()))


@pytest.mark.parametrize("equality", [False, True])
def test_a_constrained_problem_is_solved_and_its_point_side_verified_only_where_feasible(equality):
    p = _disk_problem(equality)
    r = methods.minimize(p, 2, "maingo", **TIGHT)
    assert r.converged and r.glb <= -math.sqrt(2) + 1e-6 and abs(r.gub + math.sqrt(2)) <= 1e-3
    assert r.glb <= r.gub
    # an equality is never proved at a floating-point point; an inequality only by its interval form
    feasible = p.inequalities[0].interval(r.x, r.x)[1] <= 0.0 if not equality else False
    assert r.options["verified"] == {"glb": False, "gub": feasible}
    if not feasible:
        assert "not proved feasible" in r.message


def test_a_wrong_translation_of_a_constraint_is_caught(monkeypatch):
    # the objective is linear (no sin); a constraint written with sin -> cos is caught on its own
    from gpubench.forms.definition import Definition, Problem, variables
    from gpubench.forms.function import ConstrainedProblem
    x1, x2 = variables(2)
    obj = Definition(name="lin", title="lin", source="test", expr=x1 + x2, domain=(-2, 2), dim=2,
                     xstar=lambda d: np.full(d, np.nan), fstar=lambda d: 0.0)
    p = ConstrainedProblem(Problem(name="wavy", objective=obj, inequalities=(sp.sin(x1) - x2,)))
    monkeypatch.setitem(maingoform.OPERATIONS, sp.sin, "cos")
    with pytest.raises(M.TranslationMismatch, match="inequality g1"):
        methods.minimize(p, 2, "maingo", **TIGHT)


def test_a_sweep_leaves_out_the_cases_maingo_cannot_express(monkeypatch):
    import io
    from gpubench.problems import catalog
    from gpubench.workflow import runner
    fn = _stepped()
    real = catalog.function_of
    monkeypatch.setattr(catalog, "function_of", lambda name: fn if name == "floored" else real(name))
    assert methods.get("maingo").refuses(fn, 2) and "Floor" in methods.get("maingo").refuses(fn, 2)
    assert methods.get("maingo").refuses(functions.get("levy"), 2) is None
    case = lambda f: runner.Case("x", "full", f, 2, "maingo", "maingo", "maingo", {})   # noqa: E731
    out = io.StringIO()
    left = runner._available([case("levy"), case("floored")], "x", out)
    assert [c.function for c in left] == ["levy"]
    assert "1 case(s) of maingo left out: its method cannot express them" in out.getvalue()
    assert "Floor" in out.getvalue()


def test_an_error_of_maingo_itself_ends_the_run_unsolved_saying_why():
    # Keane's denominator sqrt(sum i x_i^2) spans 0 on its box: MAiNGO's McCormick relaxation of the
    # division fails in its preprocessing; the run ends unsolved (a sweep goes on), never a traceback
    fn = functions.get("scipy_go.Keane")
    r = methods.minimize(fn, 2, "maingo", time_limit=10.0)
    assert r.stop == "failed" and not r.converged and r.status == "MAiNGOException"
    assert "MAiNGO stopped with an error" in r.message and "\n" not in r.message
    assert r.glb == -math.inf and r.gub == fn.interval(r.x, r.x)[1]
    # the certification says the method failed, not that a budget ran out
    from gpubench.reports.certify import verdict_text
    from gpubench.workflow.certify import judgement
    j = judgement("scipy_go.Keane", 2, fn, r)
    assert j["verdict"] == "not certified" and "when the method failed (MAiNGO stopped with an error" in j["reason"]
    assert verdict_text(j, opinion=True) == "not certified: the method failed"



def _sleeps(*args):
    time.sleep(60)


def test_a_maingo_run_that_outlasts_its_limit_is_killed_and_ends_unsolved(monkeypatch):
    """MAiNGO checks its time limit between B&B iterations only: its preprocessing at n = 1,000 ran
    17 minutes past a 600 s limit on the GPU host.  The run is killed kill_after() seconds past the
    limit and ends unsolved, saying so, with the box's midpoint as its (verified) upper bound."""
    monkeypatch.setattr(M, "_solve", _sleeps)
    monkeypatch.setattr(M, "kill_after", lambda limit: 0.5)
    fn = functions.get("levy")
    t0 = time.perf_counter()
    r = methods.minimize(fn, 2, "maingo", time_limit=1.0)
    assert time.perf_counter() - t0 < 8
    assert r.stop == "time_limit" and not r.converged and r.glb == -math.inf
    assert "killed" in r.message and "\n" not in r.message
    assert r.gub == fn.interval(r.x, r.x)[1]


def _raises(*args):
    raise M.TranslationMismatch("the form disagrees with the point form")


def test_an_error_in_maingo_s_process_reaches_the_caller(monkeypatch):
    monkeypatch.setattr(M, "_solve", _raises)
    with pytest.raises(M.TranslationMismatch, match="disagrees"):
        methods.minimize(functions.get("levy"), 2, "maingo", time_limit=5.0)


def test_kill_after_allows_one_iteration_past_the_limit():
    assert M.kill_after(600.0) == 60.0 and M.kill_after(1.0) == 10.0


def _dies(*args):
    import os
    os._exit(3)


def test_a_maingo_process_that_dies_ends_the_run_unsolved_saying_so(monkeypatch):
    monkeypatch.setattr(M, "_solve", _dies)
    fn = functions.get("levy")
    r = methods.minimize(fn, 2, "maingo", time_limit=5.0)
    assert r.stop == "failed" and not r.converged and r.glb == -math.inf
    assert "ended without an answer (exit code 3)" in r.message
