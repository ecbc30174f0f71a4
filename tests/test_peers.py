"""The peers as registered methods (baselines/: EvoX, evosax, jaxopt) and the array form they evaluate.

Each peer is tested where its package installs (``make .venv`` installs ``.[peers]`` with
PyTorch's CPU build); without it the peer's tests skip, saying which package is missing.  A
missing package is simulated for the listing and the one-line refusal by hiding the module
(``sys.modules[name] = None`` makes both ``import`` and ``importlib.util.find_spec`` fail).
"""
import importlib.util
import sys

import numpy as np
import pytest

from gpubench import functions, methods
from gpubench.workflow import runner
from gpubench.forms.arrayform import array_form
from gpubench.cli import main
from gpubench.errors import InputError

PEERS = {"evox-de": "evox", "evox-pso": "evox", "evosax-de": "evosax", "evosax-cma-es": "evosax",
         "jaxopt-lbfgsb": "jaxopt"}
LIBRARY = {"evox": "torch", "evosax": "jax", "jaxopt": "jax"}
# small budgets that solve levy and rosenbrock at n = 2 from any seed tried
BUDGET = {"evox-de": dict(np=20, max_evaluations=2000), "evox-pso": dict(np=20, max_evaluations=2000),
          "evosax-de": dict(np=20, max_evaluations=2000), "evosax-cma-es": dict(np=10, max_evaluations=1000),
          "jaxopt-lbfgsb": dict(starts=6, rounds=2)}


def _installed(*mods):
    return all(importlib.util.find_spec(m) is not None for m in mods)


def _needs(method):
    pkg = PEERS[method]
    return pytest.mark.skipif(not _installed(pkg, LIBRARY[pkg]),
                              reason=f"{pkg} or {LIBRARY[pkg]} not installed (pip install 'gpubench[peers]')")


# ---------------------------------------------------------------- the array form
def _sample(fn, dim, rows=6, seed=0):
    lo, hi = fn.bounds(dim)
    return np.random.default_rng(seed).uniform(lo, hi, size=(rows, dim))


@pytest.mark.parametrize("name", functions.names())
def test_array_form_agrees_with_the_compiled_points(name):
    """Every library function: windows of one and two coordinates, products, parameters, spikes."""
    fn = functions.get(name)
    for dim in ([fn.definition.dim] if fn.definition.dim else [1, 2, 7]):
        X = _sample(fn, dim)
        np.testing.assert_allclose(array_form(fn, dim, "numpy")(X), fn.points(X), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["scipy_go.Hartmann6", "scipy_go.Schwefel26", "scipy_go.Trefethen"])
def test_array_form_of_fixed_dimension_and_max_functions(name):
    fn = functions.get(name)
    dim = fn.definition.dim or 3
    X = _sample(fn, dim)
    np.testing.assert_allclose(array_form(fn, dim, "numpy")(X), fn.points(X), rtol=1e-12, atol=1e-12)


def test_array_form_of_a_spike_takes_its_value_inside():
    spiky = [n for n in functions.names() if functions.get(n).definition.spike is not None]
    assert spiky, "the library has a function with a spike (a discontinuity)"
    fn = functions.get(spiky[0])
    s = fn.definition.spike
    X = np.full((1, 3), float(s.center))
    assert array_form(fn, 3, "numpy")(X)[0] == float(s.value) == fn.points(X)[0]


@pytest.mark.parametrize("library, module", [("torch", "torch"), ("jax", "jax")])
def test_array_form_in_the_peers_libraries(library, module):
    if not _installed(module):
        pytest.skip(f"{module} not installed (pip install 'gpubench[peers]')")
    if library == "jax":
        import jax
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
        to = jnp.asarray
    else:
        import torch
        to = lambda a: torch.as_tensor(a, dtype=torch.float64)  # noqa: E731
    for name in ("levy", "rosenbrock", "ackley", "griewank", "styblinski"):
        fn = functions.get(name)
        X = _sample(fn, 5)
        got = np.asarray(array_form(fn, 5, library)(to(X)))
        np.testing.assert_allclose(got, fn.points(X), rtol=1e-12, atol=1e-12)


def test_array_form_refuses_an_unknown_library():
    with pytest.raises(InputError, match="array library must be one of"):
        array_form(functions.get("levy"), 2, "cupy")


