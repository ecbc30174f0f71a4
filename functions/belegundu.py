"""Belegundu (deflected corrugated spring) function."""
import numpy as np

from gpubench.forms.definition import Definition, Sum, cos, sqrt, x, symbols

S = symbols("S")

DEFINITION = Definition(
    name="belegundu",
    title="Belegundu (deflected corrugated spring)",
    source="Zhang, Shan & Cagan (2026), PNAS Nexus 5(4) pgag103, SI Appendix A, Eqs. (S3)-(S4)",
    terms={S: Sum((x - 5) ** 2)},
    expr=S / 10 - cos(5 * sqrt(S)),
    domain=(-10, 11),
    xstar=lambda dim: np.full(dim, 5.0),
    fstar=lambda dim: -1.0,
)
