"""Every registered method honours ``time_limit`` the same way (issue 25, item 3).

One declaration (:func:`gpubench.methods.base.time_limit_setting`), one clock
(:class:`gpubench.methods.monitor.Deadline`), one answer: past the limit the run returns its best
point so far with ``stop='time_limit'``, after at least the limit and at most one step
(launch, round, run, node, evaluation) more.  Each case is given budgets it cannot spend in
the limit, on the CPU backend, at a tiny size; a first identical call compiles what the method
compiles, so that the timed one measures the method, not numba.
"""
import time
import typing

import numpy as np
import pytest

from gpubench import functions, methods
from gpubench.methods.base import TIME_LIMIT_HELP
from gpubench.methods.monitor import Deadline

FUNCTION, DIM = "levy", 4
OTHER_FUNCTION = {"interval": "styblinski_tang", "maingo": "styblinski_tang"}
OTHER_DIM = {"maingo": 6}
LIMIT = 0.3          # seconds
STEP = 10.0          # one step past the limit, with room for a machine whose cores are shared

# budgets far beyond what LIMIT seconds can spend (none converges or ends its runs in time)
LONG = {
    "de-gpu": dict(backend="cpu", np=8, max_evaluations=10**9, generations_per_launch=20, cpu_variant="sde"),
    "lbfgsb-gpu": dict(backend="cpu", starts=100_000, rounds=100_000),
    "tron-gpu": dict(backend="cpu", starts=100_000, rounds=100_000, hessian="differences"),
    # paper 001's search (a typed-in run's multistart and propagation prove levy n = 4 at the root)
    "subdomain-bnb": dict(backend="cpu", eps_abs=1e-12, eps_rel=1e-12, subdomains=4, min_width=0.0,
                          local_starts=0, constraint_propagation=False),
    # levy converges in milliseconds at n = 4 once compiled; Styblinski-Tang split one coordinate at a
    # time needs about 4,500 iterations (a second here)
    "interval": dict(backend="cpu", split_dims=1, tol=1e-12),
    "direct": dict(runs=1, maxfun=10**5, maxiter=10**5, len_tol=1e-300, f_min_rtol=0.0),
    # the peers (baselines/), where their packages are installed
    "evox-de": dict(backend="cpu", np=8, max_evaluations=10**9, check_every=1),
    "evox-pso": dict(backend="cpu", np=8, max_evaluations=10**9, check_every=1),
    "evosax-de": dict(backend="cpu", np=8, max_evaluations=10**9, check_every=1),
    "evosax-cma-es": dict(backend="cpu", np=8, max_evaluations=10**9, check_every=1),
    "jaxopt-lbfgsb": dict(backend="cpu", starts=100_000, rounds=100_000),
    # MAiNGO proves every library function at n = 4 in milliseconds, even to a gap of 1e-12;
    # Styblinski-Tang at n = 6 (OTHER_DIM) holds it for many seconds.  It reads whole seconds: 0.3 s is 1 s
    "maingo": dict(eps_abs=1e-12, eps_rel=1e-12),
}
SCIPY_RUNS = dict(runs=10**6)     # SciPy's others: more runs than the limit allows


def _cases():
    for name in methods.names():
        if not methods.get(name).module.startswith("gpubench."):
            continue   # a test's plug-in (tests/test_runner.py names its folder process-wide)
        yield pytest.param(name)


def test_every_method_is_in_the_parametrisation():
    assert {"interval", "subdomain-bnb", "de-gpu", "tron-gpu", "lbfgsb-gpu", "nelder_mead", "direct"} \
        <= set(methods.names())


