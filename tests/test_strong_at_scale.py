"""Issue 42: the resource estimate follows the sweep that will run, and variant strong above
STRONG_MAX_DIM on CUDA runs its local starts and then the paper's sweep in the device loop
(gpubench.methods.solver.settings.at_scale)."""
import math
import types

import numpy as np
import pytest
from numba import config

from gpubench import cli, functions
from gpubench.errors import InputError
from gpubench.methods.solver import devloop
from gpubench.methods.solver import settings as solver_settings
from gpubench.methods.solver.core import solve
from gpubench.methods.solver.settings import Settings, at_scale
from gpubench.workflow import resources
from gpubench.workflow.resources import MAX_ITERATION_WORK, method_needs

PAPER = dict(backend="cuda", split_dims=10, parts=4, samples=10)


def _checked(**values):
    s = Settings(**values)
    s.check("interval solver")
    return s


def test_variant_strong_at_scale_runs_the_split_sweep_and_says_what_it_left_out():
    strong = _checked(variant="strong", **PAPER)
    assert strong.inclusion == "best" and strong.contract   # what variant strong sets
    run, note = at_scale(strong, 1000, on_cuda=True)
    assert (run.inclusion, run.contract, run.local_search, run.polish) == ("natural", False, False, False)
    assert run.local_starts == 8 and run.variant == "strong" and strong.inclusion == "best"  # a copy
    assert "n = 1000 > 100" in note and "--loop host" in note
    for args in ((1000, False, True), (1000, True, False)):   # n, CUDA, a split form
        assert at_scale(strong, *args) == (strong, None)
    # at n <= 100 on CUDA: the device loop too, with inclusion best (tests/test_devloop_strong.py)
    assert at_scale(strong, 100, True)[0].inclusion == "best"
    host = _checked(variant="strong", loop="host", **PAPER)
    assert at_scale(host, 1000, True) == (host, None)   # the host loop asked for: every extra kept
    paper = _checked(**PAPER)
    assert at_scale(paper, 10_000, True) == (paper, None)


def test_the_estimate_follows_the_sweep_that_will_run():
    """Levy n = 10,000 variant strong on CUDA runs the split sweep (at scale): accepted; on the host
    loop it would evaluate every coordinate of every subregion: refused.  A definition without the
    split form takes the full evaluation whatever the settings."""
    method_needs(10_000, _checked(variant="strong", **PAPER), "cuda")
    with pytest.raises(InputError, match="--dim 10000 makes one solver iteration evaluate about 1.2e"):
        method_needs(10_000, _checked(variant="strong", loop="host", **PAPER), "cuda")
    method_needs(10_000, _checked(**PAPER), "cuda", fn=types.SimpleNamespace(fixed_dim=None))
    with pytest.raises(InputError, match="--dim 10000"):
        method_needs(10_000, _checked(**PAPER), "cuda", fn=types.SimpleNamespace(fixed_dim=10_000))


# the full evaluation of p^s subregions, samples + 1 rows each, n coordinates, plus the rows' tables:
# refused from this n on (8,670 at the paper's partition on CUDA)
FULL_LIMIT = math.floor(MAX_ITERATION_WORK["cuda"] / (11 * (4 ** 10 + 1))) + 1


class _Accepted(Exception):
    pass


@pytest.fixture
def typed_on_a_gpu(monkeypatch, capsys):
    """``gpubench solve ...`` as typed on a machine with a GPU, stopped right after its resource check:
    (exit code, stderr) where it was refused, (None, "") where it was accepted."""
    from gpubench.commands import solve as solve_command
    from gpubench.device import gpu
    monkeypatch.setattr(gpu, "gpu_available", lambda: True)
    monkeypatch.setenv("GPUBENCH_TRACEBACK", "1")   # the sentinel below leaves cli.main as it is
    # memory unknown (not checked): the work of one iteration is what is tested, on any machine
    monkeypatch.setattr(resources, "host_available", lambda: None)
    monkeypatch.setattr(resources, "device_available", lambda need=None: None)

    def accepted(*a, **k):
        raise _Accepted

    monkeypatch.setattr(solve_command, "check_numbers", accepted)   # the next step after the check

    def typed(*argv):
        try:
            rc = cli.main(["solve", *argv])
        except _Accepted:
            return None, ""
        return rc, capsys.readouterr().err
    return typed


