"""Batched TRON (paper 003, ExaTron): its linear algebra, its solutions, its statuses.

The CPU twin runs the same core as the GPU kernels with one thread per problem;
the kernels run under numba's CUDA simulator here (tiny batches, few threads).
"""
import math
from pathlib import Path

import numpy as np
import pytest
from numba import cuda, float64  # module globals: the simulator swaps ``cuda`` in __globals__

from gpubench import functions, methods
from gpubench.methods import tron
from gpubench.errors import InputError
from gpubench.methods.tron import cpu, kernels, loader

RNG = np.random.default_rng(20261122)


def spd(nb, n, rng=RNG):
    M = rng.standard_normal((nb, n, n))
    return M @ M.transpose(0, 2, 1) + 0.5 * n * np.eye(n)


def check_hs45(res, n, tol=1e-8):
    """Every problem converged, inside its box, at the known minimiser x_i = i."""
    hi = np.arange(1, n + 1, dtype=float)
    assert np.all(res.status == 0), res.status
    assert np.all(res.x >= 0.0) and np.all(res.x <= hi)
    np.testing.assert_allclose(res.x, np.tile(hi, (res.x.shape[0], 1)), atol=tol, rtol=0)
    np.testing.assert_allclose(res.f, -1.0, atol=tol)


# ------------------------------------------------------------------ Cholesky and solves, CPU twin
@pytest.mark.parametrize("variant", ["left", "right", "warp"])
def test_cholesky_cpu_twin_matches_numpy(variant):
    for n in (1, 2, 3, 5, 8, 17, 32, 33, 40):
        A = spd(5, n)
        L, ok = tron.cholesky_batch(A, variant, backend="cpu")
        assert ok.all()
        np.testing.assert_allclose(L, np.linalg.cholesky(A), rtol=0, atol=1e-10 * n)


@pytest.mark.parametrize("variant", ["left", "right"])
def test_cholesky_reports_indefinite(variant):
    A = spd(3, 6)
    A[1] -= 100.0 * np.eye(6)
    L, ok = tron.cholesky_batch(A, variant, backend="cpu")
    assert ok.tolist() == [True, False, True]


def test_triangular_solves_cpu_twin_match_numpy():
    for n in (1, 4, 9, 40):
        L = np.linalg.cholesky(spd(3, n))
        B = RNG.standard_normal((3, 2, n))
        ref_t = np.stack([np.linalg.solve(L[b].T, B[b].T).T for b in range(3)])
        ref_f = np.stack([np.linalg.solve(L[b], B[b].T).T for b in range(3)])
        for explicit in (True, False):
            X = tron.triangular_batch(L, B, transpose=True, explicit=explicit, backend="cpu")
            np.testing.assert_allclose(X, ref_t, rtol=1e-10, atol=1e-10)
        X = tron.triangular_batch(L, B, transpose=False, backend="cpu")
        np.testing.assert_allclose(X, ref_f, rtol=1e-10, atol=1e-10)


# ------------------------------------------------------------------ the same under the simulator
@pytest.mark.parametrize("variant,layout", [("left", "1d"), ("right", "1d"), ("right", "2d")])
def test_cholesky_kernel_matches_numpy(variant, layout):
    for n in (1, 3, 5):
        A = spd(2, n)
        L, ok = tron.cholesky_batch(A, variant, backend="cuda", layout=layout, threads=4)
        assert ok.all()
        np.testing.assert_allclose(L, np.linalg.cholesky(A), rtol=0, atol=1e-12)


def _warp_variant_right(mod, n, nb=7, threads=16):
    """The warp-group kernel of ``mod`` on nb matrices (the third one indefinite) with blocks of
    ``threads`` threads at most (several blocks, a partial last one, several matrices per warp
    when n <= 16): factors equal numpy's, the upper triangle untouched, the flags right."""
    A = spd(nb, n)
    A[2] -= 100.0 * n * np.eye(n)
    flat = np.array(A.transpose(0, 2, 1).reshape(nb, n * n), order="C", copy=True)
    d, ok = cuda.to_device(flat), cuda.device_array(nb, dtype=np.int32)
    grid, block, per_block, smem = mod.group_launch(n, nb, threads=threads)
    mod.cholesky_groups[grid, block, 0, smem](d, n, mod.group_width(n), per_block, ok)
    out = d.copy_to_host().reshape(nb, n, n).transpose(0, 2, 1)
    good = [b for b in range(nb) if b != 2]
    L = np.tril(out[good])
    upper = np.triu(out[good], 1)
    return (ok.copy_to_host().tolist() == [0 if b == 2 else 1 for b in range(nb)]
            and np.allclose(L, np.linalg.cholesky(A[good]), rtol=0, atol=1e-12 * n)
            and np.array_equal(upper, np.triu(A[good], 1)))


