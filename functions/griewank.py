"""Griewank function."""
import numpy as np

from gpubench.forms.definition import Definition, Prod, Sum, cos, i, sqrt, x, symbols

S, P = symbols("S P")

DEFINITION = Definition(
    name="griewank",
    title="Griewank",
    source="Zhang, Shan & Cagan (2026), PNAS Nexus 5(4) pgag103, SI Appendix A, Eqs. (S9)-(S10)",
    terms={S: Sum(x**2 / 4000), P: Prod(cos(x / sqrt(i)))},
    expr=1 + S - P,
    domain=(-100, 110),
    xstar=lambda dim: np.zeros(dim),
    fstar=lambda dim: 0.0,
)
