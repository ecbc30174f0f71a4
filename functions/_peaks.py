"""The Peaks function (MATLAB's ``peaks``) on [-3, 3]^2, minimised (paper 001, Problems (1)-(2)).

Fixed-dimension (d = 2), so it is kept out of the scalable library (the underscore hides it
from discovery); use ``functions/_paper001.py:PEAKS``.
"""
import numpy as np

from gpubench.forms.definition import Definition, Rational, exp, variables

X1, X2 = variables(2)

EXPR = (3 * (1 - X1) ** 2 * exp(-X1**2 - (X2 + 1) ** 2)
        - 10 * (X1 / 5 - X1**3 - X2**5) * exp(-X1**2 - X2**2)
        - Rational(1, 3) * exp(-(X1 + 1) ** 2 - X2**2))

# global minimiser and value, from a BFGS solve (gtol 1e-14) started in the deepest well,
# certified by subdomain-bnb (tests/test_subdomain_bnb.py::test_peaks_certified)
XSTAR = np.array([0.2282789205555125, -1.6255349575014675])
FSTAR = -6.551133332835839

DEFINITION = Definition(
    name="peaks",
    title="Peaks",
    source="Zhang, Kerkenhoff, Kichler, Dahmen, Mitsos, Naumann & Bongartz, "
           "Accelerating deterministic global optimization via GPU-parallel interval arithmetic, Sec. 4.1",
    expr=EXPR,
    domain=(-3, 3),
    dim=2,
    xstar=lambda dim: XSTAR.copy(),
    fstar=lambda dim: FSTAR,
)