def test_warp_cholesky_kernel_matches_numpy_and_a_broken_variant_is_caught(tmp_path):
    """The small-n kernel (a group of W = 1, 2, 4, 8 lanes per matrix) under the simulator;
    then a copy of its module whose trailing update skips the diagonal is caught."""
    import importlib.util
    from gpubench.kernels import chol_gpu

    for n in (1, 2, 3, 5, 8):
        assert _warp_variant_right(chol_gpu, n), n
    A = spd(3, 4)
    L, ok = tron.cholesky_batch(A, "warp", backend="cuda")
    assert ok.all()
    np.testing.assert_allclose(L, np.linalg.cholesky(A), rtol=0, atol=1e-12)
    src = chol_gpu.__file__
    text = open(src).read()
    old = "for c in range(k + 1, r + 1):"
    assert old in text
    broken = tmp_path / "chol_broken.py"
    broken.write_text(text.replace(old, "for c in range(k + 1, r):"))
    spec = importlib.util.spec_from_file_location("chol_broken", broken)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert not _warp_variant_right(mod, 3)
    with pytest.raises(InputError, match="1..32"):
        tron.cholesky_batch(spd(1, 33), "warp", backend="cuda")
    with pytest.raises(InputError, match="known"):
        tron.cholesky_batch(A, "upward", backend="cpu")


def test_cholesky_kernel_several_warps_n_over_32():
    """n = 34 on 64 threads: the column loops and barriers span two warps."""
    A = spd(1, 34)
    L, ok = tron.cholesky_batch(A, "left", backend="cuda", threads=64)
    assert ok.all()
    np.testing.assert_allclose(L, np.linalg.cholesky(A), rtol=0, atol=1e-10)


def test_right_looking_kernel_on_a_tile_smaller_than_the_matrix():
    """A 2 x 3 tile on 7 x 7 matrices (the 2-D layout of n > 32 in small): each thread takes
    several rows and, within a row, several columns of each trailing update."""
    n, nb = 7, 3
    A = spd(nb, n)
    d = cuda.to_device(np.ascontiguousarray(A.transpose(0, 2, 1).reshape(nb, n * n)))
    ok = cuda.to_device(np.zeros(nb, dtype=np.int32))
    chol = kernels.linalg_kernels()[0]
    chol[nb, (2, 3), 0, 8 * n * n](d, n, 1, 1, 1, ok)
    L = np.tril(d.copy_to_host().reshape(nb, n, n).transpose(0, 2, 1))
    assert ok.copy_to_host().all()
    np.testing.assert_allclose(L, np.linalg.cholesky(A), rtol=0, atol=1e-12)


def test_triangular_kernels_match_numpy():
    n = 5
    L = np.linalg.cholesky(spd(2, n))
    B = RNG.standard_normal((2, 2, n))
    ref = np.stack([np.linalg.solve(L[b].T, B[b].T).T for b in range(2)])
    for explicit in (True, False):
        X = tron.triangular_batch(L, B, transpose=True, explicit=explicit, backend="cuda",
                                  threads=4)
        np.testing.assert_allclose(X, ref, rtol=1e-12, atol=1e-12)


def test_block_reductions_span_warps():
    """dot/nrm2/max over n = 100 with 64 and 96 threads (ExaTron's assume one warp)."""
    core = loader.load_core("cuda", "hs45")
    dot, rmax = core.dot, core.reduce_max

    @cuda.jit
    def k(a, b, out):
        tid = cuda.threadIdx.x
        nt = cuda.blockDim.x
        red = cuda.shared.array(128, float64)
        s = dot(a, b, a.shape[0], red, tid, nt)
        m = 0.0
        for i in range(tid, a.shape[0], nt):
            if a[i] > m:
                m = a[i]
        m = rmax(m, red, tid, nt)
        if tid == nt - 1:
            out[0] = s
            out[1] = m
    a, b = RNG.uniform(0, 1, 100), RNG.uniform(0, 1, 100)
    for nt in (64, 96):
        out = np.zeros(2)
        k[1, nt](a, b, out)
        assert out[0] == pytest.approx(a @ b, rel=1e-13)
        assert out[1] == a.max()


# ------------------------------------------------------------------ TRON
@pytest.mark.parametrize("n", [4, 8])
def test_hs45_cpu_twin_reaches_the_bounds(n):
    res = tron.solve_hs45(6, n, start="random", seed=n, backend="cpu")
    check_hs45(res, n)
    res = tron.solve_hs45(2, n, start="mid", backend="cpu", cholesky="right", backsolve="implicit")
    check_hs45(res, n)


def _shift_taken(A, gershgorin, core):
    """The shift alpha of the CPU twin's preconditioner on A (every coordinate free): L L^T - A on
    the diagonal, where L is the factor it kept (explicit = 0: L itself, lower triangle)."""
    n = A.shape[0]
    L = np.zeros(n * n)
    ok = core.preconditioner(A.ravel(order="F").copy(), L, np.arange(n, dtype=np.float64), n, n, 0, 0,
                             np.zeros(8), 0, 1, 0, 1, 0, 1, gershgorin)
    Lm = np.tril(L.reshape((n, n), order="F"))
    return ok, float((Lm @ Lm.T - A)[0, 0]), Lm


