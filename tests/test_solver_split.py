"""The n-independent sweep (evaluation="split") against the full one (evaluation="full").

The split sweep reads only the s cut coordinates per subregion and takes
everything else from per-iteration tables (docs/solver-scaling.md).  These
tests check that it decides every subregion as the full sweep does (same lower
and upper bounds, same discards), that whole searches give the same regions and
counts, that the simulated GPU agrees, and that breaking the shortcut on
purpose is caught.
"""
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from gpubench import functions
from gpubench.methods.solver import core, uncut
from gpubench.methods.solver import sweep as sweeps
from gpubench.methods.solver.core import sample_fractions, solve
from gpubench.methods.solver.partition import PartitionRule, Plan

SMALL = dict(backend="cpu", split_dims=2, parts=4, tol=1e-2, samples=4)


def _definition(fn):
    return fn.definition.negated() if fn.sense == "max" else fn.definition


def _same_search(a, b):
    assert a.iterations == b.iterations
    assert a.njev == b.njev and a.nfev == b.nfev
    assert a.glb == b.glb and a.gub == b.gub
    assert np.array_equal(a.regions_lo, b.regions_lo) and np.array_equal(a.regions_hi, b.regions_hi)


def _random_selected(rng, dlo, dhi):
    """A small box somewhere in the domain, some coordinates on the domain's edges."""
    n = dlo.size
    width = (dhi - dlo) * 10.0 ** rng.uniform(-4, -0.5, n)
    lo = dlo + rng.random(n) * (dhi - dlo - width)
    hi = lo + width
    edge = rng.random(n)
    lo = np.where(edge < 0.15, dlo, lo)
    hi = np.where(edge > 0.85, dhi, hi)
    return lo, hi


def _compare_on_random_regions(name):
    """One iteration's sweep, full and split, on 30 random selected regions of ``name``; then a short
    search each way.  Returns the first difference found (or None) and how many subregions only
    an uncut coordinate ruled out."""
    fn = functions.get(name)
    n = 12
    defn = _definition(fn)
    dlo, dhi = fn.bounds(n)
    cpu = sweeps.CpuSweep(defn, n, fn.params(n), dlo, dhi)
    terms = uncut.UncutTerms(defn, n, fn.params(n))
    rng = np.random.default_rng(sum(map(ord, name)))
    shift, den = sample_fractions("inside", 3)
    decided_by_uncut = 0
    for trial in range(30):
        lo, hi = _random_selected(rng, dlo, dhi)
        rule = PartitionRule(n, split_dims=int(rng.integers(1, 4)), parts=3)
        plan = rule.plan(int(rng.integers(0, n)))
        if trial % 2:
            # the special coordinates hold the optimiser, so only a plain one can rule a subregion out
            special = uncut.prepare_split(terms, lo, hi, plan, 3, shift, den, dlo, dhi).special
            if terms.has_window2:  # a special coordinate's derivative reads its neighbours
                special = np.unique(np.clip(np.concatenate([special - 1, special, special + 1]), 0, n - 1))
            # (tightly: a wide box would blur the outer derivative of functions like Belegundu's)
            xs, tiny = fn.xstar(n)[special], 1e-6 * (dhi - dlo)[special]
            hi = np.where(hi == dhi, hi, lo + 1e-3 * (hi - lo))  # plain ones narrow too (on the edges kept)
            lo[special] = np.maximum(dlo[special], xs - tiny)
            hi[special] = np.minimum(dhi[special], xs + tiny)
        gub = np.inf if trial % 3 == 0 else float(fn.point(lo + 0.5 * (hi - lo)) * (1 if fn.sense == "min" else -1))
        win1, win2, cut1, cut2 = terms.windows(plan.dims)
        base_lo, base_hi = terms.bases(lo, hi, cut1, cut2, 3, shift, den)
        full = cpu(lo, hi, plan.dims, plan.parts, 3, shift, den, gub, plan.count, win1, win2, base_lo, base_hi)
        results = []
        for fast in (True, False):
            terms.fast_path = fast
            tb = uncut.prepare_split(terms, lo, hi, plan, 3, shift, den, dlo, dhi)
            results.append(cpu.split(lo, hi, plan.dims, plan.parts, 3, shift, den, gub, plan.count, tb))
        for fast, split in zip((True, False), results):
            for k, (f_arr, s_arr) in enumerate(zip(full, split)):
                if not np.array_equal(f_arr, s_arr):
                    return (f"trial {trial}, {plan}, fast path {fast}, output {k}: full {f_arr.tolist()} "
                            f"split {s_arr.tolist()}"), decided_by_uncut
        # without the candidates, the subregions that only an uncut coordinate rules out survive
        tb.Kclo, tb.Kchi, tb.cfree = tb.Kclo[:, :0].copy(), tb.Kchi[:, :0].copy(), tb.cfree[:, :0].copy()
        blind = cpu.split(lo, hi, plan.dims, plan.parts, 3, shift, den, gub, plan.count, tb)
        decided_by_uncut += int(np.sum(blind[0] != full[0]))
    opts = dict(SMALL, max_iterations=25)
    a = solve(name, 6, evaluation="full", **opts)
    b = solve(name, 6, evaluation="split", **opts)
    try:
        _same_search(a, b)
    except AssertionError:
        return (f"short search: full {a.iterations} iterations, GLB {a.glb!r}, GUB {a.gub!r}; "
                f"split {b.iterations}, {b.glb!r}, {b.gub!r}"), decided_by_uncut
    return None, decided_by_uncut


