"""The function library: optima, point and gradient forms, input errors, the CLI, user files.

High-precision references come from ``tests/oracles.py``: the sympy definition
expanded at a fixed n and evaluated with python-flint arb, never the generated
code.
"""
import json
import math
import os
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path

import mpmath
import numpy as np
import pytest
from flint import arb

import gpubench.functions as F
from gpubench import cli
from gpubench.forms.function import InputError, TestFunction

import oracles as O

NAMES = F.names()
EXPECTED_NAMES = sorted(
    "ackley alpine02 belegundu breiman fu griewank levy levy_delta rastrigin rosenbrock salomon "
    "shifted_griewank shifted_rastrigin shifted_rosenbrock shifted_sphere styblinski "
    "styblinski_tang zabinsky".split())
DIMS = (2, 10, 50)


def _rng(*key):
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


# ---------------------------------------------------------------- independent optimum values
def _alpine02_coordinate():
    """Root of d/dx (sqrt(x) sin x) = (sin x + 2x cos x) / (2 sqrt x) in [7.5, 8.3], by bisection."""
    with mpmath.workdps(50):
        a, b = mpmath.mpf("7.5"), mpmath.mpf("8.3")
        g = lambda t: mpmath.sin(t) + 2 * t * mpmath.cos(t)  # noqa: E731
        assert g(a) * g(b) < 0
        for _ in range(200):
            m = (a + b) / 2
            if g(a) * g(m) <= 0:
                b = m
            else:
                a = m
        c = (a + b) / 2
        return c, mpmath.sqrt(c) * mpmath.sin(c)


def closed_form_fstar(name, n):
    """f*(n) from the literature / by hand, independent of the library's fstar."""
    if name == "alpine02":
        return float(_alpine02_coordinate()[1] ** n)
    return {
        "ackley": 0.0, "belegundu": -1.0, "breiman": -0.1 * n, "fu": 1.0, "griewank": 0.0,
        "levy": 0.0, "levy_delta": -1.0, "rastrigin": 0.0, "rosenbrock": 0.0, "salomon": 0.0,
        "shifted_griewank": 0.0, "shifted_rastrigin": 0.0, "shifted_rosenbrock": 0.0,
        "shifted_sphere": 0.0, "styblinski": -4.0 * n, "styblinski_tang": -39.16616570377142 * n,
        "zabinsky": -3.5,
    }[name]


def close(a, b, rel=1e-12, abs_=1e-12):
    return abs(a - b) <= (abs_ if b == 0 else rel * abs(b))


def test_registry_lists_every_function():
    assert NAMES == EXPECTED_NAMES
    for name in NAMES:
        fn = F.get(name)
        assert isinstance(fn, TestFunction) and fn.name == name
        assert F.get(fn) is fn
        assert fn.sense in ("min", "max")
        assert fn.continuous == (name != "levy_delta")
        assert name in repr(fn) and fn.title and fn.source


def test_get_makes_only_the_named_definition():
    """A new process asking for one library function imports its module alone (making every
    definition is a fifth of a second of sympy); listing the functions still finds them all."""
    code = ("import sys; from gpubench import functions as F; F.get('levy')\n"
            "print(sorted(m for m in sys.modules if m.startswith('gpubench.functions.')))\n"
            "F.get('zabinsky'); print(F.names())")
    # without the cached cards (with them, a function already seen imports no module at all:
    # tests/test_formcache.py)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).resolve().parents[1], env=dict(os.environ, GPUBENCH_NO_CARDS="1"))
    assert out.returncode == 0, out.stderr
    first, listed = out.stdout.strip().splitlines()
    assert first == "['gpubench.functions.levy']"
    assert listed == str(EXPECTED_NAMES)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("n", DIMS)
