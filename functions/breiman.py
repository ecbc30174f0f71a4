"""Breiman (cosine mixture) function."""
import numpy as np

from gpubench.forms.definition import Definition, Sum, cos, pi, x, symbols

S = symbols("S")

DEFINITION = Definition(
    name="breiman",
    title="Breiman (cosine mixture)",
    source="Zhang, Shan & Cagan (2026), PNAS Nexus 5(4) pgag103, SI Appendix A, Eqs. (S5)-(S6)",
    terms={S: Sum(-cos(5 * pi * x) / 10 + x**2)},
    expr=S,
    domain=(-1, 2),
    xstar=lambda dim: np.zeros(dim),
    fstar=lambda dim: -0.1 * dim,
)
