"""Fu (trigonometric) function."""
import numpy as np

from gpubench.forms.definition import Definition, Rational, Sum, sin, x, symbols

S = symbols("S")
d2 = (x - Rational(9, 10)) ** 2

DEFINITION = Definition(
    name="fu",
    title="Fu (trigonometric)",
    source="Zhang, Shan & Cagan (2026), PNAS Nexus 5(4) pgag103, SI Appendix A, Eqs. (S7)-(S8)",
    terms={S: Sum(8 * sin(7 * d2) ** 2 + 6 * sin(14 * d2) ** 2 + d2)},
    expr=1 + S,
    domain=(-10, 10),
    xstar=lambda dim: np.full(dim, 0.9),
    fstar=lambda dim: 1.0,
    notes="The sum runs over all three terms, as f(x*) = 1 requires.",
)
