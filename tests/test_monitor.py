"""One time limit and one stop vocabulary for every method (issue 25, item 3)."""
import json

import numpy as np
import pytest

from gpubench import cli, functions, methods
from gpubench.methods.monitor import STOPS, Deadline, stop_word

# Levy with TRON's Hessian by differences: what tests/test_time_limit.py, test_tron.py and test_compare.py
# run too, so that no method compiles a twin here that no other test needs (each is 10-30 s of numba
# in a fresh clone; Rastrigin and TRON's symbolic Hessian cost 2 CPU minutes here alone)
FUNCTION = "levy"

# per method, settings under which a run reaches a point where it checks its time limit after
# doing some work (a second launch, round, run or node); all on the CPU, tiny
SETTINGS = {
    "de-gpu": dict(backend="cpu", np=8, max_evaluations=8000, generations_per_launch=1, cpu_variant="sde"),
    "lbfgsb-gpu": dict(backend="cpu", starts=4, rounds=2),
    "tron-gpu": dict(backend="cpu", starts=4, rounds=2, hessian="differences"),
    "subdomain-bnb": dict(backend="cpu", eps_abs=1e-12, eps_rel=1e-12),
    "interval": dict(backend="cpu", split_dims=2),
    "direct": dict(runs=1),  # deterministic: one run, cut at its next evaluation
    # the peers (baselines/): after the initial population, or between rounds
    "evox-de": dict(backend="cpu", np=8, max_evaluations=800, check_every=1),
    "evox-pso": dict(backend="cpu", np=8, max_evaluations=800, check_every=1),
    "evosax-de": dict(backend="cpu", np=8, max_evaluations=800, check_every=1),
    "evosax-cma-es": dict(backend="cpu", np=8, max_evaluations=800, check_every=1),
    "jaxopt-lbfgsb": dict(backend="cpu", starts=4, rounds=2),
    "maingo": dict(),  # checked once before MAiNGO starts, then by MAiNGO between its iterations
}
TIMED = [m for m in methods.names() if "time_limit" in methods.get(m).settings.names()]


def test_every_method_with_a_budget_has_the_one_time_limit_setting():
    assert {"de-gpu", "lbfgsb-gpu", "tron-gpu", "subdomain-bnb", "interval"} <= set(TIMED)


@pytest.mark.parametrize("name", TIMED)
def test_every_method_stops_at_its_time_limit_and_says_so(name):
    method = methods.get(name)
    if not method.available:
        pytest.skip(f"{name}: {', '.join(method.missing())} not installed ({method.install})")
    values = dict(SETTINGS.get(name, dict(runs=3)), time_limit=1e-9)
    r = method(functions.get(FUNCTION), 2, **values)
    assert r.stop == "time_limit", (name, r.stop, r.message)
    assert r.to_json()["stop"] == "time_limit"


@pytest.mark.parametrize("name", ["de-gpu", "lbfgsb-gpu", "subdomain-bnb", "interval", "nelder_mead"])
def test_a_run_within_its_budget_names_another_stop(name):
    values = dict(SETTINGS.get(name, dict(runs=1)), time_limit=600.0)
    if name == "de-gpu":
        values["max_evaluations"] = 80
    if name == "subdomain-bnb":
        values.update(eps_abs=1e-2, eps_rel=1e-2)
    r = methods.get(name)(functions.get(FUNCTION), 2, **values)
    assert r.stop in STOPS and r.stop != "time_limit", (name, r.stop)


def test_the_vocabulary_is_checked():
    assert stop_word("nodes") == "nodes"
    with pytest.raises(ValueError):
        stop_word("timeout")


def test_a_deadline():
    assert not Deadline(None).expired()
    assert Deadline(0.0).expired()
    assert not Deadline(3600.0).expired()


def test_the_command_line_prints_the_stop(capsys):
    cli.main(["minimize", FUNCTION, "--dim", "2", "--method", "de-gpu", "--backend", "cpu",
              "--set", "np=8", "--set", "max_evaluations=80", "--set", "cpu_variant=sde", "--json"])
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["stop"] == "evaluations"
    assert np.isfinite(out["fun"])


def test_methods_report_their_best_and_bounds_for_the_progress_line():
    from gpubench.methods import monitor
    monitor._LATEST.clear()
    r = methods.get("de-gpu")(functions.get(FUNCTION), 2, **dict(SETTINGS["de-gpu"], max_evaluations=80))
    assert monitor.latest()["best"] == pytest.approx(r.fun)
    monitor._LATEST.clear()
    r = methods.get("subdomain-bnb")(functions.get(FUNCTION), 2, backend="cpu")
    v = monitor.latest()
    assert v["glb"] == pytest.approx(r.glb) and v["gub"] == pytest.approx(r.gub) and v["glb"] <= v["gub"]


def test_a_run_longer_than_two_seconds_shows_its_best_on_stderr():
    import io
    import time

    from gpubench.methods import monitor
    from gpubench.commands._progress import Progress
    stream = io.StringIO()
    monitor._LATEST.clear()
    with Progress(stream=stream, every=0.1).ticker("de-gpu"):
        monitor.report(best=0.5, glb=0.25, gub=0.5)
        time.sleep(1.0)
        quiet = stream.getvalue()
        time.sleep(1.6)
    assert quiet == ""  # nothing in the first ~2 s
    assert "de-gpu:" in stream.getvalue() and "best 0.5, bounds [0.25, 0.5]" in stream.getvalue()


@pytest.mark.parametrize("name", TIMED)
def test_every_method_stops_when_ctrl_c_asked_and_says_so(name, monkeypatch):
    """The flag the first Ctrl-C sets (gpubench.methods.monitor.catch_interrupts) stops every method at its
    next check, as its time limit would, with stop='interrupted'."""
    from gpubench.methods import monitor
    monkeypatch.setitem(monitor._INTERRUPT, "requested", True)
    values = dict(SETTINGS.get(name, dict(runs=3)), time_limit=600.0)
    r = methods.get(name)(functions.get(FUNCTION), 2, **values)
    assert r.stop == "interrupted", (name, r.stop, r.message)


def test_the_text_output_says_what_stopped_the_run_and_an_interrupted_one_shows_its_point(capsys):
    from gpubench.commands import _result
    from gpubench.result import OptimizeResult
    r = OptimizeResult(function="levy", dim=2, method="interval", x=np.array([1.0, 2.0]), fun=0.5, glb=0.25,
                       gub=0.5, stop="interrupted", message="stopped by Ctrl-C")
    _result.show(r, as_json=False)
    out = capsys.readouterr().out
    assert "stopped by: interrupted" in out and "at x = (1, 2)" in out and "[GLB, GUB]" in out
