"""Zabinsky (sinusoidal) function."""
import numpy as np

import math

from gpubench.forms.definition import Definition, Prod, Rational, pi, sin, x, symbols

P1, P2 = symbols("P1 P2")

DEFINITION = Definition(
    name="zabinsky",
    title="Zabinsky (sinusoidal)",
    source="Zhang, Shan & Cagan (2026), PNAS Nexus 5(4) pgag103, SI Appendix A, Eqs. (S20)-(S21)",
    terms={P1: Prod(sin(x - pi / 6)), P2: Prod(sin(5 * (x - pi / 6)))},
    expr=-Rational(5, 2) * P1 - P2,
    domain=(0, math.nextafter(math.pi, 4)),  # [0, pi] rounded outward
    xstar=lambda dim: np.full(dim, 2 * np.pi / 3),
    fstar=lambda dim: -3.5,
    notes="The upper bound pi is rounded outward to the double just above pi.",
)