def test_optimum(name, n):
    fn = F.get(name)
    lo, hi = fn.bounds(n)
    xs = fn.xstar(n)
    assert xs.shape == lo.shape == hi.shape == (n,)
    assert np.all(lo < hi)
    assert np.all(lo <= xs) and np.all(xs <= hi), "x* outside bounds(n)"
    fstar = fn.fstar(n)
    # the declared f* is the known closed form
    assert close(fstar, closed_form_fstar(name, n), rel=1e-13, abs_=0.0), (fstar, closed_form_fstar(name, n))
    # the point form at x* gives f*
    assert close(fn.point(xs), fstar), (fn.point(xs), fstar)
    # and so does the exact function (arb, from the sympy definition)
    assert close(O.oracle(fn, n).value_float(xs), fstar), O.oracle(fn, n).value_float(xs)


def test_alpine02_optimum_is_not_the_2d_value():
    fn = F.get("alpine02")
    c, best = _alpine02_coordinate()
    assert abs(float(c) - 7.917052684666) < 1e-10
    assert abs(fn.xstar(5)[0] - float(c)) <= 2e-15
    for n in (1, 2, 3, 10):
        assert close(fn.fstar(n), float(best) ** n, rel=1e-13)
    assert abs(fn.fstar(2) - 7.8856) < 1e-4
    # not the 2-D value for every n
    assert abs(fn.fstar(10) - 7.8856) > 1e4 and abs(fn.fstar(3) - 7.8856) > 10
    # (c, ..., c) is the global maximiser for every n: on a fine grid of [3, 9], sqrt(x) sin(x)
    # peaks at c, and its most negative value is smaller in magnitude than the peak
    t = np.linspace(3, 9, 2_000_001)
    h = np.sqrt(t) * np.sin(t)
    assert abs(t[np.argmax(h)] - float(c)) < 1e-5
    assert -h.min() < h.max()


def test_styblinski_tang_coordinate_is_global():
    fn = F.get("styblinski_tang")
    t = np.linspace(-5, 5, 2_000_001)
    h = (t**4 - 16 * t**2 + 5 * t) / 2
    assert abs(t[np.argmin(h)] - fn.xstar(1)[0]) < 1e-5
    assert close(h.min(), -39.16616570377142, rel=1e-9)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("n", DIMS)
def test_xstar_is_a_local_optimum(name, n):
    """No small perturbation of x* improves f (in the function's sense), exactly (arb)."""
    fn = F.get(name)
    orc = O.oracle(fn, n)
    xs = fn.xstar(n)
    lo, hi = fn.bounds(n)
    rng = _rng("perturb", name, n)
    with O.precision(256):
        fs = orc.value(xs, 256)
        for k in range(24):
            size = (1e-8, 1e-5, 1e-3)[k % 3]
            d = rng.standard_normal(n) if k % 2 else np.eye(n)[rng.integers(n)] * rng.choice([-1, 1])
            x = np.clip(xs + size * max(1.0, float(np.max(np.abs(xs)))) * d, lo, hi)
            assert not np.array_equal(x, xs)
            v = orc.value(x, 256)
            if fn.sense == "min":
                assert v >= fs, (name, n, x, v, fs)
            else:
                assert v <= fs, (name, n, x, v, fs)


@pytest.mark.parametrize("name", NAMES)
def test_batched_forms_equal_single_forms(name):
    fn = F.get(name)
    m = fn.module("cpu")
    for n in (1, 2, 10, 50):
        rng = _rng("batch", name, n)
        lo, hi = fn.bounds(n)
        X = rng.uniform(lo, hi, (40, n))
        X[0] = fn.xstar(n)
        out = fn.points(X)
        assert out.shape == (40,)
        assert np.array_equal(out, [fn.point(x) for x in X])
        G, W = np.empty_like(X), np.empty_like(X)
        m.gradients(X, fn.params(n), G, W)
        for r in range(4):
            assert np.array_equal(G[r], fn.gradient(X[r]), equal_nan=True)
        L = np.minimum(X, X[::-1])
        H = np.maximum(X, X[::-1])
        flo, fhi = O.run_intervals(fn, m, L, H)
        glo, ghi = O.run_interval_gradients(fn, m, L, H)
        for r in range(4):
            assert (flo[r], fhi[r]) == fn.interval(L[r], H[r])
            a, b = fn.interval_gradient(L[r], H[r])
            assert np.array_equal(glo[r], a) and np.array_equal(ghi[r], b)


