"""A definition's expressions as plain trees, for the level set (:mod:`gpubench.forms.levelset`)
without sympy: what a function's card keeps, so that a second process contracts and guesses with
no sympy import (issue 42, item 4: a second ``gpubench solve`` of variant strong imported sympy
only to walk these trees).

A :class:`Node` is an operation (``op``), its arguments and, for a leaf, a symbol's name or a
constant's enclosure.  Conversion (:func:`program`, which imports sympy) decides once what the
walk of a sympy tree decided at each call: each constant's enclosure (:func:`_const`: exact where a
double holds it, else the neighbours of its rounding), each power's kind, the derivatives the level
set reads (of each term by x, of the outer expression by each aggregate).  Equal sub-expressions
are one node (sympy compares by structure; a node by identity), so the enclosure a forward pass
stores for a sub-expression is the one the backward pass reads.

A tree is stored as a list of nodes in order, each naming its arguments by position
(:func:`to_json`, :func:`from_json`): JSON, as the card is.

Light: no sympy and no numpy at import.
"""

# ops: "sym" (name), "const" (value = [lo, hi]), "add", "mul", "pow" (value: ["int", k] for an integer
# k >= 1, ["inv", k] for -k, ["sqrt"], ["rat", r] for another rational, ["any"] otherwise), "max",
# "min", "floor", "trunc", "rint", "tanh", "exp", "log", "sin", "cos", "abs", "sign" (the derivative of
# |u|: the level set's walk has no rule for it and takes the whole line, as for "any"; the chain's
# compiled cells enclose it, forms/chain_cells.py), and "any" (no rule; with value ["delta"] and one
# argument u: DiracDelta(u), 0 wherever u is not)
UNARY = ("floor", "trunc", "rint", "tanh", "exp", "log", "sin", "cos", "abs")


def version():
    """A hash of the converter's text (:data:`FILES`): the name a card keeps a program under changes
    with it (the card's own key follows the definition and the code generators, not these files)."""
    global _VERSION
    if _VERSION is None:
        import hashlib
        h = hashlib.sha256()
        for path in FILES:
            with open(path, "rb") as fh:
                h.update(fh.read() + b"\0")
        _VERSION = h.hexdigest()[:12]
    return _VERSION


def _files():
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    return (os.path.join(here, "exprtree.py"),
            # the constants' enclosures (_const: PI, _dn, _up): a changed enclosure is a new program
            os.path.join(os.path.dirname(here), "interval/arrays.py"))


# the files whose code the conversion runs beyond the card's key (the definition and
# cards.GENERATOR_FILES); tests/test_levelset_card.py traces a conversion to check that none is missing
FILES = _files()
_VERSION = None


class Node:
    """One operation of an expression tree (hashed by identity: equal sub-expressions share one)."""
    __slots__ = ("op", "args", "name", "value")

    def __init__(self, op, args=(), name=None, value=None):
        self.op, self.args, self.name, self.value = op, tuple(args), name, value

    def __repr__(self):
        return f"Node({self.op!r}, {len(self.args)} args, name={self.name!r}, value={self.value!r})"


def to_json(root):
    """``root`` as a list of ``[op, [argument positions], name, value]``, arguments first."""
    out, index = [], {}

    def visit(node):
        if id(node) in index:
            return index[id(node)]
        args = [visit(a) for a in node.args]
        index[id(node)] = len(out)
        out.append([node.op, args, node.name, node.value])
        return index[id(node)]
    visit(root)
    return out


def from_json(rows):
    """The tree written by :func:`to_json` (its last row is the root)."""
    nodes = []
    for op, args, name, value in rows:
        nodes.append(Node(op, [nodes[k] for k in args], name, value))
    return nodes[-1]


# ---------------------------------------------------------------- from sympy (the first process)
def _const(v):
    """An enclosure of a sympy number, as [lo, hi] floats (exact where a double holds it)."""
    import sympy as sp
    from fractions import Fraction
    from ..interval.arrays import PI, _dn, _up
    if v == sp.pi:
        return [PI[0], PI[1]]
    if v.is_Rational:
        q = Fraction(int(v.p), int(v.q))
        f = float(q)
        if Fraction(f) == q:
            return [f, f]
        return [float(_dn(f)), float(_up(f))]
    f = float(v)  # E and other exact constants: 2 ulps either way covers their one rounding
    return [float(_dn(f, 2)), float(_up(f, 2))]


