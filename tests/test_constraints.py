"""Constrained problems: objective + g(x) <= 0 + h(x) = 0, each with every form.

The constraints are checked against the arb oracle like any function; the interval
solver of paper 000 and the box-constrained methods refuse a constrained problem with
one line (paper 001's branch-and-bound is to take them).
"""
import zlib

import numpy as np
import pytest
import sympy as sp

import gpubench.functions as F
from gpubench.forms.definition import (
    Abs,
    Definition,
    DefinitionError,
    Problem,
    Rational,
    Sum,
    symbols,
    tanh,
    variables,
    x,
    x1,
    xn,
)
from gpubench.errors import InputError
from gpubench.forms.function import ConstrainedProblem

import oracles as O
from test_nonsmooth import MeanValue

S = symbols("S")
OBJ = Definition(name="sphere_c", title="sphere", source="tests", terms={S: Sum(x**2)}, expr=S,
                 domain=(-2, 2), xstar=lambda n: np.zeros(n), fstar=lambda n: 0.0)
DISK = Problem(name="disk", objective=OBJ, inequalities=[1 - S, tanh(x1) - Rational(1, 2)],
               equalities=[x1 - xn - Rational(1, 2)])
A, B, C = variables(3)
FIXED = Problem(name="fixed3", objective=Definition(
    name="f3", title="", source="tests", expr=A * B + C**2, domain=(-1, 1), dim=3,
    xstar=lambda n: np.zeros(n), fstar=lambda n: 0.0),
    inequalities=[Abs(A) + Abs(B) - 1], equalities=[A + B + C])


def _rng(*key):
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


@pytest.mark.parametrize("problem,n", [(DISK, 3), (FIXED, 3)], ids=["disk", "fixed3"])
def test_every_constraint_has_every_form(problem, n):
    cp = ConstrainedProblem(problem)
    assert len(cp.inequalities) == len(problem.inequalities)
    for fn in [cp.objective] + cp.inequalities + cp.equalities:
        module = fn.module("cpu")
        rng = _rng(problem.name, fn.name)
        for lo, hi in (O.medium_boxes(fn, n, 60, rng), O.wide_boxes(fn, n, 30, rng)):
            for form in (module, MeanValue(module, "intervals_best")):
                misses, _ = O.interval_misses(fn, form, lo, hi, rng, 3)
                assert misses == [], (fn.name, O.format_misses(misses))
            misses, _, _ = O.interval_gradient_misses(fn, module, lo, hi, rng, 3)
            assert misses == [], (fn.name, O.format_misses(misses))
        x0 = rng.uniform(-1, 1, n)
        assert np.isfinite(fn.point(x0)) and np.all(np.isfinite(fn.gradient(x0)))


def test_constraint_values():
    cp = ConstrainedProblem(DISK)
    x0 = np.array([0.75, 0.5, 0.0])
    g1, g2 = cp.inequalities
    (h,) = cp.equalities
    assert g1.point(x0) == pytest.approx(1 - (0.75**2 + 0.25))
    assert g2.point(x0) == pytest.approx(np.tanh(0.75) - 0.5)
    assert h.point(x0) == pytest.approx(0.25)
    # aggregates a constraint does not use are not carried along
    assert list(cp.equalities[0].definition.terms) == []


def test_box_status():
    cp = ConstrainedProblem(DISK)
    # |x|^2 <= 1/4 < 1 on the box: g1 > 0 everywhere, infeasible
    assert cp.box_status([-0.2] * 3, [0.2] * 3) == "infeasible"
    # x1 - x3 = 1/2 impossible when x1 - x3 <= 0
    assert cp.box_status([1.5, 1.5, 1.5], [1.6, 1.6, 1.6]) == "infeasible"
    assert cp.box_status([-2, -2, -2], [2, 2, 2]) == "unknown"
    no_eq = ConstrainedProblem(Problem(name="ring", objective=OBJ, inequalities=[1 - S]))
    assert no_eq.box_status([1.5, 1.5], [2.0, 2.0]) == "feasible"


def test_solvers_refuse_constrained_problems(tmp_path, capsys):
    from gpubench.cli import main
    from gpubench.methods import minimize
    with pytest.raises(InputError, match="box constraints only"):
        minimize(DISK, 3, method="interval", backend="cpu")
    with pytest.raises(InputError, match="method 'bfgs' handles box constraints only"):
        minimize(DISK, 3, method="bfgs")
    p = tmp_path / "prob.py"
    p.write_text("import numpy as np\n"
                 "from gpubench.forms.definition import Definition, Problem, Sum, symbols, x\n"
                 "S = symbols('S')\n"
                 "OBJ = Definition(name='o', title='', source='', terms={S: Sum(x**2)}, expr=S,"
                 " domain=(-1, 1), xstar=lambda n: np.zeros(n), fstar=lambda n: 0.0)\n"
                 "PROB = Problem(name='p', objective=OBJ, inequalities=[1 - S])\n")
    assert isinstance(F.get(f"{p}:PROB"), ConstrainedProblem)
    rc = main(["solve", f"{p}:PROB", "--dim", "2", "--backend", "cpu"])
    err = capsys.readouterr().err
    assert rc == 2 and "'interval' handles box constraints only" in err
    assert len(err.strip().splitlines()) == 1
    from gpubench.methods.solver import solve
    with pytest.raises(InputError, match="interval solver of paper 000 handles box constraints only"):
        solve(DISK, 3, backend="cpu")
    assert main(["eval", f"{p}:PROB", "--dim", "2", "--x", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "o(x), n=2: 0.5" in out and "p__g1(x), n=2: 0.5" in out


def test_bad_constraints_are_refused():
    with pytest.raises(DefinitionError, match=r"constraint g1: .*tan"):
        Problem(name="bad", objective=OBJ, inequalities=[sp.tan(x1)])
    with pytest.raises(DefinitionError, match=r"constraint h1: .*undefined symbols"):
        Problem(name="bad", objective=OBJ, equalities=[sp.Symbol("zz", real=True)])