# ---------------------------------------------------------------- gradients
def fd_gradient(orc, x, h_bits=60, prec=400):
    """Central finite differences of the arb value (step 2^-h_bits, error ~ 2^-2h_bits)."""
    with O.precision(prec):
        h = arb(2) ** (-h_bits)
        X = [arb(float(v)) for v in x]
        g = []
        for k in range(len(x)):
            up, dn = list(X), list(X)
            up[k] += h
            dn[k] -= h
            g.append((orc.smooth_value_arb(up) - orc.smooth_value_arb(dn)) / (2 * h))
        return np.array([float(v.mid()) for v in g])


def assert_gradient_close(g, ref, rtol, what):
    scale = np.abs(ref) + 1e-6 * np.max(np.abs(ref)) + 1e-300
    err = np.abs(g - ref) / scale
    assert np.all(err <= rtol), f"{what}: rel error {err.max():.3g} at {np.argmax(err)}: {g} vs {ref}"


@pytest.mark.parametrize("name", NAMES)
def test_gradient_matches_high_precision(name):
    fn = F.get(name)
    worst = 0.0
    for n in (1, 2, 3, 6):
        orc = O.oracle(fn, n)
        rng = _rng("grad", name, n)
        lo, hi = fn.bounds(n)
        for r in range(12):
            x = rng.uniform(lo + 0.01 * (hi - lo), hi - 0.01 * (hi - lo))
            assert not orc.in_spike(x)
            ref = orc.gradient_float(x, prec=200)  # sympy.diff of the full expression, in arb
            fd = fd_gradient(orc, x)  # finite differences of the arb value: no sympy.diff
            assert_gradient_close(ref, fd, 1e-12, f"{name} n={n}: symbolic vs finite differences")
            g = fn.gradient(x)
            assert_gradient_close(g, ref, 1e-8, f"{name} n={n}: generated gradient")
            scale = np.abs(ref) + 1e-6 * np.max(np.abs(ref)) + 1e-300
            worst = max(worst, float(np.max(np.abs(g - ref) / scale)))
    print(f"{name}: worst relative gradient error {worst:.2e}")


# ---------------------------------------------------------------- bad input
@pytest.fixture(scope="module")
def levy():
    return F.get("levy")


@pytest.mark.parametrize("call, message", [
    (lambda f: f.point([1.0, math.nan]), "x contains NaN"),
    (lambda f: f.point([1.0, math.inf]), "infinite"),
    (lambda f: f.point(np.ones((2, 2))), "1-D"),
    (lambda f: f.point([]), "at least one coordinate"),
    (lambda f: f.gradient([math.nan]), "NaN"),
    (lambda f: f.points(np.ones(3)), "shape (N, n)"),
    (lambda f: f.points(np.ones((3, 0))), "shape (N, n)"),
    (lambda f: f.interval([2.0, 0.0], [1.0, 1.0]), "empty in coordinate 1"),
    (lambda f: f.interval([0.0, 2.0], [1.0, 1.0]), "empty in coordinate 2"),
    (lambda f: f.interval([0.0, 0.0], [1.0]), "differ in length"),
    (lambda f: f.interval([math.nan], [1.0]), "lo contains NaN"),
    (lambda f: f.interval([0.0], [math.nan]), "hi contains NaN"),
    (lambda f: f.interval_gradient([1.0], [0.0]), "empty in coordinate 1"),
    (lambda f: f.interval_gradient(np.zeros((1, 2)), np.ones((1, 2))), "1-D"),
    (lambda f: f.bounds(0), "at least 1"),
    (lambda f: f.xstar(-1), "at least 1"),
    (lambda f: f.fstar(0), "at least 1"),
    (lambda f: f.params(0), "at least 1"),
    (lambda f: f.bounds(2.5), "must be an integer"),
    (lambda f: f.bounds(True), "must be an integer"),
])
def test_bad_input_raises_input_error(levy, call, message):
    with pytest.raises(InputError) as info:
        call(levy)
    text = str(info.value)
    assert message in text and "\n" not in text