def test_preconditioner_shift_jumps_to_what_gershgorin_proves_enough():
    """hs45's Hessian has a zero diagonal: the paper's shift (ExaTron line 7) starts at 1e-3 max|a_ij|
    and doubles until the Cholesky succeeds; shift = "gershgorin" takes max_i (off-diagonal row sum
    less a_ii) + alpha_min at once, with which the factor is exact and A + alpha I positive definite.
    A matrix positive definite as it is takes no shift under either rule; the hs45 batch solves to the
    same points.  Broken variant caught: the jump left out (the doubling from alpha_min alone)."""
    from gpubench.methods.tron.loader import load_core
    core = load_core("cpu", "hs45")
    x = np.linspace(1.0, 3.0, 8)
    A = -np.outer(1 / x, 1 / x) * 5.0
    np.fill_diagonal(A, 0.0)
    amax = np.abs(A).max()
    ok_p, alpha_p, _ = _shift_taken(A, False, core)
    ok_g, alpha_g, Lg = _shift_taken(A, True, core)
    gersh = (np.abs(A).sum(axis=1) - np.diag(A) - np.abs(np.diag(A))).max() + 1e-3 * amax
    assert ok_p and ok_g
    assert alpha_g == pytest.approx(gersh, rel=1e-12)
    k = math.log2(alpha_p / (1e-3 * amax))
    assert k == pytest.approx(round(k), abs=1e-9) and round(k) >= 5      # the doubling took several attempts
    assert np.linalg.eigvalsh(A + alpha_g * np.eye(8)).min() > 0
    np.testing.assert_allclose(Lg @ Lg.T, A + alpha_g * np.eye(8), rtol=1e-12, atol=1e-12)
    spd = np.eye(8) * 4 + 0.1
    assert _shift_taken(spd, True, core)[1] == pytest.approx(0.0, abs=1e-12)
    a = tron.solve_hs45(4, 8, start="random", seed=2, backend="cpu")
    b = tron.solve_hs45(4, 8, start="random", seed=2, backend="cpu", shift="gershgorin")
    check_hs45(b, 8)
    np.testing.assert_allclose(a.x, b.x, rtol=0, atol=1e-10)
    with pytest.raises(InputError, match="shift"):
        tron.solve_hs45(2, 4, backend="cpu", shift="gersh")


def test_hs45_n_over_32_cpu_twin():
    check_hs45(tron.solve_hs45(2, 40, start="random", seed=1, backend="cpu"), 40)


@pytest.mark.parametrize("opts", [dict(threads=4), dict(layout="2d", memory="global",
                                                       cholesky="right", backsolve="implicit")])
def test_hs45_kernel_reaches_the_bounds(opts):
    check_hs45(tron.solve_hs45(2, 4, start="random", seed=3, backend="cuda", **opts), 4)


def _quadratic_batch(nb, n, rng):
    """Shifted sphere, sum (x_i - o_i)^2 on [-1, 1]^n, with a different shift o per problem;
    shifts beyond the box make those bounds active: x* = clip(o, -1, 1)."""
    fn = functions.get("shifted_sphere")
    shifts = rng.uniform(-2.0, 2.0, (nb, n))
    par = np.repeat(fn.params(n)[None], nb, axis=0)
    row = list(fn.definition.params).index(next(iter(fn.definition.params)))
    par[:, row, :] = shifts
    x0 = rng.uniform(-1, 1, (nb, n))
    return fn, x0, par, np.clip(shifts, -1.0, 1.0)


def test_bound_constrained_quadratic_cpu_twin():
    fn, x0, par, xstar = _quadratic_batch(8, 5, RNG)
    assert np.any(np.abs(xstar) == 1.0) and np.any(np.abs(xstar) < 1.0)
    res = tron.solve_batch(x0, -1.0, 1.0, par, objective="library", fn=fn, backend="cpu")
    assert np.all(res.status == 0)
    np.testing.assert_allclose(res.x, xstar, atol=1e-7)


def test_bound_constrained_quadratic_kernel():
    fn, x0, par, xstar = _quadratic_batch(2, 2, np.random.default_rng(5))
    res = tron.solve_batch(x0, -1.0, 1.0, par, objective="library", fn=fn, backend="cuda",
                           threads=2)
    assert np.all(res.status == 0)
    np.testing.assert_allclose(res.x, xstar, atol=1e-7)


def test_broken_projection_is_caught(monkeypatch, tmp_path):
    """With P[l,u] replaced by the identity, the hs45 check must fail."""
    check_hs45(tron.solve_hs45(2, 4, start="random", seed=4, backend="cuda", threads=4), 4)
    part = [p for p in loader._CORE if p.name == "subproblem.py"][0]
    text = part.read_text()
    good = "    if t < lo:\n        return lo\n    if t > hi:\n        return hi\n    return t\n"
    assert good in text
    broken = tmp_path / "subproblem.py"
    broken.write_text(text.replace(good, "    return t\n"))
    monkeypatch.setattr(loader, "_CORE", tuple(broken if p == part else p for p in loader._CORE))
    monkeypatch.setattr(loader, "_LOADED", {})
    monkeypatch.setattr(cpu, "_TRON", {})
    monkeypatch.setattr(kernels, "_TRON", {})
    # the simulated kernel: no compilation, and the same core text
    res = tron.solve_hs45(2, 4, start="random", seed=4, backend="cuda", threads=4)
    with pytest.raises(AssertionError):
        check_hs45(res, 4)


PTX_SCRIPT = r"""
from numba import types as T
from gpubench import functions
from gpubench.methods import tron
from gpubench.device.ptx import compile_ptx
from gpubench.methods.tron import kernels
a1, a2, a3, i = T.float64[::1], T.float64[:, ::1], T.float64[:, :, ::1], T.int64
sig = (a2, a2, a2, a3, a2, a2, a2, a1, i, i, i, i, i, i)
ptx = compile_ptx(kernels.tron_kernel("hs45"), sig, device=False)
assert "bar.sync" in ptx
capped = kernels.tron_kernel("hs45", registers=64)   # ptxas's register limit: another dispatcher
assert capped.targetoptions.get("max_registers") == 64 and capped is not kernels.tron_kernel("hs45")
chol, back, fwd = kernels.linalg_kernels()
compile_ptx(chol, (a2, i, i, i, i, T.int32[::1]), device=False)
compile_ptx(back, (a2, a2, i, i, i), device=False)
compile_ptx(fwd, (a2, a2, i), device=False)
forms = tron.forms_for(functions.get("shifted_sphere"), "cuda")
compile_ptx(kernels.tron_kernel("library", forms), sig, device=False)
from gpubench.methods.tron import hessian
hess = hessian.load(functions.get("shifted_sphere").definition, 3, "cuda")
compile_ptx(kernels.tron_kernel("symbolic", forms, hess), sig, device=False)
print("PTX OK")
"""


