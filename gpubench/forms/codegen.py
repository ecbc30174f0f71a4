"""Derive every form of a test function from its one symbolic definition.

From a :class:`gpubench.forms.definition.Definition` this module writes Python source
for, on one backend:

- ``point(x, p)`` and ``interval(lo, hi, p)``;
- ``gradient(x, p, g, w)`` and ``interval_gradient(lo, hi, p, glo, ghi, wlo, whi)``,
  where the derivative comes from ``sympy.diff`` applied to the terms and to the
  outer expression and is assembled by the chain rule over the declared
  structure (the ``w`` arrays hold the prefix products a product's gradient
  needs);
- ``interval_mv(lo, hi, p, c, glo, ghi, wlo, whi)``, the mean value form
  ``f(c) + G(X).(X - c)`` (paper 001, section 2.2) with ``f(c)`` the interval form on
  the degenerate box at the midpoint ``c`` and ``G`` the interval gradient, and
  ``interval_best``, its intersection with the natural form (``c``, ``g*``, ``w*``
  are scratch arrays of length n);
- batched drivers (``points`` ... ) that loop or launch over many points/boxes.

The source is the same for the CPU and the GPU except for the decorator; the
interval operations it calls (``iadd``, ``isin`` ...) come from
:func:`gpubench.interval.namespace`.  Generated files are written to a cache
directory (``GPUBENCH_CACHE``, default ``~/.cache/gpubench``) under a content
hash, so numba's on-disk cache works and a user can read exactly what runs; an
index there, keyed by the definition and this generator, lets a new process
find its module without deriving the forms again (see :func:`load`).

``p`` is a float64 array of shape ``(len(params), n)`` with the definition's
per-coordinate parameters (possibly zero rows).
"""
import functools
import hashlib
import re
import sys
from fractions import Fraction
from pathlib import Path

import sympy as sp
from sympy.printing.pycode import PythonCodePrinter

from . import definition as _definition_module
from ..device.gpu import atomic_write, phase
from . import cards as formcache
from .cards import Derived, decorators, digest, import_generated  # noqa: F401  (decorators: re-exported)
from .definition import (DefinitionError, Floor, Max2, Min2, Prod, Rint, Sum, Trunc, i, jump, lower, n,
                         param, reject_unsupported_derivatives, sigmoid, softplus, step, variables, x, x1,
                         xn, y)

GENERATOR_VERSION = "2"


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


# ---------------------------------------------------------------- source assembly
class _Source:
    def __init__(self):
        self.lines = []

    def add(self, text, indent=0):
        for line in text.splitlines() if "\n" in text else [text]:
            self.lines.append("    " * indent + line)

    def block(self, lines, indent):
        for line in lines:
            self.lines.append("    " * indent + line)

    def text(self):
        return "\n".join(self.lines) + "\n"


def _fixed_vars(defn):
    """(k, symbol) for the coordinates x2 .. x{dim} of a fixed-dimension definition."""
    return [(k, s) for k, s in enumerate(variables(defn.dim or 1)) if k > 0]


def _names_point(defn):
    names = {x: "xi", y: "xj", i: "fi", n: "fn", x1: "x_first", xn: "x_last"}
    for k, s in _fixed_vars(defn):
        names[s] = f"xv{k}"
    for k, pname in enumerate(defn.param_names):
        a, b = param(pname)
        names[a], names[b] = f"p{k}_i", f"p{k}_j"
    for k, agg in enumerate(defn.terms):
        names[agg] = f"A{k}"
    return names


def _names_interval(defn):
    return {s: (f"{v}_lo", f"{v}_hi") for s, v in _names_point(defn).items()}


class _Structure:
    """The parts of a definition's derivative, each a sympy expression."""

    def __init__(self, defn):
        self.defn = defn
        self.aggs = list(defn.terms)
        self.kind = {a: ("prod" if isinstance(defn.terms[a], Prod) else "sum") for a in self.aggs}
        self.window = {a: defn.window(a) for a in self.aggs}
        # Max/Min nested into two-argument forms, whose derivatives pick a subgradient
        self.term = {a: lower(defn.terms[a].term) for a in self.aggs}
        self.expr = lower(defn.expr)
        self.dterm_x = {a: sp.diff(self.term[a], x) for a in self.aggs}
        self.dterm_y = {a: sp.diff(self.term[a], y) for a in self.aggs}
        self.douter = {a: sp.diff(self.expr, a) for a in self.aggs}
        self.dfirst = sp.diff(self.expr, x1)
        self.dlast = sp.diff(self.expr, xn)
        self.fixed = _fixed_vars(defn)
        self.dvar = {k: sp.diff(self.expr, s) for k, s in self.fixed}
        if not defn.__dict__.get("_derivatives_checked"):  # the definition's check, on these derivatives
            for a in self.aggs:
                reject_unsupported_derivatives(defn.name, f"term {a}", {x: self.dterm_x[a], y: self.dterm_y[a]})
            reject_unsupported_derivatives(defn.name, "expr", {**self.douter, x1: self.dfirst, xn: self.dlast,
                                                               **{s: self.dvar[k] for k, s in self.fixed}})
            defn._derivatives_checked = True  # see check_derivatives


def check_derivatives(defn):
    """Refuse a construct the generator has no form for in a derivative of the terms or of the
    expression of ``defn``.  Not part of the definition's checks at construction: sympy
    differentiates a large fixed-dimension expression in seconds, and a library registers every
    definition it holds (SciPy's took 22 s to import).  The derivatives are those the generator
    takes (the structure of the forms, which checks them and marks the definition), once per
    definition.  Here, not a method of the definition: the definition knows no generator."""
    if not defn.__dict__.get("_derivatives_checked"):
        _Structure(defn)