# One function per construct of the split form runs in `make test`: a two-coordinate window (levy),
# pieces (levy_delta), a product (alpine02), an aggregate inside a nonlinear outer expression
# (belegundu), parameters with an index-dependent product (shifted_griewank), powers of sines (fu).
# The others repeat one of these constructs (rosenbrock levy's window, zabinsky alpine02's product);
# each case compiles a full and a split sweep of its own in a process of its own (16-21 s in a fresh
# clone on CI's 2 cores), so they run in `make test-slow` (marked slow).  tests/test_uncut_split.py
# checks every function's split evaluation against the full interval form in `make test`.  `make test`
# keeps four: levy_delta (levy's windows and a spike, so levy itself is in test-slow), alpine02,
# shifted_griewank (a product) and fu (a rational); belegundu (sqrt of a sum) went to test-slow for the
# suite's 15 minutes (its split evaluation stays in test_uncut_split)
SPLIT_CONSTRUCTS = {"levy_delta", "alpine02", "shifted_griewank", "fu"}


@pytest.mark.parametrize("name", [n if n in SPLIT_CONSTRUCTS else pytest.param(n, marks=pytest.mark.slow)
                                  for n in functions.names()])
def test_split_sweep_decides_every_subregion_as_the_full_sweep(name):
    """One iteration's sweep on random selected regions: bit-identical bounds, the same discards;
    then a short search with the same regions and counts.

    In a process of its own: the claim is about the two sweeps, not about what other tests left in
    this process.  In CI (stop 34) three functions' bounds differed by an ulp after other tests had
    run in the same process, never alone; the cause is not proven (suspected: the deliberately
    broken interval operations other tests compile, see gpubench/interval/backends.py)."""
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); "
            "from test_solver_split import _compare_on_random_regions as c; "
            "print(json.dumps(c(sys.argv[2])))")
    out = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent), name],
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    difference, decided_by_uncut = json.loads(out.stdout.strip().splitlines()[-1])
    assert difference is None, difference
    if functions.get(name).definition.continuous:
        assert decided_by_uncut > 0, "no subregion was ruled out by an uncut coordinate: the test says nothing"


