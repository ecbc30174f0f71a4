"""A function's MAiNGO form: its one symbolic definition as an expression over MAiNGO's variables.

MAiNGO (``pip install maingopy``) bounds a problem with McCormick relaxations of the expression
graph it records while a model's ``evaluate`` runs on its ``FFVar`` variables.  This module is the
translator that builds that graph from the same :class:`~gpubench.definition.Definition` every other
form comes from (as :mod:`gpubench.arrayform` does for NumPy, JAX and PyTorch): the expression tree
is turned once into nested Python closures; ``objective(xs)`` then evaluates them on a list of
MAiNGO variables (``FFVar``), each aggregate a loop over its coordinates (MAiNGO's graph is scalar).

The same closures evaluate on Python floats, with :mod:`math`'s function of the same name, so the
translation can be valued at points and compared with the point form (the ``maingo`` method does,
before and after solving: a wrong translation is an internal-consistency error, never a wrong
answer).  Which library function an operation becomes is :data:`OPERATIONS`, one table for both.

An operation MAiNGO has no function for (``sign``, the steps ``Floor``/``Trunc``/``Rint``, a
spike) is refused with one line naming it, when the form is made.
"""
import math

import sympy as sp

from .definition import (Floor, Max2, Min2, Prod, Rint, Trunc, jump, lower, param, sigmoid, softplus, step,
                         variables)
from .definition import i as I_SYM, n as N_SYM, x as X_SYM, x1 as X1_SYM, xn as XN_SYM, y as Y_SYM
from ..errors import InputError

# sympy operation -> the name of the function in maingopy and, for floats, in math (or builtins)
OPERATIONS = {sp.sin: "sin", sp.cos: "cos", sp.exp: "exp", sp.log: "log", sp.tanh: "tanh",
              sp.Abs: "fabs", Max2: "max", Min2: "min"}
# no function in MAiNGO's language (maingopy 0.10): refused by name
REFUSED = {sp.sign: "sign", step: "a step of max/min's derivative", Floor: "Floor", Trunc: "Trunc",
           Rint: "Rint", jump: "a step's derivative", sp.DiracDelta: "DiracDelta"}
_FLOAT_OPS = {"fabs": math.fabs, "max": max, "min": min}


class MaingoFormError(InputError):
    """A definition MAiNGO cannot express (one line, naming the operation)."""


def _is_num(v):
    return isinstance(v, (int, float))


def _const(mp, v):
    """``v`` as MAiNGO's double constant where it meets a variable.  maingopy 0.10.3 converts a
    Python float given to ``+``, ``-`` or ``*`` with an FFVar to C++ ``float``: ``x + 0.3`` adds
    0.30000001192092896 (its ``/``, ``pow`` and ``FFVar(0.3)`` keep the double), so a model
    written with plain floats is another function, its constants rounded to single precision
    (tests/test_maingo.py shows it)."""
    return mp.FFVar(float(v)) if _is_num(v) else v


def _lib(name, maingopy):
    """(function on FFVars, function on floats) for an OPERATIONS name."""
    fl = _FLOAT_OPS.get(name) or getattr(math, name)
    return getattr(maingopy, name), fl


