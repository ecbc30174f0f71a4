"""A function's values on a population, in an array library: NumPy, JAX or PyTorch.

The peers run as methods (``gpubench.baselines``: EvoX on PyTorch, evosax and jaxopt on JAX)
evaluate their populations in their own library, on their own device, inside their own
compiled loops.  This is the form they get: ``values = array_form(fn, dim, "torch")(X)``
takes X of shape ``(P, n)`` in that library and returns ``(P,)``, computed from the same
:class:`~gpubench.forms.definition.Definition` every other form comes from, by the library's
elementwise functions (``sin``, ``exp``, ``where`` ...) and one reduction per aggregate.
Nothing is generated as text and nothing is compiled here: the expression tree is turned
once into nested Python closures, which ``jax.jit`` or ``torch.compile`` trace like any
other array code.

Point values agree with :meth:`TestFunction.points` to rounding (tests/test_peers.py checks
every library function); derivatives come from the library's automatic differentiation.
"""
import math

import numpy as np
import sympy as sp

from .box_forms import _spike_constants
from .definition import (Floor, Max2, Min2, Prod, Rint, Trunc, jump, lower, param, sigmoid, softplus, step,
                         variables)
from .definition import i as I_SYM, n as N_SYM, x as X_SYM, x1 as X1_SYM, xn as XN_SYM, y as Y_SYM
from ..errors import InputError

LIBRARIES = ("numpy", "jax", "torch")


class Ops:
    """What the evaluator needs of one array library (its names, device and dtype)."""

    def __init__(self, library, device=None, dtype="float64"):
        if library not in LIBRARIES:
            raise InputError(f"array library must be one of {', '.join(LIBRARIES)}, got {library!r}")
        self.library, self.device, self.dtype = library, device, dtype
        if library == "numpy":
            self.xp = np
        elif library == "jax":
            import jax.numpy as jnp
            self.xp = jnp
        else:
            import torch
            self.xp = torch
            self._torch_dtype = getattr(torch, dtype)

    def asarray(self, a):
        if self.library == "torch":
            return self.xp.as_tensor(np.asarray(a), dtype=self._torch_dtype, device=self.device)
        if self.library == "jax":
            return self.xp.asarray(np.asarray(a), dtype=self.dtype)
        return np.asarray(a, dtype=self.dtype)

    def reduce(self, kind, a):
        if self.library == "torch":
            return (self.xp.sum if kind == "sum" else self.xp.prod)(a, dim=1)
        return (self.xp.sum if kind == "sum" else self.xp.prod)(a, axis=1)

    def all_rows(self, a):
        if self.library == "torch":
            return self.xp.all(a, dim=1)
        return self.xp.all(a, axis=1)

    def where(self, c, a, b):
        return self.xp.where(c, a, b)

    def fn(self, name):
        return getattr(self.xp, name)


def _is_num(v):
    return isinstance(v, (int, float))


