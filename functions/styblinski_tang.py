"""Styblinski-Tang function, as in paper 001: sum (x^4 - 16 x^2 + 5 x)/2 on [-5, 5]^n."""
import functools

import mpmath
import numpy as np

from gpubench.forms.definition import Definition, Sum, x, symbols

S = symbols("S")


@functools.lru_cache(maxsize=None)
def _best_coordinate():
    """The global minimiser of (t^4 - 16 t^2 + 5 t)/2: the root of 4t^3 - 32t + 5 near -2.9035."""
    with mpmath.workdps(40):
        c = mpmath.findroot(lambda t: 4 * t**3 - 32 * t + 5, -2.9)
        return c, (c**4 - 16 * c**2 + 5 * c) / 2


DEFINITION = Definition(
    name="styblinski_tang",
    title="Styblinski-Tang",
    source="Zhang, Kerkenhoff, Kichler, Dahmen, Mitsos, Naumann & Bongartz, "
           "Accelerating deterministic global optimization via GPU-parallel interval arithmetic, Table 4",
    terms={S: Sum((x**4 - 16 * x**2 + 5 * x) / 2)},
    expr=S,
    domain=(-5, 5),
    xstar=lambda dim: np.full(dim, float(_best_coordinate()[0])),
    fstar=lambda dim: float(dim * _best_coordinate()[1]),
)