def test_simulated_gpu_split_matches_cpu():
    """The CUDA kernel of the split sweep (simulated) against the CPU one and the simulated full one.

    The simulator emulates directed rounding in Python, so its bounds may differ from the CPU's
    in the last bits of denormals (as the full path's do): the CPU comparison is on iterations,
    list sizes and regions; the two simulated paths must agree exactly.

    At n = 3 (the simulator's time grows with n: 9.3 against 12.9 s for the four simulated searches)
    both functions discard regions within the six iterations (list sizes 4 7 4 4 5 1 and 2 3 4 7 10
    13; at n = 6 only Levy's last iteration did), so the paths are compared on discards too."""
    from numba import config
    if not config.ENABLE_CUDASIM:
        pytest.skip("runs under the CUDA simulator; a real GPU is covered by the GPU host runs")
    opts = dict(split_dims=1, parts=4, tol=1e-2, samples=3, max_iterations=6)
    n = 3
    for name in ("levy", "griewank"):
        cpu = solve(name, n, backend="cpu", **opts)
        gpu = solve(name, n, backend="cuda", loop="host", **opts)  # the host loop's CUDA sweep
        assert gpu.backend == "cuda"
        assert cpu.iterations == gpu.iterations and cpu.njev == gpu.njev
        assert cpu.history["list_size"] == gpu.history["list_size"]
        # a region discarded in some iteration: a list that does not grow by parts - 1
        assert any(b < a + opts["parts"] - 1 for a, b in zip(cpu.history["list_size"], cpu.history["list_size"][1:]))
        np.testing.assert_array_equal(cpu.regions_lo, gpu.regions_lo)
        np.testing.assert_array_equal(cpu.regions_hi, gpu.regions_hi)
        _same_search(solve(name, n, backend="cuda", evaluation="full", loop="host", **opts), gpu)


EDGE = """
import numpy as np
from gpubench.forms.definition import Definition, Sum, x, symbols
S = symbols("S")
EDGE = Definition(name="edge", title="edge", source="test", terms={S: Sum(x + x**2)},
                  expr=S, domain=(0.25, 2), xstar=lambda n: np.full(n, 0.25),
                  fstar=lambda n: n * (0.25 + 0.0625))
"""


def _rigorous(result, fn, n):
    x = fn.xstar(n)
    inside = np.any(np.all((result.regions_lo <= x) & (x <= result.regions_hi), axis=1))
    return bool(inside) and result.glb <= fn.fstar(n) <= result.gub


def test_uncut_coordinates_on_the_domain_edge_are_kept(tmp_path):
    """A monotone function minimised at the lower corner: at n = 6, s = 1 most coordinates are
    uncut and not special, so only the per-iteration edge flags keep the corner."""
    path = tmp_path / "edge.py"
    path.write_text(textwrap.dedent(EDGE))
    fn = functions.get(f"{path}:EDGE")
    opts = dict(backend="cpu", split_dims=1, parts=4, tol=1e-2, samples=3)
    r = solve(f"{path}:EDGE", 6, **opts)
    assert r.converged and _rigorous(r, fn, 6)
    _same_search(r, solve(f"{path}:EDGE", 6, evaluation="full", **opts))


def test_broken_edge_flags_lose_the_minimiser(tmp_path, monkeypatch):
    """Mark every candidate free of the domain's edges: the corner's subregion is discarded."""
    path = tmp_path / "edge.py"
    path.write_text(textwrap.dedent(EDGE))
    fn = functions.get(f"{path}:EDGE")
    real = uncut.prepare_split

    def broken(*args, **kw):
        t = real(*args, **kw)
        t.cfree[:] = 1
        return t

    monkeypatch.setattr(core, "prepare_split", broken)
    try:
        r = solve(f"{path}:EDGE", 6, backend="cpu", split_dims=1, parts=4, tol=1e-2, samples=3)
        ok = _rigorous(r, fn, 6)
    except RuntimeError:  # every region ruled out
        ok = False
    assert not ok


