"""Independent high-precision oracles for the generated forms of a test function.

Nothing here uses the generated code.  An :class:`Oracle` rebuilds the function
at a fixed dimension ``n`` from its sympy :class:`~gpubench.forms.definition.Definition`
alone: every aggregate (a Sum or Prod over an index window) is expanded into an
explicit sum or product over symbols ``X0 .. X{n-1}`` and substituted into the
outer expression, the gradient is ``sympy.diff`` of that full expression with
respect to each ``Xk`` (so it does not share the chain-rule structure that
``gpubench.forms.codegen`` uses), and both are compiled to straight-line Python over
python-flint ``arb`` balls.  Points are doubles, which ``arb`` holds exactly, or
exact dyadic reals (arb) such as an extremum located between two doubles.
Parameters (shift vectors) are the doubles the forms receive.

Rigour: a value is *inside* ``[lo, hi]`` only when arb proves it
(``arb(lo) <= v <= arb(hi)``); an undecided comparison is retried at higher
precision (96, 256, 1024, 4096 bits) and counts as a miss when still undecided.
``sin(pi*u)`` and ``cos(pi*u)`` are evaluated with ``sin_pi``/``cos_pi`` so that
values such as ``sin(pi*1) = 0`` are exact balls rather than ``[0 +/- eps]``.

The checkers (:func:`interval_misses`, :func:`interval_gradient_misses`) take a
generated *module* (anything with the batched ``intervals``/``interval_gradients``
drivers) as an argument, so the same code checks the real CPU forms, the GPU
kernels and deliberately broken forms.  The box families used by the tests
(tiny, wide, medium, edge, extremum, huge, huge_extremum, spike) are at the end.
"""
import math
from fractions import Fraction

import flint
import numpy as np
import sympy as sp
from flint import arb

from gpubench.forms.definition import Prod, i as I_SYM, n as N_SYM, param, x as X_SYM, x1 as X1_SYM
from gpubench.forms.definition import xn as XN_SYM, y as Y_SYM

PRECISIONS = (96, 256, 1024, 4096)


# ---------------------------------------------------------------- precision
class precision:
    """``with precision(bits):`` sets flint's working precision and restores it."""

    def __init__(self, bits):
        self.bits = bits

    def __enter__(self):
        self.old = flint.ctx.prec
        flint.ctx.prec = self.bits

    def __exit__(self, *exc):
        flint.ctx.prec = self.old


# ---------------------------------------------------------------- sympy -> arb
def _pi_multiple(arg):
    """``u`` with ``arg == pi*u`` and no pi in u, or None."""
    u = sp.expand(arg / sp.pi)
    return None if u.has(sp.pi) or u.has(sp.E) else u


class _ArbPrinter:
    """Python source over arb for a sympy expression (constants built at call time)."""

    def __init__(self, names):
        self.names = names  # sympy Symbol -> python variable name

    def __call__(self, e):
        return self.p(e)

    def p(self, e):
        if e.is_Symbol:
            return self.names[e]
        if e.is_Integer:
            return f"arb({int(e)})"
        if e.is_Rational:
            return f"(arb({int(e.p)})/{int(e.q)})"
        if e is sp.pi:
            return "arb.pi()"
        if e is sp.E:
            return "arb.const_e()"
        if e.is_Add:
            return "(" + " + ".join(self.p(a) for a in e.args) + ")"
        if e.is_Mul:
            num, den = [], []
            for a in e.args:
                if a.is_Pow and a.exp.is_Integer and a.exp < 0:
                    den.append(self.p(a.base ** (-a.exp)))
                elif a.is_Rational and not a.is_Integer and a.p == 1:
                    den.append(f"arb({int(a.q)})")
                else:
                    num.append(self.p(a))
            s = " * ".join(num) if num else "arb(1)"
            if den:
                s = f"({s}) / ({' * '.join(den)})"
            return f"({s})"
        if e.is_Pow:
            b, ex = e.base, e.exp
            if ex.is_Integer:
                k = int(ex)
                if k >= 0:
                    return f"({self.p(b)})**{k}"
                return f"(arb(1) / ({self.p(b)})**{-k})"
            if ex == sp.Rational(1, 2):
                return f"({self.p(b)}).sqrt()"
            if ex == sp.Rational(-1, 2):
                return f"({self.p(b)}).rsqrt()"
            if ex.is_Rational and ex.q == 2:
                k = int(ex.p)
                r = f"({self.p(b)}).sqrt()"
                return f"({r})**{k}" if k > 0 else f"(arb(1) / ({r})**{-k})"
            return f"(({self.p(b)}).log() * {self.p(ex)}).exp()"
        if e.func in (sp.sin, sp.cos):
            u = _pi_multiple(e.args[0])
            name = "sin" if e.func is sp.sin else "cos"
            if u is not None:
                return f"({self.p(u)}).{name}_pi()"
            return f"({self.p(e.args[0])}).{name}()"
        if e.func is sp.exp:
            return f"({self.p(e.args[0])}).exp()"
        if e.func is sp.log:
            return f"({self.p(e.args[0])}).log()"
        if e.func is sp.Abs:
            return f"abs({self.p(e.args[0])})"
        if e.func is sp.sign:
            return f"({self.p(e.args[0])}).sgn()"
        if e.func is sp.tanh:
            return f"({self.p(e.args[0])}).tanh()"
        name = {sp.Max: "_amax", sp.Min: "_amin", sp.Heaviside: "_aheaviside",
                sp.DiracDelta: "_adelta"}.get(e.func) or _ARB_HELPERS_BY_NAME.get(e.func.__name__)
        if name:
            args = e.args[:1] if e.func is sp.Heaviside else e.args  # Heaviside(u, H0)
            return f"{name}(" + ", ".join(self.p(a) for a in args) + ")"
        raise NotImplementedError(f"no arb form for {e.func} in {e}")


