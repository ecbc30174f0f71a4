"""Salomon function."""
import numpy as np

from gpubench.forms.definition import Definition, Sum, cos, pi, sqrt, x, symbols

S = symbols("S")

DEFINITION = Definition(
    name="salomon",
    title="Salomon",
    source="Zhang, Shan & Cagan (2026), PNAS Nexus 5(4) pgag103, SI Appendix A, Eqs. (S16)-(S17)",
    terms={S: Sum(x**2)},
    expr=1 - cos(2 * pi * sqrt(S)) + sqrt(S) / 10,
    domain=(-100, 110),
    xstar=lambda dim: np.zeros(dim),
    fstar=lambda dim: 0.0,
)