def _plain_decides(fn, n, rng, terms, dlo, dhi, shift, den):
    """A selected region and plan where only plain coordinates can rule subregions out: the
    special ones hold the optimiser tightly, the plain ones are random (some on the edges)."""
    lo, hi = _random_selected(rng, dlo, dhi)
    plan = PartitionRule(n, split_dims=1, parts=3).plan(int(rng.integers(0, n)))
    special = uncut.prepare_split(terms, lo, hi, plan, 3, shift, den, dlo, dhi).special
    xs, tiny = fn.xstar(n)[special], 1e-6 * (dhi - dlo)[special]
    lo[special] = np.maximum(dlo[special], xs - tiny)
    hi[special] = np.minimum(dhi[special], xs + tiny)
    return lo, hi, plan


def _decisions(break_tables, name="levy", n=8, trials=30):
    """(subregions decided differently from the full sweep, subregions ruled out by plain ones)."""
    fn = functions.get(name)
    dlo, dhi = fn.bounds(n)
    cpu = sweeps.CpuSweep(fn.definition, n, fn.params(n), dlo, dhi)
    terms = uncut.UncutTerms(fn.definition, n, fn.params(n))
    shift, den = sample_fractions("inside", 3)
    rng = np.random.default_rng(11)
    differ = fired = 0
    for trial in range(trials):
        lo, hi, plan = _plain_decides(fn, n, rng, terms, dlo, dhi, shift, den)
        win1, win2, cut1, cut2 = terms.windows(plan.dims)
        base_lo, base_hi = terms.bases(lo, hi, cut1, cut2, 3, shift, den)
        full = cpu(lo, hi, plan.dims, plan.parts, 3, shift, den, np.inf, plan.count, win1, win2, base_lo, base_hi)
        tb = uncut.prepare_split(terms, lo, hi, plan, 3, shift, den, dlo, dhi)
        fired += int(np.sum(np.isinf(full[0])))
        break_tables(tb)
        split = cpu.split(lo, hi, plan.dims, plan.parts, 3, shift, den, np.inf, plan.count, tb)
        differ += int(np.sum(split[0] != full[0]))
    return differ, fired


def test_plain_coordinates_decide_and_agree():
    differ, fired = _decisions(lambda tb: None)
    assert fired > 0 and differ == 0


def test_broken_sign_of_the_uncut_derivative_is_caught():
    """A sign error in K (the plain coordinates' derivative factors): decisions change."""
    def flip(tb):
        tb.Kclo, tb.Kchi = -tb.Kchi, -tb.Kclo
    differ, fired = _decisions(flip)
    assert fired > 0 and differ > 0


def test_dropped_candidates_are_caught():
    """Levy's C = pi/n > 0, so the candidates for C > 0 (largest k_lo > 0 free at the lower edge,
    smallest k_hi < 0 free at the upper edge) decide; without them the decisions change."""
    def drop(tb):
        tb.Kclo, tb.Kchi, tb.cfree = tb.Kclo[:, :0].copy(), tb.Kchi[:, :0].copy(), tb.cfree[:, :0].copy()
    differ, fired = _decisions(drop)
    assert fired > 0 and differ > 0


def _split_and_full(sweep, name, n, dims, parts, trials=6):
    """(split, full) outputs of one iteration's sweep on random selected regions, cut along ``dims``."""
    fn = functions.get(name)
    defn = _definition(fn)
    dlo, dhi = fn.bounds(n)
    terms = uncut.UncutTerms(defn, n, fn.params(n))
    full_sweep = sweeps.CpuSweep(defn, n, fn.params(n), dlo, dhi)
    plan = Plan(dims=tuple(dims), parts=parts)
    shift, den = sample_fractions("inside", 3)
    rng = np.random.default_rng(5)
    out = []
    for _ in range(trials):
        lo, hi = _random_selected(rng, dlo, dhi)
        tb = uncut.prepare_split(terms, lo, hi, plan, 3, shift, den, dlo, dhi)
        win1, win2, cut1, cut2 = terms.windows(plan.dims)
        base_lo, base_hi = terms.bases(lo, hi, cut1, cut2, 3, shift, den)
        full = full_sweep(lo, hi, plan.dims, parts, 3, shift, den, np.inf, plan.count, win1, win2, base_lo, base_hi)
        split = sweep.split(lo, hi, plan.dims, parts, 3, shift, den, np.inf, plan.count, tb)
        out.append((tb, split, full))
    return out