# Non-smooth pieces over arb.  Where a kink or jump cannot be excluded, the derivative
# is "undefined" (a NaN ball), which the checkers report as a point without a derivative.
def _amax(*a):
    r = a[0]
    for b in a[1:]:
        r = b if b > r else r if r > b else r.union(b)
    return r


def _amin(*a):
    r = a[0]
    for b in a[1:]:
        r = b if b < r else r if r < b else r.union(b)
    return r


def _aheaviside(u):
    return arb(1) if u > 0 else arb(0) if u < 0 else arb("nan")


def _adelta(u):
    return arb(0) if (u > 0 or u < 0) else arb("nan")


def _asigmoid(u):
    return 1 / (1 + (-u).exp())


def _asoftplus(u):
    # log(1 + e^u) = u + log1p(e^-u): for u > 0 no huge intermediate
    return u + (-u).exp().log1p() if u > 0 else u.exp().log1p()


def _astep(u):
    return _aheaviside(u)


def _amax2(a, b):
    return _amax(a, b)


def _amin2(a, b):
    return _amin(a, b)


_ARB_HELPERS_BY_NAME = {"sigmoid": "_asigmoid", "softplus": "_asoftplus", "step": "_astep",
                        "Max2": "_amax2", "Min2": "_amin2"}
_ARB_HELPERS = ("_amax", "_amin", "_aheaviside", "_adelta", "_asigmoid", "_asoftplus", "_astep",
                "_amax2", "_amin2")


def compile_arb(exprs, xsyms, psyms):
    """A Python function ``f(X, P) -> [arb, ...]`` evaluating ``exprs``.

    ``X`` is a sequence of arb (the coordinates), ``P`` a flat sequence of arb
    (parameters, in the order of ``psyms``).  Common subexpressions are shared.
    """
    reps, reduced = sp.cse(list(exprs), symbols=sp.numbered_symbols("_c"), optimizations=None)
    names = {s: f"X[{k}]" for k, s in enumerate(xsyms)}
    names.update({s: f"P[{k}]" for k, s in enumerate(psyms)})
    lines = ["def _oracle(X, P):"]
    printer = _ArbPrinter(names)
    for k, (sym, e) in enumerate(reps):
        names[sym] = f"c{k}"
        lines.append(f"    c{k} = {printer(e)}")
    lines.append("    return [" + ", ".join(printer(e) for e in reduced) + "]")
    src = "\n".join(lines) + "\n"
    ns = {"arb": arb}
    ns.update({k: globals()[k] for k in _ARB_HELPERS})
    exec(compile(src, "<arb oracle>", "exec"), ns)
    fn = ns["_oracle"]
    fn.source = src
    return fn


# ---------------------------------------------------------------- full expression
def full_expression(defn, n):
    """f as an explicit sympy expression of ``X0..X{n-1}`` and parameter symbols.

    Returns ``(expr, xsyms, psyms)``; ``psyms[q*n + k]`` is parameter ``q`` at
    coordinate ``k``.  The spike (if any) is not part of ``expr``.
    """
    X = sp.symbols(f"X0:{n}", real=True)
    pnames = list(defn.params)
    P = [[sp.Symbol(f"P{q}_{k}", real=True) for k in range(n)] for q in range(len(pnames))]
    subs_outer = {X1_SYM: X[0], XN_SYM: X[n - 1], N_SYM: sp.Integer(n)}
    if defn.dim is not None:  # a fixed-dimension model reads x1 .. xd
        from gpubench.forms.definition import variables
        subs_outer.update({s: X[k] for k, s in enumerate(variables(defn.dim))})
    for agg, spec in defn.terms.items():
        term = sp.sympify(spec.term)
        window = defn.window(agg)
        parts = []
        for k in range(n - window + 1):
            s = {X_SYM: X[k], I_SYM: sp.Integer(k + 1), N_SYM: sp.Integer(n)}
            if window == 2:
                s[Y_SYM] = X[k + 1]
            for q, pname in enumerate(pnames):
                a, b = param(pname)
                s[a] = P[q][k]
                if window == 2:
                    s[b] = P[q][k + 1]
            parts.append(term.xreplace(s))
        subs_outer[agg] = sp.Mul(*parts) if isinstance(spec, Prod) else sp.Add(*parts)
    expr = sp.sympify(defn.expr).xreplace(subs_outer)
    psyms = [s for row in P for s in row]
    return expr, list(X), psyms


