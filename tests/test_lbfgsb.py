"""L-BFGS-B (gpubench.methods.lbfgsb) against SciPy's, its Cauchy points, the batch kernel and MINPACK-2.

SciPy's L-BFGS-B (the C translation of the Fortran 3.0) is the reference: on problems
whose solution has bounds active from below, above, both sides, or none, ours must reach
its minimum to tight tolerance in a comparable number of iterations.  A projection that
ignores a bound must be caught by the same checks.
"""
import math

import numpy as np
import pytest
import scipy.optimize as so

try:
    from gpubench import functions
except ImportError:   # a source tree where functions/ is not installed as gpubench.functions
    import functions
from gpubench.errors import InputError
from gpubench.methods.lbfgsb import batch, core, minimize
from gpubench.methods import get as get_method
from gpubench.problems import minpack2

N = 12


def _quadratic(seed=0, n=N):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, n))
    H = A @ A.T / n + 0.1 * np.eye(n)
    b = 3 * rng.standard_normal(n)
    return lambda x: (0.5 * x @ H @ x - b @ x, H @ x - b)


def _rosenbrock(x):
    r = x[1:] - x[:-1] ** 2
    f = np.sum(100 * r ** 2 + (1 - x[:-1]) ** 2)
    g = np.zeros_like(x)
    g[:-1] = -400 * x[:-1] * r - 2 * (1 - x[:-1])
    g[1:] += 200 * r
    return f, g


INF = np.inf
BOXES = {
    "free": (np.full(N, -INF), np.full(N, INF)),
    "both": (np.full(N, -0.5), np.full(N, 0.5)),
    "lower": (np.zeros(N), np.full(N, INF)),
    "upper": (np.full(N, -INF), np.full(N, 0.3)),
    "mixed": (np.array([-INF, -0.3, 0.0, -INF, 0.2, -1.0, -0.1, -INF, 0.25, -0.4, -INF, 0.1]),
              np.array([INF, 0.4, INF, 0.1, 0.2, -0.2, 0.1, INF, 2.0, INF, -0.5, INF])),
}


def _scipy(fg, x0, lo, hi, m=5):
    return so.minimize(fg, x0, jac=True, method="L-BFGS-B", bounds=list(zip(lo, hi)),
                       options=dict(maxcor=m, gtol=1e-10, ftol=1e1 * np.finfo(float).eps, maxiter=5000))


def _check_same(r, ref, lo, hi, rtol=1e-10):
    assert np.all(r.x >= lo) and np.all(r.x <= hi), "final point outside the box"
    assert abs(r.fun - ref.fun) <= rtol * max(1.0, abs(ref.fun)), (r.fun, ref.fun)
    np.testing.assert_allclose(r.x, ref.x, atol=1e-5)


@pytest.mark.parametrize("cauchy", ["exact", "approximate"])
@pytest.mark.parametrize("box", list(BOXES))
@pytest.mark.parametrize("problem", ["quadratic", "rosenbrock"])
def test_reaches_scipy_minimum(problem, box, cauchy):
    fg = _quadratic() if problem == "quadratic" else _rosenbrock
    lo, hi = BOXES[box]
    x0 = np.clip(np.full(N, 0.2), lo, hi)
    ref = _scipy(fg, x0, lo, hi)
    iterates = []
    r = minimize(fg, x0, lo, hi, m=5, pgtol=1e-10, factr=1e1, cauchy=cauchy, backend="cpu",
                 callback=lambda x, f, pg: iterates.append(x.copy()))
    assert r.status == 0, r.message
    _check_same(r, ref, lo, hi)
    for x in iterates:   # every iterate feasible, not just the last
        assert np.all(x >= lo) and np.all(x <= hi)
    assert r.iterations <= 1.5 * ref.nit + 5, (r.iterations, ref.nit)
    # the same active set as SciPy's (several of these solutions touch the box)
    np.testing.assert_array_equal((r.x == lo) | (r.x == hi), (ref.x == lo) | (ref.x == hi))


def test_any_history_size():
    lo, hi = BOXES["mixed"]
    fg = _quadratic(3)
    x0 = np.clip(np.zeros(N), lo, hi)
    for m in (0, 1, 3, 17):
        ref = _scipy(fg, x0, lo, hi, m=max(m, 1))
        r = minimize(fg, x0, lo, hi, m=m, pgtol=1e-10, factr=1e1, backend="cpu")
        _check_same(r, ref, lo, hi, rtol=1e-9)


def test_stopping_rules():
    lo, hi = BOXES["both"]
    r = minimize(_rosenbrock, np.zeros(N), lo, hi, pgtol=1e-3, factr=0.0, backend="cpu")
    assert r.message == core.CONVERGED_PGTOL and r.pg <= 1e-3
    assert core.projected_gradient_norm(np, r.x, r.jac, lo, hi) == r.pg
    r2 = minimize(_rosenbrock, np.zeros(N), lo, hi, pgtol=0.0, factr=1e12, backend="cpu")
    assert r2.message == core.CONVERGED_FACTR and r2.iterations < r.iterations + 50


def _ignore_upper(real):
    def broken(xp, x, g, lo, hi):
        return real(xp, x, g, lo, xp.full(x.shape, xp.inf))
    return broken


@pytest.mark.parametrize("cauchy", ["exact", "approximate"])
def test_broken_projection_is_caught(monkeypatch, cauchy):
    """The checks above fail when the Cauchy point ignores the upper bounds."""
    fg = _quadratic()
    lo, hi = BOXES["upper"]
    x0 = np.clip(np.full(N, 0.2), lo, hi)
    ref = _scipy(fg, x0, lo, hi)
    monkeypatch.setattr(core, "_breakpoints", _ignore_upper(core._breakpoints))
    iterates = []
    r = minimize(fg, x0, lo, hi, pgtol=1e-10, factr=1e1, cauchy=cauchy, backend="cpu",
                 callback=lambda x, f, pg: iterates.append(x.copy()))
    with pytest.raises(AssertionError):
        _check_same(r, ref, lo, hi)
        for x in iterates:
            assert np.all(x <= hi)