def test_cut_tables_hold_every_entry_smaller_than_the_sweep_and_a_swapped_fill_is_caught():
    """The cut tables (kernels.CUT_LAYOUT): with three cut coordinates every entry of Rosenbrock's
    windows is tabulated (a window of two cut ones holds parts^2 < parts^3 values), with two the
    window of both is evaluated in place (parts^2 = count), and either way the sweep has the full
    sweep's bits.  Filled with a window's two parts swapped, its bounds differ."""
    from gpubench.forms import codegen
    from gpubench.methods.solver import kernels
    name, n, parts = "rosenbrock", 8, 3
    fn = functions.get(name)
    dlo, dhi = fn.bounds(n)
    good = sweeps.CpuSweep(fn.definition, n, fn.params(n), dlo, dhi)
    for dims, inline in (((2, 3, 4), False), ((2, 3), True)):
        for tb, split, full in _split_and_full(good, name, n, dims, parts):
            # Rosenbrock's one sum has two-coordinate windows: the rows after win1's; (x_2, x_3) is the second
            windows = tb.tab[len(dims):len(dims) + tb.win2.size, 0]
            assert list(tb.win2) == list(range(1, dims[-1] + 1))
            assert (windows[1] < 0) == inline and (np.delete(windows, 1) >= 0).all(), tb.tab
            assert tb.vtotal > 0 and tb.dtotal > 0
            for a, b in zip(split, full):
                np.testing.assert_array_equal(a, b)
    fill = "        lb = rel % parts\n        rel = rel // parts\n"
    assert fill in kernels.SHARED
    broken = kernels.SHARED.replace(fill, "        lb = rel // parts\n        rel = rel % parts\n")
    bad = sweeps.CpuSweep(fn.definition, n, fn.params(n), dlo, dhi)
    bad.module = codegen.load(fn.definition, "cpu", (broken, kernels.CPU_DRIVER))
    # on these small boxes the gradient test drops every subregion (lb = inf both ways): the
    # sample bounds and the gradient flags read the tables too
    differ = sum(int(np.sum(a != b)) for _, split, full in _split_and_full(bad, name, n, (2, 3, 4), parts)
                 for a, b in zip(split, full))
    assert differ > 0


def test_a_subregion_evaluates_no_term_when_the_cut_tables_hold_them():
    """Counted under the simulator (every interval operation the generated GPU forms call): with
    three cut coordinates a Levy subregion reads every term from the cut tables, so it calls no
    sine and no power (the tables do, once an iteration); with the entries laid out in place
    (offset -1, what the layout does when a table would be no smaller than the sweep) it does."""
    from numba import config
    if not config.ENABLE_CUDASIM:
        pytest.skip("counts under the CUDA simulator")
    from gpubench.methods.solver.simcount import subregion_operations
    each, tables, plan, tb = subregion_operations("levy", 8, 3, 3, samples=2, counts=(3, 6))
    assert each["isin"] == 0 and each["ipow"] == 0 and each["iadd"] > 0, each
    assert tables["isin"] > 0, tables

    def in_place(tb):
        tb.tab[:] = [-1, 0]
        tb.dtab[:] = [-1, 0]
        tb.vtotal = tb.dtotal = 0
    inline, _, _, _ = subregion_operations("levy", 8, 3, 3, samples=2, tables=in_place, counts=(1, 2))
    # every row's windows touching a cut coordinate: 4 two-coordinate windows, the box and 2 samples
    assert inline["isin"] >= 4 * 3 and inline["ipow"] > 0, inline


