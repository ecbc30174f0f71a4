"""Ackley function, with the 0.02 of Zhang, Shan & Cagan (2026)."""
import numpy as np

from gpubench.forms.definition import Definition, E, Rational, Sum, cos, exp, n, pi, sqrt, x, symbols

S1, S2 = symbols("S1 S2")

DEFINITION = Definition(
    name="ackley",
    title="Ackley",
    source="Zhang, Shan & Cagan (2026), PNAS Nexus 5(4) pgag103, SI Appendix A, Eqs. (S1)-(S2)",
    terms={S1: Sum(x**2), S2: Sum(cos(2 * pi * x))},
    expr=-20 * exp(-Rational(1, 50) * sqrt(S1 / n)) - exp(S2 / n) + 20 + E,
    domain=(-35, 40),
    xstar=lambda dim: np.zeros(dim),
    fstar=lambda dim: 0.0,
    notes="The paper prints 0.02 in the first exponent where the common form has 0.2.",
)
