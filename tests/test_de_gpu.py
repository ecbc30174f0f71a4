"""de-gpu: DE/rand/1/bin of Qin et al. (GECCO 2012) on the CPU twins and the (simulated) CUDA kernels.

The operators are checked from outside the kernels: with a constant function every trial
replaces its target, so the next population *is* the trial population, and the mutation
indices, the crossover and the bounds rule can be read back from it.
"""
import functools
import itertools
import shutil
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from gpubench import methods
from gpubench.forms.definition import Definition, Sum, symbols, x
from gpubench.errors import InputError
from gpubench.forms.function import TestFunction
from gpubench.methods import de_cuda, de_gpu, de_launch, de_run

ROOT = Path(__file__).resolve().parent.parent
# the simulator's xoroshiro128+ wraps numpy uint64 scalars
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
S = symbols("S")
# f = 0 everywhere (a sum of zero terms, so the cooperative forms have an aggregate to reduce)
FLAT = TestFunction(Definition(name="de_flat", title="flat", source="test", terms={S: Sum(0 * x)}, expr=S,
                               domain=(-1, 1), xstar=lambda n: np.zeros(n), fstar=lambda n: 0.0))

# the four engines: (backend, extra settings)
ENGINES = {
    "sde": {"backend": "cpu", "cpu_variant": "sde"},
    "parallel": {"backend": "cpu", "cpu_variant": "parallel"},
    "cuda-fast": {"backend": "cuda", "mode": "fast"},
    "cuda-paper": {"backend": "cuda", "mode": "paper"},
    "cuda-stream": {"backend": "cuda", "mode": "stream"},
    "stream": {"backend": "cpu", "cpu_variant": "stream"},
}


@pytest.fixture
def keep(monkeypatch):
    monkeypatch.setattr(de_run, "KEEP_POPULATION", True)


def _run(fn, dim, engine, **kw):
    return methods.minimize(fn, dim, "de-gpu", **ENGINES[engine], **kw)


def _populations(fn, dim, engine, generations, **kw):
    """(initial, after `generations`) populations of every run, shape (runs, np, D)."""
    NP = kw["np"]
    before = _run(fn, dim, engine, max_evaluations=NP, **kw).history["population"]
    after = _run(fn, dim, engine, max_evaluations=NP * (1 + generations), **kw).history["population"]
    return before, after


def test_registered_and_described():
    m = methods.get("de-gpu")
    assert "de-gpu" in methods.names() and not m.rigorous and m.backends == ("cpu", "cuda")
    names = {r["name"] for r in m.describe()["settings"]}
    assert {"np", "F", "CR", "max_evaluations", "target_error", "time_limit", "runs", "seed", "backend",
            "mode", "bounds", "cpu_variant"} <= names


@pytest.mark.parametrize("engine", list(ENGINES))
def test_mutation_indices_distinct(engine, keep):
    """CR = 1: each new member is clip(x_r1 + F (x_r2 - x_r3)); find the triple and check it."""
    NP, D, F = 8, 3, 0.5
    before, after = _populations(FLAT, D, engine, 1, np=NP, runs=2, CR=1.0, F=F, bounds="clip", seed=5)
    lo, hi = FLAT.bounds(D)
    for run in range(2):
        X, V = before[run], after[run]
        for i in range(NP):
            found = [(a, b, c) for a, b, c in itertools.product(range(NP), repeat=3)
                     if np.allclose(np.clip(X[a] + F * (X[b] - X[c]), lo, hi), V[i], rtol=0, atol=1e-12)]
            assert found, f"member {i}: no triple gives the trial"
            for a, b, c in found:
                assert len({a, b, c, i}) == 4, f"member {i}: indices {a, b, c} not distinct from each other and i"


def test_kernel_p_indices_distinct():
    """kernel(P) alone (simulated), with a small population so that rejections happen often."""
    from numba import cuda
    from numba.cuda.random import create_xoroshiro128p_states
    mod = de_gpu._module(FLAT, "cuda")
    NP, R, D = 4, 5, 3
    idx = cuda.device_array((R * NP, 4), dtype=np.int32)
    mod.de_indices[1, R * NP](idx, create_xoroshiro128p_states(R * NP, 1), NP, R, D)
    out = idx.copy_to_host()
    for gi, (r1, r2, r3, jr) in enumerate(out):
        assert len({int(r1), int(r2), int(r3), gi % NP}) == 4
        assert 0 <= min(r1, r2, r3) and max(r1, r2, r3) < NP and 0 <= jr < D


def _changed_counts(engine, CR, D=8, NP=8, runs=2, **kw):
    before, after = _populations(FLAT, D, engine, 1, np=NP, runs=runs, CR=CR, F=0.5, bounds="clip", seed=11, **kw)
    return (before != after).sum(axis=2).ravel()


def _crossover_looks_binomial(engine, CR=0.3, D=8, **kw):
    """Elements from the mutant: 1 (j_rand) + Binomial(D - 1, CR); a 5-sigma test of the mean."""
    c = _changed_counts(engine, CR, D, **kw)
    mean, sd = 1 + (D - 1) * CR, np.sqrt((D - 1) * CR * (1 - CR))
    return abs(c.mean() - mean) <= 5 * sd / np.sqrt(c.size) and c.min() >= 1


@pytest.mark.parametrize("engine", ["parallel", "cuda-fast", "cuda-stream"])
def test_crossover_statistics_and_broken_crossover_caught(engine, keep, monkeypatch):
    assert _crossover_looks_binomial(engine)
    assert set(_changed_counts(engine, 0.0, runs=1)) == {1}  # only j_rand
    assert set(_changed_counts(engine, 1.0, runs=1)) == {8}
    monkeypatch.setattr(de_gpu, "CROSSOVER", "True")  # CR ignored: every element from the mutant
    assert not _crossover_looks_binomial(engine)


@pytest.mark.parametrize("bounds", de_gpu.BOUNDS)
@pytest.mark.parametrize("engine", ["parallel", "cuda-fast", "cuda-stream"])
def test_bounds_hold(engine, bounds, keep):
    """F = 0.9 throws many mutants out of [-1, 1]^D (but never beyond [-3, 3], so one reflection
    brings them back); every member stays inside under each rule."""
    D, NP = 3, 8
    before, after = _populations(FLAT, D, engine, 3, np=NP, runs=2, CR=1.0, F=0.9, bounds=bounds, seed=2)
    assert np.all(after >= -1.0) and np.all(after <= 1.0)
    at_bound = np.isin(after, (-1.0, 1.0)).mean()
    if bounds == "clip":
        assert at_bound > 0.05  # clipping happened (and was needed)
    else:
        assert at_bound == 0.0