def trig_arguments(expr):
    """Every argument of a sin or cos in ``expr``."""
    return sorted({a.args[0] for a in expr.atoms(sp.sin, sp.cos)}, key=str)


# ---------------------------------------------------------------- the oracle
class Oracle:
    """Exact-ish values and gradients of one function at dimension ``n``."""

    def __init__(self, fn, n):
        self.fn = fn
        self.n = n
        defn = fn.definition
        expr, xs, ps = full_expression(defn, n)
        self.expr, self.xsyms, self.psyms = expr, xs, ps
        self._value = compile_arb([expr], xs, ps)
        self._grad_exprs = self._both_fn = None
        self.params = [float(v) for v in np.asarray(fn.params(n)).reshape(-1)]
        s = defn.spike
        if s is not None:
            c, h = Fraction(int(s.center.p), int(s.center.q)), Fraction(int(s.halfwidth.p), int(s.halfwidth.q))
            self.spike = (c - h, c + h, Fraction(int(s.value.p), int(s.value.q)))
        else:
            self.spike = None

    @property
    def grad_exprs(self):
        """The gradient, ``sympy.diff`` of the full expression (built on first use)."""
        if self._grad_exprs is None:
            self._grad_exprs = [sp.diff(self.expr, s) for s in self.xsyms]
        return self._grad_exprs

    @property
    def _both(self):
        if self._both_fn is None:
            self._both_fn = compile_arb([self.expr] + self.grad_exprs, self.xsyms, self.psyms)
        return self._both_fn

    def smooth_value_arb(self, X):
        """The smooth part of f (no spike) at arb coordinates ``X``, at the current precision."""
        return self._value(list(X), [arb(v) for v in self.params])[0]

    # exact spike geometry (Fractions, no rounding)
    def in_spike(self, x):
        if self.spike is None:
            return False
        lo, hi, _ = self.spike
        return all(lo <= _fraction(v) <= hi for v in x)

    def box_meets_spike(self, lo, hi):
        if self.spike is None:
            return False
        slo, shi, _ = self.spike
        return all(Fraction(float(h)) >= slo and Fraction(float(l)) <= shi for l, h in zip(lo, hi))

    def box_in_spike(self, lo, hi):
        if self.spike is None:
            return False
        slo, shi, _ = self.spike
        return all(Fraction(float(l)) >= slo and Fraction(float(h)) <= shi for l, h in zip(lo, hi))

    def value(self, x, prec=PRECISIONS[0]):
        """f(x) as an arb ball at ``prec`` bits (the spike value exactly, in the spike)."""
        with precision(prec):
            if self.in_spike(x):
                return arb(float(self.spike[2]))
            X = [_as_arb(v) for v in x]
            P = [arb(v) for v in self.params]
            return self._value(X, P)[0]

    def value_and_gradient(self, x, prec=PRECISIONS[0]):
        """(f(x), [df/dx_k]) as arb balls; the gradient of the smooth part (no spike)."""
        with precision(prec):
            X = [_as_arb(v) for v in x]
            P = [arb(v) for v in self.params]
            r = self._both(X, P)
            v = arb(float(self.spike[2])) if self.in_spike(x) else r[0]
            return v, r[1:]

    def value_float(self, x, prec=200):
        return float(self.value(x, prec).mid())

    def gradient_float(self, x, prec=200):
        return np.array([float(g.mid()) for g in self.value_and_gradient(x, prec)[1]])


_ORACLES = {}


def oracle(fn, n):
    """A cached :class:`Oracle` for ``fn`` (a TestFunction) at dimension ``n``."""
    key = (id(fn.definition), n)
    if key not in _ORACLES:
        _ORACLES[key] = (fn.definition, Oracle(fn, n))  # keep defn alive: ids stay unique
    return _ORACLES[key][1]


# Where the exact derivative does not exist, by function: sqrt of a sum of squares
# at x* (Ackley, Belegundu, Salomon) and sqrt(x_i) at x_i = 0 (Alpine02).  With
# ``tol`` > 0: points so close that a double gradient under/overflows there.
def _at_xstar(fn, x, tol):
    return bool(np.max(np.abs(x - fn.xstar(x.size))) <= tol)


KINKS = {
    "ackley": _at_xstar,
    "belegundu": _at_xstar,
    "salomon": _at_xstar,
    "alpine02": lambda fn, x, tol: bool(np.min(np.abs(x)) <= tol),
}


def near_kink(fn, x, tol=0.0):
    return fn.name in KINKS and KINKS[fn.name](fn, x, tol)


# ---------------------------------------------------------------- containment
IN, OUT, UNDECIDED = "in", "out", "undecided"


def classify(v, lo, hi):
    """Is the ball ``v`` provably inside [lo, hi] (doubles, possibly infinite)?"""
    if lo != lo or hi != hi or not v.is_finite():
        return OUT if (lo != lo or hi != hi) else UNDECIDED
    below = True if lo == -math.inf else (arb(lo) <= v)
    above = True if hi == math.inf else (v <= arb(hi))
    if below and above:
        return IN
    if (lo != -math.inf and v < arb(lo)) or (hi != math.inf and v > arb(hi)):
        return OUT
    return UNDECIDED


