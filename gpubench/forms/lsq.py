"""A fixed-dimension definition written as a sum of squares, f = sum_i w_i r_i(x)^2 + c (a fit: at least as
many residuals as coordinates, c a constant), as the residuals' plain trees and their first and second derivatives (issue 41, docs/scipy_go.md "lsq41").

What the coupled least-squares bound (:mod:`gpubench.methods.solver.lsq_floor`) reads: each residual r_i
(the base of a top-level square, its weight w_i a positive constant), its gradient and Hessian by the
coordinates x1 .. xn (sympy's derivatives, taken once), and the remaining top-level terms.  They are
converted to :mod:`.exprtree` nodes (one shared memo: a sub-expression common to several residuals or
derivatives is one node, enclosed once a pass) and kept on the function's card (:meth:`fact`), so a
second process needs no sympy.

Enclosures (:func:`enclose`) walk the trees with the level set's forward pass
(:func:`.levelset_tree._forward`: every operation rounded outward, libm's functions ``ULPS`` ulps), on
many boxes at once (each symbol's interval an array, one entry a box).

``softplus(u)`` and ``sigmoid(u)`` are rewritten as ``log(1 + exp(u))`` and ``1/(1 + exp(-u))`` (equal for
every real u) because the tree converter has no rule for them (Ratkowsky01's model).  A residual whose
tree holds an operation that is not twice continuously differentiable where defined (abs, max, min,
the steps, sign, rational powers other than sqrt, or one the converter has no rule for) makes the whole
definition "not a least-squares one" (:func:`program` returns None): Taylor's remainder needs r in C^2.
"""
from .exprtree import Node, from_json, to_json, version

SMOOTH = {"sym", "const", "add", "mul", "pow", "exp", "log", "sin", "cos", "tanh"}
SMOOTH_POW = {"int", "inv", "sqrt"}   # sqrt: C^inf where defined and > 0; at 0 its derivative encloses inf


def _smooth(node, seen=None):
    """Whether every node of the tree is an operation that is C^2 wherever its enclosures are finite."""
    seen = set() if seen is None else seen
    if id(node) in seen:
        return True
    seen.add(id(node))
    if node.op not in SMOOTH or (node.op == "pow" and node.value[0] not in SMOOTH_POW):
        return False
    return all(_smooth(a, seen) for a in node.args)


def _squares(expr):
    """``(residuals, weights, rest)`` of f's top-level sum: each term w * base^2 (w a positive rational
    or the integer 1) a residual, every other term kept in ``rest``; None where no term is a square."""
    import sympy as sp
    terms = sp.Add.make_args(expr)
    residuals, weights, rest = [], [], []
    for t in terms:
        coeff, core = t.as_coeff_Mul()
        if core.is_Pow and core.args[1] == 2 and coeff.is_Rational and coeff > 0 and not core.args[0].is_number:
            residuals.append(core.args[0])
            weights.append(coeff)
        else:
            rest.append(t)
    if not residuals:
        return None
    return residuals, weights, rest


def _rewrite(expr):
    import sympy as sp
    from .definition import sigmoid, softplus
    expr = expr.replace(softplus, lambda u: sp.log(1 + sp.exp(u)))
    return expr.replace(sigmoid, lambda u: 1 / (1 + sp.exp(-u)))


def program(definition):
    """The JSON the bound reads (see the module's docstring), or None where ``definition`` is not a
    fixed-dimension sum of squares of C^2 residuals (an aggregate, a spike, no square, a kink)."""
    import sympy as sp
    from .definition import variables
    if definition.dim is None or definition.terms or definition.spike is not None or definition.params:
        return None
    found = _squares(_rewrite(definition.expr))
    if found is None:
        return None
    residuals, weights, rest = found
    # a fit: every term a square (a constant besides), at least as many residuals as coordinates; a
    # function with a square among other terms (Xor, Paviani, Colville's ...) or fewer squares than
    # coordinates keeps the search as it was: the bound costs host time an iteration there for little
    if not sp.Add(*rest).is_number or len(residuals) < definition.dim:
        return None
    xs = variables(definition.dim)
    names = {str(s) for s in xs}
    if any(str(s) not in names for s in definition.expr.free_symbols):
        return None
    return _build(residuals, weights, rest, xs)


def _build(residuals, weights, rest, xs, dens=None):
    """The JSON of :func:`program` (``dens``: the cleared program's denominators, :func:`cleared_program`)."""
    import sympy as sp
    from .exprtree import convert
    n = len(xs)
    memo = {}
    roots = []
    for r in residuals:
        grad = [sp.diff(r, xj) for xj in xs]
        hess = [sp.diff(grad[j], xs[k]) for j in range(n) for k in range(j, n)]
        roots += [convert(e, memo) for e in [r] + grad + hess]
    if not all(_smooth(node) for node in roots):
        return None
    rest_root = convert(sp.Add(*rest), memo)
    weight_nodes = [convert(w, memo) for w in weights]
    den_nodes = [convert(d, memo) for d in dens] if dens is not None else []
    top = Node("list", roots + [rest_root] + weight_nodes + den_nodes)
    return {"n": n, "m": len(residuals), "names": [str(s) for s in xs], "tree": to_json(top),
            "cleared": dens is not None}