# ------------------------------------------------------------------ Cauchy points
def _random_memory(rng, n, m, k):
    mem = core._Memory(np, m, n, np.float64)
    H = rng.standard_normal((n, n))
    H = H @ H.T / n + 0.2 * np.eye(n)
    for _ in range(k):
        s = rng.standard_normal(n)
        y = H @ s
        mem.push(s, y, float(s @ y), float(y @ y))
    return mem


def _model_path(x, g, lo, hi, mem, ts):
    """m(P(x - t g)) on a grid of t with the dense B = theta I - W M W^T."""
    n = x.size
    if mem.k:
        W = np.stack([mem.W(np.eye(2 * mem.k)[j]) for j in range(2 * mem.k)], axis=1)
        B = mem.theta * np.eye(n) - W @ mem.M @ W.T
    else:
        B = mem.theta * np.eye(n)
    out = []
    for t in ts:
        z = np.clip(x - t * g, lo, hi) - x
        out.append(g @ z + 0.5 * z @ B @ z)
    return np.array(out)


@pytest.mark.parametrize("seed", range(6))
def test_cauchy_points(seed):
    """Exact: the first local minimiser of the model on the projected path (brute force on a grid).
    Approximate: in the box, equal to the exact one when that lies on the first segment."""
    rng = np.random.default_rng(seed)
    n, m = 9, 4
    lo = np.where(rng.random(n) < 0.2, -np.inf, -rng.random(n))
    hi = np.where(rng.random(n) < 0.2, np.inf, rng.random(n))
    x = np.clip(rng.standard_normal(n) * 0.5, lo, hi)
    x[0] = hi[0] if np.isfinite(hi[0]) else x[0]          # one coordinate on a bound
    g = rng.standard_normal(n)
    mem = _random_memory(rng, n, m, k=seed % 5)
    t = core._breakpoints(np, x, g, lo, hi)
    xc, free, c, tstar = core._exact_cauchy(np, x, g, lo, hi, mem, t)
    assert np.all(xc >= lo) and np.all(xc <= hi)
    np.testing.assert_allclose(xc, np.clip(x - tstar * g, lo, hi), atol=1e-12)
    np.testing.assert_allclose(c, mem.Wt(xc - x), atol=1e-10)
    ts = np.linspace(0, tstar, 400)
    path = _model_path(x, g, lo, hi, mem, ts)
    assert np.all(np.diff(path) <= 1e-12 * max(1, abs(path).max()))   # decreasing up to t*
    after = _model_path(x, g, lo, hi, mem, [tstar * (1 + 1e-6) + 1e-9])[0]
    assert after >= path[-1] - 1e-12                                # and not beyond
    xa, freea, ca, tc = core._approximate_cauchy(np, x, g, lo, hi, mem, t)
    assert np.all(xa >= lo) and np.all(xa <= hi)
    t1 = np.min(t[t > 0])
    assert 0 <= tc <= t1
    if tstar < t1:
        assert tc == pytest.approx(tstar, rel=1e-10)


def test_approximate_cauchy_never_leaves_the_box():
    rng = np.random.default_rng(7)
    for trial in range(200):
        n = int(rng.integers(1, 12))
        lo = np.where(rng.random(n) < 0.3, -np.inf, -rng.random(n) * 10 ** rng.uniform(-8, 2))
        hi = np.where(rng.random(n) < 0.3, np.inf, rng.random(n) * 10 ** rng.uniform(-8, 2))
        fix = rng.random(n) < 0.1
        hi[fix] = lo[fix] = np.where(np.isfinite(lo[fix]), lo[fix], 0.0)
        x = np.clip(rng.standard_normal(n), lo, hi)
        on = rng.random(n) < 0.3
        x[on] = np.where(rng.random(on.sum()) < 0.5, lo[on], hi[on])
        x = np.where(np.isfinite(x), x, 0.0)
        g = rng.standard_normal(n) * 10 ** rng.uniform(-6, 6)
        mem = _random_memory(rng, n, 3, k=int(rng.integers(0, 4)))
        t = core._breakpoints(np, x, g, lo, hi)
        xc = core._approximate_cauchy(np, x, g, lo, hi, mem, t)[0]
        assert np.all(xc >= lo) and np.all(xc <= hi), trial


# ------------------------------------------------------------------ MINPACK-2
@pytest.mark.parametrize("name", list(minpack2.PROBLEMS))
def test_minpack2_gradients(name):
    n = {"lennard-jones": 27, "ginzburg-landau-2d": 64}.get(name, 49)
    p = minpack2.make(name, n)
    rng = np.random.default_rng(1)
    x = p.x0 + 0.05 * rng.standard_normal(n)
    f, g = p.fg(x)
    e = 1e-6
    fd = np.array([(p.fg(x + e * ei)[0] - p.fg(x - e * ei)[0]) / (2 * e) for ei in np.eye(n)])
    assert np.abs(fd - g).max() <= 1e-6 * max(1.0, np.abs(g).max())


def test_minpack2_inputs():
    with pytest.raises(InputError):
        minpack2.make("torsion", 50)
    with pytest.raises(InputError):
        minpack2.make("nope", 49)
    p = minpack2.make("combustion", 16, box=1.0)
    assert np.all(p.lo == -1) and np.all(p.hi == 1)