def test_kernels_compile_to_ptx():
    """The simulator runs the kernels as Python and checks no types: the real compiler must
    accept them (sm_90 PTX, no GPU needed; a subprocess without the simulator)."""
    import os
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    done = subprocess.run([sys.executable, "-c", PTX_SCRIPT], env=env, capture_output=True,
                          text=True, timeout=600)
    assert "PTX OK" in done.stdout, done.stderr[-3000:]


UNSIGNED_SCRIPT = r"""
import re
from numba import types as T
from gpubench.device.ptx import compile_ptx
from gpubench.methods.tron.loader import load_core
core = load_core("cuda", "hs45")
a1, i, f = T.float64[::1], T.int64, T.float64
# numba's negative-index wraparound of a signed subscript i on a dimension d: i + ((i >> 63) & d)
wrap = re.compile(r"shr\.s64\s+(%rd\d+), (%rd\d+), 63;\s*and\.b64\s+(%rd\d+), (?:\1, %rd\d+|%rd\d+, \1);"
                  r"\s*add\.s64\s+%rd\d+, (?:\3, \2|\2, \3);")


def signed(a, k):
    return a[k]


print("control", len(wrap.findall(compile_ptx(signed, (a1, i), device=True))))
sigs = {"gemv": (a1, a1, a1, i, i, i), "chol_left": (a1, i, i, i, i), "reduce_sum": (f, a1, i, i),
        "trpcg": (a1, a1, a1, i, i, a1, a1, a1, a1, a1, a1, f, f, i, a1, i, i)}
for name, sig in sigs.items():
    print(name, len(wrap.findall(compile_ptx(getattr(core, name), sig, device=True))))
"""


def _runtime_step_ranges(text, counts=False):
    """(line, loop) of every ``for v in range(a, b, step)`` whose step is not a literal; with ``counts``,
    also every ``range(b)`` or ``range(a, b)`` whose end is not a literal."""
    import ast
    out = []
    for node in ast.walk(ast.parse(text)):
        if not (isinstance(node, ast.For) and isinstance(node.iter, ast.Call)
                and getattr(node.iter.func, "id", "") == "range"):
            continue
        args = node.iter.args
        which = args[2] if len(args) == 3 else args[-1] if counts else None
        if which is None:
            continue
        try:
            ast.literal_eval(which)
        except ValueError:
            out.append((node.lineno, ast.unparse(node.iter)))
    return out


def test_core_loops_count_no_trips_by_division():
    """A ``range`` whose step is known only at run time (tid, nt, the 2-D layout's strides) counts its
    trips with a 64-bit division where the loop is entered: TRON's cooperative loops are ``while``
    loops (i = start; while i < stop: ...; i += step), the same iterations in the same order, which
    took the hs45 kernel on sm_90 from 22,120 SASS instructions to 12,160 (ptxas 13.5, specialize,
    shared).  In the core the counted loops are while loops too (``k = 0; while k < j``): numba's
    range iterator, unrolled, kept a select chain on its count, 16 SASS instructions a multiply-add in
    left-looking Cholesky's inner product where the while loop unrolls to 4.5 (11,856 in all).  Every core
    file (and the driver kernels, for run-time steps) is checked; a loop put back fails it."""
    driver = Path(kernels.__file__).parents[2] / "kernels" / "tron_gpu.py"
    assert all(p.exists() for p in loader._CORE) and len(loader._CORE) == 4 and driver.exists()
    found = {p.name: _runtime_step_ranges(p.read_text(), counts=True) for p in loader._CORE}
    found["tron_gpu.py"] = _runtime_step_ranges(driver.read_text())
    assert not any(found.values()), found
    assert _runtime_step_ranges("for i in range(tid, n, nt):\n    pass\n") == [(1, "range(tid, n, nt)")]
    assert _runtime_step_ranges("for i in range(n - 1, -1, -1):\n    pass\n") == []
    assert _runtime_step_ranges("for k in range(j):\n    pass\n", counts=True) == [(1, "range(j)")]
    assert _runtime_step_ranges("for k in range(30):\n    pass\n", counts=True) == []


def test_core_subscripts_are_unsigned():
    """Every subscript of the core's device functions goes through ``_u`` (core.py): the sm_90 PTX
    of gemv, chol_left, reduce_sum and trpcg (with forward, backward, dot, axpy, trqsol and the
    free-set indices ``int(ind[a])`` inlined) holds no negative-index wraparound, which a signed
    subscript (the control) shows; with ``_u`` returning its argument signed, trpcg held 239."""
    import os
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    done = subprocess.run([sys.executable, "-c", UNSIGNED_SCRIPT], env=env, capture_output=True,
                          text=True, timeout=600)
    counts = dict((ln.split()[0], int(ln.split()[1])) for ln in done.stdout.splitlines())
    assert counts.get("control", 0) >= 1, (done.stdout, done.stderr[-3000:])
    assert counts == {"control": counts["control"], "gemv": 0, "chol_left": 0, "reduce_sum": 0,
                      "trpcg": 0}, done.stdout