def _generate(defn, backend):
    st = _Structure(defn)
    nparams = len(defn.param_names)
    src = _Source()
    src.add(f'"""Generated by gpubench.forms.codegen (v{GENERATOR_VERSION}) from the definition '
            f'of {defn.name!r}, backend {backend}. Do not edit."""')
    src.add("import math")
    src.add("import numpy as np")
    src.add("from gpubench.interval.backends import namespace as _namespace")
    src.add("from gpubench.forms.cards import decorators as _decorators")  # light: no sympy
    src.add(f"globals().update(_namespace({backend!r}))")
    src.add(f"device, kernel = _decorators({backend!r})")
    src.add("")

    def load_coords(kind, need_next):
        """Lines binding x_i (and x_{i+1}), i and the parameters inside the loop."""
        out = []
        if kind == "point":
            out.append("xi = x[k]")
            if need_next:
                out.append("xj = x[k + 1]")
            out.append("fi = k + 1.0")
            for q in range(nparams):
                out.append(f"p{q}_i = p[{q}, k]")
                if need_next:
                    out.append(f"p{q}_j = p[{q}, k + 1]")
        else:
            out.append("xi_lo = lo[k]")
            out.append("xi_hi = hi[k]")
            if need_next:
                out.append("xj_lo = lo[k + 1]")
                out.append("xj_hi = hi[k + 1]")
            out.append("fi_lo = k + 1.0")
            out.append("fi_hi = fi_lo")
            for q in range(nparams):
                out.append(f"p{q}_i_lo = p[{q}, k]")
                out.append(f"p{q}_i_hi = p{q}_i_lo")
                if need_next:
                    out.append(f"p{q}_j_lo = p[{q}, k + 1]")
                    out.append(f"p{q}_j_hi = p{q}_j_lo")
        return out

    def aggregates(kind, emit, mode="all"):
        """Lines computing every aggregate A_k.

        mode "all": over every window.  "partial": start from ``base_lo/base_hi``
        (the aggregates over the windows left out) and add the windows listed in
        ``win1`` (coordinates, for one-coordinate terms) and ``win2`` (window
        starts, for two-coordinate terms).  "rest": every window except those
        flagged in ``skip1``/``skip2``.  partial + rest = all: a solver evaluates
        the windows of uncut coordinates once per iteration ("rest") and only
        the cut ones per subregion ("partial").
        """
        out = []
        if kind == "point":
            out += ["nn = x.shape[0]", "fn = float(nn)", "x_first = x[0]", "x_last = x[nn - 1]"]
            out += [f"xv{k} = x[{k}]" for k, _ in st.fixed]
            for k, a in enumerate(st.aggs):
                out.append(f"A{k} = {'1.0' if st.kind[a] == 'prod' else '0.0'}")
        else:
            out += ["nn = lo.shape[0]", "fn_lo = float(nn)", "fn_hi = fn_lo",
                    "x_first_lo = lo[0]", "x_first_hi = hi[0]",
                    "x_last_lo = lo[nn - 1]", "x_last_hi = hi[nn - 1]"]
            out += [f"xv{k}_lo, xv{k}_hi = lo[{k}], hi[{k}]" for k, _ in st.fixed]
            for k, a in enumerate(st.aggs):
                if mode == "partial":
                    out.append(f"A{k}_lo = base_lo[{k}]")
                    out.append(f"A{k}_hi = base_hi[{k}]")
                else:
                    init = "1.0" if st.kind[a] == "prod" else "0.0"
                    out.append(f"A{k}_lo = {init}")
                    out.append(f"A{k}_hi = {init}")
        if not st.aggs:
            return out
        for window, skip, wins in ((1, "skip1", "win1"), (2, "skip2", "win2")):
            members = [a for a in st.aggs if st.window[a] == window]
            if not members:
                continue
            if mode == "partial":
                out += [f"for q in range({wins}.shape[0]):", f"    k = {wins}[q]"]
            else:
                out.append("for k in range(nn):" if window == 1 else "for k in range(nn - 1):")
            body = load_coords(kind, need_next=window == 2)
            for a in members:
                body += _accumulate(kind, emit, st, a, st.aggs.index(a))
            if mode == "rest":
                body = [f"if not {skip}[k]:"] + ["    " + ln for ln in body]
            out += ["    " + ln for ln in body]
        return out

    # ---- point
    pe = PointEmitter(_names_point(defn))
    src.add("@device")
    src.add("def point_raw(x, p):")
    body = aggregates("point", pe)
    body.append(f"return {pe(st.expr, body)}")
    src.block(body, 1)
    src.add("")

    # ---- interval
    ie = IntervalEmitter(_names_interval(defn))
    src.add("@device")
    src.add("def interval_raw(lo, hi, p):")
    body = aggregates("enclosure", ie)
    r = ie(st.expr, body)
    body.append(f"return {r[0]}, {r[1]}")
    src.block(body, 1)
    src.add("")

    # ---- the same, split: the windows of uncut coordinates once, the rest per subregion
    src.add("@device")
    src.add("def interval_partial_raw(lo, hi, p, win1, win2, base_lo, base_hi):")
    body = aggregates("enclosure", ie, mode="partial")
    r = ie(st.expr, body)
    body.append(f"return {r[0]}, {r[1]}")
    src.block(body, 1)
    src.add("")
    src.add("@device")
    src.add("def aggregates_rest(lo, hi, p, skip1, skip2, out_lo, out_hi):")
    body = aggregates("enclosure", ie, mode="rest")
    body += [f"out_lo[{k}], out_hi[{k}] = A{k}_lo, A{k}_hi" for k in range(len(st.aggs))]
    body.append("return")
    src.block(body, 1)
    src.add("")
    src.add(f"N_AGGREGATES = {len(st.aggs)}")
    src.add(f"N_PRODUCTS = {sum(1 for a in st.aggs if st.kind[a] == 'prod')}")
    src.add("")
    src.block(_split_forms(st, nparams), 0)
    src.add("")

    # ---- gradients
    for kind in ("point", "enclosure"):
        if kind == "point":
            emit = PointEmitter(_names_point(defn))
            src.add("@device")
            src.add("def gradient_raw(x, p, g, w):")
        else:
            emit = IntervalEmitter(_names_interval(defn), prefix="u")
            src.add("@device")
            src.add("def interval_gradient_raw(lo, hi, p, glo, ghi, wlo, whi):")
        body = aggregates(kind, emit)
        body += _outer_derivatives(kind, emit, st)
        body += _gradient_assembly(kind, emit, st, load_coords)
        src.block(body, 1)
        src.add("")

    src.add(_WRAPPERS.format(**_spike_constants(defn)))
    src.add(_DRIVERS[backend])
    return src.text()


def _accumulate(kind, emit, st, a, k):
    out = []
    if kind == "point":
        t = emit(st.term[a], out)
        op = "*" if st.kind[a] == "prod" else "+"
        out.append(f"A{k} = A{k} {op} ({t})")
    else:
        t = emit(st.term[a], out)
        op = "imul" if st.kind[a] == "prod" else "iadd"
        out.append(f"A{k}_lo, A{k}_hi = {op}(A{k}_lo, A{k}_hi, {t[0]}, {t[1]})")
    return out


def _outer_derivatives(kind, emit, st):
    out = []
    for k, a in enumerate(st.aggs):
        v = emit(st.douter[a], out)
        if kind == "point":
            out.append(f"D{k} = {v}")
        else:
            out.append(f"D{k}_lo, D{k}_hi = {v[0]}, {v[1]}")
    for name, expr in ([("Dfirst", st.dfirst), ("Dlast", st.dlast)]
                       + [(f"Dv{k}", st.dvar[k]) for k, _ in st.fixed]):
        v = emit(expr, out)
        if kind == "point":
            out.append(f"{name} = {v}")
        else:
            out.append(f"{name}_lo, {name}_hi = {v[0]}, {v[1]}")
    return out