@pytest.mark.parametrize("argv", [("levy", "--dim", "10000"), ("rosenbrock", "--dim", "1000"),
                                  ("levy", "--dim", "10000", "--variant", "strong"),
                                  ("levy", "--dim", str(FULL_LIMIT - 1), "--variant", "strong", "--loop", "host")])
def test_the_papers_rows_can_be_typed_in(typed_on_a_gpu, argv):
    rc, err = typed_on_a_gpu(*argv)
    assert (rc, err) == (None, "")


def test_a_full_evaluation_over_the_cap_is_refused_at_the_boundary(typed_on_a_gpu):
    rc, err = typed_on_a_gpu("levy", "--dim", str(FULL_LIMIT), "--variant", "strong", "--loop", "host")
    assert rc == 2 and err.count("\n") == 1
    assert err.startswith(f"gpubench: error: --dim {FULL_LIMIT} makes one solver iteration evaluate about")


# ---------------------------------------------------------------- the device loop at scale (simulator)
simulated = pytest.mark.skipif(not config.ENABLE_CUDASIM,
                               reason="runs under the CUDA simulator (a GPU run: the report's commands)")
SMALL = dict(split_dims=2, parts=3, tol=1e-2, samples=2, max_iterations=2)


@simulated
def test_variant_strong_at_scale_takes_the_device_loop_from_its_local_starts(monkeypatch):
    """n above STRONG_MAX_DIM (lowered to 2 here): the device loop, starting from the local starts'
    polished GUB: the same search as the host loop given the same early GUB (paper's variant with
    local_starts and polish on the CPU, where no sample beats the polished start), rigorous, and the
    result says what was left out."""
    monkeypatch.setattr(devloop, "BATCH_SECONDS", math.inf)
    monkeypatch.setattr(solver_settings, "STRONG_MAX_DIM", 2)
    dev = solve("levy", 3, backend="cuda", variant="strong", **SMALL)
    assert dev.options["loop"] == "device" and "host_loop" not in dev.options
    assert dev.options["at_scale"] and "variant strong at n = 3 > 2 on CUDA" in dev.message
    cpu = solve("levy", 3, backend="cpu", local_starts=8, polish=True, **SMALL)
    assert dev.history["gub"][0] == cpu.history["gub"][0] < 1e-6   # the polished start: f* = 0 at x = 1
    assert (dev.iterations, dev.nfev) == (cpu.iterations, cpu.nfev)
    assert dev.history["list_size"] == cpu.history["list_size"]
    np.testing.assert_array_equal(dev.regions_lo, cpu.regions_lo)
    x = functions.get("levy").xstar(3)
    assert np.any(np.all((dev.regions_lo <= x) & (x <= dev.regions_hi), axis=1))
    assert dev.glb <= 0.0 <= dev.gub and dev.fun <= dev.gub


def test_a_device_sample_below_the_starts_gub_takes_the_answer_from_the_starts_point():
    """The device loop's batch: where a sample lowered GUB below the local starts' bound, the answer's
    point is that sample (best_x cleared); where none did, the starts' point stays."""
    from gpubench.methods.solver.core import State

    def batch(gub_after):
        st = State.initial(np.zeros(2), np.ones(2), 1e-2)
        st.gub, st.best_x = 5.0, [0.5, 0.5]
        ist = np.zeros(devloop.NIST, np.int64)
        ist[devloop.BESTIT], ist[devloop.BESTIDX], ist[devloop.SIZE] = (0, 3, 4) if gub_after < 5 else (-1, -1, 4)
        loop = types.SimpleNamespace(ist_host=ist, fst_host=np.array([gub_after, 0.0, 0.0]),
                                     history=lambda a, b: ([0.0], [gub_after], [4]))
        devloop._take(types.SimpleNamespace(state=st), loop, 1, 10)
        return st
    lowered, kept = batch(1.0), batch(5.0)
    assert lowered.best_x is None and (lowered.gub, lowered.best_iteration, lowered.best_index) == (1.0, 0, 3)
    assert kept.best_x == [0.5, 0.5] and kept.gub == 5.0