def test_ginzburg_landau_1d_is_the_integral():
    """f is int alpha psi^2 + beta/2 psi^4 + gamma psi'^2 over the three layers, psi piecewise linear."""
    p = minpack2.make("ginzburg-landau-1d", 16)
    (an, as_), (bn, bs), gam = p.params["alpha"], p.params["beta"], p.params["gamma"]
    dn, ds = p.params["layers"]
    v = np.random.default_rng(3).uniform(20.0, 100.0, 16)   # where the quartic term counts (psi* ~ 90)
    nodes = np.concatenate([-ds - dn + np.arange(4) * dn / 4, -ds + np.arange(8) * 2 * ds / 8,
                            ds + np.arange(4) * dn / 4, [ds + dn]])
    vals = np.append(v, v[0])                      # periodic
    f = 0.0
    for a, b, va, vb in zip(nodes[:-1], nodes[1:], vals[:-1], vals[1:]):
        tin = -ds <= a < ds
        al, be = (as_, bs) if tin else (an, bn)
        s = np.linspace(0, 1, 2001)
        psi = va + (vb - va) * s
        integrand = al * psi ** 2 + be / 2 * psi ** 4
        f += (b - a) * np.trapezoid(integrand, s) + gam * (vb - va) ** 2 / (b - a)
    assert p.fg(v)[0] == pytest.approx(f, rel=1e-6)


def test_ginzburg_landau_2d_is_the_lattice_energy():
    """f by a plain loop over the cells, with the twisted right face and the periodic top face."""
    nx = ny = 3
    N, vor, kap = nx * ny, 8, 5.0
    p = minpack2.make("ginzburg-landau-2d", 4 * N)
    hx, hy = math.sqrt(vor / 2) * 3 / nx, math.sqrt(vor / 2) * 3 * math.sqrt(3) / ny
    V = (p.x0 + 0.3 * np.random.default_rng(4).standard_normal(4 * N)).reshape(4, ny, nx)

    def psi(i, j):
        j %= ny
        if i == nx:
            return np.exp(2j * math.pi * vor * j / ny) * (V[0, j, 0] + 1j * V[1, j, 0])
        return V[0, j, i] + 1j * V[1, j, i]

    def pot(c, i, j):
        j %= ny
        if i == nx:
            return V[c, j, 0] + (2 * math.pi * vor / (ny * hy) if c == 3 else 0.0)
        return V[c, j, i]

    f = 0.0
    for i in range(nx):
        for j in range(ny):
            d = abs(psi(i, j)) ** 2
            f += -d + d * d / 2
            f += abs(psi(i + 1, j) - np.exp(1j * hx * pot(2, i, j)) * psi(i, j)) ** 2 / hx ** 2
            f += abs(psi(i, j + 1) - np.exp(1j * hy * pot(3, i, j)) * psi(i, j)) ** 2 / hy ** 2
            f += kap ** 2 * ((pot(3, i + 1, j) - pot(3, i, j)) / hx - (pot(2, i, j + 1) - pot(2, i, j)) / hy) ** 2
    assert p.fg(V.ravel())[0] == pytest.approx(f / N, rel=1e-12)


@pytest.mark.parametrize("name, n", [("ginzburg-landau-1d", 24), ("ginzburg-landau-2d", 36)])
def test_ginzburg_landau_matches_scipy(name, n):
    p = minpack2.make(name, n, box=1.0)            # Table 1's box: bounds active at the minimum
    ref = so.minimize(p.fg, p.x0, jac=True, method="L-BFGS-B", bounds=list(zip(p.lo, p.hi)),
                      options=dict(maxcor=5, gtol=1e-10, ftol=0, maxiter=5000))
    for cauchy in ("exact", "approximate"):
        r = minimize(p.fg, p.x0, p.lo, p.hi, m=5, pgtol=1e-10, factr=0.0, cauchy=cauchy, backend="cpu")
        assert abs(r.fun - ref.fun) <= 1e-9 * abs(ref.fun), cauchy
        assert np.all(r.x >= p.lo) and np.all(r.x <= p.hi)


@pytest.mark.parametrize("cauchy", ["exact", "approximate"])
def test_torsion_20x20_matches_scipy(cauchy):
    p = minpack2.make("torsion", 400)
    ref = so.minimize(p.fg, p.x0, jac=True, method="L-BFGS-B", bounds=list(zip(p.lo, p.hi)),
                      options=dict(maxcor=5, gtol=1e-9, ftol=0, maxiter=5000))
    r = minimize(p.fg, p.x0, p.lo, p.hi, m=5, pgtol=1e-9, factr=0.0, cauchy=cauchy, backend="cpu")
    assert abs(r.fun - ref.fun) <= 1e-9 * abs(ref.fun)
    assert np.any((r.x == p.hi) | (r.x == p.lo))      # the plastic region: bounds active
    assert r.iterations <= 1.3 * ref.nit + 5


def test_cauchy_record():
    p = minpack2.make("torsion", 100)
    r = minimize(p.fg, p.x0, p.lo, p.hi, pgtol=1e-6, cauchy="approximate", record_cauchy=True, backend="cpu")
    tc, ts = np.array(r.cauchy).T
    assert len(tc) >= r.iterations
    assert np.all(tc <= ts + 1e-12)          # the approximation never goes past the first minimiser


# ------------------------------------------------------------------ batch and method
# The CPU twin of the batch kernel compiles once per function (about 20 s on 2 cores): every test here
# that runs it takes Levy, whose twin tests/test_monitor.py, test_time_limit.py and test_compare.py
# compile anyway (Rosenbrock's was compiled for this file alone).  Under the simulator nothing compiles.
BATCH_FUNCTION = "levy"


