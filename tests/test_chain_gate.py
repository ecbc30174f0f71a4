"""The chain's gate (gpubench/forms/chain.py: ``gated``, ``cells``; issue 41, hard41): by default the
two-coordinate pieces are on exactly where a windowed term has an oscillating or kinked operation
whose argument reads both coordinates (SciPy's EggHolder, Rana, SineEnvelope, StretchedV), off on
polynomial chains and products of one-coordinate factors (Rosenbrock, Trid, DixonPrice, Penalty01/02,
Levy, paper 000's functions), and a set CELLS (GPUBENCH_CHAIN_CELLS) overrides it either way.  Only the
level set's trees are walked here (nothing compiled)."""
import pytest

from gpubench import functions
from gpubench.forms import chain
from gpubench.methods.solver import contract as C

ON = ["scipy_go.EggHolder", "scipy_go.Rana", "scipy_go.SineEnvelope", "scipy_go.StretchedV"]
OFF = ["scipy_go.Rosenbrock", "scipy_go.Trid", "scipy_go.DixonPrice", "scipy_go.Penalty01", "scipy_go.Penalty02",
       "scipy_go.Sargan", "scipy_go.Mishra02", "levy", "rosenbrock", "rastrigin"]


@pytest.fixture
def auto(monkeypatch):
    monkeypatch.setattr(chain, "CELLS", None)


@pytest.mark.parametrize("name", ON + OFF)
def test_the_chain_is_on_by_default_exactly_for_two_coordinate_oscillating_terms(name, auto):
    assert C.levelset(functions.get(name), 4).chain_cells() == (chain.AUTO if name in ON else 0)


@pytest.mark.parametrize("cells", [0, 16])
def test_set_cells_override_the_gate(cells, monkeypatch):
    monkeypatch.setattr(chain, "CELLS", cells)
    assert C.levelset(functions.get("scipy_go.EggHolder"), 4).chain_cells() == cells
    assert C.levelset(functions.get("scipy_go.Rosenbrock"), 4).chain_cells() == cells


@pytest.mark.parametrize("expr, on", [("sin(x) * y**2", False), ("exp(y) + x**2", False), ("(x - y)**2 * x", False),
                                      ("sin(x * y)", True), ("x * Abs(x - y)", True), ("cos(sqrt(x**2 + y**2))", True)])
def test_the_gate_reads_both_coordinates_inside_one_operation(expr, on):
    import types

    import sympy as sp

    from gpubench.forms.definition import x, y
    from gpubench.forms.exprtree import convert
    term = sp.sympify(expr, locals={"x": x, "y": y})
    assert chain.gated(types.SimpleNamespace(term=convert(term))) is on