def value_inside(orc, x, lo, hi):
    """IN or OUT (or UNDECIDED after the highest precision) for f(x) in [lo, hi]."""
    for prec in PRECISIONS:
        with precision(prec):
            c = classify(orc.value(x, prec), lo, hi)
        if c != UNDECIDED:
            return c
    return UNDECIDED


def gradient_inside(orc, x, glo, ghi):
    """Per point: (list of coordinates that miss, whether the derivative exists at x).

    A coordinate whose exact derivative is undefined (a ball that is not finite
    at every precision, e.g. 0/0 at a kink) is reported as not existing.
    """
    pending = list(range(len(x)))
    misses = []
    exists = True
    for prec in PRECISIONS:
        _, g = orc.value_and_gradient(x, prec)
        still = []
        with precision(prec):
            for k in pending:
                if not g[k].is_finite():
                    still.append(k)
                    continue
                c = classify(g[k], glo[k], ghi[k])
                if c == OUT:
                    misses.append(k)
                elif c == UNDECIDED:
                    still.append(k)
        pending = still
        if not pending:
            break
    for k in pending:
        _, g = orc.value_and_gradient(x, PRECISIONS[-1])
        if not g[k].is_finite():
            exists = False  # no derivative to enclose at this point
        else:
            misses.append(k)
    return misses, exists


# ---------------------------------------------------------------- sampling
def sample_points(lo, hi, rng, count=3):
    """Points (doubles) inside each box: the midpoint, a random corner, random interior points.

    ``lo``/``hi`` have shape (N, n); returns an array of shape (N, count, n).
    """
    N, n = lo.shape
    pts = np.empty((N, count, n))
    mid = np.clip(lo * 0.5 + hi * 0.5, lo, hi)
    pts[:, 0] = mid
    if count > 1:
        pts[:, 1] = np.where(rng.random((N, n)) < 0.5, lo, hi)
    for c in range(2, count):
        u = rng.random((N, n))
        pts[:, c] = np.clip(lo + u * (hi - lo), lo, hi)
    return pts


# ---------------------------------------------------------------- checkers
def run_intervals(fn, module, LO, HI):
    """The batched interval form of ``module`` on boxes (N, n)."""
    N, n = LO.shape
    flo, fhi = np.empty(N), np.empty(N)
    module.intervals(np.ascontiguousarray(LO), np.ascontiguousarray(HI), fn.params(n), flo, fhi)
    return flo, fhi


def run_interval_gradients(fn, module, LO, HI):
    N, n = LO.shape
    glo, ghi = np.empty((N, n)), np.empty((N, n))
    module.interval_gradients(np.ascontiguousarray(LO), np.ascontiguousarray(HI), fn.params(n),
                              glo, ghi, np.empty((N, n)), np.empty((N, n)))
    return glo, ghi


def _fraction(v):
    """A double, or an exact arb (a dyadic number), as a Fraction."""
    if not isinstance(v, arb):
        return Fraction(float(v))
    assert v.is_exact(), "only exact (dyadic) arb points have a spike membership"
    man, exp = v.man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man) * (Fraction(2) ** exp)


def _as_arb(v):
    return v if isinstance(v, arb) else arb(float(v))


def _with_extra(pts, LO, HI, extra):
    """Per box, the list of sample points: ``pts[r]`` plus ``extra[r]`` if given.

    An extra point may hold arb coordinates: a real point that is not a double,
    such as the exact location of an extremum between two adjacent doubles.
    """
    out = [list(pts[r]) for r in range(pts.shape[0])]
    if extra is None:
        return out
    for r, x in enumerate(extra):
        if x is None:
            continue
        with precision(PRECISIONS[-1]):
            inside = all(arb(float(l)) <= _as_arb(v) <= arb(float(h)) for l, h, v in zip(LO[r], HI[r], x))
        assert inside, ("an extra sample point must lie in its box", LO[r], HI[r], x)
        out[r].append(x)
    return out


def interval_misses(fn, module, LO, HI, rng, samples=3, limit=20, extra=None):
    """Check ``module``'s interval form on every box; return (misses, points checked).

    A miss is a sample point whose exact value is not provably inside the
    enclosure.  The sample points are ``samples`` from :func:`sample_points`
    plus, per box, the row of ``extra`` if given.  For functions with a spike,
    a box that meets the spike must also contain the spike value, and one
    inside it must give exactly it.
    """
    N, n = LO.shape
    orc = oracle(fn, n)
    flo, fhi = run_intervals(fn, module, LO, HI)
    pts = _with_extra(sample_points(LO, HI, rng, samples), LO, HI, extra)
    misses, checked = [], 0
    for r in range(N):
        if orc.spike is not None and orc.box_meets_spike(LO[r], HI[r]):
            sval = float(orc.spike[2])
            if not (flo[r] <= sval <= fhi[r]):
                misses.append(("spike value not enclosed", LO[r], HI[r], None, flo[r], fhi[r]))
            if orc.box_in_spike(LO[r], HI[r]) and not (flo[r] == sval == fhi[r]):
                misses.append(("box inside spike not exact", LO[r], HI[r], None, flo[r], fhi[r]))
        for x in pts[r]:
            checked += 1
            if value_inside(orc, x, flo[r], fhi[r]) != IN:
                misses.append(("value", LO[r], HI[r], list(x), flo[r], fhi[r]))
        if len(misses) >= limit:
            break
    return misses, checked