def _gradient_assembly(kind, emit, st, load_coords):
    out = []
    point = kind == "point"
    if point:
        out += ["for k in range(nn):", "    g[k] = 0.0"]
    else:
        out += ["for k in range(nn):", "    glo[k] = 0.0", "    ghi[k] = 0.0"]

    def add_to(idx, dname, dexpr, lines):
        v = emit(dexpr, lines)
        if point:
            lines.append(f"g[{idx}] += {dname} * ({v})")
        else:
            lines.append(f"c_lo, c_hi = imul({dname}_lo, {dname}_hi, {v[0]}, {v[1]})")
            lines.append(f"glo[{idx}], ghi[{idx}] = iadd(glo[{idx}], ghi[{idx}], c_lo, c_hi)")

    # products: d/dx_k prod_j t(x_j) = t'(x_k) * prod_{j != k} t(x_j),
    # from prefix products stored in w and a running suffix product
    for k, a in enumerate(st.aggs):
        if st.kind[a] != "prod":
            continue
        if point:
            out += ["run = 1.0", "for k in range(nn):", "    w[k] = run"]
            body = load_coords("point", False)
            t = emit(st.term[a], body)
            body.append(f"run = run * ({t})")
            out += ["    " + ln for ln in body]
            out += ["run = 1.0", "for k in range(nn - 1, -1, -1):"]
            body = load_coords("point", False)
            dt = emit(st.dterm_x[a], body)
            t = emit(st.term[a], body)
            body.append(f"g[k] += D{k} * ({dt}) * w[k] * run")
            body.append(f"run = run * ({t})")
            out += ["    " + ln for ln in body]
        else:
            out += ["run_lo = 1.0", "run_hi = 1.0", "for k in range(nn):",
                    "    wlo[k] = run_lo", "    whi[k] = run_hi"]
            body = load_coords("enclosure", False)
            t = emit(st.term[a], body)
            body.append(f"run_lo, run_hi = imul(run_lo, run_hi, {t[0]}, {t[1]})")
            out += ["    " + ln for ln in body]
            out += ["run_lo = 1.0", "run_hi = 1.0", "for k in range(nn - 1, -1, -1):"]
            body = load_coords("enclosure", False)
            dt = emit(st.dterm_x[a], body)
            t = emit(st.term[a], body)
            body.append(f"c_lo, c_hi = imul(wlo[k], whi[k], run_lo, run_hi)")
            body.append(f"c_lo, c_hi = imul(c_lo, c_hi, {dt[0]}, {dt[1]})")
            body.append(f"c_lo, c_hi = imul(D{k}_lo, D{k}_hi, c_lo, c_hi)")
            body.append("glo[k], ghi[k] = iadd(glo[k], ghi[k], c_lo, c_hi)")
            body.append(f"run_lo, run_hi = imul(run_lo, run_hi, {t[0]}, {t[1]})")
            out += ["    " + ln for ln in body]

    sums1 = [(k, a) for k, a in enumerate(st.aggs) if st.kind[a] == "sum" and st.window[a] == 1]
    sums2 = [(k, a) for k, a in enumerate(st.aggs) if st.kind[a] == "sum" and st.window[a] == 2]
    if sums1:
        out.append("for k in range(nn):")
        body = load_coords(kind, False)
        for k, a in sums1:
            add_to("k", f"D{k}", st.dterm_x[a], body)
        out += ["    " + ln for ln in body]
    if sums2:
        out.append("for k in range(nn - 1):")
        body = load_coords(kind, True)
        for k, a in sums2:
            add_to("k", f"D{k}", st.dterm_x[a], body)
            add_to("k + 1", f"D{k}", st.dterm_y[a], body)
        out += ["    " + ln for ln in body]
    if point:
        out += ["g[0] += Dfirst", "g[nn - 1] += Dlast"]
        out += [f"g[{k}] += Dv{k}" for k, _ in st.fixed]
    else:
        out += ["glo[0], ghi[0] = iadd(glo[0], ghi[0], Dfirst_lo, Dfirst_hi)",
                "glo[nn - 1], ghi[nn - 1] = iadd(glo[nn - 1], ghi[nn - 1], Dlast_lo, Dlast_hi)"]
        out += [f"glo[{k}], ghi[{k}] = iadd(glo[{k}], ghi[{k}], Dv{k}_lo, Dv{k}_hi)"
                for k, _ in st.fixed]
    return out


def _spike_constants(defn):
    s = defn.spike
    if s is None:
        return {"has_spike": False, "s_lo": 0.0, "s_hi": 0.0, "s_val": 0.0}
    lo = Fraction(int((s.center - s.halfwidth).p), int((s.center - s.halfwidth).q))
    hi = Fraction(int((s.center + s.halfwidth).p), int((s.center + s.halfwidth).q))
    val = Fraction(int(s.value.p), int(s.value.q))
    if Fraction(float(val)) != val:
        raise DefinitionError(f"{defn.name}: the spike value must be a double exactly")
    # For a double v: v >= lo exactly iff v >= the smallest double >= lo, and
    # v <= hi iff v <= the largest double <= hi.  So these comparisons are exact.
    return {"has_spike": True, "s_lo": _float_up(lo), "s_hi": _float_dn(hi), "s_val": float(val)}


_WRAPPERS = '''
HAS_SPIKE = {has_spike}
SPIKE_LO = {s_lo!r}
SPIKE_HI = {s_hi!r}
SPIKE_VALUE = {s_val!r}


@device
def _in_spike(x):
    for k in range(x.shape[0]):
        if not (x[k] >= SPIKE_LO and x[k] <= SPIKE_HI):
            return False
    return True


@device
def _box_meets_spike(lo, hi):
    for k in range(lo.shape[0]):
        if hi[k] < SPIKE_LO or lo[k] > SPIKE_HI:
            return False
    return True


@device
def _box_in_spike(lo, hi):
    for k in range(lo.shape[0]):
        if lo[k] < SPIKE_LO or hi[k] > SPIKE_HI:
            return False
    return True


@device
def point(x, p):
    if HAS_SPIKE and _in_spike(x):
        return SPIKE_VALUE
    return point_raw(x, p)


@device
def interval(lo, hi, p):
    if HAS_SPIKE and _box_meets_spike(lo, hi):
        if _box_in_spike(lo, hi):
            return SPIKE_VALUE, SPIKE_VALUE
        flo, fhi = interval_raw(lo, hi, p)
        return ihull(flo, fhi, SPIKE_VALUE, SPIKE_VALUE)
    return interval_raw(lo, hi, p)


@device
def interval_partial(lo, hi, p, win1, win2, base_lo, base_hi):
    if HAS_SPIKE and _box_meets_spike(lo, hi):
        if _box_in_spike(lo, hi):
            return SPIKE_VALUE, SPIKE_VALUE
        flo, fhi = interval_partial_raw(lo, hi, p, win1, win2, base_lo, base_hi)
        return ihull(flo, fhi, SPIKE_VALUE, SPIKE_VALUE)
    return interval_partial_raw(lo, hi, p, win1, win2, base_lo, base_hi)


@device
def gradient(x, p, g, w):
    if HAS_SPIKE and _in_spike(x):
        for k in range(x.shape[0]):
            g[k] = 0.0
        return
    gradient_raw(x, p, g, w)


@device
def interval_gradient(lo, hi, p, glo, ghi, wlo, whi):
    # where the box meets a discontinuity there is no derivative to bound
    if HAS_SPIKE and _box_meets_spike(lo, hi):
        for k in range(lo.shape[0]):
            glo[k] = -math.inf
            ghi[k] = math.inf
        return
    interval_gradient_raw(lo, hi, p, glo, ghi, wlo, whi)


@device
def _inner_point(a, b):
    # any point of [a, b] will do: it enters the form as an exact degenerate interval,
    # so rounding (or an FMA on the GPU) here costs width, never rigour
    if a == -math.inf and b == math.inf:
        return 0.0
    if a == -math.inf:
        return b
    if b == math.inf:
        return a
    m = 0.5 * a + 0.5 * b
    return min(max(m, a), b)


@device
def interval_mv(lo, hi, p, c, glo, ghi, wlo, whi):
    # mean value form f(c) + G(X) . (X - c), c the midpoint (paper 001, section 2.2);
    # valid for the non-smooth ops too, G enclosing Clarke's gradient (Lebourg's theorem)
    if HAS_SPIKE and _box_in_spike(lo, hi):
        return SPIKE_VALUE, SPIKE_VALUE  # f is constant there (a box meeting it gets G = R)
    nn = lo.shape[0]
    for k in range(nn):
        c[k] = _inner_point(lo[k], hi[k])
    flo, fhi = interval(c, c, p)
    interval_gradient(lo, hi, p, glo, ghi, wlo, whi)
    for k in range(nn):
        dlo, dhi = isub(lo[k], hi[k], c[k], c[k])
        tlo, thi = imul(glo[k], ghi[k], dlo, dhi)
        flo, fhi = iadd(flo, fhi, tlo, thi)
    return flo, fhi


@device
def interval_best(lo, hi, p, c, glo, ghi, wlo, whi):
    # natural form intersected with the mean value form: both contain the range
    alo, ahi = interval(lo, hi, p)
    blo, bhi = interval_mv(lo, hi, p, c, glo, ghi, wlo, whi)
    return iintersect(alo, ahi, blo, bhi)
'''

