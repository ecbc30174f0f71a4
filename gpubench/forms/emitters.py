"""Emitters of generated code: a sympy expression as plain floating-point code
(:class:`PointEmitter`) or as outward-rounded interval code, one operation per line
(:class:`IntervalEmitter`), and :func:`enclose_constant`, a constant between two doubles.

Used by every generator of :mod:`gpubench.forms` (see :mod:`gpubench.forms.codegen`).
"""
from fractions import Fraction

import sympy as sp
from sympy.printing.pycode import PythonCodePrinter

from .definition import DefinitionError, Floor, Max2, Min2, Rint, Trunc, jump, sigmoid, softplus, step


# ---------------------------------------------------------------- constants
def _float_dn(q):
    f = float(q)
    if Fraction(f) > q:
        f = _nextafter(f, -1)
    return f


def _float_up(q):
    f = float(q)
    if Fraction(f) < q:
        f = _nextafter(f, 1)
    return f


def _nextafter(f, direction):
    import math
    return math.nextafter(f, math.inf if direction > 0 else -math.inf)


def enclose_constant(expr):
    """(lo, hi) doubles with lo <= expr <= hi for a constant sympy expression."""
    expr = sp.nsimplify(expr) if expr.is_Float else expr
    if expr.is_Rational:
        q = Fraction(int(expr.p), int(expr.q))
        return _float_dn(q), _float_up(q)
    # 80 significant digits, then a margin far wider than evalf's error
    v = sp.N(expr, 80)
    if not v.is_real or v.is_infinite:
        raise DefinitionError(f"constant {expr} is not a finite real number")
    q = Fraction(str(v))
    margin = abs(q) * Fraction(1, 10**60) + Fraction(1, 10**300)
    return _float_dn(q - margin), _float_up(q + margin)


# ---------------------------------------------------------------- emitters
class _PointPrinter(PythonCodePrinter):
    def _print_Rational(self, e):
        return f"({float(e)!r})"

    def _print_Integer(self, e):
        return f"{float(e)!r}"

    def _print_Pow(self, e, rational=False):
        b, ex = e.as_base_exp()
        if ex.is_Integer and 2 <= ex <= 8:
            base = self.parenthesize(b, 1000)
            return "(" + "*".join([base] * int(ex)) + ")"
        if ex == sp.Rational(1, 2):
            return f"math.sqrt({self._print(b)})"
        if ex == -1:
            return f"(1.0/{self.parenthesize(b, 1000)})"
        return super()._print_Pow(e, rational)

    def _print_NumberSymbol(self, e):
        return repr(float(e))

    _print_Pi = _print_NumberSymbol
    _print_Exp1 = _print_NumberSymbol

    # helpers of gpubench.interval.ops, in the generated module's namespace
    def _call(self, name, e):
        return f"{name}(" + ", ".join(self._print(a) for a in e.args) + ")"

    def _print_jump(self, e):
        # a step's derivative at a point: 0 (at the jump itself there is none; 0 is what a
        # descent can use, and no bound is ever drawn from a point gradient)
        return "0.0"


# sympy node -> the point helper a _PointPrinter prints it as (a call on its printed arguments)
_POINT_CALLS = {"Max2": "max", "Min2": "min", "Abs": "abs", "tanh": "math.tanh", "step": "p_step",
                "sign": "p_sign", "DiracDelta": "p_delta", "Floor": "p_floor", "Trunc": "p_trunc",
                "Rint": "p_rint", "sigmoid": "p_sigmoid", "softplus": "p_softplus"}
for _node, _helper in _POINT_CALLS.items():
    setattr(_PointPrinter, f"_print_{_node}", lambda self, e, _h=_helper: self._call(_h, e))


class PointEmitter:
    """Plain floating-point code (non-rigorous: values, not bounds)."""

    def __init__(self, names):
        self.names = names  # symbol -> variable name
        self.printer = _PointPrinter({"fully_qualified_modules": True})
        self.count = 0

    def __call__(self, expr, lines):
        subs = {s: sp.Symbol(v) for s, v in self.names.items() if s in expr.free_symbols}
        expr = sp.sympify(expr).xreplace(subs)
        if sp.count_ops(expr) < 40:
            return self.printer.doprint(expr)
        # large expressions (networks): common subexpressions once, as temporaries
        self.count += 1
        reps, (reduced,) = sp.cse([expr], symbols=sp.numbered_symbols(f"pc{self.count}_"),
                                  optimizations=None)
        for sym, e in reps:
            lines.append(f"{sym} = {self.printer.doprint(e)}")
        return self.printer.doprint(reduced)


