"""Alpine02: prod sqrt(x_i) sin(x_i) on [3, 9]^n, maximised (paper 001)."""
import functools

import mpmath
import numpy as np

from gpubench.forms.definition import Definition, Prod, sin, sqrt, x, symbols

P = symbols("P")


@functools.lru_cache(maxsize=None)
def _best_coordinate():
    """x maximising sqrt(x) sin(x) on [3, 9]: the root of sin x + 2x cos x = 0 near 7.917.

    Every factor at its maximum (about 2.808) beats any sign pattern with an even
    number of negative factors, since the most negative factor (about -2.19 at
    x = 4.81) is smaller in magnitude; so x* = (c, ..., c) for every n and
    f* = (sqrt(c) sin c)^n.  (Libraries that hard-code 7.885 give the n = 2 value.)
    """
    with mpmath.workdps(40):
        c = mpmath.findroot(lambda t: mpmath.sin(t) + 2 * t * mpmath.cos(t), 7.9)
        return c, mpmath.sqrt(c) * mpmath.sin(c)


DEFINITION = Definition(
    name="alpine02",
    title="Alpine02",
    source="Zhang, Kerkenhoff, Kichler, Dahmen, Mitsos, Naumann & Bongartz, "
           "Accelerating deterministic global optimization via GPU-parallel interval arithmetic, Table 4",
    terms={P: Prod(sqrt(x) * sin(x))},
    expr=P,
    sense="max",
    domain=(3, 9),
    xstar=lambda dim: np.full(dim, float(_best_coordinate()[0])),
    fstar=lambda dim: float(_best_coordinate()[1] ** dim),
)