PTX_SCRIPT = r'''
import re
from numba import float64, int64, int8
from gpubench import functions
from gpubench.forms import codegen
from gpubench.methods.solver import kernels
from gpubench.device.ptx import compile_ptx
A1, A2, A3, I1, I2 = float64[::1], float64[:, ::1], float64[:, :, ::1], int64[::1], int64[:, ::1]
B2, O8 = int8[:, ::1], int8[::1]
sig = (A1, A1, A2, A1, A1, I1, I1, int64, int64, int64, int64, float64, A2, I1, I1, A2, A2, B2, I1,
       A2, A2, A2, A2, B2, I2, A3, A3, I2, A2, A2, A1, A1, O8)
mod = codegen.load(functions.get("levy").definition, "cuda", kernels.extensions("cuda", smax=16))
ptx = compile_ptx(mod.sweep_split, sig, device=False)
print(max(int(v) for v in re.findall(r"__local_depot\d+\[(\d+)\]", ptx)))
'''


def test_split_kernel_compiles_for_sm90_with_per_thread_memory_independent_of_n():
    """The real compiler (no simulator, no GPU): the split kernel builds, and its per-thread
    local memory is a few hundred bytes (the full kernel's is 7 n doubles)."""
    import os
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    p = subprocess.run([sys.executable, "-c", PTX_SCRIPT], env=env, capture_output=True, text=True,
                       timeout=600)
    if p.returncode != 0 and "CUDA" in p.stderr and "toolkit" in p.stderr.lower():
        pytest.skip("no CUDA toolkit (NVVM) here")
    assert p.returncode == 0, p.stderr[-2000:]
    depot = int(p.stdout.split()[-1])
    assert depot <= 1024, depot


def test_kernel_modules_are_real_files_named_by_their_content(tmp_path, monkeypatch):
    """numba-cuda's on-disk cache keys a ``cache=True`` kernel by its source file: the generated
    module is a file whose name is the hash of its text, so another function (or another kernel
    text) never reuses a stale compiled kernel."""
    import dataclasses
    import os
    from gpubench.forms import codegen
    from gpubench.methods.solver import kernels
    monkeypatch.setenv("GPUBENCH_CACHE", str(tmp_path))
    defn = functions.get("levy").definition
    ext = kernels.extensions("cuda", smax=kernels.smax_for(10))
    src = codegen.source(defn, "cuda", ext)
    assert "@_cuda.jit(cache=True)\ndef sweep_split(" in src
    other = dataclasses.replace(defn, expr=defn.expr + 1)
    a = codegen.load(defn, "cuda", ext)
    b = codegen.load(other, "cuda", ext)
    c = codegen.load(defn, "cuda", kernels.extensions("cuda", smax=kernels.smax_for(40)))
    # (a module loaded earlier in this process is reused from wherever it was written)
    files = {m.__file__ for m in (a, b, c)}
    assert len(files) == 3 and all(os.path.isfile(f) for f in files)
    assert len({os.path.basename(f) for f in files}) == 3
    assert open(a.__file__).read() == src


def test_a_fixed_dimension_definition_solves_with_the_default_evaluation():
    """x1 .. xd read by name have no split form: such a definition takes the full evaluation
    (the split sweep failed to compile on an undefined xv1_lo)."""
    from gpubench import functions
    from gpubench.methods.solver import solve
    fn = functions.get("scipy_go.Beale")          # f* = 0 at (3, 0.5)
    r = solve(fn, 2, backend="cpu", split_dims=2, parts=4, tol=1e-3)
    assert r.converged and r.glb <= 0.0 <= r.gub
    assert np.any(np.all((r.regions_lo <= [3.0, 0.5]) & ([3.0, 0.5] <= r.regions_hi), axis=1))


def _literal_calls(src):
    """Calls in ``src`` of a function it defines with an integer or boolean literal argument."""
    import ast
    tree = ast.parse(src)
    defined = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in defined:
            for a in node.args:
                v = a.operand if isinstance(a, ast.UnaryOp) and isinstance(a.op, ast.USub) else a
                if isinstance(v, ast.Constant) and type(v.value) in (int, bool):
                    found.append(f"{node.func.id}(... {ast.unparse(a)} ...)")
    return found