class IntervalEmitter:
    """Outward-rounded interval code, one operation per line."""

    def __init__(self, names, prefix="t"):
        self.names = names  # symbol -> (lo_name, hi_name)
        self.prefix = prefix
        self.count = 0
        # common subexpressions: an enclosure already emitted into the same straight-line
        # block is reused (the list is kept, so its id is never recycled)
        self._memo = {}

    def _new(self, lines, call):
        self.count += 1
        lo, hi = f"{self.prefix}{self.count}_lo", f"{self.prefix}{self.count}_hi"
        lines.append(f"{lo}, {hi} = {call}")
        return lo, hi

    def __call__(self, expr, lines):
        return self.emit(sp.sympify(expr), lines)

    def emit(self, e, lines):
        if e.is_Atom:
            return self._emit(e, lines)
        block = self._memo.setdefault(id(lines), (lines, {}))[1]
        if e not in block:
            block[e] = self._emit(e, lines)
        return block[e]

    def _emit(self, e, lines):
        if not e.free_symbols:
            lo, hi = enclose_constant(e)
            return repr(lo), repr(hi)
        if e.is_Symbol:
            return self.names[e]
        if e.is_Add:
            const, rest = e.as_coeff_Add()
            args = list(rest.args) if rest.is_Add else [rest]
            acc = self.emit(args[0], lines)
            for a in args[1:]:
                acc = self._add(acc, a, lines)
            if const != 0:
                c = self.emit(const, lines)
                acc = self._new(lines, f"iadd({acc[0]}, {acc[1]}, {c[0]}, {c[1]})")
            return acc
        if e.is_Mul:
            return self._mul(e, lines)
        if e.is_Pow:
            return self._pow(e, lines)
        fname = {sp.sin: "isin", sp.cos: "icos", sp.exp: "iexp", sp.log: "ilog",
                 sp.Abs: "iabs", sp.sign: "isign", step: "istep", sp.DiracDelta: "idelta",
                 sp.tanh: "itanh", sigmoid: "isigmoid", softplus: "isoftplus",
                 Floor: "ifloor", Trunc: "itrunc", Rint: "irint", jump: "ijump"}.get(e.func)
        if fname:
            a = self.emit(e.args[0], lines)
            return self._new(lines, f"{fname}({a[0]}, {a[1]})")
        if e.func in (sp.Min, sp.Max, Min2, Max2):
            op = "imin" if e.func in (sp.Min, Min2) else "imax"
            acc = self.emit(e.args[0], lines)
            for a in e.args[1:]:
                b = self.emit(a, lines)
                acc = self._new(lines, f"{op}({acc[0]}, {acc[1]}, {b[0]}, {b[1]})")
            return acc
        # e.g. Piecewise, or the DiracDelta of a second derivative
        raise DefinitionError(f"no interval form for {e.func.__name__} (in {e}); write the function "
                              f"with + - * /, powers, sqrt, exp, log, sin, cos, Abs, Min and Max")

    def _add(self, acc, term, lines):
        coeff, rest = term.as_coeff_Mul()
        if coeff == -1:  # a - b: subtract instead of multiplying by -1
            b = self.emit(rest, lines)
            return self._new(lines, f"isub({acc[0]}, {acc[1]}, {b[0]}, {b[1]})")
        b = self.emit(term, lines)
        return self._new(lines, f"iadd({acc[0]}, {acc[1]}, {b[0]}, {b[1]})")

    def _mul(self, e, lines):
        num, den = [], []
        for a in e.args:
            b, ex = a.as_base_exp()
            if a.is_Pow and ex.is_negative and ex.is_Rational and b.free_symbols:
                den.append(b ** (-ex))
            else:
                num.append(a)
        coeff = sp.Mul(*[a for a in num if not a.free_symbols])
        factors = [a for a in num if a.free_symbols]
        if not factors:
            acc = self.emit(coeff, lines)
            coeff = sp.Integer(1)
        else:
            acc = self.emit(factors[0], lines)
            for a in factors[1:]:
                b = self.emit(a, lines)
                acc = self._new(lines, f"imul({acc[0]}, {acc[1]}, {b[0]}, {b[1]})")
        if den:
            d = self.emit(sp.Mul(*den), lines)
            acc = self._new(lines, f"idiv({acc[0]}, {acc[1]}, {d[0]}, {d[1]})")
        if coeff == -1:
            acc = self._new(lines, f"ineg({acc[0]}, {acc[1]})")
        elif coeff != 1:
            c = self.emit(coeff, lines)
            acc = self._new(lines, f"imul({c[0]}, {c[1]}, {acc[0]}, {acc[1]})")
        return acc

    def _pow(self, e, lines):
        b, ex = e.as_base_exp()
        if ex.is_Integer:
            k = int(ex)
            a = self.emit(b, lines)
            if k == 1:
                return a
            r = self._new(lines, f"ipow({a[0]}, {a[1]}, {abs(k)})") if k != -1 else a
            if k < 0:
                r = self._new(lines, f"irecip({r[0]}, {r[1]})")
            return r
        if ex == sp.Rational(1, 2) or ex == sp.Rational(-1, 2):
            a = self.emit(b, lines)
            r = self._new(lines, f"isqrt({a[0]}, {a[1]})")
            if ex < 0:
                r = self._new(lines, f"irecip({r[0]}, {r[1]})")
            return r
        if ex.is_Rational and ex.q == 2:  # b**(k/2) = sqrt(b)**k
            return self.emit(sp.Pow(sp.sqrt(b), ex.p, evaluate=False), lines)
        # general power b**e = exp(e log b), b > 0.  In two steps: sympy folds exp(e*log(b))
        # straight back into b**e (which recursed here for every rational e but +-1/2, k/2)
        logb = sp.Dummy("logb", real=True)
        self.names[logb] = self.emit(sp.log(b), lines)
        return self.emit(sp.exp(ex * logb), lines)