# ---------------------------------------------------------------- a contracted box kept whole
KEEP = dict(backend="cpu", variant="strong", split_dims=3, parts=2, tol=1e-4)


def test_a_contracted_box_narrower_than_tol_is_kept_whole_without_the_sweep(monkeypatch):
    """Variant strong on Levy (f* = 0 at x = 1): contraction pins the first selected region below tol,
    which goes back into L whole (no sweep), its lower bound the natural enclosure's, rebuilt in the
    output; the same bounds as the search that sweeps it (the shortcut turned off)."""
    from gpubench.methods.solver import core
    n = 6
    fast = solve("levy", n, **KEEP)
    assert fast.options["contracted"]["kept_whole"] >= 1 and fast.timing["sweep_seconds"] == 0.0
    assert fast.converged and fast.glb <= 0.0 <= fast.gub
    x = functions.get("levy").xstar(n)
    assert np.any(np.all((fast.regions_lo <= x) & (x <= fast.regions_hi), axis=1))
    assert np.all(fast.regions_hi - fast.regions_lo < KEEP["tol"])
    # the domain contracted at the multistart's GUB, in one iteration: the one region is that box itself
    from gpubench.methods.solver.contract import contract
    box = contract(functions.get("levy"), *functions.get("levy").bounds(n), fast.gub)
    assert fast.iterations == 1 and fast.regions_lo.shape == (1, n)
    np.testing.assert_array_equal(fast.regions_lo[0], box[0])
    np.testing.assert_array_equal(fast.regions_hi[0], box[1])
    monkeypatch.setattr(core.Search, "_keep_whole", lambda self, lo, hi, cyc, floor=None: False)
    swept = solve("levy", n, **KEEP)
    assert swept.timing["sweep_seconds"] > 0 and swept.converged
    assert fast.glb == pytest.approx(swept.glb, abs=1e-12) and fast.gub == swept.gub


def test_a_kept_whole_search_resumes_on_the_host_loop_only(tmp_path):
    path = str(tmp_path / "s.npz")
    solve("levy", 6, checkpoint=path, **KEEP)
    again = solve("levy", 6, resume=path, **KEEP)
    x = functions.get("levy").xstar(6)
    assert again.converged and np.any(np.all((again.regions_lo <= x) & (x <= again.regions_hi), axis=1))
    if config.ENABLE_CUDASIM:   # the device loop cannot rebuild a box kept whole: one line, not a wrong search
        with pytest.raises(InputError, match="resume it with loop = host"):
            solve("levy", 6, resume=path, backend="cuda", loop="device",
                  **{k: v for k, v in KEEP.items() if k not in ("backend", "variant")})


def test_a_gated_chain_takes_the_host_loop_at_the_twins_split():
    """A chain the two-coordinate pieces are on for (forms/chain.py: ``gated``; Rana, EggHolder) takes
    the host loop on CUDA at n <= STRONG_MAX_DIM, cutting at most CHAINED_SPLIT_DIMS coordinates, with
    every extra of variant strong kept (the device loop takes the chain at the root only; docs/scipy_go.md,
    hard41); above STRONG_MAX_DIM, off CUDA or with a loop asked for, nothing changes."""
    strong = _checked(variant="strong", **PAPER)
    run, note = at_scale(strong, 5, True, chained=True)
    assert (run.loop, run.split_dims, run.contract, run.inclusion) == ("host", 5, True, "best")
    assert "chain" in note and "--loop device" in note
    assert at_scale(strong, 50, True, chained=True)[0].split_dims == solver_settings.CHAINED_SPLIT_DIMS
    assert at_scale(strong, 1000, True, chained=True)[0].loop == "auto"    # at scale: the paper's sweep
    assert at_scale(strong, 5, False, chained=True) == (strong, None)
    host = _checked(variant="strong", loop="host", **PAPER)
    assert at_scale(host, 5, True, chained=True) == (host, None)   # the loop asked for: the split too


@simulated
def test_rana_on_cuda_takes_the_host_loop():
    """(levy, whose chain is off, keeps the device loop: test_variant_strong_at_scale_runs_the_split_sweep...)"""
    rana = solve("scipy_go.Rana", 2, backend="cuda", variant="strong", **SMALL)
    assert rana.options.get("loop") is None and "chain of two-coordinate" in rana.message   # the host loop
