"""Rastrigin function."""
import numpy as np

from gpubench.forms.definition import Definition, Sum, cos, n, pi, x, symbols

S = symbols("S")

DEFINITION = Definition(
    name="rastrigin",
    title="Rastrigin",
    source="Zhang, Shan & Cagan (2026), PNAS Nexus 5(4) pgag103, SI Appendix A, Eqs. (S14)-(S15)",
    terms={S: Sum(x**2 - 10 * cos(2 * pi * x))},
    expr=10 * n + S,
    domain=(-5.5, 6),
    xstar=lambda dim: np.zeros(dim),
    fstar=lambda dim: 0.0,
)
