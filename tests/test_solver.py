"""The rigorous solver: the published counting rule, rigor, backends agreeing, resume, bad input."""
import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from constructs import one_per_construct
from gpubench import functions, methods
from gpubench.forms.function import InputError
from gpubench.methods.solver import solve

PAPER_000 = ["ackley", "belegundu", "breiman", "fu", "griewank", "levy", "rastrigin",
             "salomon", "styblinski", "zabinsky", "levy_delta"]


def published_iterations(name, n, tol=1e-4, s=10, p=4):
    """The counting rule behind Tables 1, 2, S2-S10 and S14: (n/s) * ceil(log_p(width/tol))."""
    lo, hi = functions.get(name).bounds(n)
    return (n // s) * math.ceil(math.log(float(hi[0] - lo[0]) / tol, p))


def inside_some_region(result, x):
    return bool(np.any(np.all((result.regions_lo <= x) & (x <= result.regions_hi), axis=1)))


def assert_rigorous(result, fn, n):
    x, f = fn.xstar(n), fn.fstar(n)
    assert result.glb <= f <= result.gub, (result.glb, f, result.gub)
    assert inside_some_region(result, x), "x* is outside every output region"


def test_counting_rule_matches_the_published_tables():
    """The rule reproduces every row of Tables 1, 2, S2-S10 and S14 that the CSV holds."""
    import csv
    path = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "published", "zhang2026_solver.csv")
    if not os.path.exists(path):
        pytest.skip("shared/published is not beside this checkout")
    rows = [r for r in csv.DictReader(open(path)) if r["function"] in PAPER_000]
    assert len(rows) > 100
    for r in rows:
        assert int(r["iterations"]) == published_iterations(r["function"], int(r["dimension"])), r
        assert int(r["output_regions"]) == 1


@pytest.mark.slow
@pytest.mark.parametrize("name,iterations", [("ackley", 10), ("levy", 9), ("zabinsky", 8)])
def test_published_rule_at_n10_with_paper_defaults(name, iterations):
    """s=10, p=4, tol=1e-4, 10 samples: 4^10 subregions per iteration, as in the paper."""
    fn = functions.get(name)
    assert published_iterations(name, 10) == iterations
    r = solve(name, 10, backend="cpu")
    assert r.converged
    assert r.iterations == iterations
    assert r.n_regions == 1
    assert r.nfev == iterations * 4**10 * 11
    assert_rigorous(r, fn, 10)
    assert np.all(r.regions_hi - r.regions_lo < 1e-4)


SMALL = dict(split_dims=2, parts=4, tol=1e-3, samples=10)


# one function per construct in `make test`, the repeats in `make test-slow` (tests/constructs.py)
@pytest.mark.parametrize("name", one_per_construct(functions.names()))
def test_every_function_is_enclosed_at_small_partitions(name):
    fn = functions.get(name)
    n = 2 if name != "rosenbrock" else 3
    r = solve(name, n, backend="cpu", **SMALL)
    assert r.converged, r.message
    assert_rigorous(r, fn, n)
    assert np.all(r.regions_hi - r.regions_lo < SMALL["tol"])
    # history is monotone: GUB never rises, GLB never exceeds GUB
    assert all(a >= b for a, b in zip(r.history["gub"], r.history["gub"][1:]))
    assert all(g <= u for g, u in zip(r.history["glb"], r.history["gub"]))
    if fn.sense == "min":
        assert r.fun >= r.glb and r.fun <= r.gub + 1e-12 * max(1, abs(r.gub))


def test_wrapping_cycle_when_n_is_not_a_multiple_of_s():
    r = solve("levy", 3, backend="cpu", split_dims=2, parts=4, tol=1e-3)
    # each coordinate needs ceil(log4(20/1e-3)) = 8 cuts; 2 of 3 per iteration -> 12 iterations
    assert r.converged and r.iterations == 12 and r.n_regions == 1
    assert_rigorous(r, functions.get("levy"), 3)


def test_minimum_on_the_domain_edge_is_kept(tmp_path):
    """A monotone function: every subregion but the corner is ruled out by the gradient test,
    and the corner, whose gradient is just as positive, must be kept."""
    path = tmp_path / "edge.py"
    path.write_text(textwrap.dedent("""
        import numpy as np
        from gpubench.forms.definition import Definition, Sum, x, symbols
        S = symbols("S")
        EDGE = Definition(name="edge", title="edge", source="test", terms={S: Sum(x + x**2)},
                          expr=S, domain=(0.25, 2), xstar=lambda n: np.full(n, 0.25),
                          fstar=lambda n: n * (0.25 + 0.0625))
    """))
    r = solve(f"{path}:EDGE", 3, backend="cpu", **SMALL)
    fn = functions.get(f"{path}:EDGE")
    assert r.converged and r.n_regions == 1
    assert_rigorous(r, fn, 3)
    assert np.all(r.regions_lo[0] == 0.25)


def test_levy_delta_spike_is_found():
    r = solve("levy_delta", 2, backend="cpu", split_dims=2, parts=4, tol=1e-7)
    assert r.converged
    assert r.glb <= -1.0 <= r.gub
    assert inside_some_region(r, np.full(2, 1.5))
    assert r.gub == -1.0 or r.gub < 0  # the spike was sampled or bounded


def test_maximisation_is_reported_in_the_functions_sense():
    fn = functions.get("alpine02")
    r = solve("alpine02", 2, backend="cpu", split_dims=2, parts=8, tol=1e-4)
    assert r.glb <= fn.fstar(2) <= r.gub
    assert abs(fn.fstar(2) - 7.885600724) < 1e-8
    assert r.fun <= fn.fstar(2) + 1e-12


def test_method_registry_entry_point():
    r = methods.minimize("rastrigin", 2, method="interval", backend="cpu", **SMALL)
    assert r.method == "interval" and r.converged