def test_batch_arrays_reach_the_twin_writable_and_c_ordered():
    """One start a launch (tron-gpu's rounds) broadcast its bounds and parameters to read-only views,
    another numba signature of the CPU twin: a second compile of 10-20 s in the same process."""
    lo, par = np.full(3, -1.0), np.zeros((1, 3))
    lo.flags.writeable = False
    for a in tron._check(np.zeros((1, 3)), lo, 1.0, par):
        assert a.flags.c_contiguous and a.flags.writeable


def test_statuses_iteration_limit_and_failure():
    res = tron.solve_hs45(2, 4, start="random", backend="cpu", max_iter=0)
    assert res.status.tolist() == [1, 1] and res.iterations.tolist() == [0, 0]
    x0, lo, hi, par = tron.hs45_problem(2, 4)
    par[1, 0, 2] = 0.0            # x_3 / 0: the value is not finite
    res = tron.solve_batch(x0, lo, hi, par, objective="hs45", backend="cpu")
    assert res.status.tolist() == [0, 2]


def test_method_minimize_and_settings():
    fn = functions.get("shifted_sphere")
    r = methods.minimize(fn, 3, method="tron-gpu", starts=3, backend="cpu", hessian="differences")
    assert r.method == "tron-gpu" and len(r.status) == 3
    assert r.fun == pytest.approx(fn.fstar(3), abs=1e-10)
    np.testing.assert_allclose(r.x, fn.xstar(3), atol=1e-6)
    assert r.options["cholesky"] == "left" and r.options["hessian"] == "differences"
    # the starts split over launches: start k is the same, the trace notes the best after each launch
    r3 = methods.minimize(fn, 3, method="tron-gpu", starts=3, rounds=3, backend="cpu", hessian="differences")
    assert r3.history["start_fun"] == r.history["start_fun"] and r3.nfev == r.nfev
    tr = np.array(r3.history["trace"])
    assert tr[0, 2] == r.history["start_fun"][0] and tr[-1, 0] == r.nfev and tr[-1, 2] == r.fun
    assert np.all(np.diff(tr[:, 0]) > 0) and np.all(np.diff(tr[:, 2]) <= 0)
    with pytest.raises(InputError, match="rounds"):
        methods.minimize(fn, 3, method="tron-gpu", starts=2, rounds=3)
    with pytest.raises(InputError):
        methods.minimize(fn, 3, method="tron-gpu", cholesky="middle")
    with pytest.raises(InputError):
        methods.minimize(fn, 3, method="tron-gpu", layout="2d", threads=4)


def test_method_on_a_function_without_parameters():
    # such a function gets one dummy parameter row, which solve_batch must accept (Levy with the
    # Hessian by differences: the CPU twin tests/test_time_limit.py compiles too, not one of its own)
    fn = functions.get("levy")
    assert fn.params(2).shape[0] == 0
    r = methods.minimize(fn, 2, method="tron-gpu", starts=2, backend="cpu", hessian="differences")
    assert r.fun == pytest.approx(0.0, abs=1e-6)


def test_shared_memory_limit_is_one_line():
    with pytest.raises(InputError, match="memory=global"):
        tron.solve_hs45(1, 64, backend="cuda", memory="shared")
    assert kernels.dynamic_shared_bytes(32, 32, "shared") <= kernels.MAX_SHARED_BYTES


def test_register_cap_and_specialized_kernel(monkeypatch):
    """registers: 0 or 16..255, else a one-line input error.  specialize with a cap: the kernel
    compiled for the call's flags (the capped dispatcher's limit: test_kernels_compile_to_ptx; the
    simulator has no registers) solves as the generic one, both recorded in the options; its flags
    are its own, not the launch's: bound to shared memory while the launch gives the global
    workspace, it reads past the shared array."""
    for bad in (8, 300, -1, 2.5):
        with pytest.raises(InputError, match="registers must be 0"):
            tron.solve_hs45(1, 2, backend="cpu", registers=bad)
    r = tron.solve_hs45(2, 3, backend="cuda", memory="global", specialize=True, registers=64, threads=4)
    check_hs45(r, 3)
    assert r.options["registers"] == 64 and r.options["specialize"] is True
    orig = kernels.tron_kernel
    monkeypatch.setattr(kernels, "tron_kernel",
                        lambda kind, forms, hess, registers, flags: orig(kind, forms, hess, registers, (0, 1, 0, 1)))
    # one thread a block: the simulator leaves a failing block's other threads running, and one still
    # inside a device function when the launch has raised puts its fake cuda module back into the
    # generated module's globals, where a later test's kernel would find it
    with pytest.raises(IndexError):
        tron.solve_hs45(2, 3, backend="cuda", memory="global", specialize=True, threads=1)


