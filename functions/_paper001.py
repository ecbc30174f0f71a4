"""The problems of paper 001 (Zhang, Kerkenhoff, Kichler, Dahmen, Mitsos, Naumann & Bongartz,
"Accelerating deterministic global optimization via GPU-parallel interval arithmetic"),
built from the ANN weights in ``functions/models/`` (``gpubench/problems/surrogates.py``).

Our networks are trained in-repo with a fixed seed; the authors' are not published, so
the problems have the paper's form but not its exact functions.

    PEAKS           the Peaks function itself         on [-3, 3]^2   (minimised)
    P1              min ANN_Peaks(x)                  on [-3, 3]^2   (Problem (1))
    P2              min ANN_Peaks(x) - f_Peaks(x)     on [-3, 3]^2   (Problem (2))
    P3_2 .. P3_7    max ANN_Alpine02,d(x)             on [3, 9]^d    (Problem (3))
    P4_1 .. P4_6    min f_Alpine02,2(x) - ANN_Alpine02,2(x) on [3, 9]^2 with the constraint
                    sets of Table 1, in its row order (Problem (4))

Use one as ``functions/_paper001.py:P4_3`` on the command line, or
``gpubench.functions._paper001.get("P4_3")``.  Objects are built on first use.
"""
import functools
from pathlib import Path

import sympy as sp

from gpubench.forms.definition import UNKNOWN, Definition, Problem, variables
from gpubench.forms.models import network_from_file

from gpubench.functions._peaks import DEFINITION as PEAKS, EXPR as PEAKS_EXPR

MODELS = Path(__file__).resolve().parent / "models"
SOURCE = ("Zhang, Kerkenhoff, Kichler, Dahmen, Mitsos, Naumann & Bongartz, Accelerating deterministic "
          "global optimization via GPU-parallel interval arithmetic")

# Table 1's constraint sets, in its row order (g <= 0 and h = 0 in x1, x2)
TABLE1 = (
    ("(x_1 - 6)^2 + (x_2 - 6)^2 <= 4", "disk"),
    ("(x_1 - 6)^2 + (x_2 - 6)^2 = 4", "circle"),
    ("x_1 + x_2 >= 12", "halfplane"),
    ("x_1 + x_2 = 12", "line"),
    ("Alpine02,2 >= 4", "alpine"),
    ("(x_1 - 6)^2 + (x_2 - 6)^2 <= 4; x_1 + x_2 >= 12; Alpine02,2 >= 4", "all"),
)


def _nan(n):
    import numpy as np
    return np.full(n, np.nan)


def alpine02_expr(d):
    return sp.Mul(*[sp.sqrt(v) * sp.sin(v) for v in variables(d)])


@functools.lru_cache(maxsize=None)
def ann(name, lo, hi):
    return network_from_file(name, MODELS / f"{name}.npz", domain=(lo, hi), source=SOURCE + " (our training)")


def _fixed(name, expr, lo, hi, d, sense="min", title=""):
    return Definition(name=name, title=title or name, source=SOURCE, expr=expr, domain=(lo, hi), dim=d,
                      sense=sense, xstar=_nan, fstar=UNKNOWN)


@functools.lru_cache(maxsize=None)
def get(name):
    """The problem called ``name`` (a Definition or a Problem)."""
    if name == "PEAKS":
        return PEAKS
    if name == "P1":
        a = ann("peaks_ann", -3, 3)
        return _fixed("paper001_P1", a.expr, -3, 3, 2, title="Problem (1): min ANN_Peaks")
    if name == "P2":
        a = ann("peaks_ann", -3, 3)
        return _fixed("paper001_P2", a.expr - PEAKS_EXPR, -3, 3, 2, title="Problem (2): min ANN_Peaks - Peaks")
    if name.startswith("P3_"):
        d = int(name[3:])
        a = ann(f"alpine02_ann_{d}d", 3, 9)
        return _fixed(f"paper001_P3_{d}", a.expr, 3, 9, d, sense="max",
                      title=f"Problem (3): max ANN_Alpine02,{d}")
    if name.startswith("P4_"):
        k = int(name[3:])
        a = ann("alpine02_ann_2d", 3, 9)
        x1, x2 = variables(2)
        obj = _fixed("paper001_P4_f", alpine02_expr(2) - a.expr, 3, 9, 2,
                     title="Problem (4): min Alpine02,2 - ANN_Alpine02,2")
        disk, half, alp = (x1 - 6) ** 2 + (x2 - 6) ** 2 - 4, 12 - x1 - x2, 4 - alpine02_expr(2)
        g, h = {1: ([disk], []), 2: ([], [disk]), 3: ([half], []), 4: ([], [-half]),
                5: ([alp], []), 6: ([disk, half, alp], [])}[k]
        return Problem(name=f"paper001_P4_{k}", objective=obj, inequalities=g, equalities=h)
    raise AttributeError(name)


def __getattr__(name):
    if name == "PEAKS" or name[:2] in ("P1", "P2", "P3", "P4"):
        return get(name)
    raise AttributeError(name)