def _starts(fn, n, k, seed=0):
    lo, hi = fn.bounds(n)
    return lo, hi, lo + (hi - lo) * np.random.default_rng(seed).random((k, n))


@pytest.mark.parametrize("cauchy", ["exact", "approximate"])
def test_batch_cpu_equals_vector_core(cauchy):
    fn = functions.get(BATCH_FUNCTION)
    lo, hi, X0 = _starts(fn, 4, 8, seed=2)   # eight starts, five or six different local minima
    X, f, nit, nfev, status, pg = batch.solve(fn, X0, lo, hi, m=5, pgtol=1e-8, factr=1e1,
                                               cauchy=cauchy, backend="cpu")
    for r in range(len(X0)):
        ref = core.minimize(lambda x: (fn.point(x), fn.gradient(x)), X0[r], lo, hi, m=5,
                            pgtol=1e-8, factr=1e1, cauchy=cauchy)
        assert abs(f[r] - ref.fun) <= 1e-8 * max(1.0, abs(ref.fun))
        assert abs(int(nit[r]) - ref.iterations) <= 15
        assert np.all(X[r] >= lo) and np.all(X[r] <= hi)
    assert np.all(status == 0)


def test_batch_matches_scipy_on_active_bounds():
    """Levy in a box that cuts off its minimiser (x* = 1): bounds active at every solution."""
    fn = functions.get(BATCH_FUNCTION)
    n = 4
    lo, hi = np.full(n, -0.5), np.full(n, 0.6)
    X0 = lo + (hi - lo) * np.random.default_rng(3).random((6, n))
    X, f, nit, *_ = batch.solve(fn, X0, lo, hi, pgtol=1e-9, factr=1e1, backend="cpu")
    for r in range(len(X0)):
        ref = _scipy(lambda x: (fn.point(x), fn.gradient(x)), X0[r], lo, hi)
        assert abs(f[r] - ref.fun) <= 1e-9 * max(1, abs(ref.fun))
        assert np.any((X[r] == hi) | (X[r] == lo))


def test_simulated_cuda_equals_cpu():
    fn = functions.get(BATCH_FUNCTION)
    lo, hi, X0 = _starts(fn, 2, 3)
    a = batch.solve(fn, X0, lo, hi, m=3, pgtol=1e-8, backend="cpu")
    b = batch.solve(fn, X0, lo, hi, m=3, pgtol=1e-8, backend="cuda", threads=2)
    for u, v in zip(a, b):   # the same bits (x, f, counts, status, pg); tests/test_lbfgsb_group.py relies on it
        np.testing.assert_array_equal(u, v)


def test_launch_caps_grow_towards_the_launch_time():
    from gpubench.methods import lbfgsb_gpu as L
    assert L._next_cap(1, 0.001, 15000) == 4                 # fast launches: at most 4x
    assert L._next_cap(100, 0.5 * L.LAUNCH_SECONDS, 15000) == 200
    assert L._next_cap(100, 20 * L.LAUNCH_SECONDS, 15000) == 5   # a slow launch: shrink
    assert L._next_cap(3, 100.0, 15000) == 1 and L._next_cap(8000, 0.0, 15000) == 15000


@pytest.mark.parametrize("cauchy", ["exact", "approximate"])
def test_capped_launches_equal_one_launch(cauchy):
    """A run cut into launches of 1 or 7 iterations per start (state kept between them, only the
    running starts launched) gives every start the same iterates as one uncapped launch."""
    fn = functions.get("levy")
    lo, hi, X0 = _starts(fn, 5, 12, seed=4)
    one = batch.solve(fn, X0, lo, hi, m=4, cauchy=cauchy, backend="cpu")
    assert len(set(one[2].tolist())) > 3            # starts end at different iterations
    for cap in (1, 7):
        cut = batch.solve(fn, X0, lo, hi, m=4, cauchy=cauchy, backend="cpu", cap=cap)
        for a, b in zip(one, cut):
            np.testing.assert_array_equal(a, b)
    run = batch.Starts(fn, X0, lo, hi, m=4, cauchy=cauchy, backend="cpu")
    assert run.advance(2) == 12 and set(run.res[:, 1]) == {2.0}   # every start paused after 2
    assert run.advance(10 ** 6) == 0 and run.advance(1) == 0 and run.launches == 2
    for a, b in zip(one, run.result()):
        np.testing.assert_array_equal(a, b)


def test_simulated_capped_launches_equal_one_launch():
    """The same on the GPU driver (under the simulator without a GPU): a live list of starts."""
    fn = functions.get("rosenbrock")
    lo, hi, X0 = _starts(fn, 2, 3)
    a = batch.solve(fn, X0, lo, hi, m=3, pgtol=1e-8, backend="cuda", threads=2)
    b = batch.solve(fn, X0, lo, hi, m=3, pgtol=1e-8, backend="cuda", threads=2, cap=3)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)


def _middle_system(SS, SY, k, theta):
    """[[-D, L^T], [L, theta S^T S]] (BLNZ eq. 3.4), the matrix whose inverse is the middle matrix."""
    k2 = 2 * k
    A = np.zeros((k2, k2))
    for a in range(k2):
        for b in range(k2):
            if a < k and b < k:
                A[a, b] = -SY[a, a] if a == b else 0.0
            elif a < k:
                A[a, b] = SY[b - k, a] if b - k > a else 0.0
            elif b < k:
                A[a, b] = SY[a - k, b] if a - k > b else 0.0
            else:
                A[a, b] = theta * SS[a - k, b - k]
    return A