def test_report_renders_published_and_not_reproduced_rows():
    from gpubench.reports import tron as report
    rec = {"tiny": True, "simulator": True, "environment": {"gpu": None},
           "table1": {"mean_left_ms": 0.2, "mean_right_ms": 0.3, "published_v100_ms": {"left": 0.362, "right": 0.437},
                      "rows": [{"n": 1, "left_ms": 0.2, "right_ms": 0.3}]},
           "table3": {"published_v100_ms": {"shared": 9.536, "global": 16.293},
                      "rows": [{"n": 8, "shared": {"ms": 1.0, "converged": 4, "batch": 4, "max_abs_err": 0.0},
                                "global": {"ms": 2.0, "converged": 4, "batch": 4, "max_abs_err": 0.0}}]}}
    md = report.render(rec)
    assert "| Left-looking | 0.200 | 0.362 |" in md and "| 8 | 1.000 | 2.000 | 4/4 |" in md
    # Tables 4-5 are experiments of their own (gpubench/problems/opf); Figures 6-8 need a multi-GPU host
    assert md.count("not reproduced (") == 3 and "Figure 7" in md and "Table 4 (power-grid" not in md


def test_hs45_analytic_derivatives_match_differences():
    """The hand-written gradient and Hessian of -prod x_i / c_i against central differences."""
    core = loader.load_core("cpu", "hs45")
    n = 5
    par = np.arange(1.0, n + 1)[None, :]
    xs = RNG.uniform(0.5, 1.0, (2, n)) * par[0]
    xs[1, 2] = 0.0                 # at the lower bound: the products without division

    def fgh(z):
        g, H = np.zeros(n), np.zeros(n * n)
        f = core.eval_fgh(z, par, g, H, np.zeros(1), np.zeros(8), n, 0, 1, 0, 1, 0, 1)
        return f, g, H.reshape(n, n).T

    for x in xs:
        f, g, H = fgh(x)
        assert f == pytest.approx(-np.prod(x / par[0]))
        h = 1e-6
        for j in range(n):
            e = np.zeros(n)
            e[j] = h
            fp, gp, _ = fgh(x + e)
            fm, gm, _ = fgh(x - e)
            assert g[j] == pytest.approx((fp - fm) / (2 * h), abs=1e-8)
            np.testing.assert_allclose(H[:, j], (gp - gm) / (2 * h), atol=1e-7)


def test_library_hessian_by_differences():
    """Shifted sphere: the central-difference Hessian of the generated gradient is 2 I."""
    fn = functions.get("shifted_sphere")
    core = loader.load_core("cpu", "library", tron.forms_for(fn, "cpu"))
    n = 3
    x = RNG.uniform(-1, 1, n)
    g, H = np.zeros(n), np.zeros(n * n)
    f = core.eval_fgh(x, fn.params(n), g, H, np.zeros(5 * n), np.zeros(8), n, 0, 1, 0, 1, 0, 1)
    assert f == pytest.approx(fn.point(x))
    np.testing.assert_allclose(g, fn.gradient(x), rtol=1e-12)
    np.testing.assert_allclose(H.reshape(n, n), 2 * np.eye(n), atol=1e-6)


# a fixed-dimension definition (coordinates x1 .. xd, not aggregates) too: Beale, Hartmann 3
@pytest.mark.parametrize("name, n", [("rosenbrock", 4), ("shifted_rastrigin", 4), ("griewank", 4),
                                     ("scipy_go.Beale", 2), ("scipy_go.Hartmann3", 3)])
def test_symbolic_hessian_matches_differences(name, n):
    from gpubench.methods.tron import hessian
    fn = functions.get(name)
    mod = hessian.load(fn.definition, n, "cpu")
    lo, hi = fn.bounds(n)
    x = RNG.uniform(lo, hi) * 0.1
    H = np.zeros(n * n)
    mod.hessian(x, fn.params(n), H)
    H = H.reshape(n, n)
    h = 1e-5
    num = np.array([(fn.gradient(x + h * e) - fn.gradient(x - h * e)) / (2 * h) for e in np.eye(n)])
    np.testing.assert_allclose(H, num, atol=1e-5 * max(1.0, np.abs(num).max()))
    np.testing.assert_array_equal(H, H.T)


def test_symbolic_hessian_in_the_kernel():
    fn, x0, par, xstar = _quadratic_batch(2, 2, np.random.default_rng(6))
    res = tron.solve_batch(x0, -1.0, 1.0, par, objective="library", fn=fn, backend="cuda",
                           threads=2, hessian="symbolic")
    assert np.all(res.status == 0) and res.options["hessian"] == "symbolic"
    np.testing.assert_allclose(res.x, xstar, atol=1e-7)


def test_kernel_block_shrinks_when_registers_run_out(monkeypatch):
    """A launch refused for resources (1,024 threads of the library kernel at n = 1,000 on an
    H200) is retried with half the threads, down to one warp, and the result is the same."""
    real = kernels.tron_kernel
    seen = []

    class Refusing:  # launches of more than 32 threads fail as the driver's would
        def __init__(self, kern):
            self.kern = kern

        def compile(self, sig):
            return self.kern.compile(sig)

        def __getitem__(self, config):
            seen.append(config[1])
            if config[1][0] * config[1][1] > 32:
                def refuse(*args):
                    raise RuntimeError("[701] Call to cuLaunchKernel results in CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES")
                return refuse
            return self.kern[config]

    monkeypatch.setattr(kernels, "tron_kernel", lambda *a, **k: Refusing(real(*a, **k)))
    res = tron.solve_hs45(1, 33, start="mid", backend="cuda", memory="global")
    check_hs45(res, 33)
    assert seen[0] == (64, 1) and seen[-1] == (32, 1)
    assert res.options["block"] == [32, 1] and "registers" in res.options["note"]


