"""The shift vector of the shifted functions of Qin et al. (GECCO 2012).

The paper (following the CEC 2005 suite) shifts the optimum to a vector o but
prints no o.  gpubench draws o once, documented and seeded:
``o = a + (b - a) * u`` with ``u = numpy.random.default_rng(SEED).random(n)`` and
``[a, b]`` the central 80% of the domain, so the optimum lies well inside the
bounds.  The first k entries are the same for every n >= k.
"""
import numpy as np

SEED = 2012


def shift_vector(n, lo, hi):
    a = lo + 0.1 * (hi - lo)
    b = hi - 0.1 * (hi - lo)
    return a + (b - a) * np.random.default_rng(SEED).random(n)
