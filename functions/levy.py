"""Levy function."""
import numpy as np

from gpubench.forms.definition import Definition, Sum, n, pi, sin, x, x1, xn, y, symbols

S = symbols("S")


def levy_y(v):
    """y_i = 1 + (x_i - 1)/4, Eq. (S12)."""
    return 1 + (v - 1) / 4


EXPR = pi / n * (10 * sin(pi * levy_y(x1)) ** 2 + (levy_y(xn) - 1) ** 2 + S)
TERMS = {S: Sum((levy_y(x) - 1) ** 2 * (1 + 10 * sin(pi * levy_y(y)) ** 2))}

DEFINITION = Definition(
    name="levy",
    title="Levy",
    source="Zhang, Shan & Cagan (2026), PNAS Nexus 5(4) pgag103, SI Appendix A, Eqs. (S11)-(S13)",
    terms=TERMS,
    expr=EXPR,
    domain=(-10, 10),
    xstar=lambda dim: np.ones(dim),
    fstar=lambda dim: 0.0,
)