def test_warp_cholesky_kernel_compiles_with_warp_barriers_only():
    """The simulator stands a block barrier in for syncwarp: here NVVM compiles the real kernel
    for sm_90 (no GPU needed), whose factorization synchronises by warp barriers."""
    import os
    import subprocess
    import sys
    script = r'''
from numba import types as T
from gpubench.kernels import chol_gpu
from gpubench.device.ptx import compile_ptx
ptx = compile_ptx(chol_gpu.cholesky_groups, (T.Array(T.float64, 2, "C"), T.int64, T.int64, T.int64,
                  T.Array(T.int32, 1, "C")), device=False)
print(ptx.count("bar.warp.sync"), ptx.count("bar.sync"))
'''
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    warp, block = map(int, out.stdout.split()[-2:])
    assert warp >= 3 and block == 2  # the block barriers only around the coalesced load and store


# ------------------------------------------------------------------ kernels compiled per n (chol_small)
def _small_variant_right(mod, variant, n, nb=7, threads=4):
    """The ``variant`` kernel of ``mod`` (thread or lanes) on nb matrices, the third indefinite,
    blocks of ``threads`` matrices (thread) or lanes (lanes), the last block partial: factors equal
    numpy's, the upper triangle untouched, the flags right."""
    A = spd(nb, n)
    A[2] -= 100.0 * n * np.eye(n)
    flat = np.array(A.transpose(0, 2, 1).reshape(nb, n * n), order="C", copy=True)
    d, ok = cuda.to_device(flat), cuda.device_array(nb, dtype=np.int32)
    if variant == "thread":
        grid, block, smem = mod.thread_launch(n, nb, threads)
        mod.thread_kernel(n)[grid, block, 0, smem](d, ok)
    elif variant.startswith("lanes_unrolled"):
        from gpubench.kernels import chol_unrolled
        grid, block = mod.lanes_launch(n, nb, threads)
        chol_unrolled.kernel(n, variant == "lanes_unrolled_shared", block)[grid, block](d, ok)
    else:
        grid, block = mod.lanes_launch(n, nb, threads)
        shared = variant == "lanes_shared"
        mod.lanes_kernel(n, shared)[grid, block, 0, 8 * block if shared else 0](d, ok)
    out = d.copy_to_host().reshape(nb, n, n).transpose(0, 2, 1)
    good = [b for b in range(nb) if b != 2]
    return (ok.copy_to_host().tolist() == [0 if b == 2 else 1 for b in range(nb)]
            and np.allclose(np.tril(out[good]), np.linalg.cholesky(A[good]), rtol=0, atol=1e-12 * n)
            and np.array_equal(np.triu(out[good], 1), np.triu(A[good], 1)))


def _module_copy(tmp_path, mod, old, new):
    import importlib.util
    text = open(mod.__file__).read()
    assert text.count(old) == 1, old
    path = tmp_path / f"broken_{abs(hash(old))}.py"
    path.write_text(text.replace(old, new))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    out = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(out)
    return out


@pytest.mark.parametrize("variant,threads", [("thread", 4), ("lanes", 16), ("lanes_shared", 16)])
def test_register_cholesky_kernels_match_numpy_and_a_broken_variant_is_caught(tmp_path, variant, threads):
    """The kernels compiled per n under the simulator at n = 1, 2, 3, 5 (odd) and 8 (a power of
    two), 7 matrices in blocks that do not divide them; then a copy whose update skips a term."""
    from gpubench.kernels import chol_small
    for n in (1, 2, 3, 5, 8):
        assert _small_variant_right(chol_small, variant, n, threads=max(threads, chol_small.group_width(n))), n
    old, new = {"thread": ("                            if k < j:\n", "                            if k < j - 1:\n"),
                "lanes": ("                if c >= N:\n", "                if c >= N - 1:\n"),
                "lanes_shared": ("                grp[r] = lk\n", "                grp[r] = 0.5 * lk\n")}[variant]
    broken = _module_copy(tmp_path, chol_small, old, new)
    assert not _small_variant_right(broken, variant, 3, threads=threads)


@pytest.mark.parametrize("variant", ["lanes_unrolled", "lanes_unrolled_shared"])
def test_unrolled_cholesky_matches_numpy_and_a_broken_text_is_caught(monkeypatch, variant):
    """lanes_unrolled(_shared) (its text generated per n) under the simulator at n = 1, 2, 3, 5
    and 8, 7 matrices in blocks that do not divide them; then a text whose first step skips one
    update (_shared: whose second step reads the first step's buffer)."""
    from gpubench.kernels import chol_small, chol_unrolled
    for n in (1, 2, 3, 5, 8):
        assert _small_variant_right(chol_small, variant, n, threads=max(16, chol_small.group_width(n))), n
    good = chol_unrolled.source
    if variant == "lanes_unrolled":
        old, new = "    a2 -= lk * _bcast(lk, base + 2, scratch)\n", ""
        assert good(3).count(old) == 2            # steps 0 and 1 update column 2
    else:
        old, new = "    a2 -= lk * xch[1, gl, 2]\n", "    a2 -= lk * xch[0, gl, 2]\n"
    monkeypatch.setattr(chol_unrolled, "source",
                        lambda n, shared=False, block=128: good(n, shared, block).replace(old, new, 1))
    chol_unrolled.kernel.cache_clear()
    try:
        assert not _small_variant_right(chol_small, variant, 3, threads=16)
    finally:
        chol_unrolled.kernel.cache_clear()


