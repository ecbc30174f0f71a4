"""How a scalable test function is defined: once, symbolically, with its structure.

A definition is a sympy expression ``expr`` in a few named *aggregates* (sums
and products over index windows), the first and last coordinates ``x1`` and
``xn``, and the dimension ``n``.  Each aggregate is a :class:`Sum` or
:class:`Prod` of a term in

- ``x`` (the coordinate ``x_i``) and, for a window of two, ``y`` (``x_{i+1}``);
- ``i``, the 1-based index, and ``n``;
- parameters, per-coordinate constants such as a shift vector (:func:`param`).

A term that mentions ``y`` (or a parameter's next value) is summed over
``i = 1..n-1``; any other over ``i = 1..n``.  Products take terms in ``x``
alone.  Keeping this structure visible is deliberate: the derivative of every
form follows from it (see :mod:`gpubench.codegen`), and a solver can evaluate
the terms of unsplit variables once per iteration instead of once per thread.

Constants must be exact (integers, ``sympy.Rational``, ``sympy.pi``, ``E``, or
expressions of them), never floats: ``0.02`` is written ``Rational(1, 50)``, so
the interval forms can enclose the real number rather than its rounding.
"""
from dataclasses import dataclass, field
from typing import Callable, Mapping, Optional

import numpy as np
import sympy as sp

from .errors import InputError

x, y, i, n = sp.symbols("x y i n", real=True)
x1, xn = sp.symbols("x1 xn", real=True)
pi, E, Rational = sp.pi, sp.E, sp.Rational
sin, cos, exp, log, sqrt, Abs = sp.sin, sp.cos, sp.exp, sp.log, sp.sqrt, sp.Abs

SENSES = ("min", "max")


class DefinitionError(InputError):
    """A test-function definition that cannot be compiled (a user error: one line, exit 2)."""


def param(name):
    """Symbols for a per-coordinate parameter: its value at ``i`` and at ``i+1``."""
    return sp.Symbol(f"{name}__0", real=True), sp.Symbol(f"{name}__1", real=True)


@dataclass(frozen=True)
class Sum:
    """``sum_i term``: over ``i = 1..n`` or, for a two-coordinate window, ``1..n-1``."""
    term: sp.Expr


@dataclass(frozen=True)
class Prod:
    """``prod_{i=1..n} term(x_i)``."""
    term: sp.Expr


@dataclass(frozen=True)
class Spike:
    """``f = value`` on the box ``|x_i - center| <= halfwidth`` for every i (a discontinuity)."""
    center: sp.Rational
    halfwidth: sp.Rational
    value: sp.Rational

    def __post_init__(self):
        for name in ("center", "halfwidth", "value"):
            v = sp.Rational(getattr(self, name))
            object.__setattr__(self, name, v)
        if self.halfwidth < 0:
            raise DefinitionError("a spike's halfwidth must be >= 0")


def _constant_bounds(lo, hi):
    return lambda dim: (np.full(dim, float(lo)), np.full(dim, float(hi)))


@dataclass
class Definition:
    """One scalable test function, with everything a user or solver needs to know.

    ``domain`` is either a pair ``(lo, hi)`` used for every coordinate or a
    function of ``n`` returning two arrays.  ``xstar`` and ``fstar`` are
    functions of ``n``; ``fstar`` is the optimum in the definition's ``sense``
    (the maximum for ``sense="max"``).
    """
    name: str
    title: str
    source: str
    expr: sp.Expr
    domain: object
    xstar: Callable[[int], np.ndarray]
    fstar: Callable[[int], float]
    terms: Mapping[sp.Symbol, object] = field(default_factory=dict)
    sense: str = "min"
    params: Mapping[str, Callable[[int], np.ndarray]] = field(default_factory=dict)
    spike: Optional[Spike] = None
    notes: str = ""

    def __post_init__(self):
        if self.sense not in SENSES:
            raise DefinitionError(f"{self.name}: sense must be one of {SENSES}, not {self.sense!r}")
        if isinstance(self.domain, tuple):
            lo, hi = self.domain
            self.bounds = _constant_bounds(lo, hi)
        else:
            self.bounds = self.domain
        self.expr = sp.sympify(self.expr)
        self.terms = {sp.Symbol(str(k), real=True) if isinstance(k, str) else k: v
                      for k, v in self.terms.items()}
        self._check()

    @property
    def continuous(self):
        return self.spike is None

    @property
    def param_names(self):
        return list(self.params)

    def window(self, aggregate):
        """1 if the term reads x_i only, 2 if it reads x_{i+1} too."""
        term = self.terms[aggregate].term
        nexts = {y} | {param(p)[1] for p in self.params}
        return 2 if term.free_symbols & nexts else 1

    def _check(self):
        allowed_outer = set(self.terms) | {x1, xn, n}
        stray = self.expr.free_symbols - allowed_outer
        if stray:
            raise DefinitionError(f"{self.name}: expr uses undefined symbols {sorted(map(str, stray))}")
        term_symbols = {x, y, i, n} | {s for p in self.params for s in param(p)}
        for agg, spec in self.terms.items():
            if not isinstance(spec, (Sum, Prod)):
                raise DefinitionError(f"{self.name}: term {agg} must be a Sum or Prod")
            t = sp.sympify(spec.term)
            stray = t.free_symbols - term_symbols
            if stray:
                raise DefinitionError(f"{self.name}: term {agg} uses undefined symbols "
                                      f"{sorted(map(str, stray))}")
            if isinstance(spec, Prod) and self.window(agg) == 2:
                raise DefinitionError(f"{self.name}: product {agg} may only read x_i")
            _reject_floats(self.name, t)
        _reject_floats(self.name, self.expr)

    def negated(self):
        """The definition of -f, which a minimiser uses for ``sense="max"``."""
        from dataclasses import replace
        spike = None if self.spike is None else Spike(self.spike.center, self.spike.halfwidth,
                                                      -self.spike.value)
        return replace(self, name=f"{self.name}__negated", expr=-self.expr, spike=spike,
                       sense="max" if self.sense == "min" else "min",
                       fstar=lambda dim: -self.fstar(dim))

    def describe_bounds(self, dim):
        lo, hi = self.bounds(dim)
        if np.all(lo == lo[0]) and np.all(hi == hi[0]):
            return f"[{lo[0]:g}, {hi[0]:g}]^n"
        return "per-coordinate"


def _reject_floats(name, expr):
    floats = expr.atoms(sp.Float)
    if floats:
        raise DefinitionError(
            f"{name}: inexact constant {sorted(floats)[0]} in a definition; write it as "
            f"sympy.Rational so the interval forms enclose the real number")


def symbols(names):
    """Real sympy symbols for aggregates, e.g. ``S1, S2 = symbols("S1 S2")``."""
    return sp.symbols(names, real=True)
