"""What every generator of a function's forms shares: the derivative's parts of a definition
(:class:`_Structure`), the names the generated code gives its symbols, the outer derivatives, and
the text being assembled (:class:`_Source`).  See :mod:`gpubench.forms.codegen`."""
import sympy as sp

from .definition import Prod, i, lower, n, param, reject_unsupported_derivatives, variables, x, x1, xn, y

# part of the key of every generated text (gpubench.forms.codegen.generator_key)
GENERATOR_VERSION = "2"


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