_DRIVERS = {
    "cpu": '''

@kernel
def points(X, p, out):
    for r in range(X.shape[0]):
        out[r] = point(X[r], p)


@kernel
def intervals(LO, HI, p, out_lo, out_hi):
    for r in range(LO.shape[0]):
        out_lo[r], out_hi[r] = interval(LO[r], HI[r], p)


@kernel
def gradients(X, p, G, W):
    for r in range(X.shape[0]):
        gradient(X[r], p, G[r], W[r])


@kernel
def interval_gradients(LO, HI, p, GLO, GHI, WLO, WHI):
    for r in range(LO.shape[0]):
        interval_gradient(LO[r], HI[r], p, GLO[r], GHI[r], WLO[r], WHI[r])


@kernel
def intervals_mv(LO, HI, p, out_lo, out_hi, C, GLO, GHI, WLO, WHI):
    for r in range(LO.shape[0]):
        out_lo[r], out_hi[r] = interval_mv(LO[r], HI[r], p, C[r], GLO[r], GHI[r], WLO[r], WHI[r])


@kernel
def intervals_best(LO, HI, p, out_lo, out_hi, C, GLO, GHI, WLO, WHI):
    for r in range(LO.shape[0]):
        out_lo[r], out_hi[r] = interval_best(LO[r], HI[r], p, C[r], GLO[r], GHI[r], WLO[r], WHI[r])
''',
    "cuda": '''
from numba import cuda as _cuda


@kernel
def points(X, p, out):
    r = _cuda.grid(1)
    if r < X.shape[0]:
        out[r] = point(X[r], p)


@kernel
def intervals(LO, HI, p, out_lo, out_hi):
    r = _cuda.grid(1)
    if r < LO.shape[0]:
        out_lo[r], out_hi[r] = interval(LO[r], HI[r], p)


@kernel
def gradients(X, p, G, W):
    r = _cuda.grid(1)
    if r < X.shape[0]:
        gradient(X[r], p, G[r], W[r])


@kernel
def interval_gradients(LO, HI, p, GLO, GHI, WLO, WHI):
    r = _cuda.grid(1)
    if r < LO.shape[0]:
        interval_gradient(LO[r], HI[r], p, GLO[r], GHI[r], WLO[r], WHI[r])


@kernel
def intervals_mv(LO, HI, p, out_lo, out_hi, C, GLO, GHI, WLO, WHI):
    r = _cuda.grid(1)
    if r < LO.shape[0]:
        out_lo[r], out_hi[r] = interval_mv(LO[r], HI[r], p, C[r], GLO[r], GHI[r], WLO[r], WHI[r])


@kernel
def intervals_best(LO, HI, p, out_lo, out_hi, C, GLO, GHI, WLO, WHI):
    r = _cuda.grid(1)
    if r < LO.shape[0]:
        out_lo[r], out_hi[r] = interval_best(LO[r], HI[r], p, C[r], GLO[r], GHI[r], WLO[r], WHI[r])
''',
}


def cache_dir():
    from .cache import folder  # the one definition of the folder (gpubench cache shows and clears it)
    path = folder()
    path.mkdir(parents=True, exist_ok=True)
    return path


def source(defn, backend, extensions=()):
    """The generated Python source of every form of ``defn`` on ``backend``.

    ``extensions`` are further source texts appended to the module, e.g. a
    method's kernels, which then call the forms directly (and are cached with
    them), or functions of this module taking the definition (e.g. :func:`term_forms`),
    called only when the text is generated: a second process that finds the module in the
    index derives nothing.
    """
    key = (definition_key(defn), backend)
    if key not in _GENERATED:  # a solver loads the same forms with several extensions
        _GENERATED[key] = _generate(defn, backend)
    return _GENERATED[key] + "".join("\n\n" + _extension_text(e, defn) for e in extensions)


def _extension_text(e, defn):
    """An extension's code: a text as given; a function of this module, or one named by a
    :class:`~gpubench.forms.cards.Derived`, called on the definition."""
    if isinstance(e, Derived):
        return globals()[e.__name__](defn)
    return e(defn) if callable(e) else e


# ---------------------------------------------------------------- the cache of generated sources
# Deriving the forms (sympy) is done once per definition and generator: an index file named by a
# hash of everything the generated text depends on holds the name of the module file written
# from it, whose own name is the hash of its text.  A change to the definition, to this
# generator or to the sympy that runs it changes the key, so a stale text is never found.
_GENERATOR_SOURCES = (__file__, _definition_module.__file__)
_GENERATED = {}  # (definition_key, backend) -> text, in this process
_INDEXED = {}  # load key -> module name, in this process


@functools.lru_cache(maxsize=None)
def generator_key():
    """A hash of what decides the generated text besides the definition: the code of this module
    and of gpubench.forms.definition (lower, window, the functions' classes), the versions of sympy and
    mpmath (printing, simplification, the evalf that encloses constants), and Python's."""
    import mpmath
    h = hashlib.sha256()
    for path in _GENERATOR_SOURCES:
        h.update(Path(path).read_bytes())
    h.update(f"{GENERATOR_VERSION} {sp.__version__} {mpmath.__version__} {sys.version_info[:2]}".encode())
    return h.hexdigest()


_DEFINITION_KEYS = {}  # id(defn) -> (defn, identities of the fields read, key)


def definition_key(defn):
    """A hash of every field of ``defn`` that the generator reads (see ``_generate``): name, expr,
    terms (in order, with their kinds), parameter names, spike and dim.  The bounds, optimum and
    parameter values are not in the generated text (parameters are passed at run time).

    Remembered per definition object while the objects of those fields stay the same (printing a
    large expression costs tens of ms, and a solver that loads its forms once per batch, such as
    the ADMM of :mod:`gpubench.problems.opf`, would pay it every iteration)."""
    ids = (defn.name, id(defn.expr), tuple((id(a), id(t)) for a, t in defn.terms.items()),
           tuple(defn.param_names), id(defn.spike), defn.dim)
    hit = _DEFINITION_KEYS.get(id(defn))
    if hit is not None and hit[0] is defn and hit[1] == ids:
        return hit[2]
    key = _definition_key(defn)
    _DEFINITION_KEYS[id(defn)] = (defn, ids, key)
    return key


def _definition_key(defn):
    spike = None if defn.spike is None else [sp.srepr(v) for v in (defn.spike.center, defn.spike.halfwidth,
                                                                    defn.spike.value)]
    fields = [defn.name, sp.srepr(defn.expr),
              [(sp.srepr(a), type(t).__name__, sp.srepr(t.term)) for a, t in defn.terms.items()],
              list(defn.param_names), spike, defn.dim]
    return hashlib.sha256(repr(fields).encode()).hexdigest()


def _load_key(defn, backend, extensions):
    h = hashlib.sha256(f"{generator_key()} {definition_key(defn)} {backend}".encode())
    for e in extensions:
        if callable(e) or isinstance(e, Derived):  # a function of this module: its code is in generator_key, defn in definition_key
            if getattr(e, "__module__", None) != __name__ and not isinstance(e, Derived):
                raise ValueError(f"a callable extension must be a function of {__name__}, got {e!r}")
            h.update(b"\0callable " + e.__name__.encode())
        else:
            h.update(b"\0" + e.encode())
    return h.hexdigest()[:32]