def _compile(e, ops):
    """``e`` (a lowered sympy expression) as a function of an environment {symbol: value}."""
    if e.is_Number or e in (sp.pi, sp.E):
        c = float(e)
        return lambda env: c
    if e.is_Symbol:
        return lambda env: env[e]
    args = [_compile(a, ops) for a in e.args]
    if e.is_Add:
        def add(env):
            acc = args[0](env)
            for f in args[1:]:
                acc = acc + f(env)
            return acc
        return add
    if e.is_Mul:
        def mul(env):
            acc = args[0](env)
            for f in args[1:]:
                acc = acc * f(env)
            return acc
        return mul
    if e.is_Pow:
        base, ex = args[0], e.args[1]
        if ex == sp.Rational(1, 2):
            sqrt = ops.fn("sqrt")
            return lambda env: math.sqrt(b) if _is_num(b := base(env)) else sqrt(b)
        p = int(ex) if ex.is_Integer else float(ex)
        return lambda env: base(env) ** p
    unary = {sp.sin: "sin", sp.cos: "cos", sp.exp: "exp", sp.log: "log", sp.tanh: "tanh",
             sp.Abs: "abs", sp.sign: "sign"}
    if e.func in unary:
        name, f = unary[e.func], args[0]
        lib = ops.fn(name)
        scalar = {"abs": abs, "sign": lambda v: float(np.sign(v))}.get(name) or getattr(math, name)
        return lambda env: scalar(v) if _is_num(v := f(env)) else lib(v)
    if e.func in (Max2, Min2):
        a, b = args
        larger = e.func is Max2

        def pick(env):
            u, v = a(env), b(env)
            if _is_num(u) and _is_num(v):
                return max(u, v) if larger else min(u, v)
            return ops.where(u >= v, u, v) if larger else ops.where(u <= v, u, v)
        return pick
    if e.func is sigmoid:
        f, exp = args[0], ops.fn("exp")
        return lambda env: 1.0 / (1.0 + exp(-f(env)))
    if e.func is softplus:
        f, exp, log1p, absf = args[0], ops.fn("exp"), ops.fn("log1p"), ops.fn("abs")

        def sp_(env):
            u = f(env)
            return ops.where(u > 0, u, 0.0 * u) + log1p(exp(-absf(u)))
        return sp_
    if e.func is step:
        f = args[0]
        return lambda env: ops.where((u := f(env)) >= 0, 1.0 + 0.0 * u, 0.0 * u)
    if e.func is sp.DiracDelta or e.func is jump:
        return lambda env: 0.0  # zero at every point but one (point values only)
    if e.func in (Floor, Trunc, Rint):
        f, name = args[0], {Floor: "floor", Trunc: "trunc", Rint: "round"}[e.func]
        lib = ops.fn(name)  # numpy, torch and jax round ties to even, as numpy's round
        scalar = {Floor: math.floor, Trunc: math.trunc, Rint: round}[e.func]
        return lambda env: float(scalar(v)) if _is_num(v := f(env)) else lib(v)
    raise InputError(f"no array form for {e.func.__name__} ({e})")


def array_form(fn, dim, library="numpy", device=None, dtype="float64"):
    """``values(X)``: ``fn`` (a TestFunction) at the rows of ``X`` (shape ``(P, dim)``, an array of
    ``library`` on ``device``), in the function's own sense."""
    defn = fn.definition
    dim = int(dim)
    fn.bounds(dim)  # the dimension is one the function is defined in (one-line error otherwise)
    ops = Ops(library, device, dtype)
    params = fn.params(dim)
    pnames = defn.param_names
    aggs = []
    for agg, spec in defn.terms.items():
        window = defn.window(agg)
        m = dim - (window - 1)
        term = _compile(lower(sp.sympify(spec.term)), ops)
        consts = {I_SYM: ops.asarray(np.arange(1, m + 1, dtype=np.float64)), N_SYM: float(dim)}
        for q, pname in enumerate(pnames):
            a, b = param(pname)
            consts[a] = ops.asarray(params[q, :m])
            consts[b] = ops.asarray(params[q, 1:m + 1]) if m + 1 <= dim else ops.asarray(params[q, :0])
        aggs.append((agg, "prod" if isinstance(spec, Prod) else "sum", window, m, term, consts))
    outer = _compile(lower(defn.expr), ops)
    fixed = [(k, s) for k, s in enumerate(variables(defn.dim or 1)) if k > 0]
    spike = _spike_constants(defn) if defn.spike is not None else None

    def values(X):
        env = {N_SYM: float(dim), X1_SYM: X[:, 0], XN_SYM: X[:, dim - 1]}
        for k, s in fixed:
            env[s] = X[:, k]
        for agg, kind, window, m, term, consts in aggs:
            local = dict(consts)
            local[X_SYM] = X[:, :m]
            if window == 2:
                local[Y_SYM] = X[:, 1:m + 1]
            t = term(local)
            if _is_num(t):  # a constant term: m copies of it
                t = t + 0.0 * X[:, :m]
            env[agg] = ops.reduce(kind, t)
        f = outer(env)
        if _is_num(f):
            f = f + 0.0 * X[:, 0]
        if spike is not None:
            inside = ops.all_rows((X >= spike["s_lo"]) & (X <= spike["s_hi"]))
            f = ops.where(inside, spike["s_val"] + 0.0 * f, f)
        return f

    values.library, values.dim, values.function = library, dim, fn.name
    return values


__all__ = ["array_form", "LIBRARIES", "Ops"]