# ---------------------------------------------------------------- the registry
def test_registry_lists_every_peer_with_its_install_line(capsys):
    for name, pkg in PEERS.items():
        m = methods.get(name)
        assert pkg in m.requires and m.install == "pip install 'gpubench[peers]'"
        d = m.describe()
        assert d["available"] == _installed(*m.requires) and d["install"] == m.install
    assert main(["methods"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in PEERS)
    assert "jaxopt is deprecated upstream" in out


def test_scipy_methods_live_in_baselines():
    assert methods.get("bfgs").module == "gpubench.baselines.scipy_methods"
    assert methods.get("evox-de").module == "gpubench.baselines.evox_methods"


@pytest.mark.parametrize("method, hide", [("evox-de", "evox"), ("evosax-cma-es", "evosax"),
                                          ("jaxopt-lbfgsb", "jaxopt")])
def test_a_missing_package_is_listed_and_refused_in_one_line(method, hide, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, hide, None)
    m = methods.get(method)
    assert not m.available and m.missing() == [hide]
    assert main(["methods"]) == 0
    out = capsys.readouterr().out
    assert f"unavailable: {hide} not installed (pip install 'gpubench[peers]')" in out
    assert main(["minimize", "levy", "--dim", "2", "--method", method]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0] == (f"gpubench: error: method {method!r} needs {hide}, which is not installed: "
                      f"pip install 'gpubench[peers]'")
    with pytest.raises(InputError, match="not installed"):
        methods.minimize("levy", 2, method)


def test_the_runner_leaves_out_an_unavailable_peer(monkeypatch, tmp_path, capsys):
    from gpubench.workflow import experiments_loader as loader
    monkeypatch.setitem(sys.modules, "evox", None)
    exp = loader.load("compare")
    cases = runner.plan(exp, quick=True)
    kept = runner._available(cases, "compare", sys.stdout)
    out = capsys.readouterr().out
    assert {c.method for c in cases} - {c.method for c in kept} == {"evox-de", "evox-pso"}
    assert "case(s) of evox-de left out: evox not installed (pip install 'gpubench[peers]')" in out


# ---------------------------------------------------------------- each peer solves, reproducibly
@pytest.mark.parametrize("method", [pytest.param(m, marks=_needs(m)) for m in PEERS])
def test_peer_solves_levy_n2_and_repeats_with_its_seed(method):
    kw = dict(BUDGET[method], backend="cpu")
    r = methods.minimize("levy", 2, method, seed=3, **kw)
    assert r.method == method and r.backend == "cpu"
    assert r.fun < 1e-6 and np.allclose(r.x, 1.0, atol=1e-3), (r.fun, r.x)
    assert r.fun == pytest.approx(functions.get("levy").point(r.x), abs=1e-12)
    tr = np.array(r.history["trace"])
    assert tr[-1, 0] == r.nfev and tr[-1, 2] == r.fun
    assert np.all(np.diff(tr[:, 0]) > 0) and np.all(np.diff(tr[:, 2]) <= 0)
    again = methods.minimize("levy", 2, method, seed=3, **kw)
    assert again.fun == r.fun and np.array_equal(again.x, r.x) and again.nfev == r.nfev
    other = methods.minimize("levy", 2, method, seed=4, **kw)
    assert not np.array_equal(other.x, r.x)


@pytest.mark.parametrize("method", [pytest.param(m, marks=_needs(m)) for m in ("evox-de", "evosax-de")])
def test_population_peer_budget_and_target(method):
    r = methods.minimize("rosenbrock", 2, method, seed=0, backend="cpu", np=10, max_evaluations=95)
    assert r.nfev == 90 and r.stop == "evaluations" and r.iterations == 8  # 10 + 8 generations of 10
    t = methods.minimize("rosenbrock", 2, method, seed=0, backend="cpu", np=20, max_evaluations=20_000,
                         target_error=1e-3, check_every=1)
    assert t.stop == "target" and t.converged and t.fun <= 1e-3 and t.nfev < 20_000


@_needs("jaxopt-lbfgsb")
def test_jaxopt_lbfgsb_counts_and_stops():
    r = methods.minimize("rosenbrock", 2, "jaxopt-lbfgsb", seed=0, backend="cpu", starts=4, rounds=2)
    assert r.fun < 1e-8 and r.nfev == r.njev > 0 and len(r.history["run_fun"]) == 4
    assert r.status.shape == (4,) and r.history["starts_converged"] == int((r.status == 0).sum())
    assert "deprecated upstream" in r.options["library"]
    with pytest.raises(InputError, match="rounds"):
        methods.minimize("rosenbrock", 2, "jaxopt-lbfgsb", starts=2, rounds=3)


@pytest.mark.parametrize("argv, words", [
    (["--method", "evox-de", "--set", "np=20", "--set", "max_evaluations=10"],
     "max_evaluations (10) is less than one population (np = 20)"),
    (["--method", "evosax-de", "--set", "np=2"], "np must be at least 4"),
    (["--method", "evox-pso", "--set", "dtype=float16"], "dtype must be one of float64, float32"),
    (["--method", "jaxopt-lbfgsb", "--set", "starts=2", "--set", "rounds=3"], "rounds (3) must not exceed starts"),
])
def test_bad_peer_settings_are_one_line(argv, words, capsys):
    assert main(["minimize", "levy", "--dim", "2", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0], err


@_needs("evox-de")
def test_a_maximised_function_is_maximised():
    fn = functions.get("alpine02")
    assert fn.sense == "max"
    r = methods.minimize(fn, 2, "evox-de", seed=0, backend="cpu", np=20, max_evaluations=2000)
    assert r.fun == pytest.approx(fn.fstar(2), rel=1e-6)
    tr = np.array(r.history["trace"])
    assert np.all(np.diff(tr[:, 2]) >= 0)  # the best value so far rises


def test_backend_cuda_without_a_gpu_is_one_line(capsys):
    if not _installed("evox", "torch"):
        pytest.skip("evox or torch not installed (pip install 'gpubench[peers]')")
    import torch
    if torch.cuda.is_available():
        pytest.skip("a GPU is here")
    assert main(["minimize", "levy", "--dim", "2", "--method", "evox-de", "--backend", "cuda"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "PyTorch sees no CUDA device" in err[0], err
