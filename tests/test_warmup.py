"""A typed-in run skips the warm-up that an earlier process ran to its end for the same method,
function card, dimension and settings (gpubench/workflow/warmup.py; issue 42, item 4.3); a runner's
case always warms up."""
import dataclasses
from types import SimpleNamespace

from gpubench.workflow import warmup


@dataclasses.dataclass
class _Settings:
    backend: str = "cpu"
    starts: int = 4
    time_limit: float = 20.0
    seed: int = 0

    def as_dict(self):
        return dataclasses.asdict(self)


def _case():
    calls = []
    fn = SimpleNamespace(_card=SimpleNamespace(name="levy", key="k" * 64, data={"meta": {}}))
    method = SimpleNamespace(name="m", warmup=lambda f, dim, s: calls.append((dim, s.starts)))
    return fn, method, calls


def test_a_second_typed_in_warm_up_is_skipped_and_keyed_by_what_it_compiles(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUBENCH_CACHE", str(tmp_path))
    fn, method, calls = _case()
    warmup.warm_up(fn, 10, method, _Settings(), skip_when_warm=True)
    warmup.warm_up(fn, 10, method, _Settings(time_limit=5.0, seed=3), skip_when_warm=True)  # same kernels
    assert calls == [(10, 4)]
    warmup.warm_up(fn, 11, method, _Settings(), skip_when_warm=True)            # another dimension
    warmup.warm_up(fn, 10, method, _Settings(starts=8), skip_when_warm=True)    # other settings
    fn._card.key = "j" * 64                                                     # a changed definition
    warmup.warm_up(fn, 10, method, _Settings(), skip_when_warm=True)
    assert calls == [(10, 4), (11, 4), (10, 8), (10, 4)]


def test_a_runner_and_a_function_without_a_card_always_warm_up(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUBENCH_CACHE", str(tmp_path))
    fn, method, calls = _case()
    warmup.warm_up(fn, 10, method, _Settings(), skip_when_warm=True)
    warmup.warm_up(fn, 10, method, _Settings())                    # the runner's call: no skip
    fn._card = None
    warmup.warm_up(fn, 10, method, _Settings(), skip_when_warm=True)
    warmup.warm_up(fn, 10, method, _Settings(), skip_when_warm=True)
    assert len(calls) == 4


def test_a_warm_up_that_fails_leaves_no_marker(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUBENCH_CACHE", str(tmp_path))
    fn, method, calls = _case()

    def fails(f, dim, s):
        raise RuntimeError("compile failed")
    method.warmup = fails
    for _ in range(2):
        try:
            warmup.warm_up(fn, 10, method, _Settings(), skip_when_warm=True)
        except RuntimeError:
            calls.append("raised")
    assert calls == ["raised", "raised"]


def test_a_skipped_warm_up_preloads_what_the_run_would_load_in_its_clock(tmp_path, monkeypatch):
    """Issue 42: without its warm-up, variant strong's solve at Levy n = 50 held 0.15 s of loads (SciPy's
    optimize, four kernels) in its 0.2 s; the method's preload does them before the clock instead."""
    monkeypatch.setenv("GPUBENCH_CACHE", str(tmp_path))
    fn, method, calls = _case()
    method.preload = lambda f, dim, s: calls.append(("preload", dim))
    warmup.warm_up(fn, 10, method, _Settings(), skip_when_warm=True)    # warms up: no preload
    warmup.warm_up(fn, 10, method, _Settings(), skip_when_warm=True)    # skipped: the preload
    warmup.warm_up(fn, 10, method, _Settings())                         # a runner's: warms up
    assert calls == [(10, 4), ("preload", 10), (10, 4)]


def test_the_interval_preload_loads_the_descents_and_the_level_set():
    import sys

    from gpubench import functions
    from gpubench.methods import interval
    from gpubench.methods.solver.contract import levelset
    fn = functions.get("levy")
    settings = interval.METHOD.make_settings({"backend": "cpu", "variant": "strong"})
    fn.__dict__.pop("_levelsets", None)
    interval.METHOD.preload(fn, 3, settings)
    assert "scipy.optimize" in sys.modules
    assert (3, False) in fn.__dict__["_levelsets"]
    assert levelset(fn, 3) is fn.__dict__["_levelsets"][(3, False)]


def test_the_interval_preload_runs_the_device_loops_first_iteration(monkeypatch):
    """Issue 42: a second process's device loop loaded its kernel, made its buffers and queried its
    grid inside the solve's clock (Levy n = 1,000 on the H200: 2.9-3.7 s against 1.97-2.53 s after a
    warm-up).  Where the search will run the device loop the preload is the one-iteration warm-up;
    where it keeps the host loop, not (its loads are the descents' and the level set's)."""
    from gpubench import functions
    from gpubench.methods import interval
    fn = functions.get("levy")
    ran = []
    monkeypatch.setattr(interval, "_warmup", lambda f, dim, s: ran.append((dim, s.loop, s.variant)))
    for given, expect in (({"backend": "cuda", "variant": "paper"}, True),
                          ({"backend": "cuda", "variant": "paper", "loop": "device"}, True),
                          ({"backend": "cuda", "variant": "paper", "loop": "host"}, False),
                          ({"backend": "cpu", "variant": "paper"}, False),
                          ({"backend": "cuda", "variant": "strong"}, False)):   # contraction: the host loop
        ran.clear()
        interval.METHOD.preload(fn, 3, interval.METHOD.make_settings(given))
        assert bool(ran) is expect, given