def _middle_by_columns(solve, SS, SY, k, theta):
    """The middle matrix as the kernel formed it before issue 43: each column of the inverse by
    Gaussian elimination of a fresh copy of the system with that column's unit vector."""
    k2 = 2 * k
    M = np.zeros((k2, k2))
    for j in range(k2):
        col = np.zeros(k2)
        col[j] = 1.0
        assert solve(_middle_system(SS, SY, k, theta), k2, col)
        M[:, j] = col
    return M


def _pairs(seed, k, n=10, m=5):
    """SS, SY (m x m, the first k rows and columns used) and theta of k random pairs with s.y > 0."""
    rng = np.random.default_rng(seed)
    S, Y = rng.standard_normal((k, n)), rng.standard_normal((k, n))
    Y *= np.where(np.sum(S * Y, axis=1) < 0, -1.0, 1.0)[:, None]
    SS, SY = np.zeros((m, m)), np.zeros((m, m))
    SS[:k, :k], SY[:k, :k] = S @ S.T, S @ Y.T
    return SS, SY, float(np.sum(Y[-1] ** 2) / np.sum(S[-1] * Y[-1]))


def test_middle_matrix_from_one_factorisation_equals_column_solves():
    """The batch kernel's middle matrix M (one LU, then a solve per column) is bit for bit what
    2k fresh eliminations gave (issue 43: every start's iterates stay the same), pivoting included."""
    mod = batch.module(functions.get("levy"), "cpu")
    pivoted = 0
    for seed in range(60):
        k = 1 + seed % 5
        k2 = 2 * k
        SS, SY, theta = _pairs(seed, k)
        M, A, col = np.full((10, 10), np.nan), np.zeros((10, 10)), np.zeros(10)
        assert mod._lb_middle(SS, SY, k, theta, M, A, col)
        ref = _middle_by_columns(mod._lb_solve, SS, SY, k, theta)
        assert M[:k2, :k2].tobytes() == ref.tobytes(), seed
        A, piv = np.zeros((10, 10)), np.zeros(10)
        A[:k2, :k2] = _middle_system(SS, SY, k, theta)
        assert mod._lb_lu(A, k2, piv)
        pivoted += bool(np.any(piv[:k2] != np.arange(k2)))
    assert pivoted >= 5                         # the row swaps are exercised
    # an infinite or NaN pair product: the same outcome, and the same bits when it succeeds
    # (a NaN multiplier would make the skipped steps of a unit vector wrong: it fails instead)
    outcomes = set()
    for seed, bad, two in ((1, np.inf, True), (2, -np.inf, False), (3, np.nan, False), (4, np.inf, False),
                           (6, np.nan, True), (7, np.inf, True), (8, -np.inf, True), (9, np.inf, False)):
        k = 3 + seed % 3
        SS, SY, theta = _pairs(seed, k)
        SY[k - 1, 0] = bad
        if two:
            SY[k - 2, 0] = bad                               # two in a column: inf / inf = NaN
        M, A, col = np.zeros((10, 10)), np.zeros((10, 10)), np.zeros(10)
        ok = mod._lb_middle(SS, SY, k, theta, M, A, col)
        try:
            ref = _middle_by_columns(mod._lb_solve, SS, SY, k, theta)
        except AssertionError:
            ref = None
        assert ok == (ref is not None), seed
        assert not ok or M[:2 * k, :2 * k].tobytes() == ref.tobytes(), seed
        outcomes.add(ok)
    assert outcomes == {True, False}


class _Counted(np.ndarray):
    """An array that counts its element reads and writes (in ``n[0]``), views included."""

    def __getitem__(self, key):
        v = super().__getitem__(key)
        if isinstance(v, np.ndarray):
            v = v.view(_Counted)
            v.n = self.n
        else:
            self.n[0] += 1
        return v

    def __setitem__(self, key, value):
        self.n[0] += np.size(np.ndarray.__getitem__(self, key))
        super().__setitem__(key, value)


def test_middle_matrix_costs_one_factorisation(monkeypatch):
    """Forming M at k = m = 5 (what most iterations of a multi-start run do): under 30 % of the
    work-array element accesses of 2k fresh eliminations (issue 43: a start's iterations are
    latency-bound on a GPU thread, each access a trip to device memory, and this was half of them)."""
    mod = batch.module(functions.get("levy"), "cpu")
    for name in ("_lb_lu", "_lb_lu_solve", "_lb_solve"):
        monkeypatch.setattr(mod, name, getattr(mod, name).py_func)   # plain Python: arrays counted
    SS, SY, theta = _pairs(0, 5)
    n = [0]
    M, A, col = (np.zeros(s).view(_Counted) for s in ((10, 10), (10, 10), 10))
    for a in (M, A, col):
        a.n = n
    assert mod._lb_middle.py_func(SS, SY, 5, theta, M, A, col)
    one = n[0]
    n[0] = 0
    for j in range(10):
        A[:, :] = _middle_system(SS, SY, 5, theta)
        n[0] -= 100                                          # the copy-in above: not the solve
        for a in range(10):
            col[a] = 1.0 if a == j else 0.0
        assert mod._lb_solve(A, 10, col)
        for a in range(10):
            M[a, j] = col[a]
    by_columns = n[0] + 10 * 100                             # plus building A per column
    assert one < 0.3 * by_columns, (one, by_columns)


