"""The machinery shared by the SciPy go_benchmark_functions definitions (see ``__init__``).

Every entry records what SciPy states (``fglob`` and every vector of ``global_optimum``,
as functions of n), next to the :class:`~gpubench.forms.definition.Definition` written here from
the formula.  Decimal constants of the formulas are entered as exact rationals
(:func:`R`), so the interval forms enclose the function SciPy's formula denotes.
"""
from dataclasses import dataclass, field
from typing import Callable, Optional, Tuple

import numpy as np
import sympy as sp

from gpubench.forms.definition import Abs, Definition, Floor, Max, Min, variables

from ._refs import ORIGINAL

LIBRARY = "scipy_go"
SCALABLE_DIMS = (2, 5, 10)
ORIGIN = ("SciPy go_benchmark_functions (benchmarks/benchmarks/go_benchmark_functions/"
          "go_funcs_{letter}.py), {cls}; original reference: {original}")


def R(v):
    """The exact rational a decimal literal denotes: ``R("5.1") == 51/10``."""
    return sp.Rational(str(v))


@dataclass
class Entry:
    """One SciPy benchmark: its definition here and SciPy's own statements."""
    cls: str
    definition: Definition
    dims: Tuple[int, ...]
    minimisers: Callable[[int], list]  # SciPy's global_optimum vectors at dimension n
    fglob: Callable[[int], float]  # SciPy's fglob at dimension n
    scalable: bool
    notes: str = ""
    extra: dict = field(default_factory=dict)
    # the one dimension SciPy's fglob is stated for, where that value does not follow n (a
    # constant that is f at the stated minimiser at SciPy's default dimension only); None where
    # fglob is stated for every n of ``dims`` (or the function has one dimension)
    fglob_dim: Optional[int] = None

    @property
    def name(self):
        return self.definition.name


ENTRIES = {}  # class name -> Entry, in the order defined
NOT_EXPRESSED = {}  # class name -> the construct gpubench's language lacks for it
# scalable in SciPy but expressed at its default dimension only -> what general n lacks
ONLY_DEFAULT_DIM = {}


def _source(cls):
    return ORIGIN.format(letter=cls[0].upper(), cls=cls, original=ORIGINAL[cls])


def _register(entry):
    if entry.cls in ENTRIES or entry.cls in NOT_EXPRESSED:
        raise ValueError(f"SciPy benchmark {entry.cls} defined twice")
    ENTRIES[entry.cls] = entry
    return entry


def _box(bounds, dim):
    b = list(bounds)
    if len(b) == 2 and not isinstance(b[0], (tuple, list)):
        b = [tuple(b)] * dim
    if len(b) != dim:
        raise ValueError(f"{len(b)} bounds for dimension {dim}")
    lo = np.array([float(p[0]) for p in b])
    hi = np.array([float(p[1]) for p in b])
    return lo, hi


def fixed(cls, dim, f, bounds, optima, fglob, notes="", lacks=None):
    """A fixed-dimension benchmark: ``f(X)`` builds the expression from ``X = [x1, ..., x_dim]``
    (0-based, as SciPy's ``x[0]``); ``bounds`` is one ``(lo, hi)`` pair for every coordinate or
    one pair per coordinate; ``optima`` SciPy's global_optimum vectors; ``fglob`` its f*.
    ``lacks``: for a function SciPy scales, written here at its default dimension only, the
    construct the language lacks for general n."""
    if lacks:
        ONLY_DEFAULT_DIM[cls] = lacks
        notes = (f"SciPy's function is scalable; written at its default n = {dim} only "
                 f"(for general n the language lacks {lacks}). " + notes).strip()
    X = variables(dim)
    lo, hi = _box(bounds, dim)
    optima = [np.asarray(v, dtype=np.float64) for v in optima]
    defn = Definition(
        name=f"{LIBRARY}.{cls}", title=cls, source=_source(cls),
        expr=sp.sympify(f(X)), dim=dim,
        domain=lambda n: (lo.copy(), hi.copy()),
        xstar=lambda n: optima[0].copy() if optima else np.full(n, np.nan),
        fstar=lambda n: float(fglob), notes=notes)
    return _register(Entry(cls, defn, (dim,), lambda n: [v.copy() for v in optima],
                           lambda n: float(fglob), False, notes))


def scalable(cls, terms, expr, bounds, optima, fglob, notes="", dims=SCALABLE_DIMS, fglob_dim=None):
    """A scalable benchmark in gpubench's aggregates (``terms``: Sum/Prod); ``bounds`` a
    constant ``(lo, hi)``; ``optima(n)`` SciPy's global_optimum vectors at dimension n (as SciPy
    states them, whatever their length); ``fglob(n)`` its f*; ``fglob_dim``: the one dimension
    that f* is stated for when it does not follow n (SciPy's default dimension: its value is f at
    the stated minimiser there only), so that a judge at another n does not call it wrong."""
    lo, hi = bounds

    def xstar(n):
        vs = [np.asarray(v, dtype=np.float64) for v in optima(n)]
        vs = [v for v in vs if v.size == n]
        return vs[0] if vs else np.full(n, np.nan)

    defn = Definition(
        name=f"{LIBRARY}.{cls}", title=cls, source=_source(cls),
        terms=terms, expr=expr, domain=(lo, hi), xstar=xstar,
        fstar=lambda n: float(fglob(n)), notes=notes)
    return _register(Entry(cls, defn, tuple(dims),
                           lambda n: [np.asarray(v, dtype=np.float64) for v in optima(n)],
                           lambda n: float(fglob(n)), True, notes, fglob_dim=fglob_dim))


def at_least(v, c=0):
    """[v >= c] as 0 or 1 (numpy's ``float(v >= c)``), written with Floor: for u = v - c,
    u / (|u| + 1) lies in [0, 1) when u >= 0 and in (-1, 0) when u < 0, so 1 + Floor of it is
    the indicator; clipped to [0, 1] so that its interval form stays there on wide boxes."""
    u = v - c
    return Max(0, Min(1, 1 + Floor(u / (Abs(u) + 1))))


def below(v, c=0):
    """[v < c] as 0 or 1."""
    return 1 - at_least(v, c)


def missing(cls, construct):
    """A SciPy benchmark gpubench's language cannot express, and the construct it lacks."""
    if cls in ENTRIES or cls in NOT_EXPRESSED:
        raise ValueError(f"SciPy benchmark {cls} listed twice")
    NOT_EXPRESSED[cls] = construct