@pytest.mark.parametrize("engine", list(ENGINES))
def test_evaluation_count_exact(engine):
    NP = 8
    # a budget that is no multiple of NP (36 = 4.5 generations' worth): whole generations only
    r = _run("shifted_sphere", 4, engine, np=NP, runs=2, max_evaluations=36, seed=1)
    G = 36 // NP - 1
    assert r.history["run_nfev"] == [NP * (1 + G)] * 2 and r.nfev == 2 * NP * (1 + G) <= 72
    assert r.history["run_generations"] == [G, G] and list(r.status) == [1, 1]
    # stopped on the target: the generation that reached it is finished, no more (a budget of 9
    # generations, twice the 4 each run takes: the simulated kernels go through the launch's
    # remaining generations with the runs stopped, 8.7 -> 3.0 s of cuda-paper at 29)
    r = _run("shifted_sphere", 4, engine, np=NP, runs=2, max_evaluations=NP * 10, target_error=2e3, seed=1)
    for g, n, e, st in zip(r.history["run_generations"], r.history["run_nfev"], r.history["run_error"], r.status):
        assert st == 0 and e <= 2e3 and n == NP * (1 + g) and g < 9
    if engine == "cuda-stream":
        launch = r.options["launch"]
        assert launch["schedule"] == "stream" and launch["threads_per_member"] == 4
        assert launch["members_per_block"] == 16 and launch["dynamic_shared_bytes"] == 8 * 16 * 4
    elif engine.startswith("cuda"):
        launch = r.options["launch"]
        assert launch["threads_per_member"] == 4 and launch["members_per_block"] == 16
        assert launch["schedule"] == ("paper" if engine == "cuda-paper" else "block")
        assert launch["block"] == 64 and launch["dynamic_shared_bytes"] == 8 * (16 * 4 + 16 * 4 + 5 * 16)


def test_max_evaluations_below_population_is_an_input_error():
    with pytest.raises(InputError, match="at least np"):
        methods.minimize("shifted_sphere", 4, "de-gpu", np=8, max_evaluations=7, backend="cpu")
    with pytest.raises(InputError):
        methods.minimize("shifted_sphere", 4, "de-gpu", np=3)


@pytest.mark.parametrize("engine", ["sde", "parallel", "cuda-fast", "stream"])
def test_seeded_reproducibility(engine):
    kw = dict(np=8, runs=2, max_evaluations=80)
    a = _run("shifted_rastrigin", 4, engine, seed=7, **kw)
    b = _run("shifted_rastrigin", 4, engine, seed=7, **kw)
    c = _run("shifted_rastrigin", 4, engine, seed=8, **kw)
    assert a.history["run_fun"] == b.history["run_fun"] and np.array_equal(a.x, b.x)
    assert a.history["run_fun"] != c.history["run_fun"]


def test_cpu_twins_and_simulated_kernel_statistically_equivalent():
    """Final errors of sphere D = 3, NP = 8 after 12 generations, 8 runs per engine: no pair of
    engines may differ (Mann-Whitney U on log errors, alpha = 1e-3; with 8 + 8 runs a complete
    separation gives p = 1.6e-4, so the test can fail, as the last check shows)."""
    kw = dict(np=8, runs=8, max_evaluations=8 * 13, F=0.5, CR=0.3)
    logs = {e: np.log10(_run("shifted_sphere", 3, e, seed=3, **kw).history["run_error"])
            for e in ("sde", "parallel", "cuda-fast", "cuda-paper")}
    for a, b in itertools.combinations(logs, 2):
        assert stats.mannwhitneyu(logs[a], logs[b]).pvalue > 1e-3, (a, b, logs[a].mean(), logs[b].mean())
    # a real difference is seen: 12 generations against 1 (other seed)
    short = np.log10(_run("shifted_sphere", 3, "parallel", seed=4, **dict(kw, max_evaluations=8 * 2))
                     .history["run_error"])
    assert stats.mannwhitneyu(logs["parallel"], short).pvalue < 1e-3


@pytest.mark.parametrize("variant", ["sde", "parallel"])
def test_success_on_shifted_sphere(variant):
    r = methods.minimize("shifted_sphere", 5, "de-gpu", np=20, runs=4, backend="cpu", cpu_variant=variant,
                         seed=0)
    assert r.options["max_evaluations"] == 50_000
    assert r.history["success_rate"] == 1.0 and r.fun < 1e-8
    assert list(r.status) == [1] * 4 and r.converged


def test_no_gpu_falls_back_to_the_cpu_twin_with_a_note():
    r = methods.minimize("shifted_rastrigin", 3, "de-gpu", np=8, max_evaluations=40)
    assert r.backend == "cpu" and "no GPU" in r.options["note"]


def test_launch_configuration():
    h200 = {"max_threads_per_block": 1024, "max_shared_memory_per_block": 49152,
            "max_registers_per_block": 65536, "multiprocessors": 132, "max_threads_per_multiprocessor": 2048}
    assert de_launch.launch_config(10, 10_000, 1, 40, h200)[:2] == (10, 102)  # one thread per element
    assert de_launch.launch_config(10, 50, 1, 40, h200)[:2] == (10, 50)  # no more members than there are
    assert de_launch.launch_config(1000, 10_000, 1, 64, h200)[:2] == (1000, 1)
    assert de_launch.launch_config(1000, 10_000, 1, 128, h200)[:2] == (512, 1)  # registers cap the block
    # 81 regs round up to 88 a thread, 2816 a warp: 23 warps by the quotient, 20 by groups of four
    # (the H200's occupancy query gave 64 members of 10 threads for this kernel)
    assert de_launch.launch_config(10, 10_000, 1, 81, h200)[:2] == (10, 64)
    assert de_launch.launch_config(10, 10_000, 1, 80, h200)[:2] == (10, 76)  # 80 regs: 24 warps of 2560
    # D = 1000 with 88 registers (the cooperative kernel on the H200, where T = 736 did not fit):
    # at most 640 threads, so 2 elements per thread, balanced to 512 threads
    assert de_launch.launch_config(1000, 10_000, 2, 88, h200)[:2] == (512, 1)
    assert de_launch.launch_config(1000, 10_000, 2, 88, h200, cap=100)[:2] == (100, 5)  # 10 elements per thread
    assert de_launch.launch_config(5, 100, 1, None, h200, cap=2)[:2] == (2, 100)  # 3 elements per thread
    assert de_launch.launch_config(6000, 10, 2, 32, h200, cap=32)[:2] == (32, 1)  # near the shared-memory limit
    assert de_launch.launch_config(100, 10_000, 2, 32, h200)[:2] == (100, 10)
    T, m, smem = de_launch.launch_config(100, 10_000, 6, 32, h200)  # shared memory caps the members
    assert (T, m) == (100, 8) and smem == 8 * (8 * 100 + 6 * 8 * 100 + 5 * 8) <= 49152
    with pytest.raises(InputError, match="shared memory"):
        de_launch.launch_config(10_000, 10, 1, 32, h200)
    # the cooperative kernel: groups of a power of two lanes up to a warp, 256 threads a block,
    # whole warps, as many trials as shared memory holds (kernel(IE)'s layout on the same blocks)
    assert de_launch.group_config(100, 100_000, 1, 40, h200)[:2] == (32, 8)
    assert de_launch.group_config(10, 100_000, 1, 40, h200)[:2] == (16, 16)
    assert de_launch.group_config(3, 100_000, 1, 40, h200)[:2] == (4, 64)
    assert de_launch.group_config(1000, 10_000, 1, 40, h200)[:2] == (32, 5)  # 6 trials + scratch > 48 KB
    assert de_launch.group_config(100, 100_000, 1, 40, h200, cap=20)[:2] == (16, 16)
    assert de_launch.group_config(4, 3, 1, 40, h200)[:2] == (4, 8)  # one whole warp, though 3 members
    assert de_launch.group_config(4, 3, 1, 40, h200, whole_warps=False)[:2] == (4, 3)
    assert de_launch.group_config(100, 100_000, 1, 255, h200)[:2] == (32, 8)
    # 136 registers: 3 warps per sub-partition, 12 an SM: three blocks of 128 threads, not one of 256
    assert de_launch.group_config(100, 100_000, 1, 136, h200)[:2] == (32, 4)
    assert de_launch.group_config(100, 100_000, 1, 108, h200)[:2] == (32, 8)  # 16 warps either way


