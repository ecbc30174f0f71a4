"""F4 of Qin et al. (2012): shifted Rastrigin."""
from gpubench.forms.definition import Definition, Sum, cos, param, pi, x, symbols

from ._shift import SEED, shift_vector

S = symbols("S")
o, _ = param("o")
LO, HI = -5.0, 5.0

DEFINITION = Definition(
    name="shifted_rastrigin",
    title="Shifted Rastrigin (F4)",
    source="Qin, Raimondo, Forbes & Ong (GECCO 2012), Section 5.2, F4",
    terms={S: Sum((x - o) ** 2 - 10 * cos(2 * pi * (x - o)) + 10)},
    expr=S,
    params={"o": lambda dim: shift_vector(dim, LO, HI)},
    domain=(LO, HI),
    xstar=lambda dim: shift_vector(dim, LO, HI),
    fstar=lambda dim: 0.0,
    notes=f"Shift o seeded with {SEED}, see functions/_shift.py; bounds as in CEC 2005.",
)