def test_simulated_gpu_matches_cpu_exactly():
    from numba import config
    if not config.ENABLE_CUDASIM:
        pytest.skip("runs under the CUDA simulator; a real GPU is covered by the GPU host runs")
    opts = dict(split_dims=2, parts=2, tol=0.05, samples=2)
    for name in ("levy", "griewank"):
        cpu = solve(name, 2, backend="cpu", **opts)
        gpu = solve(name, 2, backend="cuda", loop="host", **opts)  # the host loop's CUDA sweep
        assert gpu.backend == "cuda"
        assert cpu.iterations == gpu.iterations
        assert cpu.history["list_size"] == gpu.history["list_size"]
        np.testing.assert_array_equal(cpu.regions_lo, gpu.regions_lo)
        np.testing.assert_array_equal(cpu.regions_hi, gpu.regions_hi)


def test_max_iterations_and_time_limit_stop_early():
    r = solve("levy", 4, backend="cpu", split_dims=2, parts=4, max_iterations=3)
    assert r.iterations == 3 and not r.converged and "max_iterations" in r.message
    assert r.glb <= 0.0 <= r.gub


@pytest.mark.parametrize("kwargs,msg", [
    (dict(parts=1), "parts"), (dict(split_dims=0), "split_dims"), (dict(tol=0.0), "tol"),
    (dict(tol=float("nan")), "tol"), (dict(samples=0), "samples"), (dict(backend="tpu"), "backend"),
])
def test_bad_settings_raise_input_errors(kwargs, msg):
    with pytest.raises(InputError, match=msg):
        solve("levy", 2, **{"backend": "cpu", **kwargs})


def _cli(*args, **kw):
    return subprocess.run([sys.executable, "-m", "gpubench.cli", *args], capture_output=True,
                          text=True, **kw)


@pytest.mark.parametrize("args", [
    ["solve", "nosuch", "--dim", "3"], ["solve", "levy", "--dim", "0"],
    ["solve", "levy", "--dim", "x"], ["solve", "levy", "--dim", "3", "--tol", "-1"],
    ["solve", "levy", "--dim", "3", "--parts", "1"], ["solve", "levy", "--dim", "3", "--resume", "/nonexistent"],
    ["solve", "nofile.py:F", "--dim", "3"],
])
def test_cli_bad_input_is_one_line(args):
    p = _cli(*args)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gpubench: error:"), p.stderr
    assert "Traceback" not in p.stderr


def test_cli_json_output():
    p = _cli("solve", "levy", "--dim", "2", "--split-dims", "2", "--parts", "4", "--tol", "1e-3",
             "--backend", "cpu", "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    for key in ("function", "dim", "backend", "iterations", "regions", "glb", "gub", "seconds", "converged"):
        assert key in d
    assert d["converged"] and d["regions"][0]["lo"][0] <= 1.0 <= d["regions"][0]["hi"][0]


def test_corrupt_checkpoint_is_refused(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a checkpoint")
    p = _cli("solve", "levy", "--dim", "2", "--resume", str(bad))
    assert p.returncode == 2 and "unreadable" in p.stderr


def test_checkpoint_from_other_settings_is_refused(tmp_path):
    ck = tmp_path / "ck.npz"
    solve("levy", 2, backend="cpu", split_dims=2, parts=4, max_iterations=2, checkpoint=str(ck))
    with pytest.raises(InputError, match="other settings"):
        solve("levy", 2, backend="cpu", split_dims=2, parts=8, resume=str(ck))


def test_resume_after_kill_gives_the_same_answer(tmp_path):
    """kill -9 mid-search, resume from the checkpoint: same regions, counts and history."""
    # 56 iterations of 256 subregions, a checkpoint after each: long enough to kill mid-way
    opts = ["levy", "--dim", "16", "--split-dims", "4", "--parts", "4", "--tol", "1e-7",
            "--backend", "cpu", "--time-limit", "3600", "--json",
            "--variant", "paper"]  # not the 20 s of a typed-in solve; the paper's search: many iterations
    full = json.loads(_cli("solve", *opts).stdout)
    ck = tmp_path / "run.npz"
    proc = subprocess.Popen([sys.executable, "-m", "gpubench.cli", "solve", *opts, "--checkpoint", str(ck),
                             "--checkpoint-every", "0.000001"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 120
    while time.time() < deadline:
        if ck.exists():
            with np.load(ck) as data:
                if json.loads(str(data["meta"]))["scalars"]["iteration"] >= 3:
                    break
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = json.loads(str(np.load(ck)["meta"]))["scalars"]["iteration"]
    assert 0 < partial < full["iterations"], "the kill did not land mid-search"
    resumed = json.loads(_cli("solve", *opts, "--resume", str(ck)).stdout)
    assert os.listdir(tmp_path) == ["run.npz"], "temporary or partial files left behind"
    for key in ("iterations", "regions", "glb", "gub", "n_regions", "nfev", "converged"):
        assert resumed[key] == full[key], key
    assert resumed["history"]["list_size"] == full["history"]["list_size"]


def test_the_warm_up_builds_no_result(monkeypatch):
    """The interval method's warm-up (one iteration, to load or compile the kernels) does not build
    the result (the boxes of the first iteration's list, up to 256 MB of them)."""
    from gpubench.methods import interval
    from gpubench.methods.solver import core
    built = []
    monkeypatch.setattr(core.Search, "result", lambda self, message="": built.append(message))
    settings = interval.METHOD.make_settings(dict(backend="cpu", split_dims=2, parts=2))
    interval.METHOD.warmup(functions.get("levy"), 3, settings)
    assert built == []
    core.run_search(functions.get("levy"), 3, settings)
    assert len(built) == 1