def _indexed_module(key, prefix):
    """The module name the index holds for ``key``, if its file is there with the text that name
    hashes (else None: the text is generated again)."""
    try:
        modname = (cache_dir() / "index" / key).read_text().strip()
        text = (cache_dir() / f"{modname}.py").read_text()
    except OSError:
        return None
    ok = modname.startswith(prefix) and modname.endswith(_digest(text))
    return modname if ok else None


_digest = digest


def load(defn, backend, extensions=()):
    """Generate (or find in the cache), write and import the module of ``defn``'s forms on ``backend``.

    Thread-safe: Dask's in-process workers load the same function at once, and a
    module is published in ``sys.modules`` only once it has run to the end
    (:func:`gpubench.forms.cards.import_generated`).
    """
    prefix = f"gpubench_generated_{defn.name}_{backend}_"
    with phase("codegen.source"):
        key = _load_key(defn, backend, extensions)
        modname = _INDEXED.get(key) or _indexed_module(key, prefix)
        text = None
        if modname is None:
            text = source(defn, backend, extensions)
            modname = prefix + _digest(text)
    module = formcache.LOADED.get(modname)
    if module is not None:
        return module
    with formcache.LOAD_LOCK:
        if text is not None and modname not in formcache.LOADED:
            path = cache_dir() / f"{modname}.py"
            if not path.exists() or path.read_text() != text:
                atomic_write(path, text, fsync=False)
            atomic_write(cache_dir() / "index" / key, modname, fsync=False)
        _INDEXED[key] = modname
        return import_generated(modname, backend)


# ---------------------------------------------------------------- per-coordinate term forms
def term_forms(defn):
    """Source of the per-coordinate point forms, for evaluation shared by many threads.

    A definition is ``expr(A_0, ..., x1, xn, n)`` with every ``A_k`` a sum or
    product of terms over coordinates, so threads may each fold the terms of
    some coordinates into partial aggregates, combine the partials (a block
    reduction), and one thread applies the outer expression.  This writes, for
    the generated module it is appended to (as an ``extensions`` text of
    :func:`load`):

    - ``COOP_SLOTS``: ``max(N_AGGREGATES, 1)``, the size of a partials array;
    - ``agg_identity(a)`` and ``agg_combine(a, u, v)``: 0 and ``+`` for a sum, 1 and ``*``
      for a product;
    - ``term_fold(x, off, p, k, nn, acc)``: ``acc[a]`` combined with aggregate a's term at
      0-based coordinate ``k`` of the vector ``x[off:off + nn]`` (a two-coordinate term
      only for ``k < nn - 1``);
    - ``outer_value(acc, x_first, x_last, nn)``: the expression applied to full aggregates;
    - ``in_spike_at(x, off, nn)``: whether the vector lies in the definition's spike.

    ``point_raw`` equals ``outer_value`` of the folded terms up to the order of
    the floating-point additions.
    """
    st = _Structure(defn)
    names = _names_point(defn)
    pe = PointEmitter(names)
    nparams = len(defn.param_names)
    out = [f"COOP_SLOTS = {max(len(st.aggs), 1)}", "", "", "@device", "def agg_identity(a):"]
    for k, a in enumerate(st.aggs):
        if st.kind[a] == "prod":
            out.append(f"    if a == {k}:")
            out.append("        return 1.0")
    out += ["    return 0.0", "", "", "@device", "def agg_combine(a, u, v):"]
    for k, a in enumerate(st.aggs):
        if st.kind[a] == "prod":
            out.append(f"    if a == {k}:")
            out.append("        return u * v")
    out += ["    return u + v", "", "", "@device", "def term_fold(x, off, p, k, nn, acc):",
            "    fn = float(nn)", "    xi = x[off + k]", "    fi = k + 1.0"]
    out += [f"    p{q}_i = p[{q}, k]" for q in range(nparams)]
    body1, body2 = [], []
    for k, a in enumerate(st.aggs):
        lines = body1 if st.window[a] == 1 else body2
        t = pe(st.term[a], lines)
        op = "*" if st.kind[a] == "prod" else "+"
        lines.append(f"acc[{k}] = acc[{k}] {op} ({t})")
    out += ["    " + ln for ln in body1]
    if body2:
        out += ["    if k < nn - 1:", "        xj = x[off + k + 1]"]
        out += [f"        p{q}_j = p[{q}, k + 1]" for q in range(nparams)]
        out += ["        " + ln for ln in body2]
    out += ["    return", "", "", "@device", "def outer_value(acc, x_first, x_last, nn):",
            "    fn = float(nn)"]
    out += [f"    A{k} = acc[{k}]" for k in range(len(st.aggs))]
    body = []
    r = pe(defn.expr, body)
    out += ["    " + ln for ln in body] + [f"    return {r}", "", "", "@device",
                                            "def in_spike_at(x, off, nn):",
                                            "    for k in range(nn):",
                                            "        if not (x[off + k] >= SPIKE_LO and x[off + k] <= SPIKE_HI):",
                                            "            return False",
                                            "    return True", ""]
    return "\n".join(out)


# ---------------------------------------------------------------- the solver's n-independent split
def _branches(branches):
    """``if``/``elif`` lines over (condition, body lines)."""
    out = []
    for j, (cond, lines) in enumerate(branches):
        out += [("if " if j == 0 else "elif ") + cond + ":"] + ["    " + ln for ln in lines]
    return out


def _hoist_side(e):
    """"first" (or "last") for a subexpression of the outer expression that depends on x_first
    (or x_last) alone, besides n and constants: in an iteration it takes one value per part of that
    coordinate and row, so the cut tables hold it; None otherwise."""
    if e.is_Atom:
        return None
    fs = e.free_symbols
    if x1 in fs and fs <= {x1, n}:
        return "first"
    if xn in fs and fs <= {xn, n}:
        return "last"
    return None


class _TableEmitter(IntervalEmitter):
    """Interval code of the outer expression in which every maximal subexpression of x_first alone
    (or x_last alone) is a name (``Hf{j}``, ``Hl{j}``) read from the cut tables, not evaluated.

    ``hoisted[side]`` lists those subexpressions in the order of the tables' columns; it grows as
    code is emitted, so the loads are written after the last function that uses them.  Evaluated
    by ``entry_terms`` with the same emitter code, a hoisted value has the bits it would have here.
    """

    def __init__(self, names, prefix, hoisted):
        super().__init__(names, prefix)
        self.hoisted = hoisted
        self.used = {"first": set(), "last": set()}  # the columns this emitter's code reads

    def emit(self, e, lines):
        side = _hoist_side(e)
        if side is None:
            return super().emit(e, lines)
        listed = self.hoisted[side]
        if e not in listed:
            listed.append(e)
        j = listed.index(e)
        self.used[side].add(j)
        return f"H{side[0]}{j}_lo", f"H{side[0]}{j}_hi"


def _coord_lines(var, idx):
    """Bind ``var`` to coordinate ``idx`` of the subregion: its cut slot, or the uncut row."""
    return [f"s_ = slot[{idx}]", "if s_ >= 0:", f"    {var}_lo = clo[s_]", f"    {var}_hi = chi[s_]",
            "else:", f"    {var}_lo = ulo[{idx}]", f"    {var}_hi = uhi[{idx}]"]