def convert(expr, memo=None):
    """The :class:`Node` tree of the sympy expression ``expr`` (``memo``: sympy sub-expression ->
    node, shared across the trees of one program so that a symbol is one node)."""
    import sympy as sp
    from .definition import Floor, Max2, Min2, Rint, Trunc, sigmoid, softplus
    memo = {} if memo is None else memo
    funcs = {sp.Max: "max", Max2: "max", sp.Min: "min", Min2: "min", Floor: "floor", Trunc: "trunc",
             Rint: "rint", sp.tanh: "tanh", sp.exp: "exp", sp.log: "log", sp.sin: "sin", sp.cos: "cos",
             sp.Abs: "abs", sp.sign: "sign"}

    def go(e):
        if e in memo:
            return memo[e]
        if e.is_Symbol:
            node = Node("sym", name=str(e))
        elif e.is_Number or e in (sp.pi, sp.E) or e.is_NumberSymbol:
            node = Node("const", value=_const(e))
        elif e.is_Add:
            node = Node("add", [go(a) for a in e.args])
        elif e.is_Mul:
            node = Node("mul", [go(a) for a in e.args])
        elif e.is_Pow:
            base, ex = e.args
            if ex.is_Integer and int(ex) >= 1:
                kind = ["int", int(ex)]
            elif ex.is_Integer and int(ex) <= -1:
                kind = ["inv", -int(ex)]
            elif ex == sp.Rational(1, 2):
                kind = ["sqrt"]
            elif ex.is_Rational:
                kind = ["rat", float(ex)]
            else:
                kind = ["any"]
            node = Node("pow", [go(base)], value=kind)
        elif e.func is sigmoid:
            # 1/(1 + e^-u) and log(1 + e^u), equal for every real u: the walks' exp, inverse and log
            # rules (each monotone, u read once, so the enclosure is as tight) enclose and project them,
            # where "any" enclosed the whole line and stopped every projection (Xor's four squares,
            # Ratkowsky01's model: issue 41)
            node = go(1 / (1 + sp.exp(-e.args[0])))
        elif e.func is softplus:
            node = go(sp.log(1 + sp.exp(e.args[0])))
        elif e.func in funcs:
            node = Node(funcs[e.func], [go(a) for a in e.args])
        elif e.func is sp.DiracDelta and len(e.args) == 1:
            # the derivative of sign(u), in the second derivative of |u|: "any" for every walk, but with u
            # kept (value ["delta"]), 0 where u's enclosure excludes 0 (levelset_tree._forward), so that
            # the convexity test sees EggHolder's Hessian near its minimiser and a kink where u may be 0
            node = Node("any", [go(e.args[0])], value=["delta"])
        else:   # no rule: any real value, its arguments not visited (as the level set always did)
            node = Node("any")
        memo[e] = node
        return node
    return go(expr)


def program(definition):
    """What :class:`gpubench.forms.levelset.LevelSet` reads of ``definition``, as JSON: the outer
    expression, each aggregate's term (its window, Sum or Prod, its derivative by x, the outer
    expression's derivative by it), the parameters' symbol names, the named coordinates, and
    whether the level set applies (no spike)."""
    import sympy as sp
    from .definition import Sum, param, x as X, y as Y
    memo = {}
    terms = []
    aggs = list(definition.terms)
    for agg, spec in definition.terms.items():
        t = spec.term
        terms.append({"agg": str(agg), "sum": isinstance(spec, Sum), "window": definition.window(agg),
                      "term": to_json(convert(t, memo)),
                      "dterm": to_json(convert(sp.diff(t, X), memo)),
                      "dexpr": to_json(convert(sp.diff(definition.expr, agg), memo)),
                      # second order (the level set's convexity test): d/dy, d2/dx2, d2/dxdy, d2/dy2 of
                      # the term, and d2 expr / d agg d agg' for every aggregate agg'
                      "dterm_y": to_json(convert(sp.diff(t, Y), memo)),
                      "d2term": [to_json(convert(sp.diff(t, *v), memo)) for v in ((X, X), (X, Y), (Y, Y))],
                      "d2expr": [to_json(convert(sp.diff(definition.expr, agg, b), memo)) for b in aggs]})
    coords = []
    for s in definition.expr.free_symbols:
        name = str(s)
        if name == "x1":
            coords.append([name, 0])
        elif name == "xn":
            coords.append([name, -1])   # the last coordinate, n - 1
        elif name.startswith("x") and name[1:].isdigit():
            coords.append([name, int(name[1:]) - 1])
    return {"expr": to_json(convert(definition.expr, memo)), "terms": terms,
            "params": [[str(s) for s in param(p)] for p in definition.params],
            "coords": sorted(coords), "usable": definition.spike is None}