def test_time_limit_stops_between_launches(monkeypatch):
    """Past time_limit the method stops after the launch in progress, with the best so far and
    stop 'time_limit'; every launch reports the best value for the progress line."""
    from gpubench.methods import monitor
    from gpubench.methods import lbfgsb_gpu
    M = get_method("lbfgsb-gpu")
    fn = functions.get("levy")
    seen = []
    monkeypatch.setattr(lbfgsb_gpu, "report", lambda **v: seen.append(v["best"]))
    monkeypatch.setattr(lbfgsb_gpu, "_next_cap", lambda cap, seconds, maxiter: 2)
    clock = iter(range(10 ** 6))
    monkeypatch.setattr(monitor.Deadline, "expired", lambda self: self.time_limit is not None and next(clock) >= 3)
    r = M(fn, 4, starts=5, seed=1, backend="cpu", time_limit=100.0)
    assert r.stop == "time_limit" and not r.converged and "stopped at time_limit" in r.message
    # the first launch's cap is 1, then 2 each: 4 launches, the fourth ending past the limit
    assert r.history["launches"] == 4 and r.history["iterations"] == [1 + 3 * 2] * 5
    assert len(seen) == 4 and r.fun == seen[-1] == min(r.history["fun"])
    full = M(fn, 4, starts=5, seed=1, backend="cpu")
    assert full.stop in ("converged", "iterations") and full.history["launches"] >= 1


def test_method_result_and_settings():
    M = get_method("lbfgsb-gpu")
    fn = functions.get(BATCH_FUNCTION)
    r = M(fn, 3, starts=6, seed=0, backend="cpu")
    assert r.method == "lbfgsb-gpu" and len(r.status) == 6 and r.fun == min(r.history["fun"])
    assert r.fun < 1e-10 and r.options["starts"] == 6 and r.options["backend"] == "cpu"
    r2 = M(fn, 3, starts=6, seed=0, backend="cpu")
    assert r2.fun == r.fun                     # seeded
    with pytest.raises(InputError):
        M(fn, 3, cauchy="sometimes")
    with pytest.raises(InputError):
        M(fn, 3, starts=0)


def test_minimize_input_errors():
    with pytest.raises(InputError):
        minimize(_rosenbrock, np.zeros(3), [1, 1, 1], [0, 0, 0], backend="cpu")
    with pytest.raises(InputError):
        minimize(_rosenbrock, np.zeros(3), cauchy="fast", backend="cpu")


# ------------------------------------------------------------------ Tables 1 and 4 (paper 004)
def test_table1_bins():
    from gpubench.problems import fei2014 as R
    log = [(1.0, 1.0), (0.97, 1.0), (0.5, 1.0), (0.0, 0.0), (0.88, 1.0), (0.62, 1.0)]
    b = R.bin_counts(log)
    assert b["0"] == pytest.approx(200 / 6)           # equal, and 0 = 0
    assert b["0~5%"] == pytest.approx(100 / 6)
    assert b["10%~15%"] == pytest.approx(100 / 6)
    assert b["35%~40% (not in the paper)"] == pytest.approx(100 / 6)
    assert b[">=40%"] == pytest.approx(100 / 6)
    assert sum(b.values()) == pytest.approx(100)


def test_tables_run_and_report(tmp_path):
    from gpubench.problems import fei2014 as R
    s1 = R.load("table1", quick=True)
    r1 = R.run_table1(s1, "cpu", problems=["torsion", "combustion"], n=64)
    rec1 = dict(s1, result=r1, backend="cpu")
    text = R.report_table1(rec1)
    assert "85.23" in text and "Elastic-Plastic Torsion (n=64)" in text   # the published beside ours
    assert "Tables 2 and 3 (centroidal Voronoi tessellation, VTGPU): **not reproduced**" in text
    for row in r1["rows"]:
        assert sum(row["bins"].values()) == pytest.approx(100)
        assert abs(row["energy_diff_percent"]) < 1e-6
    s4 = R.load("table4", quick=True)
    r4 = R.run_table4(s4, "cpu", sizes=[400])
    text = R.report_table4(dict(s4, result=r4, backend="cpu"))
    assert "| 400 | 52 | 0.20 | 49 | 1.17 |" in text
    assert "## Not reproduced" in text
    row = r4["rows"][0]
    assert abs(row["energy_difference"]) <= 1e-9 * abs(row["scipy"]["fun"])


def test_torsion_stencil_form_equals_triangles():
    """The fused 5-point form (the GPU runs' torsion) is the triangle sum, value and gradient."""
    p = minpack2.make("torsion", 49)
    x = np.random.default_rng(5).standard_normal(49)
    f1, g1 = p.fg(x)
    f2, g2 = p.fg_stencil(x)
    assert f2 == pytest.approx(f1, rel=1e-13)
    np.testing.assert_allclose(g2, g1, rtol=1e-12, atol=1e-15)


def _kernel_run(source, fn, X0, lo, hi):
    """The batch kernel compiled from ``source`` (under the simulator in CI), run on X0."""
    from numba import cuda

    from gpubench.forms import codegen
    mod = codegen.load(fn.definition, "cuda", extensions=(source + batch._DRIVER["cuda"],))
    N, n = X0.shape
    V, SYb, SM, SV = batch.work_arrays(N, n, 5, "cuda")
    dX, dR = cuda.device_array((N, n)), cuda.to_device(np.zeros((N, batch.RESW)))
    mod.lbfgsb_starts[1, N](cuda.to_device(X0), cuda.to_device(lo), cuda.to_device(hi),
                            cuda.to_device(np.ascontiguousarray(fn.params(n))), 1.0, 5, 1e-9, 10.0,
                            15000, 15000, False, True, 15000, cuda.to_device(np.arange(N)),
                            V, SYb, SM, SV, dX, dR)
    return dX.copy_to_host(), dR.copy_to_host()[:, 0]