def interval_gradient_misses(fn, module, LO, HI, rng, samples=3, limit=20, extra=None):
    """Check ``module``'s interval gradient on every box; return (misses, points checked, undefined).

    ``undefined`` lists the sample points where the exact derivative does not
    exist (a kink such as Ackley's at x*); the caller decides whether that is expected.

    Where a box meets a spike the enclosure must be the whole line.  Elsewhere
    the exact derivative at sample points must be provably inside.
    """
    N, n = LO.shape
    orc = oracle(fn, n)
    glo, ghi = run_interval_gradients(fn, module, LO, HI)
    pts = _with_extra(sample_points(LO, HI, rng, samples), LO, HI, extra)
    misses, checked, undefined = [], 0, []
    for r in range(N):
        if orc.spike is not None and orc.box_meets_spike(LO[r], HI[r]):
            if not (np.all(glo[r] == -np.inf) and np.all(ghi[r] == np.inf)):
                misses.append(("gradient where box meets spike is not (-inf, inf)",
                               LO[r], HI[r], None, glo[r], ghi[r]))
            continue
        for x in pts[r]:
            checked += 1
            bad, exists = gradient_inside(orc, x, glo[r], ghi[r])
            if not exists:
                undefined.append(np.array([float(v) for v in x]))
            if bad:
                misses.append((f"gradient coordinates {bad}", LO[r], HI[r], list(x), glo[r], ghi[r]))
        if len(misses) >= limit:
            break
    return misses, checked, undefined


def format_misses(misses, k=5):
    out = []
    for m in misses[:k]:
        what, lo, hi, x, a, b = m
        out.append(f"{what}: box lo={list(lo)!r} hi={list(hi)!r} x={None if x is None else list(x)!r} "
                   f"enclosure=({a!r}, {b!r})")
    return "\n".join(out)


# ---------------------------------------------------------------- box families
def ulps_above(v, k):
    for _ in range(int(k)):
        v = np.nextafter(v, np.inf)
    return v


def _log_uniform(rng, a, b, size):
    return np.exp(rng.uniform(np.log(a), np.log(b), size))


def tiny_boxes(fn, n, N, rng, centers=None):
    """Boxes a few ulps wide (0 to 4 ulps per coordinate; 0 is a point box)."""
    dlo, dhi = fn.bounds(n)
    c = rng.uniform(dlo, dhi, (N, n))
    if centers is not None:  # some boxes a few ulps from special points (x* ...)
        m = rng.random(N) < 0.25
        pick = np.asarray(centers)[rng.integers(0, len(centers), N)]
        c[m] = pick[m]
    k = rng.integers(0, 5, (N, n))
    lo = c.copy()
    hi = c.copy()
    for kk in range(1, 5):
        hi = np.where(k >= kk, np.nextafter(hi, np.inf), hi)
    return lo, hi


def wide_boxes(fn, n, N, rng):
    """Boxes covering 5% to 100% of the domain in each coordinate."""
    dlo, dhi = fn.bounds(n)
    w = (dhi - dlo) * rng.uniform(0.05, 1.0, (N, n))
    lo = dlo + rng.random((N, n)) * (dhi - dlo - w)
    return lo, np.minimum(lo + w, dhi)


def medium_boxes(fn, n, N, rng):
    """Boxes of log-uniform width 1e-12 .. 1 of the domain."""
    dlo, dhi = fn.bounds(n)
    w = (dhi - dlo) * _log_uniform(rng, 1e-12, 1.0, (N, n))
    lo = dlo + rng.random((N, n)) * (dhi - dlo - w)
    return lo, np.minimum(lo + w, dhi)


def edge_boxes(fn, n, N, rng):
    """Boxes touching the domain's edges (and point boxes on them)."""
    dlo, dhi = fn.bounds(n)
    width = dhi - dlo
    w = width * _log_uniform(rng, 1e-12, 0.3, (N, n))
    kind = rng.integers(0, 5, (N, n))
    lo = dlo + rng.random((N, n)) * (width - w)
    hi = lo + w
    lo = np.where(kind == 0, dlo, lo)
    hi = np.where(kind == 0, dlo + w, hi)
    lo = np.where(kind == 1, dhi - w, lo)
    hi = np.where(kind == 1, dhi, hi)
    lo = np.where(kind == 2, dlo, lo)
    hi = np.where(kind == 2, dlo, hi)
    lo = np.where(kind == 3, dhi, lo)
    hi = np.where(kind == 3, dhi, hi)
    # every box has at least one coordinate on an edge
    j = rng.integers(0, n, N)
    r = np.arange(N)
    lo[r, j] = np.where(rng.random(N) < 0.5, dlo[j], dhi[j] - w[r, j])
    hi[r, j] = np.where(lo[r, j] == dlo[j], dlo[j] + w[r, j], dhi[j])
    return lo, np.maximum(hi, lo)


