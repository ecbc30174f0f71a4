"""F2 of Qin et al. (2012): shifted Rosenbrock, z = x - o, optimum at x = o + 1."""
from gpubench.forms.definition import Definition, Sum, param, x, y, symbols

from ._shift import SEED, shift_vector

S = symbols("S")
o, o_next = param("o")
LO, HI = -100.0, 100.0

DEFINITION = Definition(
    name="shifted_rosenbrock",
    title="Shifted Rosenbrock (F2)",
    source="Qin, Raimondo, Forbes & Ong (GECCO 2012), Section 5.2, F2",
    terms={S: Sum(100 * ((x - o) ** 2 - (y - o_next)) ** 2 + (x - o - 1) ** 2)},
    expr=S,
    params={"o": lambda dim: shift_vector(dim, LO, HI)},
    domain=(LO, HI),
    xstar=lambda dim: shift_vector(dim, LO, HI) + 1.0,
    fstar=lambda dim: 0.0,
    notes=f"Shift o seeded with {SEED}, see functions/_shift.py; bounds as in CEC 2005. "
          "x* = o + 1 is o + 1 rounded to doubles, so f(x*) is 0 up to rounding.",
)