def test_kernel_with_an_upper_bound_ignored_is_caught():
    """The batch kernel's Cauchy point with its upper bounds ignored: the check against SciPy
    (the same one test_batch_matches_scipy_on_active_bounds makes) fails."""
    fn = functions.get("rosenbrock")
    lo, hi = np.full(2, -0.5), np.full(2, 0.6)
    X0 = lo + (hi - lo) * np.random.default_rng(3).random((3, 2))
    ref = [_scipy(lambda x: (fn.point(x), fn.gradient(x)), x0, lo, hi).fun for x0 in X0]
    src = batch.KERNEL_SOURCE
    assert "t = (X[_lb_u(i)] - hi[_lb_u(i)]) / g" in src
    _, f = _kernel_run(src, fn, X0, lo, hi)
    np.testing.assert_allclose(f, ref, rtol=1e-9)
    _, f_bad = _kernel_run(src.replace("t = (X[_lb_u(i)] - hi[_lb_u(i)]) / g", "t = math.inf"), fn, X0, lo, hi)
    assert not np.allclose(f_bad, ref, rtol=1e-9)


def test_host_reads_per_iteration():
    """Approximate Cauchy point + projected step: the host reads device values once for the
    memory update/stop test/next Cauchy point, once for the subspace products, once for the
    descent test, and once per function evaluation (numpy stands in for CuPy: ``fetch`` counts)."""
    p = minpack2.make("torsion", 400)
    c0 = core.SYNC["count"]
    r = minimize(p.fg_stencil, p.x0, p.lo, p.hi, m=5, pgtol=1e-7, factr=0.0, cauchy="approximate",
                 backend="cpu")
    syncs = core.SYNC["count"] - c0
    # + 1 for the start (f, pg) and + 1 for the first Cauchy point (nothing prepared yet);
    # the first iteration has no memory, so no subspace read
    assert r.converged and syncs == 1 + 1 + 3 * r.iterations - 1 + (r.nfev - 1)
    assert syncs / r.iterations < 4.2


def test_table4_report_shows_stored_gpu_runs(tmp_path, monkeypatch):
    """The GPU host's measurements are rendered from the stored file, the published beside them."""
    import json as _json
    from gpubench.problems import fei2014 as R
    run = {"iterations": 11, "ms_per_iteration": 0.125, "fun": -0.5, "capped": False}
    gpu = {"environment": {"gpu": {"name": "Test GPU", "driver": "1.2"}, "commit": "abc123", "versions": {}},
           "note": "n", "torsion": [{"n": 10000, "runs": [
               dict(run, solver="lbfgsb-gpu", cauchy="approximate"),
               dict(run, solver="jaxopt LBFGSB", iterations=22, capped=True),
               dict(run, solver="scipy L-BFGS-B (host CPU)", fun=-0.5 - 1e-12)]}]}
    path = tmp_path / "g.json"
    path.write_text(_json.dumps(gpu))
    monkeypatch.setattr(R, "GPU_RECORD", path)
    s4 = R.load("table4", quick=True)
    text = R.report_table4(dict(s4, result={"rows": []}, backend="cpu"))
    assert "Test GPU (driver 1.2" in text and "commit abc123" in text
    assert "| 10,000 | 237 / 1.92 | 241 / 3.59 | 11 / 0.12 | - | 22 (capped) / 0.12 | 11 / 0.12 | 1.00e-12 |" in text
    monkeypatch.setattr(R, "GPU_RECORD", tmp_path / "none.json")
    assert "GPU host" not in R.report_table4(dict(s4, result={"rows": []}, backend="cpu"))


@pytest.mark.parametrize("step", ["project", "truncate"])
def test_prefetched_cauchy_products_equal_fresh(monkeypatch, step):
    """The next Cauchy point's W^T d, read with the memory update, is bit for bit the product
    taken after the new pair is in its slot: prefetching must not change the rounding
    (a one-ulp difference changed torsion's iteration counts)."""
    fresh = core._approximate_cauchy
    checked = []

    def both(xp, x, g, lo, hi, mem, t, pre=None):
        if pre is not None:
            t1, dd, both = core.fetch(xp, *core._cauchy_scalars(xp, g, t, mem))
            assert (t1, dd) == pre[:2] and np.array_equal(mem.Wt_host(both), pre[2])
            checked.append(mem.k)
        return fresh(xp, x, g, lo, hi, mem, t, pre)

    monkeypatch.setattr(core, "_approximate_cauchy", both)
    p = minpack2.make("torsion", 400)
    r = minimize(p.fg_stencil, p.x0, p.lo, p.hi, m=3, pgtol=1e-7, factr=0.0, cauchy="approximate",
                 step=step, backend="cpu")
    assert r.iterations > 10 and len(checked) >= r.iterations - 1 and max(checked) == 3


def test_table1_report_adds_the_gpu_hosts_problems(tmp_path):
    """The full Table 1 report shows a stored GPU record's problems in a section of their own,
    beside the published percentages, and counts them as run; the quick report ignores it."""
    import json

    from gpubench.problems import fei2014 as R
    bins = {label: 0.0 for label, _, _ in R.BINS}
    bins["0"] = 100.0
    row = {"problem": "lennard-jones", "n": 39999, "bins": bins, "energy_diff_percent": 0.0,
           "approximate": {"iterations": 7}, "exact": {"iterations": 9}}
    gpu = tmp_path / "gpu.json"
    gpu.write_text(json.dumps({"result": {"backend": "cuda", "rows": [row]}, "note": "made up",
                               "environment": {"gpu": {"name": "Test GPU", "driver": "1"}, "commit": "abc"}}))
    full = dict(R.load("table1"), result={"rows": []}, backend="cpu", variant="full")
    text = R.report_table1(full, gpu_path=gpu)
    section = text.split("## The other problems")[1]
    assert "Lennard-Jones Clusters (n=39,999)" in section and "Test GPU" in section
    assert "| 0 | 100.00 / 100.00 |" in section          # ours / published
    assert "7 / 9" in section
    assert "Lennard-Jones" not in text.split("Not run in this record:")[1].split("\n")[0]
    quick = dict(R.load("table1", quick=True), result={"rows": []}, backend="cpu")
    assert "## The other problems" not in R.report_table1(quick, gpu_path=gpu)