def test_kernels_compile_to_ptx():
    """The simulator runs Python; here NVVM compiles every kernel for sm_90 (no GPU needed)."""
    script = r'''
import numba, numpy as np
from numba import types as T
from numba.cuda.random import xoroshiro128p_dtype
import gpubench.functions as F
from gpubench.methods import de_gpu
from gpubench.device.ptx import compile_ptx
a3, a2, a1 = (T.Array(T.float64, k, "C") for k in (3, 2, 1))
st = numba.typeof(np.zeros(2, dtype=xoroshiro128p_dtype))
i2, li, I, R, B = T.Array(T.int32, 2, "C"), T.Array(T.int64, 1, "C"), T.int64, T.float64, T.boolean
i1, U = T.Array(T.int32, 1, "C"), T.uint64
sigs = {"de_fast": (a3, a2, a1, a1, a2, st, i1, li, li, I, I, R, R, I, I, I, I, I, I, R, R, B),
        "de_block": (a3, a2, a1, a1, a2, st, i2, li, li, I, I, R, R, I, I, I, I, I, I, R, R, B),
        "de_mcer": (a3, a2, I, I, a1, a1, a2, st, i2, li, li, I, R, R, I, I, I, I, I, I, R, R, B),
        "de_init": (a3, a2, a1, a1, a2, st, li, li, I, I, I, I, I, R, R, B),
        "de_indices": (i2, st, I, I, I),
        "de_stream": (a1, a1, li, li, a1, a1, a2, U, li, li, I, I, R, R, I, I, I, I, I, I, R, R, B),
        "de_stream_init": (a3, a1, li, a1, a1, a2, U, li, li, I, I, I, I, I, R, R, B)}
mod = de_gpu._module(F.get("shifted_griewank"), "cuda")
for k, sig in sigs.items():
    ptx = compile_ptx(getattr(mod, k), sig, device=False)
    assert ".entry" in ptx and (k in ("de_indices", "de_stream_init") or "bar.sync" in ptx), k
    if k == "de_stream":  # no random state: nothing but the population, values and words are loaded
        assert "shfl.sync.bfly" in ptx and "xoroshiro" not in ptx, k
    if k == "de_fast":  # the groups reduce and broadcast by shuffles, not through shared memory
        assert "shfl.sync.bfly" in ptx and "shfl.sync.idx" in ptx, k
print("ok")
'''
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-2000:]


def test_cooperative_schedule_when_a_run_spans_blocks(monkeypatch, keep):
    """Fast mode with fewer members per block than NP: the cooperative kernel (grid sync), forced
    here by a small thread limit; counts, indices and the schedule are checked as above."""
    real = de_launch._device_limits
    monkeypatch.setattr(de_cuda, "_device_limits", lambda: dict(real(), max_threads_per_block=12))
    r = _run("shifted_sphere", 4, "cuda-fast", np=8, runs=2, max_evaluations=8 * 4, seed=1)
    assert r.options["launch"]["schedule"] == "cooperative" and r.options["launch"]["members_per_block"] == 3
    assert r.history["run_nfev"] == [32, 32] and r.history["run_generations"] == [3, 3]
    NP, F = 8, 0.5
    before, after = _populations(FLAT, 3, "cuda-fast", 1, np=NP, runs=1, CR=1.0, F=F, bounds="clip", seed=5)
    X, V = before[0], after[0]
    for i in range(NP):
        found = [(a, b, c) for a, b, c in itertools.product(range(NP), repeat=3)
                 if np.allclose(np.clip(X[a] + F * (X[b] - X[c]), -1, 1), V[i], rtol=0, atol=1e-12)]
        assert found and all(len({a, b, c, i}) == 4 for a, b, c in found)


def test_heuristic_report_marks_success_rates_against_the_published_interval(tmp_path):
    """Records made by hand for Table 1 (quick): SR inside / outside the published 95% interval,
    and missing cases read 'missing'.  F4 P50 published SR 1.00 of 25 -> [0.86, 1.00]."""
    from gpubench.workflow import experiments_loader as loader
    from gpubench.reports import builder as report
    from gpubench.workflow import runner
    e = loader.load("qin2012_table1")
    cases = {(c.key, c.function): c for c in runner.plan(e, quick=True)}

    def rec(case, errors):
        ok = [err < 1e-8 for err in errors]
        return {"schema": 1, "experiment": case.experiment, "variant": case.variant, "case": case.case_id,
                "key": case.key, "method": case.method, "label": case.label, "function": case.function,
                "dim": case.dim, "sense": "min", "repetition": 0, "settings": case.settings,
                "options": dict(case.settings),
                "measured": {"iterations": 10, "fun": min(errors), "evaluations": 1000, "seconds": 2.0,
                             "converged": True, "backend": "cpu", "gradient_evaluations": 0},
                "fstar": 0.0, "success": all(ok), "success_rule": "test", "x": None,
                "history": {"run_error": errors, "run_success": ok},
                "environment": {"cpu": "Test CPU", "cpu_count": 2, "gpu": None, "date": "2026-01-01T00:00:00+00:00",
                                "versions": {"python": "3.11"}, "commit": "abc"}}
    folder = tmp_path / "res" / "qin2012_table1"
    runner.write_record(folder, rec(cases[("de_p50", "shifted_rastrigin")], [0.0] * 5))
    runner.write_record(folder, rec(cases[("de_p100", "shifted_rastrigin")], [0.0, 0.0, 1.0, 2.0, 3.0]))
    md = report.build(e, tmp_path / "res", tmp_path / "rep").read_text()
    quick = [ln for ln in md.split("## Full")[0].splitlines() if ln.startswith("| F4")]
    rows = {ln.split(" | ")[2]: ln for ln in quick}
    assert "1.00 [0.48, 1.00]" in rows["50"] and "1.00 [0.86, 1.00]" in rows["50"] and "| yes |" in rows["50"]
    assert "0.40 [0.05, 0.85]" in rows["100"] and "| no |" in rows["100"] and "1.2 (1.3)" in rows["100"]
    assert "missing" in rows["500"] and "| missing |" in rows["1000"]
    assert "F4 D=10 NP=100: measured 0.40, published 1.00" in md


