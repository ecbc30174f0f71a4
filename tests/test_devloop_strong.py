"""Issue 42: variant strong (the typed-in default at n <= 100) takes the device loop on CUDA.

Its local starts (the best polished) and the root's contraction run on the host before the first
launch (core.Search._contract_root); the device loop then runs with inclusion best (its split mean
value form), the gap stop, and a descent and a polish after each lowered GUB (between launches); the
contraction of the boxes selected after the root is left out, and the result says so (settings.at_scale).  Under numba's CUDA simulator
at tiny sizes (tests/test_devloop.py says how the device loop is checked against the CPU twin).
"""
import math

import numpy as np
import pytest
from numba import config

from gpubench import functions
from gpubench.methods.solver import devloop
from gpubench.methods.solver.contract import contract
from gpubench.methods.solver.core import Search, Settings, solve
from gpubench.methods.solver.settings import STRONG_MAX_DIM, at_scale, device_loop_serves

SMALL = dict(split_dims=2, parts=3, tol=1e-2, samples=2)
simulated = pytest.mark.skipif(not config.ENABLE_CUDASIM,
                               reason="runs under the CUDA simulator (a GPU run: the report's commands)")

TWO_WELLS = """
import numpy as np
from gpubench.forms.definition import Definition, Sum, x, symbols
S = symbols("S")
WELLS = Definition(name="wells", title="(x^2 - 1)^2", source="test", terms={S: Sum((x**2 - 1)**2)}, expr=S,
                   domain=(-2, 3), xstar=lambda n: np.ones(n), fstar=lambda n: 0.0)
"""


def test_variant_strong_takes_the_device_loop_on_cuda_at_every_n():
    strong = Settings(variant="strong", backend="cuda")
    strong.check("interval solver")
    run, note = at_scale(strong, STRONG_MAX_DIM, on_cuda=True)
    assert (run.inclusion, run.contract, run.local_search, run.polish, run.local_starts) == ("best", False, True,
                                                                                             True, 8)
    assert device_loop_serves(run, True) and "root's contraction" in note and "--loop host" in note
    assert strong.contract and at_scale(strong, 50, on_cuda=False) == (strong, None)   # the CPU: every extra
    host = Settings(variant="strong", backend="cuda", loop="host")
    host.check("interval solver")
    assert at_scale(host, 50, True) == (host, None) and not device_loop_serves(host, True)


def test_the_estimate_of_variant_strong_on_cuda_is_the_split_sweeps():
    """At n = 100 on CUDA the device loop's split sweep runs (inclusion best in its own form): O(s) a
    subregion, not the full evaluation's p^s boxes of n coordinates (the host loop's)."""
    from gpubench.workflow.resources import method_needs
    paper = dict(backend="cuda", split_dims=10, parts=4, samples=10)

    def held(**values):
        s = Settings(variant="strong", **paper, **values)
        s.check("interval solver")
        return sum(b for _, b in method_needs(100, s, "cuda"))
    assert held() * 10 < held(loop="host")


@simulated
def test_a_root_kept_whole_solves_levy_before_any_launch(monkeypatch):
    """Levy (f* = 0 at x = 1): the local starts find x*, the root's contraction pins it below tol and
    keeps it whole: the host loop's answer (CPU twin) with no launch at all."""
    launches = []
    monkeypatch.setattr(devloop, "run", lambda *a, **k: launches.append(1))
    dev = solve("levy", 3, backend="cuda", variant="strong", **SMALL)
    cpu = solve("levy", 3, backend="cpu", variant="strong", **SMALL)
    assert not launches and dev.converged and dev.iterations == cpu.iterations == 1
    assert (dev.glb, dev.gub) == (cpu.glb, cpu.gub) and dev.options["contracted"] == cpu.options["contracted"]
    np.testing.assert_array_equal(dev.regions_lo, cpu.regions_lo)
    np.testing.assert_array_equal(dev.regions_hi, cpu.regions_hi)
    assert dev.options["loop"] == "device" and dev.options["contract"] == "root"
    assert "kept it whole, no device launch" in dev.message and "host loop:" not in dev.message


@simulated
def test_the_device_loop_sweeps_the_contracted_root(monkeypatch, tmp_path):
    """Two wells a coordinate (minimisers at +-1): the root's contraction narrows [-2, 3]^2 to about
    [-1, 1]^2 (not below tol), the device loop's first iteration sweeps that box (the host loop's first
    box, CPU twin) and the search keeps all four minimisers."""
    monkeypatch.setattr(devloop, "BATCH_SECONDS", math.inf)
    path = tmp_path / "wells.py"
    path.write_text(TWO_WELLS)
    fn = functions.get(f"{path}:WELLS")
    searches = {}
    for backend in ("cuda", "cpu"):
        settings = Settings.build("interval solver", dict(SMALL, backend=backend, variant="strong", max_iterations=4))
        searches[backend] = Search(fn, 2, settings)
    dev, cpu = (searches[b].run() for b in ("cuda", "cpu"))
    root = searches["cuda"].root_box
    assert root is not None and np.all(root[1] - root[0] < 5) and np.all(root[1] - root[0] > 1)
    box = contract(fn, *fn.bounds(2), dev.history["gub"][0])
    np.testing.assert_array_equal(root[0], box[0])
    for st in (searches["cuda"].state, searches["cpu"].state):   # iteration 0 swept the contracted root
        np.testing.assert_array_equal(st.sel_lo[0], root[0])
        np.testing.assert_array_equal(st.sel_hi[0], root[1])
    assert dev.options["loop"] == "device" and dev.iterations == 4
    assert "contraction of the boxes selected after the root is left out" in dev.message
    for x in ([1, 1], [1, -1], [-1, 1], [-1, -1]):
        assert np.any(np.all((dev.regions_lo <= x) & (np.array(x) <= dev.regions_hi), axis=1))
    assert dev.glb <= 0.0 <= dev.gub


@simulated
def test_a_root_floor_closes_the_gap_before_any_launch(monkeypatch):
    """Shubert03 (a sum of 1-D Shubert terms, 3^n global minimisers): the root's floor (the level set's
    enclosure on refined pieces) meets the local starts' GUB to 1e-6, so the gap closes with no launch,
    as the host loop's (CPU twin) closes it after its first sweep."""
    launches = []
    monkeypatch.setattr(devloop, "run", lambda *a, **k: launches.append(1))
    kw = dict(variant="strong", gap_tol=1e-6, **SMALL)
    dev = solve("scipy_go.Shubert03", 3, backend="cuda", **kw)
    assert not launches and dev.converged and dev.gub - dev.glb <= 1e-6
    assert "closed the gap, no device launch" in dev.message
    cpu = solve("scipy_go.Shubert03", 3, backend="cpu", **kw)
    assert cpu.converged and dev.glb <= cpu.gub and cpu.glb <= dev.gub