def test_unknown_function_name():
    with pytest.raises(InputError, match="unknown function 'no_such_function'"):
        F.get("no_such_function")
    with pytest.raises(InputError, match="cannot read function file"):
        F.get("/nonexistent/dir/f.py:F")
    assert issubclass(InputError, ValueError)


def test_interval_forms_accept_infinite_bounds(levy):
    # an unbounded box is a valid input; the enclosure is then unbounded or [0, inf)
    flo, fhi = levy.interval([-math.inf, 0.0], [math.inf, 1.0])
    assert flo <= 0.0 and fhi == math.inf


# ---------------------------------------------------------------- CLI
def run_main(argv, capsys):
    rc = cli.main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("argv, message", [
    (["eval", "no_such_function", "--dim", "2", "--x", "1"], "unknown function"),
    (["eval", "levy", "--dim", "0", "--x", "1"], "not a positive integer"),
    (["eval", "levy", "--dim", "-2", "--x", "1"], "not a positive integer"),
    (["eval", "levy", "--dim", "2", "--x", "nan"], "NaN"),
    (["eval", "levy", "--dim", "2", "--x", "1", "nan"], "NaN"),
    (["eval", "levy", "--dim", "2", "--x", "1", "2", "3"], "--dim is 2"),
    (["eval", "levy", "--dim", "2", "--x", "abc"], "not a number"),
    (["eval", "levy", "--dim", "2", "--box", "2:1"], "LO must not exceed HI"),
    (["eval", "levy", "--dim", "2", "--box", "0:1,3:2"], "coordinate 2"),
    (["eval", "levy", "--dim", "2", "--box", "nan:1"], "NaN"),
    (["eval", "levy", "--dim", "2"], "exactly one of --x"),
    (["eval", "levy", "--dim", "two", "--x", "1"], "not an integer"),
    (["functions", "--dim", "0"], "not a positive integer"),
    (["no_such_command"], "invalid choice"),
])
def test_cli_errors_are_one_line(argv, message, capsys):
    rc, out, err = run_main(argv, capsys)
    assert rc == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("gpubench: error: ") and message in lines[0], err
    assert "Traceback" not in err + out


def test_cli_entry_point_errors_without_traceback():
    exe = Path(sys.executable).with_name("gpubench")
    for argv, message in [(["eval", "nope", "--dim", "2", "--x", "1"], "unknown function"),
                          (["eval", "levy", "--dim", "0", "--x", "1"], "not a positive integer"),
                          (["eval", "levy", "--dim", "1", "--box", "3:1"], "LO must not exceed HI"),
                          (["functions", "--dim", "0"], "not a positive integer")]:
        p = subprocess.run([str(exe)] + argv, capture_output=True, text=True, timeout=120)
        assert p.returncode == 2, (argv, p.stderr)
        assert p.stderr.count("\n") == 1 and p.stderr.startswith("gpubench: error: "), p.stderr
        assert message in p.stderr and "Traceback" not in p.stderr


def test_cli_eval_and_functions(capsys):
    rc, out, err = run_main(["eval", "levy", "--dim", "3", "--x", "1", "2", "3", "--json"], capsys)
    assert rc == 0 and err == ""
    d = json.loads(out)
    levy = F.get("levy")
    assert d["value"] == levy.point([1.0, 2.0, 3.0])
    assert d["gradient"] == levy.gradient([1.0, 2.0, 3.0]).tolist()
    rc, out, err = run_main(["eval", "levy", "--dim", "2", "--box", "0:1", "--json"], capsys)
    assert rc == 0
    d = json.loads(out)
    assert tuple(d["value"]) == levy.interval([0.0, 0.0], [1.0, 1.0])
    rc, out, err = run_main(["functions", "--dim", "3", "--json"], capsys)
    assert rc == 0
    rows = json.loads(out)
    assert [r["name"] for r in rows] == EXPECTED_NAMES
    for r in rows:
        assert r["fstar"] == F.get(r["name"]).fstar(3)
    rc, out, err = run_main(["functions"], capsys)
    assert rc == 0 and all(name in out for name in EXPECTED_NAMES)


