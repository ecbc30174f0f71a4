"""The seven SciPy baselines of Tables S12/S13 (Zhang, Shan & Cagan 2026) behind the shared interface."""
import numpy as np
import pytest

from gpubench import functions, methods
from gpubench.baselines import scipy_methods as sm
from gpubench.forms.function import InputError
from gpubench.result import OptimizeResult

SEVEN = ("basinhopping", "bfgs", "differential_evolution", "direct", "trust_constr", "nelder_mead",
         "trust_region")

# tiny settings: a few runs of each, a few iterations
TINY = {
    "basinhopping": {"runs": 2, "niter": 3},
    "bfgs": {"runs": 3},
    "differential_evolution": {"runs": 1, "maxiter": 5, "popsize": 5},
    "direct": {"runs": 1, "maxfun": 500},
    "trust_constr": {"runs": 2, "maxiter": 30},
    "nelder_mead": {"runs": 2, "maxiter": 200, "maxfev": 200},
    "trust_region": {"runs": 3},
}


def test_the_seven_are_registered():
    assert set(SEVEN) <= set(methods.names())
    paper = {m.name: m.settings.paper_runs for m in sm.METHODS}
    assert paper == {"basinhopping": 1000, "bfgs": 50000, "differential_evolution": 100, "direct": 1,
                     "trust_constr": 50000, "nelder_mead": 10000, "trust_region": 50000}
    assert all(not methods.get(n).rigorous and methods.get(n).backends == ("cpu",) for n in SEVEN)


@pytest.mark.parametrize("name", SEVEN)
def test_one_result_best_of_all_runs(name):
    fn = functions.get("ackley")
    r = methods.minimize("ackley", 4, method=name, seed=3, **TINY[name])
    assert isinstance(r, OptimizeResult)
    assert r.method == name and r.function == "ackley" and r.dim == 4
    runs = TINY[name]["runs"]
    assert r.history["runs_completed"] == runs == len(r.history["run_fun"])
    assert r.converged
    assert r.fun == pytest.approx(min(r.history["run_fun"]))
    assert r.fun == pytest.approx(fn.point(r.x))       # the value is f at the returned point
    lo, hi = fn.bounds(4)
    assert np.all(r.x >= lo) and np.all(r.x <= hi)     # every method reports a point in the box
    assert r.nfev > 0 and r.seconds > 0
    # every setting is recorded, with the bound rule and the paper's run count
    settings = methods.get(name).settings
    for k in settings.names():
        assert k in r.options and (r.options[k] is not None or k == "time_limit")
    assert r.options["runs"] == runs and r.options["paper_runs"] == settings.paper_runs
    assert r.options["bounds"] == settings.bounds_rule


@pytest.mark.parametrize("name", ("bfgs", "trust_constr", "trust_region", "basinhopping"))
def test_gradient_methods_use_the_analytic_gradient(name):
    r = methods.minimize("ackley", 3, method=name, **TINY[name])
    assert r.njev > 0


def test_seeded_and_run_k_does_not_depend_on_the_run_count():
    a = methods.minimize("rastrigin", 5, method="bfgs", runs=4, seed=11)
    b = methods.minimize("rastrigin", 5, method="bfgs", runs=4, seed=11)
    c = methods.minimize("rastrigin", 5, method="bfgs", runs=2, seed=11)
    d = methods.minimize("rastrigin", 5, method="bfgs", runs=4, seed=12)
    assert a.history["run_fun"] == b.history["run_fun"]
    assert c.history["run_fun"] == a.history["run_fun"][:2]   # quick runs = the first full runs
    assert d.history["run_fun"] != a.history["run_fun"]


def test_maximisation_minimises_minus_f_and_reports_f():
    fn = functions.get("alpine02")
    assert fn.sense == "max"
    r = methods.minimize("alpine02", 2, method="bfgs", runs=5, seed=0)
    assert r.fun == pytest.approx(fn.point(r.x))
    assert r.fun == pytest.approx(max(r.history["run_fun"]))
    assert r.fun > 0