def _compile(e, mp, where):
    """``e`` (a lowered sympy expression) as a function of an environment {symbol: FFVar or float}."""
    if e.is_Number or e in (sp.pi, sp.E):
        c = float(e)
        return lambda env: c
    if e.is_Symbol:
        return lambda env: env[e]
    if e.func in REFUSED:
        raise MaingoFormError(f"{where} uses {REFUSED[e.func]}, which MAiNGO cannot express ({e}); "
                              f"the maingo method runs functions of + - * / powers sin cos exp log sqrt "
                              f"tanh Abs Min Max sigmoid softplus")
    args = [_compile(a, mp, where) for a in e.args]
    if e.is_Add or e.is_Mul:
        plus = e.is_Add

        def combine(env):
            vals = [f(env) for f in args]
            if not all(_is_num(v) for v in vals):
                vals = [_const(mp, v) for v in vals]
            acc = vals[0]
            for v in vals[1:]:
                acc = acc + v if plus else acc * v
            return acc
        return combine
    if e.is_Pow:
        base, ex = args[0], e.args[1]
        if ex == sp.Rational(1, 2):
            ff, fl = mp.sqrt, math.sqrt
            return lambda env: fl(b) if _is_num(b := base(env)) else ff(b)
        if ex.is_Integer:
            k = int(ex)
            if k == -1:
                return lambda env: 1.0 / base(env)
            return lambda env: b ** k if _is_num(b := base(env)) else mp.pow(b, k)
        if ex.is_Number:
            p = float(ex)
            return lambda env: b ** p if _is_num(b := base(env)) else mp.pow(b, p)
        raise MaingoFormError(f"{where} uses a power with a variable exponent ({e}), which this "
                              f"translation does not write for MAiNGO")
    if e.func in OPERATIONS:
        ff, fl = _lib(OPERATIONS[e.func], mp)
        if len(args) == 1:
            a = args[0]
            return lambda env: fl(v) if _is_num(v := a(env)) else ff(v)
        a, b = args

        def two(env):
            u, v = a(env), b(env)
            return fl(u, v) if _is_num(u) and _is_num(v) else ff(_const(mp, u), _const(mp, v))
        return two
    if e.func is sigmoid:     # 1 / (1 + exp(-u))
        a, ff = args[0], mp.exp
        return lambda env: (1.0 / (1.0 + math.exp(-u)) if _is_num(u := a(env))
                            else _const(mp, 1.0) / (_const(mp, 1.0) + ff(-u)))
    if e.func is softplus:    # log(1 + exp(u))
        a, fe, fg = args[0], mp.exp, mp.log
        return lambda env: (max(u, 0.0) + math.log1p(math.exp(-abs(u))) if _is_num(u := a(env))
                            else fg(_const(mp, 1.0) + fe(u)))
    raise MaingoFormError(f"{where} uses {e.func.__name__}, which MAiNGO cannot express ({e})")


class MaingoForm:
    """``objective(xs)``: the function (in the sense minimised: f, or -f for ``negate``) at the
    coordinates ``xs`` (MAiNGO ``FFVar``s, or floats to value the translation at a point)."""

    def __init__(self, fn, dim, negate=False, maingopy=None):
        defn = fn.definition
        if defn.spike is not None:
            raise MaingoFormError(f"{fn.name}: its spike (f set to a constant on a box, a jump) is not "
                                  f"an operation MAiNGO can express")
        if maingopy is None:
            import maingopy
        mp = maingopy
        self.dim = dim = int(dim)
        fn.bounds(dim)  # a dimension the function is defined in (one-line error otherwise)
        self.sign = -1.0 if negate else 1.0
        params = fn.params(dim)
        self.aggs = []
        for agg, spec in defn.terms.items():
            window = defn.window(agg)
            m = dim - (window - 1)
            term = _compile(lower(sp.sympify(spec.term)), mp, f"{fn.name}: term {agg}")
            cols = []
            for q, pname in enumerate(defn.param_names):
                a, b = param(pname)
                cols.append((a, [float(v) for v in params[q, :m]]))
                cols.append((b, [float(v) for v in params[q, 1:m + 1]]))
            self.aggs.append((agg, isinstance(spec, Prod), window, m, term, cols))
        self.outer = _compile(lower(defn.expr), mp, f"{fn.name}: expr")
        self.fixed = [(k, s) for k, s in enumerate(variables(defn.dim or 1)) if k > 0]

    def objective(self, xs):
        xs = list(xs)
        if len(xs) != self.dim:
            raise InputError(f"MAiNGO form of dimension {self.dim} given {len(xs)} coordinates")
        n = float(self.dim)
        env = {N_SYM: n, X1_SYM: xs[0], XN_SYM: xs[-1]}
        for k, s in self.fixed:
            env[s] = xs[k]
        for agg, is_prod, window, m, term, cols in self.aggs:
            acc = None
            for j in range(m):
                local = {X_SYM: xs[j], I_SYM: float(j + 1), N_SYM: n}
                if window == 2:
                    local[Y_SYM] = xs[j + 1]
                for s, vals in cols:
                    if j < len(vals):
                        local[s] = vals[j]
                t = term(local)
                acc = t if acc is None else (acc * t if is_prod else acc + t)
            env[agg] = (1.0 if is_prod else 0.0) if acc is None else acc
        f = self.outer(env)
        return -f if self.sign < 0 else f


def maingo_form(fn, dim, negate=False):
    """The MAiNGO form of ``fn`` (a TestFunction) in ``dim`` dimensions; see :class:`MaingoForm`."""
    return MaingoForm(fn, dim, negate=negate)


__all__ = ["MaingoForm", "MaingoFormError", "OPERATIONS", "maingo_form"]
