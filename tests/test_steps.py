"""Steps (jumps) in the function language: Floor, Trunc and Rint (issue 30).

- The point helpers ``p_floor``, ``p_trunc``, ``p_rint`` (ties to even, numpy's ``round``) equal
  the exact ``fractions.Fraction`` rounding on adversarial doubles (integers and k +- 1 ulp,
  half-integers and +- 1 ulp, 2**52 and beyond, huge, infinite, -0.0, subnormals), on the CPU
  and on the simulated GPU.
- ``ifloor``/``itrunc``/``irint`` return exactly [r(lo), r(hi)] and contain r at every exact
  point of the box; ``ijump`` is 0 only where r is truly constant on the box.
- A function with steps: its natural, mean value and best forms contain the exact value
  (a transcription in Fractions, sharing nothing with the generator) at corners and random points
  of random and adversarial boxes (endpoints on integers, k +- 1 ulp, point boxes on jumps), on
  the CPU and the simulated GPU; the GPU kernels compile to PTX.
- Broken variants are caught: floor(hi) taken as floor(hi - tiny), and the derivative of a step
  taken as 0 (sympy's almost-everywhere derivative), which makes the mean value form and the
  solver's monotonicity test discard the box holding the minimum.
- The interval solver certifies a saw-tooth whose minimum sits exactly on a jump.
"""
import math
import os
import subprocess
import sys
import types
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from numba import njit

from gpubench.forms import cards as formcache
from gpubench.forms import definition as D
from gpubench.forms.definition import Definition, Floor, Rational, Rint, Sum, Trunc, symbols, x, x1, xn, y
from gpubench.forms.function import TestFunction
from gpubench.interval import backends

ROOT = Path(__file__).resolve().parent.parent
HALF = Fraction(1, 2)
S1 = symbols("S1")


# ---------------------------------------------------------------- exact roundings
def r_floor(q):
    return Fraction(math.floor(q))


def r_trunc(q):
    return Fraction(math.trunc(q))


def r_rint(q):
    f = math.floor(q)
    d = q - f
    return Fraction(f + 1 if d > HALF or (d == HALF and f % 2) else f)


EXACT = {"floor": r_floor, "trunc": r_trunc, "rint": r_rint}


def adversarial(rng, count=400):
    """Doubles where roundings go wrong: integers and half-integers, one ulp either side, the
    edge of exact integers (2**52), huge, infinite, signed zeros, subnormals, random ones."""
    base = [0.0, -0.0, 5e-324, -5e-324, 1e-300, -1e-300, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5,
            0.49999999999999994, -0.49999999999999994, 2.0**51 + 0.5, -(2.0**51) - 0.5,
            2.0**52, -(2.0**52), 2.0**52 - 1, 2.0**52 + 1, 2.0**53, 1e300, -1e300,
            math.inf, -math.inf]
    for k in list(range(-4, 5)) + [2.0**51, -(2.0**51), 1e15 + 0.5]:
        for v in (float(k), k + 0.5):
            base += [v, math.nextafter(v, math.inf), math.nextafter(v, -math.inf)]
    mags = np.ldexp(rng.uniform(1, 2, count), rng.integers(-30, 55, count))
    base += list(np.where(rng.random(count) < 0.5, -mags, mags))
    return [float(v) for v in base]


@pytest.fixture(scope="module")
def ns_cpu():
    return backends.namespace("cpu")


@pytest.mark.parametrize("backend", ["cpu", "cuda"])
def test_point_roundings_are_exact(backend):
    ns = backends.namespace(backend)
    rng = np.random.default_rng(7)
    for name, exact in EXACT.items():
        f = ns[f"p_{name}"]
        for v in adversarial(rng, 200 if backend == "cpu" else 40):
            got = f(v)
            if math.isinf(v):
                assert got == v
                continue
            assert Fraction(got) == exact(Fraction(v)), (name, v, got)


@pytest.mark.parametrize("backend", ["cpu", "cuda"])
def test_interval_roundings_are_exact_and_jump_is_honest(backend):
    ns = backends.namespace(backend)
    rng = np.random.default_rng(11)
    pool = [v for v in adversarial(rng, 60) if math.isfinite(v)]
    cases = 600 if backend == "cpu" else 120
    jump = ns["ijump"]
    for name, exact in EXACT.items():
        op = ns[f"i{name}"]
        for _ in range(cases):
            a, b = sorted(rng.choice(pool, 2))
            if rng.random() < 0.3:  # narrow: a few ulps
                b = a
                for _ in range(int(rng.integers(0, 4))):
                    b = math.nextafter(b, math.inf)
            lo, hi = op(a, b)
            assert Fraction(lo) == exact(Fraction(a)) and Fraction(hi) == exact(Fraction(b)), (name, a, b)
            for t in rng.random(2):
                v = Fraction(a) + Fraction(float(t)) * (Fraction(b) - Fraction(a))
                assert Fraction(lo) <= exact(v) <= Fraction(hi)
            dlo, dhi = jump(lo, hi)
            constant = exact(Fraction(a)) == exact(Fraction(b))
            assert (dlo, dhi) == ((0.0, 0.0) if constant else (-math.inf, math.inf))
        assert all(math.isnan(v) for v in op(math.nan, math.nan))