def test_direct_with_scipy_defaults_stops_at_the_papers_value():
    """SciPy's vol_tol=1e-16 stops DIRECT after 599 evaluations at n = 100, at the 3.326 of Table S12."""
    r = methods.minimize("ackley", 100, method="direct", vol_tol=1e-16)
    assert r.nfev == 599
    assert round(r.fun, 3) == 3.326


def test_time_limit_stops_starting_runs():
    r = methods.minimize("ackley", 5, method="nelder_mead", runs=1000, time_limit=0.05)
    assert 1 <= r.history["runs_completed"] + r.history["runs_cut"] < 1000
    assert not r.converged and "time_limit" in r.message


def test_trust_region_projects_onto_the_box():
    r = methods.minimize("rastrigin", 6, method="trust_region", runs=20, seed=1)
    lo, hi = functions.get("rastrigin").bounds(6)
    assert np.all(r.x >= lo) and np.all(r.x <= hi)
    assert 0 <= r.history["runs_left_box"] <= 20


@pytest.mark.parametrize("kwargs, words", [
    ({"method": "direct", "runs": 2}, "runs must be at most 1"),
    ({"method": "bfgs", "runs": 0}, "runs must be at least 1"),
    ({"method": "bfgs", "seed": -1}, "seed"),
    ({"method": "bfgs", "colour": 1}, "has no setting 'colour'"),
    ({"method": "bfgs", "gtol": "small"}, "must be a number"),
    ({"method": "nelder_mead", "maxfev": 1.5}, "must be an integer"),
    ({"method": "trust_region", "scipy_method": "dogleg"}, "is fixed"),
    ({"method": "differential_evolution", "updating": "sometimes"}, "updating"),
])
def test_bad_settings_are_one_line_input_errors(kwargs, words):
    with pytest.raises(InputError) as exc:
        methods.minimize("ackley", 3, **kwargs)
    assert words in str(exc.value) and "\n" not in str(exc.value)


def test_workers_split_the_runs_without_changing_them():
    """Run k draws from default_rng([seed, k]) in whichever process runs it."""
    a = methods.minimize("rastrigin", 4, method="nelder_mead", runs=6, seed=5)
    b = methods.minimize("rastrigin", 4, method="nelder_mead", runs=6, seed=5, workers=3)
    assert a.history["run_fun"] == b.history["run_fun"] and a.nfev == b.nfev
    assert np.array_equal(a.x, b.x) and "trace" in a.history and "trace" not in b.history


@pytest.mark.parametrize("name, settings", [
    ("differential_evolution", {"runs": 1, "maxiter": 100000}),
    ("direct", {"maxfun": 10**8, "maxiter": 10**6}),
    # tolerances 0: it then iterates without evaluating f, so only its iteration callback can stop it
    ("trust_constr", {"runs": 1, "maxiter": 10**6, "gtol": 0.0, "xtol": 0.0, "barrier_tol": 0.0}),
    ("basinhopping", {"runs": 1, "niter": 10**6}),
])
def test_time_limit_cuts_a_run_in_progress(name, settings):
    """One run of these outlasts any per-case budget at n = 1,000; time_limit must still bound the call."""
    fn = functions.get("rastrigin")
    r = methods.minimize("rastrigin", 30, method=name, time_limit=0.5, **settings)
    assert r.seconds < 0.5 + 1.5  # the next evaluation after the limit ends it (slack: a busy machine)
    assert r.history["runs_cut"] == 1 and r.history["runs_completed"] == 0
    assert not r.converged and "cut" in r.message
    lo, hi = fn.bounds(30)
    assert np.all(r.x >= lo) and np.all(r.x <= hi)
    assert r.fun == pytest.approx(fn.point(r.x)) and r.fun <= min(r.history["trace"][0][2], r.fun)