def _bind_window(nparams, need_next):
    """Inside ``entry_terms``/``deriv_terms``: x_k (and x_{k+1}) from the arguments, i, parameters."""
    out = ["xi_lo = a_lo", "xi_hi = a_hi", "fi_lo = k + 1.0", "fi_hi = fi_lo"]
    if need_next:
        out += ["xj_lo = b_lo", "xj_hi = b_hi"]
    for q in range(nparams):
        out += [f"p{q}_i_lo = p[{q}, k]", f"p{q}_i_hi = p{q}_i_lo"]
        if need_next:
            out += [f"p{q}_j_lo = p[{q}, k + 1]", f"p{q}_j_hi = p{q}_j_lo"]
    return out


def _int(v):
    """An integer constant passed to a generated device function, as an int64 value: numba compiles a
    callee once per *literal* argument (entry_terms(1, ...) and entry_terms(2, ...) would be two
    compilations of the whole function), and once for a typed int64 argument."""
    v = str(v)
    return f"np.int64({v})" if re.fullmatch(r"-?\d+", v) else v


def _read_entry(row, entry, combo, inline, count, use):
    """Lines that fold the ``count`` columns of one cut-table entry into the sweep's values: read
    from the tables (``VT*[row, off + combo]`` or ``DT*[off + combo]``), or for an entry the layout
    left inline, evaluated here (``inline``: the call that fills ``tlo/thi``).  ``use(lo, hi, j)``
    gives the lines that consume column j."""
    table = ("VTlo", "VThi") if row is not None else ("DTlo", "DThi")
    at = f"{row}, c_" if row is not None else "c_"
    out = [f"o_ = {entry}", "if o_ < 0:", f"    {inline}"]
    for j in range(count):
        out += ["    " + ln for ln in use(f"tlo[{j}]", f"thi[{j}]", j)]
    out += ["else:", f"    c_ = o_ + {combo}"]
    for j in range(count):
        out += ["    " + ln for ln in use(f"{table[0]}[{at}, {j}]", f"{table[1]}[{at}, {j}]", j)]
    return out


def _table_aggregates(st, row):
    """Lines folding the cut windows' terms of row ``row`` into the aggregates ``A_k`` (which start
    from ``base``), in the order ``interval_partial`` folds them, so with the same bits."""
    out = []
    for cls, window, wins in ((0, 1, "win1"), (1, 2, "win2")):
        members = [a for a in st.aggs if st.window[a] == window]
        if not members:
            continue

        def use(lo, hi, j, members=members):
            k = st.aggs.index(members[j])
            op = "imul" if st.kind[members[j]] == "prod" else "iadd"
            return [f"A{k}_lo, A{k}_hi = {op}(A{k}_lo, A{k}_hi, {lo}, {hi})"]
        body = ["k = win1[q]" if window == 1 else "k = win2[q]"]
        if window == 1:
            body += _read_entry(row, "tab[q, 0]", "lp[q]",
                                f"entry_terms({_int(0)}, k, clo[q], chi[q], 0.0, 0.0, p, nn, tlo, thi)",
                                len(members), use)
        else:
            inline = ["    " + ln for ln in _coord_lines("xa", "k") + _coord_lines("xb", "k + 1")]
            read = _read_entry(row, "tab[ncut + q, 0]", "_cut_combo(lp, slot, k, k + 1, parts)",
                               f"entry_terms({_int(1)}, k, xa_lo, xa_hi, xb_lo, xb_hi, p, nn, tlo, thi)",
                               len(members), use)
            body += read[:2] + inline + read[2:]
        out += [f"for q in range({wins}.shape[0]):"] + ["    " + ln for ln in body]
    return out


def _hoisted_loads(emitter, row):
    """Lines binding the hoisted subexpressions of x_first and x_last that ``emitter``'s code reads,
    for ``row``."""
    out = []
    for cls, side, entry, coord in ((2, "first", "ncut + win2.shape[0]", "0"),
                                    (3, "last", "ncut + win2.shape[0] + 1", "nn - 1")):
        count = len(emitter.hoisted[side])
        if not emitter.used[side]:
            continue

        def use(lo, hi, j, side=side):
            if j not in emitter.used[side]:
                return []
            return [f"H{side[0]}{j}_lo = {lo}", f"H{side[0]}{j}_hi = {hi}"]
        call = (f"entry_terms({_int(cls)}, {_int(coord)}, x_{side}_lo, x_{side}_hi, 0.0, 0.0, p, nn, "
                "tlo, thi)")
        out += _read_entry(row, f"tab[{entry}, 0]", f"_cut_combo(lp, slot, {_int(coord)}, {_int(-1)}, parts)",
                           call, count, use)
    return out


def _entry_function(name, selector, emit, classes):
    """``name(selector, k, a, b, p, nn, out)``: for the class (value of ``selector``) of each
    (value, expressions, binding lines), their enclosures into ``out_lo/out_hi[j]``, each class in a
    block of its own (so no common subexpression is shared across bindings)."""
    branches = []
    for value, exprs, bind in classes:
        if exprs:
            lines = list(bind)
            for j, e in enumerate(exprs):
                v = emit(e, lines)
                lines += [f"out_lo[{j}] = {v[0]}", f"out_hi[{j}] = {v[1]}"]
            branches.append((f"{selector} == {value}", lines))
    body = ["fn_lo = float(nn)", "fn_hi = fn_lo"] + _branches(branches) + ["return"]
    return (["@device", f"def {name}({selector}, k, a_lo, a_hi, b_lo, b_hi, p, nn, out_lo, out_hi):"]
            + ["    " + ln for ln in body] + [""])


def _subregion_prologue(st):
    out = ["nn = ulo.shape[0]", "fn_lo = float(nn)", "fn_hi = fn_lo", "ncut = win1.shape[0]"]
    for name, idx in (("x_first", "0"), ("x_last", "nn - 1")):
        out += _coord_lines(name, idx)
    for k, a in enumerate(st.aggs):
        out += [f"A{k}_lo = base_lo[{k}]", f"A{k}_hi = base_hi[{k}]"]
    return out


