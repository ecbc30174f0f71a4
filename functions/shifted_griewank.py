"""F3 of Qin et al. (2012): shifted Griewank."""
from gpubench.forms.definition import Definition, Prod, Sum, cos, i, param, sqrt, x, symbols

from ._shift import SEED, shift_vector

S, P = symbols("S P")
o, _ = param("o")
LO, HI = -600.0, 600.0

DEFINITION = Definition(
    name="shifted_griewank",
    title="Shifted Griewank (F3)",
    source="Qin, Raimondo, Forbes & Ong (GECCO 2012), Section 5.2, F3",
    terms={S: Sum((x - o) ** 2 / 4000), P: Prod(cos((x - o) / sqrt(i)))},
    expr=S - P + 1,
    params={"o": lambda dim: shift_vector(dim, LO, HI)},
    domain=(LO, HI),
    xstar=lambda dim: shift_vector(dim, LO, HI),
    fstar=lambda dim: 0.0,
    notes=f"Shift o seeded with {SEED}, see functions/_shift.py; bounds as in CEC 2005.",
)