def test_fast_mode_falls_back_to_the_paper_schedule_without_cooperative_launch(monkeypatch):
    real_limits, real_compiled = de_launch._device_limits, de_launch._compiled
    monkeypatch.setattr(de_cuda, "_device_limits", lambda: dict(real_limits(), max_threads_per_block=12))

    def compiled(kernel, args):
        if getattr(kernel, "py_func", kernel).__name__ == "de_fast":
            raise RuntimeError("cudadevrt not found")
        return real_compiled(kernel, args)
    monkeypatch.setattr(de_cuda, "_compiled", compiled)
    r = _run("shifted_sphere", 4, "cuda-fast", np=8, runs=1, max_evaluations=8 * 3, seed=1)
    assert r.options["launch"]["schedule"] == "paper" and "cudadevrt not found" in r.options["note"]
    assert r.history["run_nfev"] == [24]


STRIDED = dict(threads_per_member=2)  # D = 5 or 8 over 2 threads: 3 or 4 elements per thread


@pytest.mark.parametrize("engine", ["cuda-fast", "cuda-paper"])
def test_strided_threads_keep_the_operators(engine, keep, monkeypatch):
    """Each thread covering several elements of its member (the layout of D = 1000 on an H200,
    forced by a cap of 2 threads per member): indices distinct, crossover binomial (and a broken
    one caught), bounds held, evaluation count exact, the launch saying so."""
    NP, D, F = 8, 5, 0.5
    before, after = _populations(FLAT, D, engine, 1, np=NP, runs=1, CR=1.0, F=F, bounds="clip", seed=5, **STRIDED)
    for i in range(NP):
        found = [(a, b, c) for a, b, c in itertools.product(range(NP), repeat=3)
                 if np.allclose(np.clip(before[0][a] + F * (before[0][b] - before[0][c]), -1, 1), after[0][i],
                                rtol=0, atol=1e-12)]
        assert found and all(len({a, b, c, i}) == 4 for a, b, c in found)
    assert set(_changed_counts(engine, 0.0, runs=1, **STRIDED)) == {1}
    assert set(_changed_counts(engine, 1.0, runs=1, **STRIDED)) == {8}
    _, after = _populations(FLAT, D, engine, 3, np=NP, runs=1, CR=1.0, F=0.9, bounds="reflect", seed=2, **STRIDED)
    assert np.all(np.abs(after) <= 1.0)
    r = _run("shifted_sphere", D, engine, np=NP, runs=2, max_evaluations=NP * 4, seed=1, **STRIDED)
    launch = r.options["launch"]
    assert launch["threads_per_member"] == 2 and launch["elements_per_thread"] == 3
    assert r.history["run_nfev"] == [NP * 4] * 2 and r.history["run_generations"] == [3, 3]
    assert _crossover_looks_binomial(engine, **STRIDED)
    monkeypatch.setattr(de_gpu, "CROSSOVER", "True")
    assert not _crossover_looks_binomial(engine, **STRIDED)


# sphere D = 5, NP = 8, 12 generations, 8 runs: the statistical comparisons with the paper's mode
SPHERE5 = dict(np=8, runs=8, max_evaluations=8 * 13, F=0.5, CR=0.3)


@functools.lru_cache(maxsize=None)
def _paper_mode_sphere5():
    """The paper's mode (simulated, one thread per element) on SPHERE5, seed 3: the reference of both
    statistical tests below, run once (seeded, so the same result for each; its simulation is the
    costliest of the two runs each test makes)."""
    return _run("shifted_sphere", 5, "cuda-paper", seed=3, **SPHERE5)