def huge_boxes(fn, n, N, rng, nonnegative=False):
    """Coordinates of magnitude 1e8 .. 1e15 (mixed with ordinary ones), widths of ulps to 1e3."""
    dlo, dhi = fn.bounds(n)
    mag = 10.0 ** rng.uniform(8, 15, (N, n))
    sign = np.ones((N, n)) if nonnegative else np.where(rng.random((N, n)) < 0.5, -1.0, 1.0)
    c = sign * mag
    ordinary = rng.random((N, n)) < 0.25
    c = np.where(ordinary, rng.uniform(dlo, dhi, (N, n)), c)
    ulp_w = rng.random((N, n)) < 0.5
    w = np.where(ulp_w, 0.0, _log_uniform(rng, 1e-3, 1e3, (N, n)))
    lo = c
    hi = c + w
    k = rng.integers(0, 4, (N, n))
    for kk in range(1, 4):
        hi = np.where(ulp_w & (k >= kk), np.nextafter(hi, np.inf), hi)
    if nonnegative:
        lo = np.maximum(lo, 0.0)
        hi = np.maximum(hi, lo)
    return lo, hi


class TrigPhases:
    """Locate points where an inner argument of sin/cos crosses a multiple of pi/2.

    Those are the extrema (and zeros) of every sin/cos in f and in its gradient.
    """

    def __init__(self, fn, n):
        orc = oracle(fn, n)
        exprs = [orc.expr] + orc.grad_exprs
        args = set()
        for e in exprs:
            args.update(trig_arguments(e))
        pvals = dict(zip(orc.psyms, orc.params))
        args = sorted(args, key=str)
        self.funcs = [sp.lambdify([orc.xsyms], sp.sympify(a).xreplace(pvals), "numpy")
                      for a in args]
        # the same arguments over arb, for crossings at huge coordinates
        self.deps = [[k for k, s in enumerate(orc.xsyms) if s in sp.sympify(a).free_symbols]
                     for a in args]
        self._arb = compile_arb([a / (sp.pi / 2) for a in args], orc.xsyms, orc.psyms) if args else None
        self._params = orc.params

    def exact_phase_floor(self, j, x, prec=400):
        """floor(argument_j(x) / (pi/2)) exactly (None if undecided at ``prec`` bits)."""
        with precision(prec):
            v = self._arb([_as_arb(t) for t in x], [arb(t) for t in self._params])[j]
            return v.floor().unique_fmpz()

    def phase(self, j, X):
        """(argument / (pi/2)) along rows of X (shape (M, n))."""
        v = self.funcs[j](X.T)
        return np.broadcast_to(np.asarray(v, dtype=float), (X.shape[0],)) / (np.pi / 2)

    def crossings(self, x0, u, tmin, tmax, grid=2000):
        """Points x0 + t u, t in [tmin, tmax], where some phase crosses an integer."""
        t = np.linspace(tmin, tmax, grid)
        X = x0 + t[:, None] * u
        found = []
        for j in range(len(self.funcs)):
            ph = np.floor(self.phase(j, X))
            idx = np.nonzero(ph[1:] != ph[:-1])[0]
            if idx.size == 0:
                continue
            a, b = t[idx].copy(), t[idx + 1].copy()
            fa = ph[idx]
            for _ in range(60):
                m = 0.5 * (a + b)
                fm = np.floor(self.phase(j, x0 + m[:, None] * u))
                same = fm == fa
                a = np.where(same, m, a)
                b = np.where(same, b, m)
            found.append(x0 + b[:, None] * u)
        return np.concatenate(found) if found else np.empty((0, len(x0)))


