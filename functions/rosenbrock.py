"""Rosenbrock function (scalable, chained form)."""
import numpy as np

from gpubench.forms.definition import Definition, Sum, x, y, symbols

S = symbols("S")

DEFINITION = Definition(
    name="rosenbrock",
    title="Rosenbrock",
    source="Zhang, Shan & Cagan (2026), PNAS Nexus 5(4) pgag103, SI Appendix D, Eqs. (S22)-(S23)",
    terms={S: Sum(100 * (x**2 - y) ** 2 + (x - 1) ** 2)},
    expr=S,
    domain=(-30, 30),
    xstar=lambda dim: np.ones(dim),
    fstar=lambda dim: 0.0,
)