def test_register_cholesky_through_cholesky_batch_and_its_input_errors():
    """thread, lanes and auto through the public batch call (their launcher); auto picks
    lanes_unrolled_shared (the fastest measured) at every n; n outside 1..32, an unknown variant and a block that is
    no multiple of the group are one-line input errors."""
    from gpubench.kernels import chol_small
    for variant in ("thread", "lanes", "lanes_shared", "lanes_unrolled", "lanes_unrolled_shared", "auto"):
        A = spd(5, 4)
        L, ok = tron.cholesky_batch(A, variant, backend="cuda", threads=8)
        assert ok.all()
        np.testing.assert_allclose(L, np.linalg.cholesky(A), rtol=0, atol=1e-12)
    assert {chol_small.pick("auto", n) for n in range(1, 33)} == {"lanes_unrolled_shared"}
    for variant in ("thread", "lanes", "auto"):
        with pytest.raises(InputError, match=r"n must be 1\.\.32, not 33"):
            tron.cholesky_batch(spd(1, 33), variant, backend="cpu")
        with pytest.raises(InputError, match=r"not 0"):
            chol_small.pick(variant, 0)
    with pytest.raises(InputError, match="known"):
        chol_small.pick("diagonal", 3)
    with pytest.raises(InputError, match="multiple of the group of 8 lanes"):
        chol_small.lanes_launch(5, 10, threads=12)


def test_register_cholesky_kernels_compile_to_registers_and_shuffles():
    """NVVM for sm_90 (no GPU; a subprocess without the simulator): the lanes kernel keeps its row
    in registers at every n (no local memory) and exchanges by warp shuffles, never a block
    barrier; the thread kernel keeps its factor in registers up to THREAD_UNROLLED and still
    compiles above; each is a dispatcher that caches on disk; lanes_unrolled(_shared) as below."""
    import os
    import subprocess
    import sys
    script = r'''
from numba import types as T
from gpubench.kernels import chol_small as cs
from gpubench.device.ptx import compile_ptx
sig = (T.Array(T.float64, 2, "C"), T.Array(T.int32, 1, "C"))
for kind, ns in (("lanes", (1, 3, 8, 16, 32)), ("thread", (1, 4, cs.THREAD_UNROLLED, 9)),
                 ("lanes_shared", (32,))):
    for n in ns:
        k = cs.lanes_kernel(n, True) if kind == "lanes_shared" else getattr(cs, kind + "_kernel")(n)
        ptx = compile_ptx(k, sig, device=False)
        print(kind, n, ptx.count("ld.local"), ptx.count("shfl.sync"), ptx.count("bar.sync"),
              type(k._cache).__name__, ptx.count("bar.warp.sync"), ptx.count("ld.shared.f64"))
from gpubench.kernels import chol_unrolled
for shared in (False, True):
    ptx = compile_ptx(chol_unrolled.kernel(8, shared), sig, device=False)
    print("unrolled", int(shared), ptx.count("ld.local"), ptx.count("shfl.sync"), ptx.count("bra"),
          ptx.count("st.global.f64"), ptx.count("ld.shared.v2.f64"))
'''
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    rows = {(k, int(n)): (int(a), int(b), int(c), cache) for k, n, a, b, c, cache, _, _ in
            (line.split() for line in out.stdout.split("\n") if line.startswith(("lanes", "thread")))}
    shared = {int(n): (int(a), int(b), int(c), int(w), int(ld)) for k, n, a, b, c, _, w, ld in
              (line.split() for line in out.stdout.split("\n") if line.startswith("lanes_shared"))}
    from gpubench.kernels import chol_small
    for n in (1, 3, 8, 16, 32):
        local, shfl, bar, cache = rows[("lanes", n)]
        assert local == 0 and shfl >= 2 and bar == 0 and cache != "NullCache", (n, rows[("lanes", n)])
    for n in (1, 4, chol_small.THREAD_UNROLLED):
        local, shfl, bar, cache = rows[("thread", n)]
        assert local == 0 and shfl == 0 and bar == 2 and cache != "NullCache", (n, rows[("thread", n)])
    assert rows[("thread", 9)][0] > 0        # above: rolled loops, the factor in local memory
    # lanes_shared: the row in registers, warp barriers only, each l_ck a shared load (the pivot
    # alone by shuffle: fewer shuffles than lanes)
    local, shfl, bar, warp, lds = shared[32]
    assert local == 0 and bar == 0 and warp >= 2 and lds >= 31, shared[32]
    assert shfl < rows[("lanes", 32)][1], (shared[32], rows[("lanes", 32)])
    # lanes_unrolled at n = 8: the row in registers, one shuffle pair per pivot and per l_ck
    # broadcast, no branch but the column stores' and the flag's (lanes: one after every update);
    # lanes_unrolled_shared: the pivots alone by shuffle, the 28 l_ck of the 7 steps read with 12
    # 16-byte loads (the pairs c, c + 1 with c even) and 4 single ones
    unrolled = {int(w[1]): tuple(map(int, w[2:])) for w in
                (line.split() for line in out.stdout.split("\n") if line.startswith("unrolled"))}
    n = 8
    local, shfl, bra, st, _ = unrolled[0]
    assert local == 0 and shfl == 2 * (n + n * (n - 1) // 2) and st == n and bra <= 2 * n + 2, unrolled
    local, shfl, bra, st, v2 = unrolled[1]
    assert local == 0 and shfl == 2 * n and st == n and bra <= 2 * n + 2 and v2 == 12, unrolled