def extremum_boxes(fn, n, N, rng, phases=None):
    """Boxes straddling extrema/zeros of the inner sin/cos arguments, of width ulps .. 1e-2.

    Returns ``(lo, hi, at)``: ``at`` holds, per box, the double (nearly) at the crossing,
    to be checked as an extra sample point.
    """
    phases = phases or TrigPhases(fn, n)
    dlo, dhi = fn.bounds(n)
    if not phases.funcs:
        return medium_boxes(fn, n, N, rng) + (None,)
    centers = []
    tries = 0
    while sum(len(c) for c in centers) < N and tries < 200:
        tries += 1
        x0 = rng.uniform(dlo, dhi)
        if rng.random() < 0.5:
            u = np.zeros(n)
            u[rng.integers(0, n)] = 1.0
        else:
            u = rng.standard_normal(n)
            u /= np.linalg.norm(u)
        with np.errstate(divide="ignore", invalid="ignore"):
            ta = np.where(u > 0, (dlo - x0) / u, np.where(u < 0, (dhi - x0) / u, -np.inf))
            tb = np.where(u > 0, (dhi - x0) / u, np.where(u < 0, (dlo - x0) / u, np.inf))
        tmin, tmax = np.max(ta), np.min(tb)
        c = phases.crossings(x0, u, tmin, tmax)
        if len(c):
            take = rng.choice(len(c), size=min(len(c), max(1, N // 20)), replace=False)
            centers.append(c[take])
    if not centers:
        return medium_boxes(fn, n, N, rng) + (None,)
    c = np.concatenate(centers)
    c = c[rng.choice(len(c), size=N, replace=len(c) < N)]
    c = np.clip(c, dlo, dhi)
    scale = np.maximum(1.0, np.abs(c))
    a = scale * _log_uniform(rng, 1e-13, 1e-2, (N, n))
    b = scale * _log_uniform(rng, 1e-13, 1e-2, (N, n))
    ulp = rng.random((N, n)) < 0.25
    lo = np.where(ulp, c, c - a)
    hi = np.where(ulp, np.nextafter(c, np.inf), c + b)
    lo, hi = np.clip(lo, dlo, dhi), np.clip(hi, dlo, dhi)
    return lo, hi, np.clip(c, lo, hi)


def spike_boxes(fn, n, N, rng):
    """Boxes in, across and just outside the spike of a function that has one."""
    s = fn.definition.spike
    c, h = float(s.center), float(s.halfwidth)
    kind = rng.integers(0, 4, N)
    lo = np.empty((N, n))
    hi = np.empty((N, n))
    for r in range(N):
        if kind[r] == 0:  # inside
            a = c + rng.uniform(-h, h, n) * 0.99
            lo[r] = a
            hi[r] = np.minimum(a + rng.uniform(0, 0.01 * h, n), c + 0.99 * h)
        elif kind[r] == 1:  # straddling an edge of the spike in some coordinates
            e = c + np.where(rng.random(n) < 0.5, -h, h)
            lo[r] = e - h * _log_uniform(rng, 1e-9, 1.0, n)
            hi[r] = e + h * _log_uniform(rng, 1e-9, 1.0, n)
        elif kind[r] == 2:  # containing the spike and more
            lo[r] = c - h * _log_uniform(rng, 1.0, 1e6, n)
            hi[r] = c + h * _log_uniform(rng, 1.0, 1e6, n)
        else:  # near the spike, mostly outside
            a = c + rng.uniform(-4 * h, 4 * h, n)
            lo[r] = a
            hi[r] = a + h * _log_uniform(rng, 1e-6, 1.0, n)
    # exact edges: point boxes on the spike's boundary doubles
    exact_lo = Fraction(int(s.center.p), int(s.center.q)) - Fraction(int(s.halfwidth.p), int(s.halfwidth.q))
    slo = float(exact_lo)
    if Fraction(slo) < exact_lo:
        slo = math.nextafter(slo, math.inf)  # the smallest double in the spike
    m = rng.random(N) < 0.1
    lo[m] = slo
    hi[m] = np.where(rng.random((m.sum(), n)) < 0.5, slo, c)
    return lo, np.maximum(lo, hi)


def huge_extremum_boxes(fn, n, N, rng, nonnegative=False, phases=None):
    """Boxes around 1e8 .. 1e15 in one coordinate that straddle an exact crossing of a
    sin/cos argument through a multiple of pi/2 (an extremum or zero).

    The crossing is located between two adjacent doubles with arb (a rounded
    pi or 1/(2 pi) in a quadrant test is wrong by whole periods out there), then
    to ~2^-60 ulp by bisecting dyadic reals.  Returns ``(lo, hi, at)`` with
    ``at[r]`` that real crossing point (arb coordinates): f there is the
    extremum, which no double in a box one ulp wide attains.
    Arguments that turn through more than a period per ulp (Fu's (x - 0.9)^2)
    give no usable crossings and are skipped.
    """
    phases = phases or TrigPhases(fn, n)
    dlo, dhi = fn.bounds(n)
    if not phases.funcs:
        lo, hi = huge_boxes(fn, n, N, rng, nonnegative)
        return lo, hi, None
    LO, HI, AT = [], [], []
    attempts = 0
    while len(LO) < N and attempts < 20 * N:
        attempts += 1
        k = int(rng.integers(len(phases.funcs)))
        if not phases.deps[k]:
            continue
        j = int(rng.choice(phases.deps[k]))
        x0 = rng.uniform(dlo, dhi)
        sign = 1.0 if (nonnegative or rng.random() < 0.5) else -1.0
        x0[j] = sign * 10.0 ** rng.uniform(8, 15)
        a = x0[j]
        f_a = phases.exact_phase_floor(k, x0)
        step = np.spacing(abs(a))
        b = a
        for _ in range(80):  # walk up until the phase's floor changes
            b = a + step
            xb = x0.copy()
            xb[j] = b
            f_b = phases.exact_phase_floor(k, xb)
            if f_a is None or f_b is None:
                break
            if f_b != f_a:
                break
            step *= 2.0
        else:
            continue
        if f_a is None or f_b is None or f_b == f_a:
            continue
        if b == np.nextafter(a, np.inf) and abs(int(f_b) - int(f_a)) > 1:
            continue  # more than a quarter period per ulp: nothing to straddle
        while np.nextafter(a, np.inf) < b:  # bisect on doubles
            m = a + (b - a) / 2
            if m <= a or m >= b:
                break
            xm = x0.copy()
            xm[j] = m
            f_m = phases.exact_phase_floor(k, xm)
            if f_m is None:
                break
            if f_m == f_a:
                a = m
            else:
                b = m
        # the crossing itself, a real number between the doubles a and b, to ~2^-60 ulp
        with precision(400):
            A, B = arb(float(a)), arb(float(b))
            for _ in range(60):
                M = (A + B) / 2
                xm = list(x0)
                xm[j] = M
                if phases.exact_phase_floor(k, xm) == f_a:
                    A = M
                else:
                    B = M
        exact = list(x0)
        exact[j] = A
        ulp = np.spacing(abs(a))
        lo = x0 - np.abs(x0) * _log_uniform(rng, 1e-15, 1e-3, n) * (rng.random(n) < 0.5)
        hi = x0 + np.abs(x0) * _log_uniform(rng, 1e-15, 1e-3, n) * (rng.random(n) < 0.5)
        width = rng.choice([0, 1, 3, 20, 1000])
        lo[j] = a - ulp * width * rng.random()
        hi[j] = b + ulp * width * rng.random()
        if nonnegative:
            lo = np.maximum(lo, 0.0)
        LO.append(lo)
        HI.append(np.maximum(hi, lo))
        AT.append(exact)
    if not LO:
        lo, hi = huge_boxes(fn, n, N, rng, nonnegative)
        return lo, hi, None
    idx = np.arange(N) % len(LO)
    return np.array(LO)[idx], np.array(HI)[idx], [AT[i] for i in idx]


def least_sampled(value, lo, hi, special, rng, count):
    """The least of ``value`` over ``count`` random points of the box [lo, hi], its centre and the
    point ``special`` where the box holds it: a witness that the box holds a point at or below a level
    (a contraction or bound that drops such a box is unsound)."""
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    pts = [*(lo + (hi - lo) * rng.random((count, lo.size))), 0.5 * lo + 0.5 * hi]
    if np.all(lo <= special) and np.all(special <= hi):
        pts.append(np.asarray(special, dtype=float))
    return min(value(p) for p in pts)


def check_children_kept(value, clo, chi, sidx, kept, raised, special, level, rng, count):
    """Every child box k of ``sidx`` whose sampled least (:func:`least_sampled`) is at or below
    ``level`` is in ``kept``, and a kept box's raised lower bound is at most its sampled least;
    returns how many boxes held such a point (a test asserts there were some)."""
    below = 0
    for k in sidx:
        least = least_sampled(value, clo[k], chi[k], special, rng, count)
        if least <= level:
            below += 1
            assert k in kept
        if k in kept:
            assert raised[np.flatnonzero(kept == k)[0]] <= least
    return below


def lsq_hook_keeps_children(fn, dim, gub, sel_lo, sel_hi, plan, value, special, seed):
    """The least-squares floor's hook (methods/solver/lsq_floor.raise_children) on the children of
    [sel_lo, sel_hi] cut by ``plan``, through a stand-in search holding only what the hook reads: it
    drops some, and every child with a sampled point at or below ``gub`` is kept with a raised bound
    at most that point's value (:func:`check_children_kept`).  Returns (search, kept, raised, sidx, lb)."""
    from types import SimpleNamespace
    from gpubench.methods.solver import lsq_floor
    from gpubench.methods.solver.partition import child_boxes
    search = SimpleNamespace(fn=fn, dim=dim, maximise=False, state=SimpleNamespace(gub=gub),
                             host_seconds=0.0, contract_stats={})
    sidx = np.arange(plan.count)
    lb = np.zeros(plan.count)
    kept, raised = lsq_floor.raise_children(search, sel_lo, sel_hi, plan, sidx, lb)
    assert search.contract_stats["lsq_dropped"] > 0
    clo, chi = child_boxes(sel_lo, sel_hi, plan, sidx)
    assert check_children_kept(value, clo, chi, sidx, kept, raised, special, gub, np.random.default_rng(seed), 3) > 0
    return search, kept, raised, sidx, lb


def mp_value(fn):
    """f of a fixed-dimension ``fn`` at 50 digits (mpmath; every rational constant exact), on float points."""
    import mpmath
    from gpubench.forms.definition import variables
    f = sp.lambdify(variables(fn.definition.dim), fn.definition.expr, "mpmath")

    def value(p):
        with mpmath.workdps(50):
            return f(*[mpmath.mpf(float(v)) for v in p])
    return value


def fit_boxes(lo0, hi0, rng, count, centre=None):
    """``count`` random boxes in [lo0, hi0], from half its width down to points (a degenerate box);
    with ``centre``, every other one holds it (a minimiser-centred box)."""
    n = lo0.size
    for k in range(count):
        frac = rng.choice([0.5, 0.1, 0.01, 1e-4, 0.0])
        w = (hi0 - lo0) * frac * rng.random(n)
        if centre is not None and k % 2 == 0:
            lo = np.clip(centre - w * rng.random(n), lo0, hi0)
        else:
            lo = lo0 + (hi0 - lo0 - w) * rng.random(n)
        yield lo, np.minimum(lo + w, hi0)