# ---------------------------------------------------------------- a function with steps
def _steppy(name="steps_mixed"):
    return Definition(
        name=name, title=name, source="tests/test_steps.py",
        terms={S1: Sum((Floor(x) + Rational(1, 2)) ** 2 + Rint(3 * x - y) / 4 + x * Trunc(x - y)
                       + x ** 2 / 8)},
        expr=S1 + Floor(-xn / 2) + Rint(x1), domain=(-3, 3),
        xstar=lambda n: np.zeros(n), fstar=lambda n: 0.0)


def exact_value(v):
    """The same formula, transcribed by hand, in exact rationals."""
    q = [Fraction(float(c)) for c in v]
    s = Fraction(0)
    for a, b in zip(q[:-1], q[1:]):
        s += (r_floor(a) + HALF) ** 2 + r_rint(3 * a - b) / 4 + a * r_trunc(a - b) + a * a / 8
    return s + r_floor(-q[-1] / 2) + r_rint(q[0])


FN = TestFunction(_steppy())


def boxes(n, count, rng):
    """Random boxes, half of them adversarial: endpoints on integers and thirds, k +- 1 ulp,
    point boxes on jumps, and boxes whose edge is exactly where a jump sits."""
    lo = rng.uniform(-3, 3, (count, n))
    hi = lo + rng.uniform(0, 1, (count, n)) * rng.choice([1e-9, 1e-3, 0.3, 2.0], (count, 1))
    for r in range(count // 2):
        for d in range(n):
            k = float(rng.integers(-3, 3)) + rng.choice([0.0, 1 / 3, 0.5, 2 / 3])
            kind = rng.integers(0, 4)
            if kind == 0:
                lo[r, d] = hi[r, d] = k
            elif kind == 1:
                lo[r, d], hi[r, d] = math.nextafter(k, -9), math.nextafter(k, 9)
            elif kind == 2:
                lo[r, d], hi[r, d] = k - rng.uniform(0, 0.5), k
            else:
                lo[r, d], hi[r, d] = k, k + rng.uniform(0, 0.5)
    return np.clip(lo, -3, 3), np.clip(np.maximum(lo, hi), -3, 3)


def enclosure_misses(interval, lo, hi, rng, points=3):
    """(box, point, value, enclosure) wherever the exact value escapes ``interval(lo, hi)``."""
    misses = []
    n = lo.shape[1]
    for r in range(lo.shape[0]):
        flo, fhi = interval(lo[r], hi[r])
        pts = [lo[r], hi[r]] + [lo[r] + rng.random(n) * (hi[r] - lo[r]) for _ in range(points)]
        for p in pts:
            p = np.minimum(np.maximum(p, lo[r]), hi[r])
            v = exact_value(p)
            if not (Fraction(flo) <= v <= Fraction(fhi)) if math.isfinite(flo) and math.isfinite(fhi) \
                    else not (flo <= float(v) <= fhi):
                misses.append((lo[r].tolist(), hi[r].tolist(), p.tolist(), float(v), (flo, fhi)))
    return misses


def _forms(module, fn=FN):
    p = fn.params(2)

    def natural(lo, hi):
        return module.interval(lo, hi, p)

    def mean_value(lo, hi):
        n = lo.size
        c, glo, ghi, wlo, whi = (np.empty(n) for _ in range(5))
        return module.interval_mv(lo, hi, p, c, glo, ghi, wlo, whi)

    def best(lo, hi):
        a, b = natural(lo, hi)
        c, d = mean_value(lo, hi)
        return max(a, c), min(b, d)
    return {"natural": natural, "mean value": mean_value, "best": best}


def test_definition_with_steps_is_not_continuous():
    d = _steppy()
    assert d.steps and not d.continuous
    # sympy's floor and ceiling are taken as Floor
    e = Definition(name="s2", title="s2", source="t", terms={S1: Sum(sp.floor(x) + sp.ceiling(x))}, expr=S1,
                   domain=(-1, 1), xstar=lambda n: np.zeros(n), fstar=lambda n: 0.0)
    assert e.terms[S1].term == Floor(x) - Floor(-x) and not e.continuous
    assert Floor(Rational(-5, 2)) == -3 and Trunc(Rational(-5, 2)) == -2
    assert Rint(Rational(5, 2)) == 2 and Rint(Rational(7, 2)) == 4 and Rint(Rational(-5, 2)) == -2


def test_every_form_encloses_the_exact_value():
    rng = np.random.default_rng(3)
    lo, hi = boxes(2, 250, rng)
    for name, form in _forms(FN.module("cpu")).items():
        assert enclosure_misses(form, lo, hi, np.random.default_rng(4)) == [], name
    # point values agree with the exact ones where no rounding is near a jump
    pts = rng.uniform(-3, 3, (40, 2))
    for p in pts:
        assert abs(FN.point(p) - float(exact_value(p))) <= 1e-12


def test_gpu_forms_enclose_under_the_simulator():
    # natural, mean value and best kernels; not compared with the CPU's bounds: the simulated GPU
    # rounds each operation exactly once in the outward direction, the CPU steps an ulp after
    # rounding to nearest, and a step turns that ulp into a whole integer near a jump
    m = FN.module("cuda")
    rng = np.random.default_rng(5)
    lo, hi = boxes(2, 12, rng)
    p = np.array(FN.params(2))
    for kernel in ("intervals", "intervals_mv", "intervals_best"):
        flo, fhi = np.empty(len(lo)), np.empty(len(lo))
        work = [] if kernel == "intervals" else [np.empty_like(lo) for _ in range(5)]
        getattr(m, kernel)[(len(lo) + 3) // 4, 4](lo, hi, p, flo, fhi, *work)
        gpu = {(tuple(a), tuple(b)): (u, v) for a, b, u, v in zip(lo, hi, flo, fhi)}
        assert enclosure_misses(lambda a, b: gpu[tuple(a), tuple(b)], lo, hi, rng) == [], kernel


PTX_SCRIPT = r'''
from numba import float64 as F
from gpubench.interval.backends import namespace
from gpubench.device.ptx import compile_ptx
ns = namespace("cuda")
def make(op):
    def f(a, b):
        return op(a, b)
    return f
for name in ("ifloor", "itrunc", "irint", "ijump"):
    ptx = compile_ptx(make(ns[name]), (F, F))
    assert ".func" in ptx and "fma" not in ptx, name
import numba
import tests_steps_defn as M
from gpubench.forms.function import TestFunction
fn = TestFunction(M.defn())
mod = fn.module("cuda")
lo = __import__("numpy").zeros((4, 2))
sig = tuple(numba.typeof(a) for a in (lo, lo, fn.params(2), lo[:, 0].copy(), lo[:, 0].copy()))
ptx = compile_ptx(mod.intervals, sig, device=False)
assert ".entry" in ptx
print("ok")
'''


def test_step_ops_and_kernels_compile_to_ptx(tmp_path):
    helper = tmp_path / "tests_steps_defn.py"
    helper.write_text("import numpy as np\n"
                      "from gpubench.forms.definition import Definition, Floor, Rint, Trunc, Rational, Sum, "
                      "symbols, x, y, xn\n"
                      "S1 = symbols('S1')\n"
                      "def defn():\n"
                      "    return Definition(name='steps_ptx', title='t', source='t', terms={S1: Sum("
                      "Floor(x) * Rint(3 * x - y) + Trunc(x - y))}, expr=S1 + Floor(-xn / 2), domain=(-3, 3), "
                      "xstar=lambda n: np.zeros(n), fstar=lambda n: 0.0)\n")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(ROOT), env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-c", PTX_SCRIPT], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-2000:]


# ---------------------------------------------------------------- broken variants are caught
def _broken_module(fn, **ops):
    jit = njit(error_model="numpy")
    ns = dict(backends.namespace("cpu"), **{k: jit(v) for k, v in ops.items()})
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(backends, "namespace", lambda backend: ns)
        mp.setattr(formcache, "decorators", lambda backend: (jit, jit))
        broken = types.ModuleType("broken_steps")
        exec(compile(fn.source_code("cpu"), "<broken steps>", "exec"), broken.__dict__)
    finally:
        mp.undo()
    return broken


def _floor_below_hi(alo, ahi):  # floor(hi - tiny): loses the integer when hi sits on it
    return math.floor(alo) * 1.0, math.floor(ahi - 1e-12) * 1.0


def _jump_zero(vlo, vhi):  # sympy's derivative of floor: 0 almost everywhere
    return 0.0, 0.0


def test_checker_catches_floor_of_hi_minus_tiny():
    broken = _broken_module(FN, ifloor=_floor_below_hi)
    rng = np.random.default_rng(3)
    lo, hi = boxes(2, 250, rng)
    bad = enclosure_misses(_forms(broken)["natural"], lo, hi, np.random.default_rng(4))
    assert len(bad) >= 5, len(bad)


def test_checker_catches_a_zero_derivative_across_jumps():
    broken = _broken_module(FN, ijump=_jump_zero)
    rng = np.random.default_rng(3)
    lo, hi = boxes(2, 250, rng)
    assert enclosure_misses(_forms(broken)["natural"], lo, hi, np.random.default_rng(4)) == []
    bad = enclosure_misses(_forms(broken)["mean value"], lo, hi, np.random.default_rng(4))
    assert len(bad) >= 20, len(bad)
    assert enclosure_misses(_forms(broken)["best"], lo, hi, np.random.default_rng(4))


# ---------------------------------------------------------------- the solver
def _saw(name):
    # sum of x - 2 floor(x) on [0.3, 3.7]: decreasing jumps of 2, slope 1; the minimum -3 per
    # coordinate sits exactly on the jump x = 3 (f -> -1 from the left)
    return Definition(name=name, title=name, source="tests/test_steps.py", terms={S1: Sum(x - 2 * Floor(x))},
                      expr=S1, domain=(Rational(3, 10), Rational(37, 10)),
                      xstar=lambda n: np.full(n, 3.0), fstar=lambda n: -3.0 * n)


def _solve(defn, inclusion):
    from gpubench.methods import minimize
    return minimize(TestFunction(defn), 2, method="interval", backend="cpu", tol=1e-6,
                    inclusion=inclusion, evaluation="full", time_limit=30.0)


def test_interval_solver_certifies_a_minimum_on_a_jump():
    r = _solve(_saw("steps_saw"), "best")
    assert r.glb <= -6.0 <= r.gub and r.gub - r.glb <= 1e-6
    assert any(np.all(lo <= 3.0) and np.all(3.0 <= hi)
               for lo, hi in zip(np.asarray(r.regions_lo), np.asarray(r.regions_hi)))


def test_solver_with_a_zero_step_derivative_loses_the_minimum(monkeypatch, tmp_path):
    # the broken variant: d floor/du = 0 everywhere; the monotonicity test (slope 1 > 0) then
    # discards every box off the domain's lower edge, the minimum's with them
    monkeypatch.setenv("GPUBENCH_CACHE", str(tmp_path))
    monkeypatch.setattr(D._Step, "fdiff", lambda self, argindex=1: sp.Integer(0))
    sp.core.cache.clear_cache()  # sympy remembers derivatives: neither take nor leave a broken one
    try:
        r = _solve(_saw("steps_saw_broken_derivative"), "natural")
    except RuntimeError as e:  # every region ruled out
        assert "ruled out" in str(e)
        return
    finally:
        monkeypatch.undo()
        sp.core.cache.clear_cache()
    assert not (r.glb <= -6.0 <= r.gub)



# ---------------------------------------------------------------- subdomain-bnb's incumbent
def test_subdomain_incumbent_value_is_never_below_f_at_a_jump(monkeypatch):
    from gpubench.methods import subdomain_bnb as B
    defn = Definition(name="steps_neg_floor5", title="t", source="tests/test_steps.py",
                      terms={S1: Sum(-Floor(5 * x))}, expr=S1, domain=(0, 1),
                      xstar=lambda n: np.full(n, 0.8), fstar=lambda n: -4.0 * n)
    search = B.SubdomainSearch(TestFunction(defn), 1, B.SubdomainBnBSettings(backend="cpu", local_solve=False))
    v = 0.6  # the double just below 3/5: 5 v rounds to 3.0 in floating point, exactly it is below 3
    exact = -r_floor(5 * Fraction(v))
    assert exact == -2 and search.obj.point(np.array([v])) == -3.0  # the float value undercuts f
    value, _ = search.upper_bound((np.array([v]), np.array([v])))
    assert Fraction(value) >= exact
    # the broken variant (the point form's value, as for a continuous function) is caught
    monkeypatch.setattr(B.SubdomainSearch, "value", lambda self, x: self.obj.point(x))
    value, _ = search.upper_bound((np.array([v]), np.array([v])))
    assert not Fraction(value) >= exact


def test_array_form_of_steps_matches_the_exact_value():
    from gpubench.forms.arrayform import array_form
    rng = np.random.default_rng(9)
    X = rng.uniform(-3, 3, (50, 2))
    X[:5] = [[0.5, 1.0], [-1.0, 2.0], [2.5, 0.0], [0.0, -0.0], [1.5, -2.5]]  # on jumps and ties
    values = np.asarray(array_form(FN, 2, "numpy")(X))
    for r in range(len(X)):
        assert abs(values[r] - float(exact_value(X[r]))) <= 1e-12, (X[r], values[r])