def _split_forms(st, nparams):
    """Forms of the solver's n-independent sweep (see docs/solver-scaling.md).

    A subregion differs from its siblings only in the parts of its s cut coordinates, so a term of a
    window touching them takes one value per combination of its coordinates' parts and per row (the
    box, or sample m): the iteration's *cut tables* hold them, and a subregion folds table entries
    instead of evaluating terms (same operations, same order, so the bits of ``interval_partial``).

    - ``entry_terms(cls, k, a, b, ...)``: the values of one table entry: the terms of the
      one-coordinate (cls 0) or two-coordinate (cls 1) window at k, or the hoisted subexpressions of
      x_first (2) or x_last (3) (``_TableEmitter``); ``deriv_terms(kind, k, a, b, ...)``: the
      derivative terms that the gradient at a special coordinate d reads (kind 0: x_d's window,
      products then one-coordinate sums; 1: dterm_y of the window d - 1; 2: dterm_x of window d);
    - ``value_split_raw``: f over a subregion (or at a sample) from ``base``, the cut tables and
      the cut coordinates: O(s) table reads; an entry the layout left inline (``tab[e, 0] < 0``:
      its table would be no smaller than the sweep) is evaluated in place by ``entry_terms``;
    - ``gradient_split_raw``: the gradient at the *special* coordinates (the cut ones, their
      neighbours in two-coordinate windows, the first and last) over the subregion, with the
      monotonicity test there, and the per-subregion factors ``C_a`` of every other coordinate's
      derivative (g_d = sum_a C_a K_{a,d}); O(s^2) work;
    - ``uncut_tables`` (host, once per iteration): K_{a,d} over the selected box and, for products,
      the product R_{a,d} of the uncut terms other than d's at the special coordinates.
    """
    names = _names_interval(st.defn)
    prods = [a for a in st.aggs if st.kind[a] == "prod"]
    sums1 = [a for a in st.aggs if st.kind[a] == "sum" and st.window[a] == 1]
    sums2 = [a for a in st.aggs if st.kind[a] == "sum" and st.window[a] == 2]
    members1 = [a for a in st.aggs if st.window[a] == 1]
    members2 = [a for a in st.aggs if st.window[a] == 2]
    kind0 = prods + sums1  # derivative columns of x_d's own window: products, then sums
    hoisted = {"first": [], "last": []}
    out = []

    # ---- value
    vemit = _TableEmitter(names, "v", hoisted)
    value = _subregion_prologue(st) + _table_aggregates(st, "m")
    outer = []
    r = vemit(st.defn.expr, outer)
    value_tail = outer + [f"return {r[0]}, {r[1]}"]

    # ---- gradient at the special coordinates, and the factors C_a
    gemit = _TableEmitter(names, "h", hoisted)
    grad = _subregion_prologue(st) + _table_aggregates(st, "0")
    col1 = {a: j for j, a in enumerate(members1)}
    for pi, a in enumerate(prods):
        # products of the cut terms: all of them (PC) and all but the q-th (w[pi*ncut + q])
        def take(lo, hi, j, a=a):
            return [f"t_lo = {lo}", f"t_hi = {hi}"] if j == col1[a] else []
        term = _read_entry("0", "tab[q, 0]", "lp[q]",
                           f"entry_terms({_int(0)}, k, clo[q], chi[q], 0.0, 0.0, p, nn, tlo, thi)", len(members1), take)
        grad += ["run_lo = 1.0", "run_hi = 1.0", "for q in range(ncut):", "    k = win1[q]",
                 f"    wlo[{pi} * ncut + q] = run_lo", f"    whi[{pi} * ncut + q] = run_hi"]
        grad += ["    " + ln for ln in term + ["run_lo, run_hi = imul(run_lo, run_hi, t_lo, t_hi)"]]
        grad += [f"PC{pi}_lo = run_lo", f"PC{pi}_hi = run_hi",
                 "run_lo = 1.0", "run_hi = 1.0", "for q in range(ncut - 1, -1, -1):", "    k = win1[q]"]
        grad += ["    " + ln for ln in term + [
            f"wlo[{pi} * ncut + q], whi[{pi} * ncut + q] = imul(wlo[{pi} * ncut + q], "
            f"whi[{pi} * ncut + q], run_lo, run_hi)",
            "run_lo, run_hi = imul(run_lo, run_hi, t_lo, t_hi)"]]
    derivs = _outer_derivatives("enclosure", gemit, st)
    loop = ["d = special[qq]", "g_lo = 0.0", "g_hi = 0.0"]

    def fold(dname, factor=None):
        def use(lo, hi, j):
            if factor is not None:
                return [f"c_lo, c_hi = imul({factor[0]}, {factor[1]}, {lo}, {hi})",
                        f"c_lo, c_hi = imul({dname(j)}_lo, {dname(j)}_hi, c_lo, c_hi)",
                        "g_lo, g_hi = iadd(g_lo, g_hi, c_lo, c_hi)"]
            return [f"c_lo, c_hi = imul({dname(j)}_lo, {dname(j)}_hi, {lo}, {hi})",
                    "g_lo, g_hi = iadd(g_lo, g_hi, c_lo, c_hi)"]
        return use

    # the same order of terms as interval_gradient: products, one-coordinate sums, two-coordinate sums
    if kind0:
        loop += ["sd = slot[d]"]
        for pi, a in enumerate(prods):
            loop += ["if sd >= 0:", f"    cp_lo = wlo[{pi} * ncut + sd]", f"    cp_hi = whi[{pi} * ncut + sd]",
                     "else:", f"    cp_lo = PC{pi}_lo", f"    cp_hi = PC{pi}_hi",
                     f"r{pi}_lo, r{pi}_hi = imul(Rlo[{pi}, qq], Rhi[{pi}, qq], cp_lo, cp_hi)"]

        def use0(lo, hi, j):
            a = kind0[j]
            k = st.aggs.index(a)
            if a in prods:
                pi = prods.index(a)
                return fold(lambda _: f"D{k}", (f"r{pi}_lo", f"r{pi}_hi"))(lo, hi, j)
            return fold(lambda _: f"D{k}")(lo, hi, j)
        read = _read_entry(None, "dtab[3 * qq, 0]", f"_cut_combo(lp, slot, d, {_int(-1)}, parts)",
                           f"deriv_terms({_int(0)}, d, xa_lo, xa_hi, 0.0, 0.0, p, nn, tlo, thi)", len(kind0), use0)
        loop += read[:2] + ["    " + ln for ln in _coord_lines("xa", "d")] + read[2:]
    if sums2:
        dname = (lambda j: f"D{st.aggs.index(sums2[j])}")
        for kind, cond, ka, kb in ((1, "d >= 1", "d - 1", "d"), (2, "d <= nn - 2", "d", "d + 1")):
            read = _read_entry(None, f"dtab[3 * qq + {kind}, 0]", f"_cut_combo(lp, slot, {ka}, {kb}, parts)",
                               f"deriv_terms({_int(kind)}, {ka}, xa_lo, xa_hi, xb_lo, xb_hi, p, nn, tlo, thi)",
                               len(sums2), fold(dname))
            inline = ["    " + ln for ln in _coord_lines("xa", ka) + _coord_lines("xb", kb)]
            loop += [f"if {cond}:"] + ["    " + ln for ln in read[:2] + inline + read[2:]]
    loop += ["if d == 0:", "    g_lo, g_hi = iadd(g_lo, g_hi, Dfirst_lo, Dfirst_hi)",
             "if d == nn - 1:", "    g_lo, g_hi = iadd(g_lo, g_hi, Dlast_lo, Dlast_hi)",
             "sd = slot[d]", "if sd >= 0:", "    e_lo = clo[sd]", "    e_hi = chi[sd]",
             "else:", "    e_lo = ulo[d]", "    e_hi = uhi[d]",
             # f is monotone in x_d over the subregion, which does not reach the domain's edge there
             "if g_lo > 0.0 and e_lo != dom_lo[d]:", "    return 1",
             "if g_hi < 0.0 and e_hi != dom_hi[d]:", "    return 1"]
    grad_tail = derivs + ["for qq in range(special.shape[0]):"] + ["    " + ln for ln in loop]
    pi_of = {a: q for q, a in enumerate(prods)}
    for k, a in enumerate(st.aggs):
        if st.kind[a] == "prod":
            grad_tail.append(f"Clo[{k}], Chi[{k}] = imul(D{k}_lo, D{k}_hi, PC{pi_of[a]}_lo, PC{pi_of[a]}_hi)")
        else:
            grad_tail.append(f"Clo[{k}], Chi[{k}] = D{k}_lo, D{k}_hi")
    grad_tail.append("return 0")

    # ---- the entries' values: the same emitter code as the inline forms had, one block per class
    ncols = max(len(members1), len(members2), len(hoisted["first"]), len(hoisted["last"]), 1)
    dcols = max(len(kind0), len(sums2), 1)
    out += ["# the cut tables' columns (gpubench/methods/solver/kernels.py: cut_layout, fill_cut_tables)",
            f"CUT_COLS = {ncols}", f"DERIV_COLS = {dcols}",
            f"CUT_USES = ({len(members1)}, {len(members2)}, {len(hoisted['first'])}, {len(hoisted['last'])})",
            f"DERIV_USES = ({len(kind0)}, {len(sums2)})", "", ""]
    out += _entry_function("entry_terms", "cls", IntervalEmitter(names, prefix="e"), (
        (0, [st.term[a] for a in members1], _bind_window(nparams, False)),
        (1, [st.term[a] for a in members2], _bind_window(nparams, True)),
        (2, hoisted["first"], ["x_first_lo = a_lo", "x_first_hi = a_hi"]),
        (3, hoisted["last"], ["x_last_lo = a_lo", "x_last_hi = a_hi"])))
    out += _entry_function("deriv_terms", "kind", IntervalEmitter(names, prefix="g"), (
        (0, [st.dterm_x[a] for a in kind0], _bind_window(nparams, False)),
        (1, [st.dterm_y[a] for a in sums2], _bind_window(nparams, True)),
        (2, [st.dterm_x[a] for a in sums2], _bind_window(nparams, True))))

    args = "clo, chi, ulo, uhi, slot, p, win1, win2, base_lo, base_hi, tab, VTlo, VThi, tlo, thi"
    out += ["@device", f"def value_split_raw(m, lp, parts, {args}):"]
    out += ["    " + ln for ln in value + _hoisted_loads(vemit, "m") + value_tail] + [""]
    out += ["@device",
            f"def gradient_split_raw(lp, parts, {args}, special, Rlo, Rhi, dom_lo, dom_hi, Clo, Chi, wlo, whi,",
            "                       dtab, DTlo, DThi):"]
    out += ["    " + ln for ln in grad + _hoisted_loads(gemit, "0") + grad_tail] + [""]

    # ---- host tables over the selected box: K_{a,d} and R_{a,special}
    emit = IntervalEmitter(names, prefix="k")

    def load_box(need_next):
        lines = ["xi_lo = lo[k]", "xi_hi = hi[k]"]
        if need_next:
            lines += ["xj_lo = lo[k + 1]", "xj_hi = hi[k + 1]"]
        lines += ["fi_lo = k + 1.0", "fi_hi = fi_lo"]
        for q in range(nparams):
            lines += [f"p{q}_i_lo = p[{q}, k]", f"p{q}_i_hi = p{q}_i_lo"]
            if need_next:
                lines += [f"p{q}_j_lo = p[{q}, k + 1]", f"p{q}_j_hi = p{q}_j_lo"]
        return lines

    out += ["@device", "def uncut_tables(lo, hi, p, skip1, special, Klo, Khi, Rlo, Rhi, wlo, whi):"]
    body = ["nn = lo.shape[0]", "fn_lo = float(nn)", "fn_hi = fn_lo",
            "for a in range(Klo.shape[0]):", "    for k in range(nn):", "        Klo[a, k] = 0.0",
            "        Khi[a, k] = 0.0"]
    for pi, a in enumerate(prods):
        k = st.aggs.index(a)
        # R: product over the uncut terms but d's, from prefix (w) and suffix (run) products
        body += ["run_lo = 1.0", "run_hi = 1.0", "for k in range(nn):", "    wlo[k] = run_lo", "    whi[k] = run_hi",
                 "    if not skip1[k]:"]
        inner = load_box(False)
        t = emit(st.term[a], inner)
        inner.append(f"run_lo, run_hi = imul(run_lo, run_hi, {t[0]}, {t[1]})")
        body += ["        " + ln for ln in inner]
        body += ["run_lo = 1.0", "run_hi = 1.0", "for k in range(nn - 1, -1, -1):"]
        inner = load_box(False)
        dt = emit(st.dterm_x[a], inner)
        inner += ["wlo[k], whi[k] = imul(wlo[k], whi[k], run_lo, run_hi)",
                  f"Klo[{k}, k], Khi[{k}, k] = imul(wlo[k], whi[k], {dt[0]}, {dt[1]})"]
        guarded = []
        t = emit(st.term[a], guarded)
        guarded.append(f"run_lo, run_hi = imul(run_lo, run_hi, {t[0]}, {t[1]})")
        inner += ["if not skip1[k]:"] + ["    " + ln for ln in guarded]
        body += ["    " + ln for ln in inner]
        body += ["for qq in range(special.shape[0]):", f"    Rlo[{pi}, qq] = wlo[special[qq]]",
                 f"    Rhi[{pi}, qq] = whi[special[qq]]"]
    if sums1:
        body.append("for k in range(nn):")
        inner = load_box(False)
        for a in sums1:
            k = st.aggs.index(a)
            v = emit(st.dterm_x[a], inner)
            inner.append(f"Klo[{k}, k], Khi[{k}, k] = iadd(Klo[{k}, k], Khi[{k}, k], {v[0]}, {v[1]})")
        body += ["    " + ln for ln in inner]
    if sums2:
        body.append("for k in range(nn - 1):")
        inner = load_box(True)
        for a in sums2:
            k = st.aggs.index(a)
            v = emit(st.dterm_x[a], inner)
            inner.append(f"Klo[{k}, k], Khi[{k}, k] = iadd(Klo[{k}, k], Khi[{k}, k], {v[0]}, {v[1]})")
            v = emit(st.dterm_y[a], inner)
            inner.append(f"Klo[{k}, k + 1], Khi[{k}, k + 1] = iadd(Klo[{k}, k + 1], Khi[{k}, k + 1], "
                         f"{v[0]}, {v[1]})")
        body += ["    " + ln for ln in inner]
    body.append("return")
    out += ["    " + ln for ln in body] + [""]

    # ---- the terms of one window, and their derivatives on a box: the device loop evaluates
    # them one thread a window and folds them in index order, as aggregates_rest and uncut_tables
    # do serially (so with the same bits)
    codes = [str(2 if st.kind[a] == "prod" else st.window[a] - 1) for a in st.aggs]
    out += ["# per aggregate: 0 a sum of one-coordinate terms, 1 of two-coordinate terms, 2 a product",
            f"AGG_FOLD = ({', '.join(codes or ['0'])},)", ""]
    emit = IntervalEmitter(names, prefix="u")
    out += ["@device", "def window_terms(lo, hi, p, k, deriv, tlo, thi, dxlo, dxhi, dylo, dyhi):"]
    body = ["nn = lo.shape[0]", "fn_lo = float(nn)", "fn_hi = fn_lo"]
    for window in (1, 2):
        members = [a for a in st.aggs if st.window[a] == window]
        if not members:
            continue
        inner = load_box(window == 2)
        for a in members:
            i = st.aggs.index(a)
            t = emit(st.term[a], inner)
            inner += [f"tlo[{i}] = {t[0]}", f"thi[{i}] = {t[1]}"]
        dinner = []
        for a in members:
            i = st.aggs.index(a)
            v = emit(st.dterm_x[a], dinner)
            dinner += [f"dxlo[{i}] = {v[0]}", f"dxhi[{i}] = {v[1]}"]
            if window == 2:
                v = emit(st.dterm_y[a], dinner)
                dinner += [f"dylo[{i}] = {v[0]}", f"dyhi[{i}] = {v[1]}"]
        inner += ["if deriv:"] + ["    " + ln for ln in dinner]
        if window == 2:
            inner = ["if k <= nn - 2:"] + ["    " + ln for ln in inner]
        body += inner
    body.append("return")
    out += ["    " + ln for ln in body] + [""]
    return out