def test_strided_fast_mode_statistically_equivalent_to_the_paper_mode():
    """Final errors of sphere D = 5, NP = 8, 12 generations, 8 runs: 2 threads per member in fast
    mode against one thread per element in the paper's mode (Mann-Whitney U, alpha = 1e-3)."""
    kw = SPHERE5
    strided = _run("shifted_sphere", 5, "cuda-fast", seed=3, **STRIDED, **kw)
    paper = _paper_mode_sphere5()
    assert strided.options["launch"]["elements_per_thread"] == 3
    assert paper.options["launch"]["elements_per_thread"] == 1
    a, b = np.log10(strided.history["run_error"]), np.log10(paper.history["run_error"])
    assert stats.mannwhitneyu(a, b).pvalue > 1e-3, (a.mean(), b.mean())


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="no ptxas (CUDA toolkit) here")
def test_fast_kernel_at_d1000_fits_the_registers_ptxas_allocates():
    """The real compiler: NVVM to PTX, then ptxas to sm_90 code under the kernel's own register cap
    (FAST_REGISTERS, which its jit passes on), reports the cooperative kernel's registers, at most the
    cap; at D = 1000 the group configuration built on them takes one warp per member
    (32 elements per lane), and a block whose registers (allocated by warps in groups of four)
    and shared memory (kernel(IE)'s, the larger) fit an H200 SM."""
    script = r'''
import numba, numpy as np, re, subprocess, sys, tempfile
from numba import types as T
from numba.cuda.random import xoroshiro128p_dtype
import gpubench.functions as F
from gpubench.methods import de_gpu
from gpubench.device.ptx import compile_ptx
a3, a2, a1 = (T.Array(T.float64, k, "C") for k in (3, 2, 1))
st = numba.typeof(np.zeros(2, dtype=xoroshiro128p_dtype))
i1, li, I, R, B = T.Array(T.int32, 1, "C"), T.Array(T.int64, 1, "C"), T.int64, T.float64, T.boolean
sig = (a3, a2, a1, a1, a2, st, i1, li, li, I, I, R, R, I, I, I, I, I, I, R, R, B)
mod = de_gpu._module(F.get("shifted_rastrigin"), "cuda")
with tempfile.TemporaryDirectory() as d:
    open(d + "/k.ptx", "w").write(compile_ptx(mod.de_fast, sig, device=False))
    cap = int(mod.FAST_REGISTERS)
    out = subprocess.run(["ptxas", "-arch=sm_90", "-c", "-v"] + ([f"-maxrregcount={cap}"] if cap else [])
                         + [d + "/k.ptx", "-o", d + "/k.o"], capture_output=True, text=True)
assert out.returncode == 0, out.stderr[-2000:]
print(cap, int(re.search(r"Used (\d+) registers", out.stderr).group(1)), int(mod.COOP_SLOTS))
'''
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    cap, regs, slots = map(int, out.stdout.split()[-3:])
    assert cap == 0 or regs <= cap
    h200 = {"max_threads_per_block": 1024, "max_shared_memory_per_block": 49152,
            "max_registers_per_block": 65536, "multiprocessors": 132, "max_threads_per_multiprocessor": 2048}
    T, m, smem = de_launch.group_config(1000, 10_000, slots, regs, h200)
    per_warp = -(-regs * 32 // 256) * 256
    assert T == 32 and m >= 1 and -(-(m * T // 32) // 4) * per_warp <= 65536 // 4 and smem == 8 * m * 1000
    assert de_launch._shared_bytes(1000, m, T, slots) <= 49152
    # as many trials as shared memory holds, unless the block's threads (chosen for the registers) hold fewer
    assert de_launch._shared_bytes(1000, m + 1, T, slots) > 49152 or (m + 1) * T > de_launch._block_threads(regs, 1024)


def test_report_prints_the_stored_hypothesis_runs(tmp_path):
    """The Table 1 report renders the stored JSON of the former scripts/de_hypotheses.py: each reading's figures and
    whether it reproduces the published success rate (1.00 of 25 -> [0.86, 1.00])."""
    import json
    from gpubench.workflow import experiments_loader as loader
    from gpubench.reports import builder as report, heuristic as report_heuristic
    res = {"as_run": {"success_rate": 0.0, "error_mean": 0.22, "error_std": 0.05},
           "budget_x10": {"success_rate": 1.0, "error_mean": 0.0, "error_std": 0.0},
           "evaluations_to_success": {"success_rate": 1.0, "error_mean": 9e-9, "error_std": 1e-9,
                                      "evaluations_to_success_median": 265000.0}}
    rec = {"runs": 25, "reports": ["qin2012_table1"], "hypotheses": {"as_run": "as run", "budget_x10": "ten times",
                                                                     "evaluations_to_success": "to success"},
           "cases": [{"function": "shifted_sphere", "D": 10, "NP": 1000, "budget": 100000,
                      "published_success_rate": 1.0, "results": res}]}
    path = tmp_path / "res" / report_heuristic.HYPOTHESES_FILE
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(rec))
    md = report.build(loader.load("qin2012_table1"), tmp_path / "res", tmp_path / "rep").read_text()
    rows = [ln for ln in md.splitlines() if ln.startswith("| F1 D=10 NP=1000")]
    assert len(rows) == 3 and "| no |" in rows[0] and "| yes |" in rows[1] and "2.6 x budget" in rows[2]
    assert "F1 D=10 NP=1000: budget_x10 reproduce(s) the published success rate" in md
    md2 = report.build(loader.load("qin2012_table2"), tmp_path / "res", tmp_path / "rep").read_text()
    assert "readings of the paper tested" not in md2  # the JSON names only Table 1's report


def _group_kernel_consistent(D, generations=4, seed=4):
    """The cooperative kernel (groups of T lanes, shuffle reductions, trials written back only
    where they changed): after several generations every kept member's value is f of its
    vector, and every member stays the best of what it was (values never rise)."""
    fn = "shifted_sphere"
    kw = dict(np=8, runs=2, seed=seed, CR=0.3, F=0.5)
    first = _run(fn, D, "cuda-fast", max_evaluations=8 * 2, **kw)
    r = _run(fn, D, "cuda-fast", max_evaluations=8 * (1 + generations), **kw)
    assert r.options["launch"]["schedule"] == "cooperative"
    X, fx = r.history["population"], r.history["population_fun"]
    from gpubench import functions
    host = functions.get(fn).points(X.reshape(-1, D)).reshape(fx.shape)
    ok_values = np.allclose(host, fx, rtol=1e-12, atol=1e-12)
    ok_monotone = bool(np.all(fx <= first.history["population_fun"] + 1e-12))
    return ok_values and ok_monotone, r.options["launch"]


def test_cooperative_group_kernel_keeps_population_and_values_consistent(keep, monkeypatch):
    """D = 5 (groups of 8 lanes, 3 idle): two members per block and eight groups of members in
    turn (a thread limit of 16); then two broken variants are
    caught: a member whose trial lost but whose other buffer is stale is not copied, and the
    shuffle reduction skips its first step."""
    from gpubench import kernels
    real = de_launch._device_limits
    monkeypatch.setattr(de_cuda, "_device_limits", lambda: dict(real(), max_threads_per_block=16))
    D = 5
    ok, launch = _group_kernel_consistent(D)
    assert ok and launch["threads_per_member"] == 8 and launch["members_per_block"] == 2
    splice = kernels.splice
    for old, new in [("if take or not was_same:", "if take:"),
                     ("    off = 1\n    while off < T:", "    off = 2\n    while off < T:")]:
        monkeypatch.setattr(kernels, "splice", lambda name, replace=(), o=old, n=new:
                            splice(name, list(replace) + ([(o, n)] if name == "de_gpu" else [])))
        assert not _group_kernel_consistent(D)[0], old


# ---------------------------------------------------------------- mode stream (large populations)
def _break(monkeypatch, old, new, where):
    """Splice ``old`` -> ``new`` into the kernel module ``where`` (de_random: shared by the kernels
    and their CPU twins)."""
    from gpubench import kernels
    splice = kernels.splice
    monkeypatch.setattr(kernels, "splice", lambda name, replace=(): splice(
        name, list(replace) + ([(old, new)] if name == where else [])))


@pytest.mark.parametrize("extra", [{}, STRIDED])
def test_stream_kernel_reproduces_its_cpu_twin(keep, extra):
    """Counter-based random numbers: the simulated stream kernel and its numba twin draw the same
    indices, crossover and reinit numbers, so after 4 generations (bounds reinit, F = 0.9 throwing
    mutants out) they hold the same populations and counted the same replacements; one member a
    group of 8 lanes, or 2 lanes taking 3 elements each."""
    kw = dict(np=8, runs=2, seed=3, max_evaluations=8 * 5, F=0.9, CR=0.5, bounds="reinit")
    a = _run("shifted_rastrigin", 5, "cuda-stream", **kw, **extra)
    b = _run("shifted_rastrigin", 5, "stream", **kw)
    assert a.options["launch"]["schedule"] == "stream"
    assert a.options["launch"]["threads_per_member"] == (2 if extra else 8)
    assert np.allclose(a.history["population"], b.history["population"], rtol=1e-13, atol=0)
    assert np.allclose(a.history["population_fun"], b.history["population_fun"], rtol=1e-12, atol=1e-12)
    assert a.history["replacements"] == b.history["replacements"] > 0
    assert a.history["run_nfev"] == b.history["run_nfev"] == [40, 40]
    # another seed, another population
    c = _run("shifted_rastrigin", 5, "stream", **dict(kw, seed=4))
    assert not np.allclose(c.history["population"], b.history["population"])


def _digest(a):
    import hashlib
    return hashlib.sha256(np.ascontiguousarray(a, dtype=np.float64).tobytes()).hexdigest()[:16]


@pytest.mark.skipif(os.environ.get("NUMBA_ENABLE_CUDASIM") != "1", reason="digests of the simulator's arithmetic")
def test_stream_kernel_populations_as_before_its_pipelining(keep, monkeypatch):
    """Same seeds, same populations bit for bit: the final populations of two simulated runs hash as
    the stream kernel of 2348217 (a slot word per member, no pipelining) left them; one member a
    group of 8 lanes, and several groups a block with a member's elements in three chunks (T = 1,
    D = 9).  Stale rows copied (the second run) and reinit draws (F = 0.9) both happen."""
    kw = dict(runs=2, F=0.9, CR=0.5, bounds="reinit")
    a = _run("shifted_rastrigin", 5, "cuda-stream", np=8, seed=3, max_evaluations=8 * 5, **kw)
    assert (_digest(a.history["population"]), a.history["replacements"]) == ("50c8ab932c6eb26a", 23)
    real = de_launch._device_limits
    monkeypatch.setattr(de_cuda, "_device_limits", lambda: dict(real(), max_threads_per_block=8))
    b = _run("shifted_rastrigin", 9, "cuda-stream", np=10, seed=2, max_evaluations=10 * 6, threads_per_member=1, **kw)
    assert b.options["launch"]["elements_per_thread"] == 9 and b.history["stale_copies"] > 0
    assert (_digest(b.history["population"]), b.history["replacements"]) == ("d00ac91951b27605", 49)


@pytest.mark.skipif(os.environ.get("NUMBA_ENABLE_CUDASIM") != "1", reason="digests of the simulator's arithmetic")
def test_fast_kernel_populations_as_before_its_unsigned_indices(keep, monkeypatch):
    """Same seeds, same populations bit for bit: the simulated cooperative kernel's final populations
    hash as at 37422ed (before its array indices were unsigned and its lead lane a mask): groups of
    8 lanes, two members a block taking groups of members in turn (a thread limit of 16), and groups
    of 2 lanes with 5 elements each (two chunks); reinit draws (F = 0.9) happen."""
    real = de_launch._device_limits
    # the kernel of 37422ed took 4 elements a lane at a time (FAST_CHUNK, 2 since 8418721: the order of
    # its draws within a chunk differs where a reinit draw falls between two elements' crossover draws)
    monkeypatch.setattr(de_gpu, "FAST_CHUNK", 4)
    kw = dict(np=8, runs=2, seed=3, max_evaluations=8 * 5, F=0.9, CR=0.5, bounds="reinit")
    for D, extra, limit, digest in ((5, {}, 16, "056af9aea9b3b198"), (9, STRIDED, 4, "72442a8ae829283e")):
        monkeypatch.setattr(de_cuda, "_device_limits", lambda limit=limit: dict(real(), max_threads_per_block=limit))
        a = _run("shifted_rastrigin", D, "cuda-fast", **kw, **extra)
        assert a.options["launch"]["schedule"] == "cooperative" and a.options["launch"]["members_per_block"] == 2
        assert _digest(a.history["population"]) == digest, D


def test_fast_kernel_folds_its_terms_in_the_crossover_pass_to_the_same_bits(keep, monkeypatch):
    """Where every term reads its own coordinate only (TERM_WINDOW 1: shifted Rastrigin; Rosenbrock's
    term reads x_j+1 too: 2), the fast kernel folds a term as its element is made (FAST_FOLD, the
    default) instead of in a pass of its own: the same terms in the same order, so the same populations
    bit for bit; groups of 2 lanes taking 5 elements each (FAST_CHUNK 2: three chunks, the last one
    short), reinit draws (F = 0.9).  Broken variant caught: the fused fold leaving out each chunk's
    second element."""
    import gpubench.functions as F
    assert de_gpu._module(F.get("shifted_rastrigin"), "cuda").TERM_WINDOW == 1
    assert de_gpu._module(F.get("rosenbrock"), "cuda").TERM_WINDOW == 2
    kw = dict(np=8, runs=2, seed=3, max_evaluations=8 * 5, F=0.9, CR=0.5, bounds="reinit", **STRIDED)
    real = de_launch._device_limits   # two members a block: the cooperative kernel, not whole runs a block
    monkeypatch.setattr(de_cuda, "_device_limits", lambda: dict(real(), max_threads_per_block=4))

    def final(fold):
        monkeypatch.setattr(de_gpu, "FAST_FOLD", fold)
        r = _run("shifted_rastrigin", 9, "cuda-fast", **kw)
        assert r.options["launch"]["schedule"] == "cooperative" and r.options["launch"]["elements_per_thread"] == 5
        return r.history["population"].tobytes(), r.fun

    fused, second_pass = final(True), final(False)
    assert fused == second_pass
    _break(monkeypatch, "FAST_FOLD:\n                                # a term",
           "FAST_FOLD and c == 0:\n                                # a term", "de_gpu")
    assert final(True) != second_pass


def _stream_rows_straight(NP=8, D=3, F=0.5):
    """Each generation's population (read back after 1, 2, 3 generations) is that generation's
    trials built from the one before, with indices distinct from each other and from i."""
    ok = True
    for gens in (2, 3):
        kw = dict(np=NP, runs=1, CR=1.0, F=F, bounds="clip", seed=5)
        prev = _run(FLAT, D, "cuda-stream", max_evaluations=NP * gens, **kw).history["population"][0]
        r = _run(FLAT, D, "cuda-stream", max_evaluations=NP * (1 + gens), **kw)
        ok &= r.history["replacements"] == NP * gens
        cur = r.history["population"][0]
        for i in range(NP):
            found = [(a, b, c) for a, b, c in itertools.product(range(NP), repeat=3)
                     if np.allclose(np.clip(prev[a] + F * (prev[b] - prev[c]), -1, 1), cur[i], rtol=0, atol=1e-12)]
            ok &= bool(found) and all(len({a, b, c, i}) == 4 for a, b, c in found)
    return ok


def test_stream_kernel_keeps_its_rows_straight(keep, monkeypatch):
    """A flat function: every trial wins, so each generation writes every member's row in the other
    buffer; two members a block (a thread limit of 8), so groups of members run in turn and later
    ones read donors that earlier ones replaced.  Broken variant caught: a generation reading the
    buffer it writes (its donors a generation old, or just replaced)."""
    real = de_launch._device_limits
    monkeypatch.setattr(de_cuda, "_device_limits", lambda: dict(real(), max_threads_per_block=8))
    assert _stream_rows_straight()
    _break(monkeypatch, "sbase = ((gen - 1) % 2) * total", "sbase = (gen % 2) * total", "de_stream")
    assert not _stream_rows_straight()


def test_stream_kernel_copies_a_loser_whose_other_buffer_is_stale(keep, monkeypatch):
    """A member that won in generation g - 1 and loses in g is copied into the buffer g writes (it
    holds the vector from before its win); several groups a block, a member's elements in two
    chunks (T = 1, D = 5: CHUNK = 4 and one), so the pipelined loads cross members and chunks.  The kernel matches its
    CPU twin (which writes every row) and counts such copies; without the copy it does not."""
    real = de_launch._device_limits
    monkeypatch.setattr(de_cuda, "_device_limits", lambda: dict(real(), max_threads_per_block=8))
    kw = dict(np=10, runs=2, seed=2, max_evaluations=10 * 6, F=0.9, CR=0.5, bounds="reinit")
    b = _run("shifted_rastrigin", 5, "stream", **kw)

    def same():
        a = _run("shifted_rastrigin", 5, "cuda-stream", threads_per_member=1, **kw)
        assert a.options["launch"]["members_per_block"] == 8 and a.options["launch"]["elements_per_thread"] == 5
        return a.history["stale_copies"], np.allclose(a.history["population"], b.history["population"], rtol=1e-13,
                                                      atol=0)
    copies, ok = same()
    assert copies > 0 and ok
    _break(monkeypatch, "stale = lw == gen - 1", "stale = lw == -gen", "de_stream")
    assert not same()[1]


# The spliced lines are in de_random, which the stream kernel and its numba twin share, and the kernel
# is its twin draw for draw (test_stream_kernel_reproduces_its_cpu_twin): the kernel's case runs in
# `make test`; the twin's repeat (two recompiles of the twin, 8 s on 2 cores) in `make test-slow`.
@pytest.mark.parametrize("engine", ["cuda-stream", pytest.param("stream", marks=pytest.mark.slow)])
def test_stream_broken_variants_caught(engine, keep, monkeypatch):
    """Donors allowed to equal the target, and j_rand dropped: each breaks a check that the intact
    kernel (and twin) passes in the tests above."""
    assert set(_changed_counts(engine, 0.0, runs=1)) == {1}
    _break(monkeypatch, "if r1 >= i:  # DONOR SKIPS TARGET", "if r1 >= NP:  # DONOR SKIPS TARGET",
           "de_random")
    NP, D, F = 8, 3, 0.5
    before, after = _populations(FLAT, D, engine, 1, np=NP, runs=2, CR=1.0, F=F, bounds="clip", seed=5)
    bad = 0
    for run in range(2):
        for i in range(NP):
            found = [(a, b, c) for a, b, c in itertools.product(range(NP), repeat=3)
                     if np.allclose(np.clip(before[run][a] + F * (before[run][b] - before[run][c]), -1, 1),
                                    after[run][i], rtol=0, atol=1e-12)]
            bad += not all(len({a, b, c, i}) == 4 for a, b, c in found)
    assert bad > 0
    monkeypatch.undo()
    monkeypatch.setattr(de_run, "KEEP_POPULATION", True)
    monkeypatch.setattr(de_gpu, "CROSSOVER", "u <= CR")  # j_rand dropped
    assert 0 in set(_changed_counts(engine, 0.0, runs=1))


def test_stream_mode_statistically_equivalent_to_the_paper_mode():
    """Final errors of sphere D = 5, NP = 8, 12 generations, 8 runs: the stream kernel (simulated)
    against the paper's mode (Mann-Whitney U on log errors, alpha = 1e-3), and a real difference
    (1 generation against 12) seen by the same test."""
    kw = SPHERE5
    stream = np.log10(_run("shifted_sphere", 5, "cuda-stream", seed=3, **kw).history["run_error"])
    paper = np.log10(_paper_mode_sphere5().history["run_error"])
    assert stats.mannwhitneyu(stream, paper).pvalue > 1e-3, (stream.mean(), paper.mean())
    short = np.log10(_run("shifted_sphere", 5, "stream", seed=4, **dict(kw, max_evaluations=8 * 2))
                     .history["run_error"])
    assert stats.mannwhitneyu(stream, short).pvalue < 1e-3


def test_stream_indices_uniform_over_distinct_triples():
    """The stream's index draw (skipping the excluded members, no rejection), through the CPU
    twin's function: every ordered triple of distinct members other than i equally often
    (chi-square, NP = 5, i = 2: 24 triples), and none touching i."""
    from gpubench import functions
    mod = de_gpu._module(functions.get("shifted_sphere"), "cpu")
    NP, i, n = 5, 2, 24_000
    key = de_run.stream_key(9)
    counts = {}
    for gi in range(n):
        r1, r2, r3, jr = mod._distinct(np.uint64(mod._member_key(key, 1, gi)), i, NP, 7)
        assert len({r1, r2, r3, i}) == 4 and max(r1, r2, r3) < NP and 0 <= jr < 7
        counts[(r1, r2, r3)] = counts.get((r1, r2, r3), 0) + 1
    assert len(counts) == 24
    assert stats.chisquare(list(counts.values())).pvalue > 1e-3


def test_stream_configuration():
    """The stream kernel's launch: groups as de_fast's, members as many as the block's threads and
    the trials' shared memory allow."""
    h200 = {"max_threads_per_block": 1024, "max_shared_memory_per_block": 49152,
            "max_registers_per_block": 65536, "multiprocessors": 132, "max_threads_per_multiprocessor": 2048}
    assert de_launch.stream_config(100, 100_000, 64, h200) == (32, 8, 6400)
    assert de_launch.stream_config(1000, 10_000, 64, h200) == (32, 6, 48000)  # 6 trials of 8 KB
    assert de_launch.stream_config(10, 100_000, 130, h200)[:2] == (16, 8)  # 128 threads at 130 registers
    assert de_launch.stream_config(100, 100_000, 156, h200)[:2] == (32, 4)  # the cap of 168: 156 by ptxas
    with pytest.raises(InputError, match="shared memory"):
        de_launch.stream_config(7000, 10, 64, h200)
    with pytest.raises(InputError, match="mode"):
        methods.minimize("shifted_sphere", 4, "de-gpu", np=8, mode="streaming", backend="cpu")


def test_auto_mode_is_chosen_by_measurement_and_cached(monkeypatch, tmp_path):
    """mode auto: each kernel probed on the problem itself, the faster run and said so, the choice
    kept for the process and in the cache folder (a second process reads it, no probe); another
    size is another key; the warm-up probes at the size of all runs."""
    from gpubench import functions
    from gpubench.methods import de_auto
    monkeypatch.setattr(de_auto, "_store", lambda: tmp_path)
    monkeypatch.setattr(de_auto, "_CHOSEN", {})
    seen = []
    speed = {"fast": 2e-3, "stream": 1e-3}

    def probe(plan, mod, mode, lanes=None):
        assert lanes is None   # D <= 16: a member's group is already narrower than a warp
        seen.append((mode, plan.D, plan.R * plan.NP))
        return speed[mode]
    monkeypatch.setattr(de_auto, "probe_seconds", probe)
    r = methods.minimize("shifted_sphere", 4, "de-gpu", np=8, max_evaluations=24, backend="cuda", mode="auto")
    assert r.options["launch"]["schedule"] == "stream" and r.history["run_nfev"] == [24]
    assert r.options["mode"] == "auto" and r.options["auto"]["mode"] == "stream"
    assert r.options["auto"]["source"] == "probed now" and seen == [("fast", 4, 8), ("stream", 4, 8)]
    fn = functions.get("shifted_sphere")
    mod = de_gpu._module(fn, "cuda")

    def chosen(D):
        return de_auto.chosen_mode(de_run.Plan(fn, D, de_gpu.DeGpuSettings(np=8, mode="auto")), mod)
    mode, why = chosen(4)
    assert mode == "stream" and why["source"] == "measured earlier in this process" and len(seen) == 2
    monkeypatch.setattr(de_auto, "_CHOSEN", {})   # a new process: the cache folder's choice
    mode, why = chosen(4)
    assert mode == "stream" and why["source"].startswith("measured earlier (") and len(seen) == 2
    speed.update(fast=1e-4)   # another size, measured again: now the fast kernel wins
    assert chosen(5)[0] == "fast" and len(seen) == 4 and len(list(tmp_path.glob("*.json"))) == 2
    de_gpu.warmup(functions.get("shifted_sphere"), 6, de_gpu.DeGpuSettings(np=8, runs=2, backend="cuda", mode="auto"))
    assert seen[-2:] == [("fast", 6, 16), ("stream", 6, 16)]


def test_auto_mode_probes_half_warp_groups_and_runs_the_winner(monkeypatch, tmp_path):
    """Where a member's group is a whole warp (D > 16) and the user set no threads_per_member, auto
    also probes both kernels with groups of 16 lanes; the winner's lanes are the run's and the
    record says so.  A user's threads_per_member is kept, not probed, and is part of the key."""
    from gpubench.methods import de_auto
    monkeypatch.setattr(de_auto, "_store", lambda: tmp_path)
    monkeypatch.setattr(de_auto, "_CHOSEN", {})
    seen = []
    speed = {("fast", None): 3e-3, ("stream", None): 2e-3, ("fast", 16): 4e-3, ("stream", 16): 1e-3}

    def probe(plan, mod, mode, lanes=None):
        seen.append((mode, lanes))
        return speed[(mode, lanes)]
    monkeypatch.setattr(de_auto, "probe_seconds", probe)
    r = methods.minimize("shifted_sphere", 20, "de-gpu", np=8, max_evaluations=24, backend="cuda", mode="auto")
    assert seen == [("fast", None), ("stream", None), ("fast", 16), ("stream", 16)]
    assert r.options["auto"]["mode"] == "stream" and r.options["auto"]["lanes"] == 16
    assert r.options["launch"]["schedule"] == "stream" and r.options["launch"]["threads_per_member"] == 16
    assert r.options["auto"]["seconds_per_generation"]["stream/16"] == 1e-3
    seen.clear()
    r = methods.minimize("shifted_sphere", 20, "de-gpu", np=8, max_evaluations=24, backend="cuda", mode="auto",
                         threads_per_member=8)
    assert seen == [("fast", None), ("stream", None)] and r.options["launch"]["threads_per_member"] == 8
    speed.update({("stream", 16): 5e-3})   # a whole warp wins: the kernel's own group (32 lanes)
    monkeypatch.setattr(de_auto, "_CHOSEN", {})
    for f in tmp_path.glob("*.json"):
        f.unlink()
    r = methods.minimize("shifted_sphere", 20, "de-gpu", np=8, max_evaluations=24, backend="cuda", mode="auto")
    assert r.options["auto"]["lanes"] is None and r.options["launch"]["threads_per_member"] == 32


def test_auto_probe_times_a_generation_of_each_kernel(monkeypatch):
    """The probe itself (the simulator's times mean nothing, but they are times a generation of the
    kernel named: positive, from runs of 1, 2k and k generations, k grown while k generations
    take less than PROBE_SECONDS)."""
    from gpubench import functions
    from gpubench.methods import de_auto
    monkeypatch.setattr(de_auto, "PROBE_GENERATIONS", 1)
    monkeypatch.setattr(de_auto, "MAX_PROBE_GENERATIONS", 4)   # one growth of k at most
    monkeypatch.setattr(de_auto, "PROBE_SECONDS", 1e9)
    runs = []
    real = de_auto.run_cuda
    monkeypatch.setattr(de_auto, "run_cuda", lambda plan, mod: runs.append((plan.s.mode, plan.G)) or real(plan, mod))
    plan = de_run.Plan(functions.get("shifted_sphere"), 2, de_gpu.DeGpuSettings(np=4, backend="cuda", mode="auto"))
    mod = de_gpu._module(plan.fn, "cuda")
    assert de_auto.probe_seconds(plan, mod, "stream") > 0
    assert runs == [("stream", 1), ("stream", 2), ("stream", 1), ("stream", 8), ("stream", 4)]
    monkeypatch.setattr(de_auto, "run_cuda", lambda plan, mod: (_ for _ in ()).throw(de_cuda.CooperativeUnavailable()))
    assert de_auto.probe_seconds(plan, mod, "fast") is None   # a kernel that cannot launch here is not chosen