def test_the_jaxopt_peer_row_says_how_to_install_it_when_missing():
    """lbfgsb-minpack with solver = "jaxopt" (the side-by-side experiment's peer): where jaxopt is not
    importable the row fails with one line naming the install, not a traceback."""
    import importlib.util
    from gpubench.problems import lbfgsb_rows
    settings = {"solver": "jaxopt", "m": 5, "pg_rel": 1e-5, "cap_seconds": 2.0}
    if importlib.util.find_spec("jaxopt") is not None and importlib.util.find_spec("jax") is not None:
        measured, _ = lbfgsb_rows.lbfgsb_minpack("minpack2:torsion", 400, settings)
        assert measured["iterations"] > 5 and measured["backend"].startswith("jaxopt")
        return
    with pytest.raises(InputError, match="pip install jaxopt"):
        lbfgsb_rows.lbfgsb_minpack("minpack2:torsion", 400, settings)


def test_energy_decrease_stop_rule():
    """Fei et al.'s rule (section 5): an iteration decreasing f by less than ftol_abs ends the run;
    a threshold the decreases never fall below keeps it going to the iteration limit."""
    lo, hi = BOXES["both"]
    seen = []
    r = minimize(_rosenbrock, np.zeros(N), lo, hi, pgtol=0.0, factr=0.0, ftol_abs=1e-64, backend="cpu",
                 callback=lambda x, f, pg: seen.append(f))
    assert r.status == 0 and r.message in (core.CONVERGED_FDEC, core.CONVERGED_FDEC_LNSRCH)
    if r.message == core.CONVERGED_FDEC:
        assert seen[-2] - seen[-1] < 1e-64 and all(a - b >= 1e-64 for a, b in zip(seen[:-2], seen[1:-1]))
    # a huge threshold stops at the first iteration; none (None) runs to the limit
    assert minimize(_rosenbrock, np.zeros(N), lo, hi, pgtol=0.0, factr=0.0, ftol_abs=1e30, backend="cpu").iterations == 1
    r3 = minimize(_rosenbrock, np.zeros(N), lo, hi, pgtol=0.0, factr=-1.0, maxiter=7, backend="cpu")
    assert r3.iterations == 7 and r3.status == 1


@pytest.mark.parametrize("cauchy", ["approximate", "exact"])
def test_the_energy_rule_ends_ours_where_it_ends_scipys_on_ginzburg_landau(cauchy):
    """1-D Ginzburg-Landau (paper 004 Table 1's problem whose n = 40,000 runs reach the safeguard), n = 100,
    box [-1, 1]: ours runs while every iteration decreases f and stops at the first that does not, as
    SciPy's L-BFGS-B at ftol = gtol = 0 does (its relative-reduction test at factr = 0 is a zero
    decrease); both leave the plateau near f(x0) and end at the same f*."""
    p = minpack2.make("ginzburg-landau-1d", 100, box=1.0)
    seen = []
    r = minimize(p.fg, p.x0, p.lo, p.hi, m=5, pgtol=0.0, factr=0.0, ftol_abs=1e-64, maxiter=5000, cauchy=cauchy,
                 backend="cpu", callback=lambda x, f, pg: seen.append(f))
    assert r.status == 0 and r.message in (core.CONVERGED_FDEC, core.CONVERGED_FDEC_LNSRCH)
    stop = len(seen) - (r.message == core.CONVERGED_FDEC)      # the iteration that met the rule, if one did
    assert all(a - b > 0 for a, b in zip([p.fg(p.x0)[0]] + seen[:stop - 1], seen[:stop]))
    s = so.minimize(p.fg, p.x0, jac=True, method="L-BFGS-B", bounds=np.stack([p.lo, p.hi], 1),
                    options=dict(maxcor=5, gtol=0.0, ftol=0.0, maxiter=5000, maxfun=50000))
    assert s.status == 0 or str(s.message).startswith("ABNORMAL")
    assert r.fun == pytest.approx(s.fun, rel=1e-12) and r.fun < -2.85


def test_table4_rows_take_the_energy_decrease_rule():
    """lbfgsb-minpack with stop = energy_decrease: SciPy's column and ours both end by the rule
    (converged, not capped), and past the pg rule's iterations."""
    from gpubench.problems import catalog, lbfgsb_rows
    base = catalog.PROCEDURES["lbfgsb-minpack"].settings
    for extra in ({"solver": "scipy"}, {"cauchy": "approximate", "backend": "cpu"}):
        pg, _ = lbfgsb_rows.lbfgsb_minpack("minpack2:torsion", 400, {**base, **extra, "cap_seconds": 0.0})
        en, _ = lbfgsb_rows.lbfgsb_minpack("minpack2:torsion", 400, {**base, **extra, "cap_seconds": 0.0,
                                                                    "stop": "energy_decrease"})
        assert en["converged"] and not en["capped"] and "FTOL_ABS" in en["message"]
        assert en["iterations"] > pg["iterations"] and en["fun"] <= pg["fun"]
    with pytest.raises(InputError):
        lbfgsb_rows.lbfgsb_minpack("minpack2:torsion", 400, {**base, "stop": "energy"})
    # a cap already spent: our column stops before its first iteration, recorded as capped
    cap, _ = lbfgsb_rows.lbfgsb_minpack("minpack2:torsion", 400, {**base, "cauchy": "approximate", "backend": "cpu",
                                                                  "cap_seconds": 1e-12})
    assert cap["capped"] and not cap["converged"] and cap["message"] == "capped" and cap["iterations"] == 0