@pytest.mark.parametrize("name", list(_cases()))
def test_every_method_honours_its_time_limit_the_same_way(name):
    method = methods.get(name)
    if not method.available:
        pytest.skip(f"{name}: {', '.join(method.missing())} not installed ({method.install})")
    # one declaration: the shared setting, with its type, help and check
    fields = {f[0]: f for f in method.settings.fields()}
    assert "time_limit" in fields, name
    _, base, optional, _, meta = fields["time_limit"]
    assert (base, optional, meta["help"], meta["exclusive_minimum"]) == (float, True, TIME_LIMIT_HELP, 0.0)
    assert typing.get_type_hints(method.settings)["time_limit"] == typing.Optional[float]

    fn = functions.get(OTHER_FUNCTION.get(name, FUNCTION))
    dim = OTHER_DIM.get(name, DIM)
    values = dict(LONG.get(name, SCIPY_RUNS), time_limit=LIMIT)
    method(fn, dim, **values)          # compiles (numba, the forms): the next call is the method's own
    t = time.perf_counter()
    r = method(fn, dim, **values)
    wall = time.perf_counter() - t

    assert r.stop == "time_limit", (name, r.stop, r.message)
    assert r.to_json()["stop"] == "time_limit"
    assert not r.converged
    # the answer: its best point so far, in the box, with its value
    lo, hi = fn.bounds(dim)
    x = np.asarray(r.x, dtype=float)
    assert x.shape == (dim,) and np.all(np.isfinite(x)) and np.all((lo <= x) & (x <= hi)), (name, r.x)
    assert r.fun == pytest.approx(fn.point(x), rel=1e-9, abs=1e-9), name
    # not stopped before the limit, and at most one step after it
    assert LIMIT <= wall < LIMIT + STEP, (name, wall)


def test_a_deadline_says_why_and_remembers(monkeypatch):
    from gpubench.methods import monitor
    now = [100.0]
    monkeypatch.setattr(monitor, "clock", lambda: now[0])
    d = Deadline(2.0)
    assert d.check() is None and d.reason is None and d.left() == 2.0
    now[0] = 101.5
    assert d.check() is None and d.elapsed() == 1.5
    now[0] = 102.0
    assert d.check() == "time_limit" and d.reason == "time_limit" and d.expired()
    assert Deadline(None).check() is None and Deadline(None).left() is None
    # a resumed run counts what it had spent
    assert Deadline(2.0, spent=2.0).check() == "time_limit"
    # Ctrl-C wins over the clock, and stops a run without a limit too
    monkeypatch.setitem(monitor._INTERRUPT, "requested", True)
    assert Deadline(None).check() == "interrupted"


def test_the_paper_defaults_stay():
    defaults = {m.name: dict((f[0], f[3]) for f in m.settings.fields())["time_limit"]
                for m in methods.all_methods() if m.module.startswith("gpubench.")}
    assert defaults.pop("subdomain-bnb") == 3600.0
    assert set(defaults.values()) == {None}


def test_interval_strong_stops_its_host_work_at_the_limit(monkeypatch):
    """variant strong's first iteration runs 8 descents and a polish on the host before its sweep;
    past the limit they stop (the search then ends after that one sweep), where before the deadline
    was asked between iterations only and they ran to their end (seconds at n = 1,000).  A clock
    that moves 1 s a descent: with a 2.5 s limit 3 descents run (the first start's, the polish's
    of its end point, the second start's), not 9.  Rastrigin n = 3: its root's contraction after
    the first start does not prove the root (Levy's does, and the starts end there)."""
    from gpubench.methods import monitor
    from gpubench.methods.solver import local
    now = [1000.0]
    monkeypatch.setattr(monitor, "clock", lambda: now[0])
    real, calls = local.descend, []

    def slow(*args, **kwargs):
        calls.append(1)
        now[0] += 1.0
        return real(*args, **kwargs)
    monkeypatch.setattr(local, "descend", slow)
    fn = functions.get("rastrigin")
    r = methods.get("interval")(fn, 3, backend="cpu", variant="strong", split_dims=3, tol=1e-12, time_limit=2.5)
    assert r.stop == "time_limit" and len(calls) == 3, (r.stop, len(calls))
    # the polish asks its stop every few evaluations and returns its best point so far
    lo, hi = fn.bounds(3)
    evaluations = []
    monkeypatch.setattr(local, "_upper_at", lambda f, n, m: lambda v: evaluations.append(1) or float(np.sum(v * v)))
    x, ub = local.polish(fn, np.full(3, 0.3), lo, hi, stop=lambda: True)
    assert len(evaluations) <= local.SNAP_LEVELS + 1 + local.STOP_EVERY and ub == float(np.sum(x * x))
