"""Styblinski (multimodal corrupted convex quadratic) function, as printed in paper 000.

Not the Styblinski-Tang function of paper 001 (see ``styblinski_tang``).
"""
import numpy as np

from gpubench.forms.definition import Definition, Prod, Sum, cos, n, x, symbols

S, P = symbols("S P")

DEFINITION = Definition(
    name="styblinski",
    title="Styblinski (corrupted convex quadratic)",
    source="Zhang, Shan & Cagan (2026), PNAS Nexus 5(4) pgag103, SI Appendix A, Eqs. (S18)-(S19)",
    terms={S: Sum(x**2), P: Prod(cos(x))},
    expr=S / (2 * n) - 4 * n * P,
    domain=(-10, 11),
    xstar=lambda dim: np.zeros(dim),
    fstar=lambda dim: -4.0 * dim,
)
