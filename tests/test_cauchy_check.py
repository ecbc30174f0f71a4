"""The independent Cauchy-point code of Table 1's triangulation (gpubench.problems.cauchy_check):
BLNZ's Algorithm CP against a brute-force search of the quadratic model along the projected path,
and the paper's approximation equal to it exactly when the minimiser lies on the first segment."""
import numpy as np
import pytest

from gpubench.problems import cauchy_check as C


def _model(x, g, lo, hi, mem, t):
    """The quadratic model m(t) = g'z + z'Bz/2 at z = P(x - t g) - x, B in compact form."""
    z = np.clip(x - t * g, lo, hi) - x
    W, M = mem.compact()
    Bz = mem.theta * z - (W @ (M @ (W.T @ z)) if W is not None else 0.0)
    return float(g @ z + 0.5 * z @ Bz)


def _first_local_min(x, g, lo, hi, mem, tmax, k=20001):
    ts = np.linspace(0.0, tmax, k)
    ms = np.array([_model(x, g, lo, hi, mem, t) for t in ts])
    j = next((i for i in range(1, k - 1) if ms[i] <= ms[i - 1] and ms[i] < ms[i + 1]), int(np.argmin(ms)))
    return ts[j], ts[1] - ts[0]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_the_exact_step_is_the_first_local_minimiser_of_the_model(seed):
    rng = np.random.default_rng(seed)
    n = 6
    lo, hi = -np.ones(n), np.ones(n)
    mem = C.Memory(3)
    for _ in range(seed):          # 0..3 correction pairs of a convex quadratic's curvature
        s = rng.normal(size=n)
        mem.push(s, (1.0 + rng.uniform(0.0, 3.0, n)) * s)
    x, g = rng.uniform(-0.9, 0.9, n), rng.normal(size=n) * 3.0
    tc, ts = C.cauchy_steps(x, g, lo, hi, mem)
    with np.errstate(divide="ignore"):
        tb = np.where(g < 0, (x - hi) / g, (x - lo) / g)
    want, h = _first_local_min(x, g, lo, hi, mem, float(tb.max()) * 1.05)
    assert ts == pytest.approx(want, abs=2 * h)
    # the paper's approximation: t* itself when t* lies before the first breakpoint, else t_1
    t1 = float(tb.min())
    assert tc == pytest.approx(ts if ts < t1 else t1, rel=1e-12, abs=1e-15)


def test_a_table1_case_along_scipys_path_bins_every_iteration():
    from gpubench.problems import minpack2
    p = minpack2.make("torsion", 400, box=1.0)
    log, run = C.cauchy_log(p, 5)
    assert run["status"] == 0 and len(log) == run["iterations"] >= 20
    tc, ts = np.array(log).T
    assert np.all(tc <= ts * (1 + 1e-12))     # the approximation never goes past the exact step


def test_the_streamed_log_is_the_log_of_the_whole_path():
    """cauchy_log keeps one iterate, not SciPy's whole path (100,000 x 40,000 doubles would not fit):
    its steps are those computed afterwards from the stored path, the memory rebuilt as it goes."""
    from gpubench.problems import minpack2
    p = minpack2.make("torsion", 100, box=1.0)
    path = []
    nit, *_ = C.scipy_path(p, 5, visit=lambda x, g: path.append((x, g)))
    mem, want = C.Memory(5), []
    for (x, g), (x1, g1) in zip(path, path[1:]):
        want.append(C.cauchy_steps(x, g, p.lo, p.hi, mem))
        mem.push(x1 - x, g1 - g)
    log, run = C.cauchy_log(p, 5)
    assert run["iterations"] == nit and len(path) == nit + 1 and log == want


def test_scipy_path_with_the_objective_on_another_array_module_takes_the_same_path():
    """``xp`` (CuPy on the GPU host) only moves the iterate to the objective's device and its gradient
    back: a stand-in module that copies in both directions gives the same iterations and energy."""
    import types

    import numpy as np

    from gpubench.problems import cauchy_check, minpack2
    moved = {"to": 0, "back": 0}

    def to(x):
        moved["to"] += 1
        return np.array(x, copy=True)

    def back(g):
        moved["back"] += 1
        return np.array(g, copy=True)
    fake = types.SimpleNamespace(asarray=to, asnumpy=back)
    p = minpack2.make("torsion", 100, box=1.0)
    host = cauchy_check.scipy_path(p, 5, maxiter=200)
    there = cauchy_check.scipy_path(p, 5, maxiter=200, xp=fake)
    assert there == host and moved["to"] > 0 and moved["to"] == moved["back"]