def cleared_program(definition):
    """The fit with its residuals' denominators cleared, or None: r_i = N_i / D_i (sympy's ``together``, D_i
    a polynomial in x, not a constant for some residual) gives w_i r_i^2 = (w_i / D_i^2) N_i^2, so on a box
    f >= sum_i (w_i / max_X D_i^2) N_i^2 + rest, a fit of the numerators with constant weights per box
    (:func:`gpubench.methods.solver.lsq_floor._weights`).  Why: the rational models' poles (Kowalik's
    a^2 + a x3 + x4, Thurber's 1 + x5 t + x6 t^2 + x7 t^3) lie inside SciPy's domains, and a residual's
    enclosure over a box across one is the whole line; the numerator stays bounded and is a polynomial
    of low degree (Thurber's is linear: Taylor is exact), and max D^2 is finite on every box."""
    import sympy as sp
    from .definition import variables
    base = program(definition)
    if base is None:
        return None
    residuals, weights, rest = _squares(_rewrite(definition.expr))
    xs = variables(definition.dim)
    nums, dens, any_den = [], [], False
    for r in residuals:
        num, den = sp.fraction(sp.together(r))
        if den.is_number or not den.is_polynomial(*xs) or not num.is_polynomial(*xs):
            num, den = r, sp.Integer(1)
        else:
            any_den = True
        nums.append(sp.expand(num))
        dens.append(den)
    if not any_den:
        return None
    return _build(nums, weights, rest, xs, dens)


def _loaded(fn, kind, make):
    """:class:`LeastSquares` of ``make(definition)`` for ``fn``, kept on the function object under
    ``kind`` (and as a card fact where the function has cards), or None where ``make`` gives none."""
    cache = fn.__dict__.setdefault("_least_squares", {})
    if kind not in cache:
        if hasattr(fn, "fact"):
            data = fn.fact(f"{kind}-{version()}-{_own_version()}", make)
        else:
            data = make(fn.definition)
        cache[kind] = None if data is None else LeastSquares(data)
    return cache[kind]


def least_squares(fn):
    """:class:`LeastSquares` of ``fn`` (kept on the function object), or None where ``fn`` is not one."""
    return _loaded(fn, "lsq", program)


def cleared_least_squares(fn):
    """:class:`LeastSquares` of :func:`cleared_program` of ``fn`` (kept on the function object), or None."""
    return _loaded(fn, "lsq-cleared", cleared_program)


_OWN = None


def _own_version():
    """A hash of this module's text (the card's entry changes with the converter here)."""
    global _OWN
    if _OWN is None:
        import hashlib
        with open(__file__, "rb") as fh:
            _OWN = hashlib.sha256(fh.read()).hexdigest()[:12]
    return _OWN


class LeastSquares:
    """f = sum_i w_i r_i^2 + rest: the trees of r_i, grad r_i, the upper triangle of Hess r_i, rest, w_i."""

    def __init__(self, data):
        n, m = data["n"], data["m"]
        top = from_json(data["tree"])
        per = 1 + n + n * (n + 1) // 2
        self.n, self.m, self.names = n, m, data["names"]
        self.value = [top.args[i * per] for i in range(m)]
        self.grad = [[top.args[i * per + 1 + j] for j in range(n)] for i in range(m)]
        self.hess = [list(top.args[i * per + 1 + n:(i + 1) * per]) for i in range(m)]
        self.rest = top.args[m * per]
        self.weights = list(top.args[m * per + 1:m * per + 1 + m])
        # the cleared program's denominators D_i (:func:`cleared_program`): the weights are w_i / D_i^2, of
        # which only the lower end over a box, w_i / max D_i^2, may be used (lsq_floor._weights)
        at = m * per + 1 + m
        self.den = list(top.args[at:at + m]) if data.get("cleared") else []
        # (j, k) of each stored Hessian entry, the upper triangle row by row
        self.pairs = [(j, k) for j in range(n) for k in range(j, n)]

    def _env(self, lo, hi):
        return {name: (lo[..., j], hi[..., j]) for j, name in enumerate(self.names)}

    def enclose(self, lo, hi, trees):
        """Enclosures ``(lo, hi)`` of each tree of ``trees`` (nested lists kept) over the boxes [lo, hi]
        (arrays (..., n)), as arrays of the boxes' shape; raises :class:`~gpubench.interval.arrays.Undefined`
        where one is NaN somewhere (f undefined)."""
        import numpy as np
        from .levelset_tree import _forward
        lo = np.asarray(lo, dtype=np.float64)
        hi = np.asarray(hi, dtype=np.float64)
        env, vals = self._env(lo, hi), {}
        shape = lo.shape[:-1]

        def go(t):
            if isinstance(t, list):
                return [go(u) for u in t]
            a, b = _forward(t, env, vals)
            return np.broadcast_to(a, shape), np.broadcast_to(b, shape)
        return go(trees)