# ---------------------------------------------------------------- a user's own function
USER_FILE = '''
import numpy as np
from gpubench.forms.definition import (Definition, Prod, Rational, Sum, cos, exp, i, n, pi, sqrt,
                                 symbols, x, y)

S1, S2, P = symbols("S1 S2 P")

MYFUN = Definition(
    name="myfun",
    title="A user's test function",
    source="tests/test_functions.py",
    terms={S1: Sum((x - Rational(1, 3)) ** 2 * (2 + cos(x * y))),
           S2: Sum(sqrt(1 + x ** 2) / i),
           P: Prod(exp(-x ** 2 / 10))},
    expr=S1 / n + S2 - P + Rational(7, 10),
    domain=(-3, 4),
    xstar=lambda dim: np.full(dim, 1 / 3),
    fstar=lambda dim: 0.0,
)
'''


@pytest.fixture()
def user_file(tmp_path):
    p = tmp_path / "userfun.py"
    p.write_text(textwrap.dedent(USER_FILE))
    return p


def test_user_defined_function(user_file):
    fn = F.load_file(str(user_file), "MYFUN")
    fn2 = F.get(f"{user_file}:MYFUN")
    assert fn.name == fn2.name == "myfun" and fn.sense == "min"
    assert "myfun" not in F.names()
    rng = _rng("user")
    for n in (1, 2, 4):
        orc = O.oracle(fn, n)
        lo, hi = fn.bounds(n)
        assert np.all(lo == -3) and np.all(hi == 4)
        for _ in range(10):
            x = rng.uniform(lo, hi)
            # point form against the exact value
            assert close(fn.point(x), orc.value_float(x), rel=1e-13)
            assert fn2.point(x) == fn.point(x)
            # gradient against finite differences of the exact value
            assert_gradient_close(fn.gradient(x), fd_gradient(orc, x), 1e-8, "user gradient")
        # interval and interval-gradient forms enclose, with the library's checker
        m = fn.module("cpu")
        for family in ("tiny", "medium", "wide"):
            L, H = {"tiny": O.tiny_boxes, "medium": O.medium_boxes, "wide": O.wide_boxes}[family](
                fn, n, 200, rng)
            misses, checked = O.interval_misses(fn, m, L, H, rng)
            assert checked == 600 and misses == [], O.format_misses(misses)
            misses, checked, undefined = O.interval_gradient_misses(fn, m, L, H, rng)
            assert checked == 600 and misses == [] and undefined == [], O.format_misses(misses)


def test_user_defined_function_from_cli(user_file, capsys):
    rc, out, err = run_main(["eval", f"{user_file}:MYFUN", "--dim", "2", "--x", "0.5", "--json"], capsys)
    assert rc == 0, err
    fn = F.load_file(str(user_file), "MYFUN")
    assert json.loads(out)["value"] == fn.point([0.5, 0.5])


def test_bad_user_files(tmp_path, capsys):
    bad = tmp_path / "bad.py"
    bad.write_text("raise RuntimeError('boom')\n")
    with pytest.raises(InputError, match="cannot load .*RuntimeError: boom"):
        F.load_file(str(bad), "X")
    ok = tmp_path / "ok.py"
    ok.write_text("X = 3\n")
    with pytest.raises(InputError, match="has no Definition named 'Y'"):
        F.get(f"{ok}:Y")
    with pytest.raises(InputError, match="has no Definition named 'X'"):
        F.get(f"{ok}:X")
    rc, out, err = run_main(["eval", f"{bad}:X", "--dim", "2", "--x", "1"], capsys)
    assert rc == 2 and err.count("\n") == 1 and "cannot load" in err
