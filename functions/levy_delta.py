"""The discontinuous test function: Levy plus a Dirac-delta-like spike of depth -1."""
import numpy as np

from gpubench.forms.definition import Definition, Rational, Spike

from .levy import EXPR, TERMS

DEFINITION = Definition(
    name="levy_delta",
    title="Levy + delta (discontinuous)",
    source="Zhang, Shan & Cagan (2026), PNAS Nexus 5(4) pgag103, SI Appendix F, Eqs. (S24)-(S27)",
    terms=TERMS,
    expr=EXPR,
    spike=Spike(center=Rational(3, 2), halfwidth=Rational(1, 2 * 10**6), value=-1),
    domain=(-10, 10),
    xstar=lambda dim: np.full(dim, 1.5),
    fstar=lambda dim: -1.0,
    notes="f = -1 where 1.5 - eps/2 <= x_i <= 1.5 + eps/2 for every i (eps = 1e-6), Levy elsewhere.",
)
