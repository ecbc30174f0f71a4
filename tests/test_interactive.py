"""Interactive defaults (issue 25, item 2): a run typed in (``gpubench minimize`` / ``solve``) gets
defaults sized to answer in seconds, a time limit included, and says what stopped it; library
calls and experiments keep the papers' defaults."""
import json

import pytest

from gpubench import cli, methods
from gpubench.methods import base

METHODS = methods.names()


@pytest.mark.parametrize("name", METHODS)
def test_every_method_with_a_time_limit_gets_the_interactive_one(name):
    method = methods.get(name)
    values = base.interactive_values(method, 10, {})
    settings = method.make_settings(values)  # the defaults are valid settings
    if "time_limit" in method.settings.names():
        assert settings.time_limit == base.INTERACTIVE_TIME_LIMIT
        typed = base.interactive_values(method, 10, {"time_limit": 3.0})
        assert "time_limit" not in typed  # a typed limit wins
    else:
        assert "time_limit" not in values


def test_library_calls_keep_the_papers_defaults():
    assert methods.get("subdomain-bnb").make_settings({}).time_limit == 3600.0
    assert methods.get("lbfgsb-gpu").make_settings({}).maxiter == 15000
    assert base.interactive_values(methods.get("lbfgsb-gpu"), 10, {"backend": "cuda"})["maxiter"] == 1000


def test_a_typed_in_run_stops_at_the_interactive_limit_and_says_so(monkeypatch, capsys):
    """subdomain-bnb with tight tolerances would run for its paper's hour; typed in it stops at the
    interactive limit and its result says the time limit stopped it."""
    monkeypatch.setattr(base, "INTERACTIVE_TIME_LIMIT", 0.3)
    # Levy: the function whose subdomain-bnb kernels tests/test_monitor.py and test_time_limit.py compile
    code = cli.main(["minimize", "levy", "--dim", "4", "--method", "subdomain-bnb", "--backend", "cpu",
                     "--set", "eps_abs=1e-12", "--set", "eps_rel=1e-12",
                     # the paper's search (typed in, the multistart and propagation prove it at once)
                     "--set", "local_starts=0", "--set", "constraint_propagation=false", "--json"])
    assert code in (0, None)
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["status"] == "time_limit", out.get("status")


@pytest.mark.parametrize("command", ["minimize", "solve"])
def test_a_typed_in_run_compiles_before_its_time_limit_starts(monkeypatch, capsys, command):
    """The warm-up (numba compiling the forms and kernels: ~30 s the first time on a CPU) runs
    before the search, outside its time limit: here a warm-up made 1.5 s slower leaves a 1 s limit
    to the search, which converges, and the run's wall time holds the warm-up.  Without it a cold
    run spent its limit compiling and answered after one iteration."""
    import time
    from gpubench.workflow import warmup
    calls = []
    real = warmup.warm_up

    def slow(*args, **kw):
        calls.append(args[1])
        time.sleep(1.5)
        return real(*args, **kw)
    monkeypatch.setattr(warmup, "warm_up", slow)
    argv = ["levy", "--dim", "3", "--backend", "cpu", "--json"]
    argv = (["minimize", *argv, "--method", "interval", "--set", "time_limit=1"] if command == "minimize"
            else ["solve", *argv, "--time-limit", "1"])
    assert cli.main(argv) in (0, None)
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert calls == [3]
    assert out["stop"] == "converged" and out["wall_seconds"] - out["seconds"] >= 1.5, out


def test_a_typed_in_solve_gets_the_strong_variant_and_experiments_the_papers():
    """Issue 41: the interval solver typed in runs variant strong (its opt-ins turned on); a library
    call, an experiment, or a typed --variant paper keeps paper 000's algorithm."""
    method = methods.get("interval")
    typed = base.interactive_values(method, 10, {})
    assert typed["variant"] == "strong"
    s = method.make_settings(typed)
    assert (s.contract, s.polish, s.local_search, s.inclusion) == (True, True, True, "best")
    assert s.local_starts >= 8
    paper = method.make_settings({})
    assert paper.variant == "paper" and not paper.contract and paper.local_starts == 0
    assert "variant" not in base.interactive_values(method, 10, {"variant": "paper"})
    assert "variant" not in base.interactive_values(method, 10, {"loop": "device"})
    assert "variant" not in base.interactive_values(method, 1000, {})   # large n: the paper's device loop
    with pytest.raises(Exception, match="variant strong takes the device loop on CUDA with loop = auto"):
        method.make_settings({"variant": "strong", "loop": "device", "backend": "cuda"})


def test_subdomain_bnb_typed_in_gets_the_multistart_and_propagation():
    """Issue 41: typed in, subdomain-bnb starts from 8 descents and propagates f <= UB on an
    unconstrained problem; the library's defaults (the paper 001 tables' records) stay the paper's."""
    method = methods.get("subdomain-bnb")
    typed = method.make_settings(base.interactive_values(method, 10, {}))
    assert typed.local_starts == 8 and typed.constraint_propagation is None
    paper = method.make_settings({})
    assert paper.local_starts == 0 and paper.constraint_propagation is False
    assert "local_starts" not in base.interactive_values(method, 10, {"local_starts": 0})