def _kernel_sources(names):
    from gpubench.forms import codegen
    from gpubench.methods import subdomain_bnb
    from gpubench.methods.solver import kernels
    sets = (("cpu", kernels.extensions("cpu")), ("cpu", (uncut.HOST_BASES,)),
            ("cuda", kernels.extensions("cuda", smax=16)), ("cuda", kernels.extensions("cuda", smax=16, loop=True)),
            ("cuda", kernels.extensions("cuda", nmax=16)), ("cpu", (subdomain_bnb.CPU_EXTENSION,)),
            ("cuda", (subdomain_bnb.GPU_EXTENSION,)))
    for name in names:
        for backend, ext in sets:
            yield name, backend, codegen.source(functions.get(name).definition, backend, ext)


def test_generated_device_functions_get_no_literal_integer_arguments(monkeypatch):
    """numba compiles a jitted callee once per literal argument (``entry_terms(1, ...)``,
    ``entry_terms(2, ...)`` and a typed call were four compilations of the whole function, and
    the cold start of the CPU solver took twice as long): the generated modules and the kernels
    pass integers as int64 values.  Generated with the plain literal (split_forms._int undone), the
    check sees the calls."""
    from gpubench.forms import codegen, split_forms
    names = ("levy", "rosenbrock", "griewank", "salomon", "zabinsky")
    for name, backend, src in _kernel_sources(names):
        assert _literal_calls(src) == [], (name, backend)
    monkeypatch.setattr(codegen, "_GENERATED", {})
    monkeypatch.setattr(split_forms, "_int", str)
    assert any(_literal_calls(src) for _, _, src in _kernel_sources(("levy",)))


def test_the_constructs_run_by_default_are_library_functions():
    """A renamed or removed function must not silently shrink what `make test` checks above."""
    assert SPLIT_CONSTRUCTS <= set(functions.names())


def _end_reads(src):
    """(line numbers in value_split_raw binding x_first_lo at the function's top level, line numbers
    reading it outside an entry's in-place evaluation)."""
    body = src.split("def value_split_raw(")[1].split("\n@")[0].splitlines()
    binds = [i for i, ln in enumerate(body) if ln.startswith("    " * 2 + "x_first_lo = ")]
    reads = [i for i, ln in enumerate(body) if "x_first_lo" in ln and "entry_terms(" not in ln
             and not ln.lstrip().startswith("x_first_lo = ")]
    return binds, reads


def test_the_sweep_reads_x_first_only_where_an_entry_or_the_outer_expression_needs_it(monkeypatch):
    """Issue 42: bound up front, x_first and x_last held four registers across the split sweep's
    window loops, for entries the cut tables hold; now they are read where an entry is evaluated in
    place, and (an outer expression that reads x_first itself) before that expression, which makes
    the sweep compute a sample's cut coordinates in every row (SPLIT_READS_ENDS).  Without that
    binding the outer expression would read an unbound name."""
    from gpubench.forms import codegen, split_forms
    from gpubench.forms.definition import Definition, Sum, symbols, x, x1
    S = symbols("S")
    ends = Definition(name="ends", title="ends", source="test", terms={S: Sum(x**2)}, expr=S + x1,
                      domain=(-1, 2), xstar=lambda n: np.zeros(n), fstar=lambda n: 0.0)
    levy = codegen.source(functions.get("levy").definition, "cpu", ())
    assert "SPLIT_READS_ENDS = False" in levy and _end_reads(levy) == ([], [])
    src = codegen.source(ends, "cpu", ())
    binds, reads = _end_reads(src)
    assert "SPLIT_READS_ENDS = True" in src and binds and reads and binds[0] < reads[0]
    monkeypatch.setattr(codegen, "_GENERATED", {})
    monkeypatch.setattr(split_forms, "_bind_ends", lambda lines: [])
    binds, reads = _end_reads(codegen.source(ends, "cpu", ()))
    assert reads and not binds
