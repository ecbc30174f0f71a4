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
form follows from it (see :mod:`gpubench.forms.codegen`), and a solver can evaluate
the terms of unsplit variables once per iteration instead of once per thread.

Non-smooth and activation operations: ``Abs``, ``Min``, ``Max`` (any number of
arguments), ``sign``, ``tanh``, :class:`sigmoid`, :class:`softplus` and
:func:`relu` (``Max(0, u)``).  Discontinuous steps (:class:`Floor`, :class:`Trunc`,
:class:`Rint`; sympy's ``floor`` and ``ceiling`` are taken as ``Floor``): see below.
Any other construct (``Piecewise``, ``tan`` ...) is refused when the definition is made, with a one-line
:class:`DefinitionError` (an :class:`~gpubench.errors.InputError`) naming it and
the term, never later at code generation or solve time.

Derivatives of the non-smooth operations (see :func:`lower`): ``d|u|/du`` is
``sign(u)``; ``Max``/``Min`` are nested into two-argument :class:`Max2`/:class:`Min2`
whose derivatives are ``step(a - b)`` and ``1 - step(a - b)``.  In interval forms
``sign`` and ``step`` are ``[-1, 1]`` and ``[0, 1]`` wherever the kink can be in
the box, which encloses Clarke's generalized gradient; at a point exactly on a
kink the point gradient takes one valid subgradient (``sign(0) = 0``, and the
first argument of a tied max/min).

Steps (jumps): ``Floor(u)``, ``Trunc(u)`` (toward 0, Python's ``int``) and ``Rint(u)`` (to
nearest, ties to even: numpy's ``round``) are nondecreasing, so their interval form is
``[r(lo), r(hi)]``, exact in floating point.  Their derivative is :class:`jump` of their value:
0 on a box where the value is one integer (the step is constant there), the whole line where a
jump can lie inside, so that no mean value form, monotonicity test or gradient bound is drawn
across a jump (a derivative of 0 almost everywhere, sympy's, would discard a box holding the
minimum; tests/test_steps.py shows it).  :attr:`Definition.continuous` is False for them.

Constants must be exact (integers, ``sympy.Rational``, ``sympy.pi``, ``E``, or
expressions of them), never floats: ``0.02`` is written ``Rational(1, 50)``, so
the interval forms can enclose the real number rather than its rounding.
"""
from dataclasses import dataclass, field
from typing import Callable, Mapping, Optional

import numpy as np
import sympy as sp

from ..errors import InputError

x, y, i, n = sp.symbols("x y i n", real=True)
x1, xn = sp.symbols("x1 xn", real=True)
pi, E, Rational = sp.pi, sp.E, sp.Rational
sin, cos, exp, log, sqrt, Abs = sp.sin, sp.cos, sp.exp, sp.log, sp.sqrt, sp.Abs
Min, Max, sign, tanh = sp.Min, sp.Max, sp.sign, sp.tanh

SENSES = ("min", "max")


class DefinitionError(InputError):
    """A test-function definition that cannot be compiled (one line, no traceback)."""


class sigmoid(sp.Function):
    """The logistic function 1/(1 + exp(-u)), its own interval operation for tightness."""
    nargs = 1

    def fdiff(self, argindex=1):
        s = sigmoid(self.args[0])
        return s * (1 - s)

    def _eval_is_real(self):
        return self.args[0].is_real


class softplus(sp.Function):
    """log(1 + exp(u)), evaluated stably (max(u, 0) + log1p(exp(-|u|)))."""
    nargs = 1

    def fdiff(self, argindex=1):
        return sigmoid(self.args[0])

    def _eval_is_real(self):
        return self.args[0].is_real


class jump(sp.Function):
    """The derivative of a step (Floor, Trunc, Rint) given its value v (internal): 0 where v is
    one integer on the box, unbounded where v can take two (a jump lies inside)."""
    nargs = 1

    def fdiff(self, argindex=1):
        return sp.Integer(0)

    def _eval_is_real(self):
        return True


class _Step(sp.Function):
    nargs = 1

    def fdiff(self, argindex=1):
        return jump(self)

    def _eval_is_real(self):
        return self.args[0].is_real

    @classmethod
    def eval(cls, u):
        if u.is_Number:
            return cls._exact(sp.Rational(u))


class Floor(_Step):
    """The largest integer <= u (numpy's ``floor``)."""

    @staticmethod
    def _exact(q):
        return sp.floor(q)


class Trunc(_Step):
    """u rounded toward 0 (Python's ``int``, numpy's ``trunc``)."""

    @staticmethod
    def _exact(q):
        return sp.sign(q) * sp.floor(abs(q))


class Rint(_Step):
    """u rounded to the nearest integer, ties to even (numpy's ``round``/``rint``)."""

    @staticmethod
    def _exact(q):
        f = sp.floor(q)
        d = q - f
        if d > sp.Rational(1, 2) or (d == sp.Rational(1, 2) and f % 2 == 1):
            return f + 1
        return f


STEPS = (Floor, Trunc, Rint)


def _own_steps(expr):
    """sympy's floor and ceiling as Floor (ceiling(u) = -Floor(-u))."""
    expr = sp.sympify(expr)
    if expr.has(sp.floor, sp.ceiling):
        expr = expr.replace(sp.floor, Floor).replace(sp.ceiling, lambda u: -Floor(-u))
    return expr


def has_steps(expr):
    """Whether ``expr`` uses a step (a jump: Floor, Trunc, Rint)."""
    return sp.sympify(expr).has(*STEPS)


def relu(u):
    """max(0, u)."""
    return sp.Max(0, u)


class step(sp.Function):
    """d max(a, b)/da as a function of u = a - b: 1 for u >= 0, else 0 (internal)."""
    nargs = 1

    def _eval_is_real(self):
        return all(a.is_real for a in self.args) or None


class Max2(sp.Function):
    """max(a, b), two arguments, never re-flattened by sympy (internal; see :func:`lower`)."""
    nargs = 2

    def _eval_is_real(self):
        return all(a.is_real for a in self.args) or None

    def fdiff(self, argindex=1):
        a, b = self.args
        return step(a - b) if argindex == 1 else 1 - step(a - b)


class Min2(sp.Function):
    """min(a, b), two arguments (internal; see :func:`lower`)."""
    nargs = 2

    def _eval_is_real(self):
        return all(a.is_real for a in self.args) or None

    def fdiff(self, argindex=1):
        a, b = self.args
        return step(b - a) if argindex == 1 else 1 - step(b - a)


def lower(expr):
    """``expr`` with every n-ary Max/Min nested into two-argument Max2/Min2.

    sympy differentiates ``Max(a, b, c)`` into Heavisides of ``a - Max(b, c)``
    whose point values at a three-way tie (1/2 each) sum to more than 1, which
    is no subgradient; the nested binary form picks one argument at every tie.
    """
    def nest(cls, args):
        args = [lower(a) for a in args]
        acc = args[0]
        for a in args[1:]:
            acc = cls(acc, a)
        return acc

    expr = sp.sympify(expr)
    if expr.func is sp.Max:
        return nest(Max2, expr.args)
    if expr.func is sp.Min:
        return nest(Min2, expr.args)
    if not expr.args:
        return expr
    return expr.func(*[lower(a) for a in expr.args])


# What the code generator has forms for; anything else is refused when a definition is made.
SUPPORTED_FUNCTIONS = (sp.sin, sp.cos, sp.exp, sp.log, sp.Abs, sp.Max, sp.Min, sp.sign, sp.tanh,
                       sigmoid, softplus, Max2, Min2, step, sp.DiracDelta, Floor, Trunc, Rint, jump)


def unsupported(expr):
    """The first sub-expression of ``expr`` the generator has no form for, or None."""
    for e in sp.preorder_traversal(expr):
        if e.is_Atom:
            if e.is_Symbol or e.is_Number or e in (sp.pi, sp.E):
                continue
            return e
        if e.is_Add or e.is_Mul or e.is_Pow or e.func in SUPPORTED_FUNCTIONS:
            continue
        return e
    return None


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
    # a fixed-dimension model: expr may use every coordinate x1 .. x{dim} (see variables())
    dim: Optional[int] = None

    def __post_init__(self):
        if self.sense not in SENSES:
            raise DefinitionError(f"{self.name}: sense must be one of {SENSES}, not {self.sense!r}")
        if isinstance(self.domain, tuple):
            lo, hi = self.domain
            self.bounds = _constant_bounds(lo, hi)
        else:
            self.bounds = self.domain
        self.expr = _own_steps(self.expr)
        self.terms = {sp.Symbol(str(k), real=True) if isinstance(k, str) else k:
                      (type(v)(_own_steps(v.term)) if isinstance(v, (Sum, Prod)) else v)
                      for k, v in self.terms.items()}
        self._check()

    @property
    def continuous(self):
        """False for a spike or a step (Floor, Trunc, Rint): f jumps somewhere."""
        return self.spike is None and not self.steps

    @property
    def steps(self):
        """Whether f uses a step function (a jump); see the module's notes on Floor."""
        return has_steps(self.expr) or any(has_steps(spec.term) for spec in self.terms.values()
                                           if isinstance(spec, (Sum, Prod)))

    @property
    def param_names(self):
        return list(self.params)

    def window(self, aggregate):
        """1 if the term reads x_i only, 2 if it reads x_{i+1} too."""
        term = self.terms[aggregate].term
        nexts = {y} | {param(p)[1] for p in self.params}
        return 2 if term.free_symbols & nexts else 1

    def _check(self):
        if self.dim is not None and (not isinstance(self.dim, int) or self.dim < 1):
            raise DefinitionError(f"{self.name}: dim must be a positive integer, not {self.dim!r}")
        allowed_outer = set(self.terms) | {x1, xn, n} | set(variables(self.dim or 1))
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
            _reject_unsupported(self.name, f"term {agg}", t)
        _reject_floats(self.name, self.expr)
        _reject_unsupported(self.name, "expr", self.expr)

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


@dataclass
class Problem:
    """A constrained problem: minimise (or maximise) ``objective`` subject to
    ``g(x) <= 0`` for every g in ``inequalities`` and ``h(x) = 0`` for every h in
    ``equalities``, inside the objective's box.

    Each constraint is a sympy expression in the objective's language (scalar
    aggregates in ``terms``, ``x1``, ``xn``, ``n``, and for a fixed-dimension
    objective the variables ``x1 .. xd``), or a full :class:`Definition`; each
    becomes a function with every form (see :class:`gpubench.forms.function.ConstrainedProblem`).
    Paper 001's branch-and-bound handles them; the paper-000 solver refuses them.
    """
    name: str
    objective: Definition
    inequalities: tuple = ()
    equalities: tuple = ()
    terms: Mapping[sp.Symbol, object] = field(default_factory=dict)

    def __post_init__(self):
        if not isinstance(self.objective, Definition):
            raise DefinitionError(f"{self.name}: the objective must be a Definition")
        self.inequalities = tuple(self._constraint(c, f"g{k + 1}")
                                  for k, c in enumerate(self.inequalities))
        self.equalities = tuple(self._constraint(c, f"h{k + 1}")
                                for k, c in enumerate(self.equalities))

    def _constraint(self, c, label):
        from dataclasses import replace
        if isinstance(c, Definition):
            if c.dim != self.objective.dim:
                raise DefinitionError(f"{self.name}: constraint {label} has dim {c.dim}, "
                                      f"the objective {self.objective.dim}")
            return c
        o = self.objective
        try:
            expr = sp.sympify(c)
        except sp.SympifyError:
            raise DefinitionError(f"{self.name}: constraint {label} is not an expression: {c!r}") from None
        terms = {sp.Symbol(str(k), real=True) if isinstance(k, str) else k: v
                 for k, v in {**o.terms, **dict(self.terms)}.items()}
        terms = {k: v for k, v in terms.items() if k in expr.free_symbols}
        try:
            return replace(o, name=f"{self.name}__{label}", title=f"{self.name}: constraint {label}",
                           expr=expr, terms=terms, spike=None,
                           sense="min", xstar=lambda dim: np.full(dim, np.nan),
                           fstar=lambda dim: float("nan"))
        except DefinitionError as exc:
            raise DefinitionError(f"{self.name}: constraint {label}: {exc}") from None


def _reject_floats(name, expr):
    floats = expr.atoms(sp.Float)
    if floats:
        raise DefinitionError(
            f"{name}: inexact constant {sorted(floats)[0]} in a definition; write it as "
            f"sympy.Rational so the interval forms enclose the real number")


def _reject_unsupported(name, where, expr):
    """Refuse a construct with no generated form in the expression."""
    bad = unsupported(expr)
    if bad is not None:
        _refuse(name, where, bad)


def reject_unsupported_derivatives(name, where, derivatives):
    """Refuse a construct with no generated form in ``derivatives`` ({symbol: the lowered
    expression's derivative in it}; see :func:`gpubench.forms.codegen.check_derivatives`)."""
    for s, d in derivatives.items():
        bad = unsupported(d)
        if bad is not None:
            _refuse(name, f"{where} (its derivative in {s})", bad)


def _refuse(name, where, bad):
    construct = bad.func.__name__ if not bad.is_Atom else type(bad).__name__
    raise DefinitionError(f"{name}: {where} uses {construct}, which gpubench cannot "
                          f"enclose ({bad}); supported: + - * / integer and rational powers, "
                          f"sin cos exp log sqrt Abs Min Max sign tanh sigmoid softplus Floor Trunc Rint")


def variables(d):
    """The coordinates ``x1 .. xd`` of a fixed-dimension definition (``x1`` is the first coordinate)."""
    return [x1] + [sp.Symbol(f"x{k}", real=True) for k in range(2, d + 1)]


def symbols(names):
    """Real sympy symbols for aggregates, e.g. ``S1, S2 = symbols("S1 S2")``."""
    return sp.symbols(names, real=True)
