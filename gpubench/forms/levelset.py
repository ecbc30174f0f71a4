"""Level-set contraction by forward-backward propagation through the definition (HC4-revise).

Every global minimiser x* of f over a box X satisfies f(x*) <= GUB.  HC4-revise (F. Benhamou,
F. Goualard, L. Granvilliers, J.-F. Puget, "Revising hull and box consistency", ICLP 1999;
the constraint propagation MAiNGO and IBEX run on the objective's level set) encloses every
node of f's expression tree on X (forward), intersects the root with [-inf, GUB], and then
projects each node's enclosure onto its arguments (backward): for u + v in T, u is in T - v;
for u * v in T with 0 not in v, u is in T / v; for u^2 in T, |u| <= sqrt(T.hi); for exp(u)
in T, u <= log(T.hi); ...  Reaching a coordinate, the projection narrows X; an empty
projection proves that no point of X meets f <= GUB, so X holds no global minimiser.

On a sum of terms, sum_i t(x_i, x_{i+1}) <= GUB, each term is bounded by GUB less the lowest
value of all the others, which narrows every coordinate at once: on Levy (n = 10, [-10, 10]^n)
with GUB near 0 one pass pins every x_i near 1, which bisection with interval bounds alone
does not do in minutes.  The definition's structure (a Sum aggregate, its term vectorised over
i) is used as it stands: one numpy pass per node of the term, for all i together.

A term of one coordinate (t(x_i)) is also enclosed on PIECES equal pieces of x_i's interval,
each by the natural form intersected with the mean value form t(c) + t'(X)(X - c) (t' from
sympy's derivative of the term; a kink's sign or a step's jump has no rule here, so that piece's
slope is the whole line): the hull over the pieces is a far sharper enclosure of the term
(Styblinski-Tang n = 10 on [-5, 5]^n: f >= -396.6 against -2125 by the natural form, f* =
-391.7), and projecting a term's target keeps only the pieces whose enclosure meets it (box
consistency by shaving, Benhamou et al. 1999): with GUB = f* + 1e-4 one call pins every x_i of
Styblinski-Tang to [-2.911, -2.896].

Rigor: every operation rounds outward (:mod:`gpubench.interval.arrays`: the correctly rounded + - * / and sqrt one ulp outward,
libm's exp, log, sin, cos ``ULPS`` ulps outward, the project's CPU convention), constants are
enclosed ([float(pi) - ulp, float(pi) + ulp]; a rational p/q exactly when a double holds it),
0 * inf counts as 0 (bounds are finite reals), and any operation without a rule here encloses
its value by [-inf, inf] forward and is not projected backward, which is always valid.  A NaN
(f undefined somewhere in X) leaves X as it is, as does a definition with a spike (f is not
its expression there).  The walk is over plain trees (:mod:`gpubench.forms.exprtree`): the
definition's expressions converted once, constants enclosed and derivatives taken then, kept on
the function's card, so that a second process contracts without importing sympy
(``tests/test_levelset_card.py``).  ``tests/test_levelset.py`` checks forward enclosures against exact
rational arithmetic (Fraction) and mpmath, and that no point with f <= GUB is ever removed.
"""
import math

import numpy as np

from ..interval.arrays import (INF, ULPS, Undefined as _Undefined, _dn, _fix, _monotone,  # noqa: F401
                               _pow_nonneg, _root, _up, abs_, add, div, exp_, ipow, log_, mul, rpow,
                               sin_, sqrt_, sub)
from .chain import passes as chain_passes
from .exprtree import from_json
# the tree walks (.levelset_tree); the names of it this module does not use are kept importable here
from .levelset_tree import (STEP_PREIMAGE, STEPS, _backward, _Empty, _forward, _meet,  # noqa: F401
                            _quotient)

# the definition's symbols, by name (gpubench.forms.definition: x, y, i, n, x1, xn)
X_SYM, Y_SYM, I_SYM, N_SYM, X1_SYM, XN_SYM = "x", "y", "i", "n", "x1", "xn"

ROUNDS = 3        # forward-backward passes per call: later passes use the narrowed box
PIECES = 64       # a term of x_i alone is also enclosed on this many pieces of x_i's interval
REFINE = 12       # ... then, up to this many times, its CUT lowest and CUT highest pieces each cut into SUBPIECES
CUT = 8           # (4 before issue 41: Shubert01's factor has its extremes in more than 4 pieces, ~3 periods of
                  # [-10, 10], and 12 rounds of 4 left its product 1.3e-11 (relative) below f*; 8: 3.4e-14)
SUBPIECES = 8
SHARP = 1e-13     # no more cuts once every row's ends lie within this (relative) of values its term takes


def _sharp(plo, phi, fc):
    """Whether every row's hull ends lie within SHARP (relative) of the term's values: fc holds,
    per row, a lower bound of the highest value taken and an upper bound of the lowest one."""
    lo, hi = plo.min(axis=1), phi.max(axis=1)
    scale = SHARP * np.maximum(1.0, np.maximum(np.abs(lo), np.abs(hi)))
    with np.errstate(invalid="ignore"):
        return bool(np.all((hi - fc[0].max(axis=1) <= scale) & (fc[1].min(axis=1) - lo <= scale)))


def _product_pick(mid, sign):
    """Per row, the piece (index) at which a product of one-coordinate factors is to be taken to make
    it low (``sign`` > 0) or high (< 0), from each factor's values ``mid`` on its pieces (NaN where
    unknown): every factor at the value of largest magnitude, and where the product's sign is then
    the wrong one, the factor that loses least by taking its best value of the other sign instead
    (a product of independent factors is extreme at extremes of its factors: Alpine02 and
    Shubert01 at n = 10, whose minima a multistart from scattered points did not reach).  None
    where a row has no finite value.  A start for a descent, nothing more."""
    if mid.size == 0 or np.all(np.isnan(mid), axis=1).any():
        return None
    rows = np.arange(mid.shape[0])
    big = np.nanargmax(np.abs(mid), axis=1)
    value = mid[rows, big]
    want = -1.0 if sign > 0 else 1.0
    if np.prod(np.sign(value)) == want or np.any(value == 0):
        return big
    other = np.where(np.sign(mid) == -np.sign(value)[:, None], np.abs(mid), np.nan)   # the other sign
    has = ~np.all(np.isnan(other), axis=1)
    if not has.any():   # no factor changes sign: the product's sign is fixed; its smallest magnitude
        return np.nanargmin(np.abs(mid), axis=1) if want != np.prod(np.sign(value)) and sign > 0 else big
    alt = np.where(has[:, None], other, -np.inf)
    best_alt = np.nanargmax(np.where(np.isnan(alt), -np.inf, alt), axis=1)
    ratio = np.where(has, alt[rows, best_alt] / np.abs(value), -np.inf)
    j = int(np.argmax(ratio))
    out = big.copy()
    out[j] = best_alt[j]
    return out


# ---------------------------------------------------------------- aggregates
def _sum_interval(lo, hi):
    """(sum lo, sum hi) outward: math.fsum is correctly rounded, then one ulp outward."""
    lo = np.asarray(lo).ravel()
    hi = np.asarray(hi).ravel()
    slo = -INF if np.any(lo == -INF) else float(_dn(math.fsum(lo.tolist())))
    shi = INF if np.any(hi == INF) else float(_up(math.fsum(hi.tolist())))
    return slo, shi


def _sum_but_each(lo, hi):
    """Per i, an enclosure of sum_{j != i} [lo_j, hi_j] (lower ends rounded down, upper up)."""
    m = lo.size
    out = []
    for ends, inf, rnd in ((lo, -INF, _dn), (hi, INF, _up)):
        bad = ends == inf
        if bad.sum() >= 2:
            out.append(np.full(m, inf))
            continue
        fin = np.where(bad, 0.0, ends)
        total = math.fsum(fin.tolist())             # correctly rounded; then each difference
        t = (_dn(total) if rnd is _dn else _up(total))
        with np.errstate(invalid="ignore", over="ignore"):
            r = rnd(t - fin)                         # sum of the others, rounded outward
        if bad.sum() == 1:
            r = np.where(bad, r, inf)                # the one infinite term: only its own others are finite
        out.append(r)
    return out[0], out[1]


def _prod_but_each(lo, hi):
    """Per i, an enclosure of prod_{j != i} [lo_j, hi_j]: prefix times suffix products."""
    m = lo.size
    pre = [(1.0, 1.0)]
    for j in range(m - 1):
        pre.append(mul(pre[-1], (lo[j], hi[j])))
    suf = [(1.0, 1.0)]
    for j in range(m - 1, 0, -1):
        suf.append(mul(suf[-1], (lo[j], hi[j])))
    suf.reverse()
    out = [mul(pre[j], suf[j]) for j in range(m)]
    return (np.array([float(v[0]) for v in out]), np.array([float(v[1]) for v in out]))


class _Term:
    """An aggregate's term as the level set reads it (``second``: the second-order trees, or None)."""
    __slots__ = ("sum", "window", "term", "dterm", "dexpr", "second")

    def __init__(self, is_sum, window, term, dterm, dexpr, second=None):
        self.sum, self.window, self.term, self.dterm, self.dexpr = is_sum, window, term, dterm, dexpr
        self.second = second



class LevelSet:
    """HC4-revise of f(x) <= level on boxes, for one definition at one dimension."""

    def __init__(self, definition, dim, params=None):
        """``definition``: a :class:`~gpubench.forms.definition.Definition` (converted here, which
        imports sympy) or its :func:`gpubench.forms.exprtree.program` (what a function's card keeps)."""
        if not isinstance(definition, dict):
            from .exprtree import program
            definition = program(definition)
        prog = definition
        self.dim = dim
        self.params = np.zeros((0, dim)) if params is None else np.asarray(params, dtype=np.float64)
        self.usable = prog["usable"]
        self.expr = from_json(prog["expr"])
        # per aggregate (by name): Sum or not, window, term, d term / dx, d expr / d aggregate
        self.terms = {t["agg"]: _Term(t["sum"], t["window"], from_json(t["term"]), from_json(t["dterm"]),
                                      from_json(t["dexpr"]),
                                      (from_json(t["dterm_y"]), [from_json(v) for v in t["d2term"]],
                                       [from_json(v) for v in t["d2expr"]]) if "d2expr" in t else None)
                      for t in prog["terms"]}
        self.named = bool(prog["coords"])   # the outer expression reads coordinates by name
        self._smooth = None                   # whether every tree is smooth (forms/convexity.py), found once
        self.param_names = [tuple(p) for p in prog["params"]]
        self.coords = {X1_SYM: 0, XN_SYM: dim - 1}
        for name, k in prog["coords"]:
            if name not in self.coords:
                self.coords[name] = dim - 1 if k < 0 else k

    def _term_env(self, agg, lo, hi):
        w = self.terms[agg].window
        m = self.dim - (1 if w == 2 else 0)
        env = {X_SYM: (lo[:m], hi[:m]), Y_SYM: (lo[1:m + 1], hi[1:m + 1]),
               I_SYM: (np.arange(1.0, m + 1), np.arange(1.0, m + 1)),
               N_SYM: (float(self.dim), float(self.dim))}
        for k, (p0, p1) in enumerate(self.param_names):
            env[p0] = (self.params[k, :m], self.params[k, :m])
            env[p1] = (self.params[k, 1:m + 1], self.params[k, 1:m + 1])
        return env, m

    def _pieces(self, agg, spec, env, lo, hi, m, refine=True):
        """A term of x_i alone enclosed on pieces of each coordinate's interval: (plo, phi, a, b),
        each of shape (m, count), the enclosures and the pieces' ends; None for a term of two
        coordinates, an unbounded box, or a term undefined on some piece.  First PIECES equal
        pieces (neighbours share their end exactly, the end pieces end on the box's ends, so they
        cover the interval), then, with ``refine``, the pieces that hold a row's highest upper end
        and its lowest lower end are cut into SUBPIECES again, up to REFINE times each (:meth:`_refine`).
        The hull of the pieces' enclosures encloses the term, and a piece whose enclosure misses
        the term's target holds no point of the level set."""
        if PIECES < 2 or spec.window != 1 or not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
            return None
        t = np.arange(PIECES + 1) / PIECES
        e = np.minimum(lo[:, None] + (hi - lo)[:, None] * t[None, :], hi[:, None])
        e[:, 0], e[:, -1] = lo, hi
        base = {k: tuple(np.asarray(v)[:, None] if np.ndim(v) == 1 else v for v in pair)
                for k, pair in env.items() if k is not Y_SYM}
        a, b = e[:, :-1], e[:, 1:]
        try:
            plo, phi, _ = self._enclose_pieces(agg, spec, base, a, b)
        except _Undefined:
            return None
        if refine and REFINE:
            try:
                return self._refine(agg, spec, base, plo, phi, a, b)
            except _Undefined:   # a sub-piece where the term is undefined: keep the coarse pieces
                pass
        return plo, phi, a, b

    def _enclose_pieces(self, agg, spec, base, a, b):
        """(lo, hi, value at the centre) of the term on the pieces [a, b] (arrays (m, k)): the
        natural form intersected with the mean value form t(c) + t'(X) (X - c) where that is
        defined; the centre's enclosure is None where the term is undefined there."""
        env2 = dict(base)
        env2[X_SYM] = (a, b)
        plo, phi = _forward(spec.term, env2, {})
        plo, phi = np.broadcast_to(plo, a.shape), np.broadcast_to(phi, a.shape)
        try:
            c = np.minimum(np.maximum(0.5 * a + 0.5 * b, a), b)
            env_c = dict(base)
            env_c[X_SYM] = (c, c)
            fc = tuple(np.broadcast_to(v, a.shape) for v in _forward(spec.term, env_c, {}))
        except _Undefined:
            return plo, phi, None
        try:
            g = self._slope(agg, spec, env2, env_c)
            mlo, mhi = add(fc, mul(g, (_dn(a - c), _up(b - c))))
            plo, phi = np.maximum(plo, mlo), np.minimum(phi, mhi)
        except _Undefined:
            pass
        return plo, phi, fc

    def _refine(self, agg, spec, base, plo, phi, a, b):
        """A local branch and bound on each row's range: up to REFINE times, the CUT pieces with the
        lowest lower ends and the CUT with the highest upper ends (the others) are each cut into
        SUBPIECES equal pieces, which replace it (their outer ends are its ends, inner ends are
        shared, so the pieces still cover the interval; each is enclosed as the pieces are).  The
        hull's ends then approach the term's true extremes: Deceptive's g_i, a zigzag peaking at
        1, is enclosed up to 1.07 on 64 equal pieces, and ten such terms leave its sum 0.45 of
        slack, which keeps every coordinate's whole peak in the level set.  It stops early where
        every row's ends are within SHARP (relative) of values the term takes at pieces' centres."""
        m, rows = a.shape[0], np.arange(a.shape[0])[:, None]
        t = np.arange(SUBPIECES + 1) / SUBPIECES
        fc = None
        for _ in range(REFINE):
            if fc is not None and _sharp(plo, phi, fc):
                break
            low = np.argsort(plo, axis=1, kind="stable")[:, :CUT]
            rest = phi.copy()
            rest[rows, low] = -INF
            high = np.argsort(-rest, axis=1, kind="stable")[:, :CUT]
            j = np.concatenate([low, high], axis=1)               # (m, 2 CUT) distinct pieces a row
            ja, jb = a[rows, j], b[rows, j]
            sub = np.minimum(ja[..., None] + (jb - ja)[..., None] * t, jb[..., None])
            sub[..., 0], sub[..., -1] = ja, jb
            sa, sb = sub[..., :-1].reshape(m, -1), sub[..., 1:].reshape(m, -1)
            slo, shi, sfc = self._enclose_pieces(agg, spec, base, sa, sb)
            keep = np.ones(a.shape, dtype=bool)
            keep[rows, j] = False
            shape = (m, a.shape[1] - j.shape[1])
            a = np.concatenate([a[keep].reshape(shape), sa], axis=1)
            b = np.concatenate([b[keep].reshape(shape), sb], axis=1)
            plo = np.concatenate([plo[keep].reshape(shape), slo], axis=1)
            phi = np.concatenate([phi[keep].reshape(shape), shi], axis=1)
            if sfc is not None:
                fc = sfc if fc is None else (np.maximum(fc[0].max(axis=1), sfc[0].max(axis=1))[:, None],
                                             np.minimum(fc[1].min(axis=1), sfc[1].min(axis=1))[:, None])
        return plo, phi, a, b

    def _slope(self, agg, spec, env_pieces, env_centres):
        """The derivative's enclosure on each piece (``env_centres``: the pieces' centres, which a
        test's broken variant uses in its place)."""
        return _forward(self._derivative(agg, spec), env_pieces, {})

    def _derivative(self, agg, spec):
        """d term / dx (sympy's, through the definition's own derivative rules, taken when the program
        was made: a kink's sign, a step's jump or a max's step have no rule here, so enclose the
        whole line)."""
        return spec.dterm

    def guess(self, lo, hi):
        """A point of the box where f is likely low, or None: each coordinate at the centre of
        the piece whose enclosure of its one-coordinate terms has the lowest midpoint (on a
        separable function, the global basin of every coordinate at once, which descents from
        scattered points reach with probability 2^-n on Styblinski-Tang), the box's centre for
        coordinates in no such term.  A start for a descent, nothing more: no bound rests on it."""
        lo = np.asarray(lo, dtype=np.float64)
        hi = np.asarray(hi, dtype=np.float64)
        if not self.usable or not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
            return None
        score = np.zeros((self.dim, PIECES))
        used = False
        at = np.full(self.dim, np.nan)   # a chain's pick per coordinate (a cell's centre)
        try:
            _, _, fterms = self._forward(lo, hi, centres=True)
            chosen = np.full(self.dim, -1)   # a product's pick per coordinate (:func:`_product_pick`)
            for agg, spec in self.terms.items():
                # f rises or falls with the aggregate: its terms are to be made low, or high
                slope = _forward(spec.dexpr, self._outer, {})
                # (a heuristic: the outward rounding's few ulps below 0, -1e-322, still count as 0)
                tiny = 1e-12 * np.maximum(np.abs(slope[0]), np.abs(slope[1])) + 1e-300
                sign = 1.0 if np.all(slope[0] >= -tiny) else -1.0 if np.all(slope[1] <= tiny) else 0.0
                if sign == 0.0:
                    # the slope's enclosure straddles 0, often only because the sum's is wide
                    # (Deceptive: -(S/n)^2 with S enclosed in [-3, 15] where S >= 0 on the domain):
                    # follow the sign of its midpoint (a start, not a bound)
                    with np.errstate(invalid="ignore", over="ignore"):
                        mid = 0.5 * np.asarray(slope[0], float) + 0.5 * np.asarray(slope[1], float)
                    sign = float(np.sign(np.nanmean(mid))) if np.any(np.isfinite(mid)) else 0.0
                if sign == 0.0:
                    continue
                chained = fterms[agg][4]
                if chained is not None and sign > 0:
                    # each coordinate at the centre of its cell on a path of least sum of the terms'
                    # values at the cells' centres (forward and backward min-plus passes)
                    _, _, (ca, cb), centre = chained
                    if np.all(np.isnan(centre)):
                        continue
                    k = np.argmin(np.array(chain_passes(np.where(np.isnan(centre), INF, centre))[1]), axis=1)
                    rows = np.arange(k.size)
                    at[:k.size] = np.where(np.isnan(at[:k.size]), 0.5 * ca[rows, k] + 0.5 * cb[rows, k], at[:k.size])
                    used = True
                    continue
                env, m = self._term_env(agg, lo, hi)
                pieces = self._pieces(agg, spec, env, lo[:m], hi[:m], m, refine=False)
                if pieces is None:
                    continue
                plo, phi, _, _ = pieces
                with np.errstate(invalid="ignore", over="ignore"):
                    mid = np.where(np.isfinite(plo) & np.isfinite(phi), 0.5 * plo + 0.5 * phi, np.nan)
                if not spec.sum:
                    pick = _product_pick(mid, sign)
                    if pick is not None:
                        chosen[:m] = np.where(chosen[:m] < 0, pick, chosen[:m])
                        used = True
                    continue
                score[:m] += sign * np.where(np.isnan(mid), np.inf, mid)
                used = True
        except _Undefined:
            return None
        if not used:
            return None
        k = np.argmin(np.where(np.isnan(score), np.inf, score), axis=1)
        summed = np.any(score != 0, axis=1)
        k = np.where((chosen >= 0) & ~summed, chosen, k)   # a coordinate in a sum keeps the sum's pick
        t = (k + 0.5) / PIECES
        x = lo + (hi - lo) * t
        x = np.where(~summed & ~np.isnan(at), at, x)
        return np.minimum(np.maximum(x, lo), hi)

    def enclose(self, lo, hi):
        """(lo, hi) of f on the box: the forward pass alone (what the tests check); the whole line
        where f is undefined somewhere in the box."""
        try:
            return self._forward(np.asarray(lo, float), np.asarray(hi, float))[0]
        except _Undefined:
            return -INF, INF

    def _forward(self, lo, hi, refined=True, centres=False, level=None):
        """(f's enclosure, the outer expression's node values, per aggregate its term's values and
        pieces, and its chain's bounds and cells: with ``centres``, as the guess reads them, the
        chain's values at the cells' centres too).  ``level``: the contraction's, where f is one chained
        sum a chain of the natural form's cells alone that already exceeds it ends the chain's work
        (the box then holds no point of the level set whatever the mean value form adds).

        The last box's pass is kept, so that the root's first contraction reads what the multistart's
        guess computed on the same domain (nothing here writes into what it returns).  Its key holds
        the module's knobs (the pieces, the chain's cells), which tests and callers may change, and,
        where the chain is on, ``centres`` and ``level`` (off, they change nothing)."""
        from . import chain
        key = (lo.tobytes(), hi.tobytes(), refined, PIECES, REFINE, CUT, SUBPIECES, SHARP, chain.CELLS)
        if chain.CELLS is None or chain.CELLS >= 2:   # (None: on where gated, chain.cells)
            key += (centres, level, chain.COMPILED)
        last = getattr(self, "_last_forward", None)
        if last is not None and last[0] == key:
            self._outer = last[2]
            return last[1]
        result = self._forward_box(lo, hi, refined, centres, level)
        self._last_forward = (key, result, self._outer)
        return result

    def _forward_box(self, lo, hi, refined, centres, level):
        alone = self.expr.op == "sym" and len(self.terms) == 1 and not self.named
        outer = {N_SYM: (float(self.dim), float(self.dim))}
        for s, k in self.coords.items():
            outer[s] = (lo[k], hi[k])
        terms = {}
        for agg, spec in self.terms.items():
            env, m = self._term_env(agg, lo, hi)
            vals = {}
            tv = _forward(spec.term, env, vals)
            tlo, thi = (np.broadcast_to(v, (m,)) for v in tv)
            pieces = self._pieces(agg, spec, env, lo[:m], hi[:m], m) if refined else None
            if pieces is not None:   # the hull over the pieces is the sharper enclosure
                plo, phi, _, _ = pieces
                tlo, thi = np.maximum(tlo, plo.min(axis=1)), np.minimum(thi, phi.max(axis=1))
            chained = None
            if spec.sum:
                outer[agg] = _sum_interval(tlo, thi)
                if refined and spec.window == 2:   # a chain: two-coordinate pieces (forms/chain.py)
                    chained = self._chain(spec, env, lo, hi, m, centres, level if alone else None)
                    if chained is not None:
                        outer[agg] = (max(outer[agg][0], chained[0]), outer[agg][1])
            else:  # a product: interval products one by one
                acc = (1.0, 1.0)
                for j in range(m):
                    acc = mul(acc, (tlo[j], thi[j]))
                outer[agg] = (float(acc[0]), float(acc[1]))
            terms[agg] = (env, vals, (tlo, thi), pieces, chained)
        vals = {}
        f = _forward(self.expr, outer, vals)
        self._outer = outer
        return f, vals, terms

    def _chain(self, spec, env, lo, hi, m, centres=True, level=None):
        """(a lower bound of the chained sum over the box, per coordinate the lower bounds over its
        cells, the cells' ends), or None (forms/chain.py); with ``level`` (f is the sum) the natural
        form's cells first, and where their chain exceeds the level, that bound."""
        from . import chain
        compiled = self._compiled(spec)
        if level is not None and compiled is not None and compiled[0] is not None:
            ends = chain.lower_ends(None, spec, env, lo, hi, m, X_SYM, Y_SYM, compiled, mean_value=False,
                                    centres=centres)
            if ends is not None:
                total, each = chain.passes(ends[0])
                if total > level:
                    return total, each, chain.edges(lo[:m + 1], hi[:m + 1], chain.cells(spec)), ends[1]
        ends = chain.lower_ends(lambda tree, e: _forward(tree, e, {}), spec, env, lo, hi, m, X_SYM, Y_SYM,
                                self._compiled(spec), centres=centres)
        if ends is None:
            return None
        total, each = chain.passes(ends[0])
        return total, each, chain.edges(lo[:m + 1], hi[:m + 1], chain.cells(spec)), ends[1]

    def _compiled(self, spec):
        """(kernel, params, dim) for chain.lower_ends: the term's cells in compiled code
        (forms/chain_cells.py), the kernel None where its trees hold what the kernel does not write."""
        from . import chain
        if not chain.COMPILED:
            return None
        kernels = self.__dict__.setdefault("_chain_kernels", {})
        if id(spec) not in kernels:
            from .chain_cells import kernel
            kernels[id(spec)] = kernel(spec, self.param_names)
        return kernels[id(spec)], self.params, self.dim

    def chain_cells(self):
        """The chain's cells per coordinate where f is one chained sum (forms/chain.py: ``cells``), else 0."""
        if not (self.expr.op == "sym" and self.expr.name in self.terms and len(self.terms) == 1) or self.named:
            return 0
        spec = self.terms[self.expr.name]
        if not (spec.sum and spec.window == 2):
            return 0
        from . import chain
        return chain.cells(spec)

    def children_floor(self, lo, hi, clo, chi):
        """Lower bounds of f over the child boxes [clo[k], chi[k]] (arrays (k, n)) of the box [lo, hi],
        from the chain's cells of the box (forms/chain.py: ``children``), or None where f is not one
        chained sum or the chain is off."""
        if not (self.expr.op == "sym" and self.expr.name in self.terms and len(self.terms) == 1):
            return None
        spec = self.terms[self.expr.name]
        if not (spec.sum and spec.window == 2) or self.named:
            return None
        from . import chain
        lo = np.asarray(lo, dtype=np.float64)
        hi = np.asarray(hi, dtype=np.float64)
        env, m = self._term_env(self.expr.name, lo, hi)
        try:
            ends = chain.lower_ends(lambda tree, e: _forward(tree, e, {}), spec, env, lo, hi, m, X_SYM, Y_SYM,
                                    self._compiled(spec), centres=False)
        except _Undefined:
            return None
        if ends is None:
            return None
        ca, cb = chain.edges(lo[:m + 1], hi[:m + 1], chain.cells(spec))
        return chain.children(ends[0], ca, cb, np.asarray(clo)[:, :m + 1], np.asarray(chi)[:, :m + 1])

    def contract(self, lo, hi, level):
        """(lo, hi) narrowed to a box that holds every point of [lo, hi] where f <= level, or
        None where it holds none; the box itself where nothing can be concluded."""
        return self.contract_floor(lo, hi, level)[0]

    def contract_floor(self, lo, hi, level):
        """(:meth:`contract`'s box, a lower bound of f over it): the bound is the highest lower end
        of the forward enclosures of the boxes the passes started from (each holds the result),
        -inf where there is none.  The box is None where no point meets the level."""
        lo = np.array(lo, dtype=np.float64)
        hi = np.array(hi, dtype=np.float64)
        self._floor = -INF
        if not self.usable or not math.isfinite(level) or lo.size != self.dim:
            return (lo, hi), -INF
        try:
            for _ in range(ROUNDS):
                before = (lo.copy(), hi.copy())
                lo, hi = self._revise(lo, hi, level)
                if np.array_equal(before[0], lo) and np.array_equal(before[1], hi):
                    break
        except _Empty:
            return None, INF
        except _Undefined:
            return (lo, hi), -INF
        return (lo, hi), self._floor

    def _revise(self, lo, hi, level):
        f, vals, terms = self._forward(lo, hi, level=level)
        if f[0] == f[0]:
            self._floor = max(self._floor, float(f[0]))
        narrowed = {}
        _backward(self.expr, (-INF, float(level)), vals, narrowed)
        new_lo, new_hi = lo.copy(), hi.copy()
        for s, k in self.coords.items():
            if s in narrowed:
                new_lo[k] = max(new_lo[k], float(narrowed[s][0]))
                new_hi[k] = min(new_hi[k], float(narrowed[s][1]))
        for agg, spec in self.terms.items():
            if agg not in narrowed:
                continue
            env, tvals, (tlo, thi), pieces, chained = terms[agg]
            target = narrowed[agg]
            if spec.sum:
                olo, ohi = _sum_but_each(tlo, thi)
                with np.errstate(invalid="ignore"):
                    each = _fix(_dn(target[0] - ohi), _up(target[1] - olo))
            else:  # t_i in T / prod_{j != i} t_j, where that product excludes 0 (div: the line otherwise)
                each = div(target, _prod_but_each(tlo, thi))
            m = tlo.size
            if pieces is not None:   # the hull of the pieces whose enclosure meets the target
                plo, phi, pa, pb = pieces
                elo, ehi = (np.broadcast_to(v, (m,)) for v in each)
                alive = (plo <= ehi[:, None]) & (phi >= elo[:, None])
                if not alive.any(axis=1).all():
                    raise _Empty
                new_lo[:m] = np.maximum(new_lo[:m], np.where(alive, pa, INF).min(axis=1))
                new_hi[:m] = np.minimum(new_hi[:m], np.where(alive, pb, -INF).max(axis=1))
            if chained is not None:   # the cells of each coordinate whose bound meets the target
                _, bounds, (ca, cb), _ = chained
                alive = np.array(bounds) <= float(target[1])          # (m + 1, CELLS)
                if not alive.any(axis=1).all():
                    raise _Empty
                new_lo[:m + 1] = np.maximum(new_lo[:m + 1], np.where(alive, ca, INF).min(axis=1))
                new_hi[:m + 1] = np.minimum(new_hi[:m + 1], np.where(alive, cb, -INF).max(axis=1))
            inner = {}
            _backward(spec.term, each, tvals, inner)
            if X_SYM in inner:
                xl, xh = (np.broadcast_to(v, (m,)) for v in inner[X_SYM])
                new_lo[:m] = np.maximum(new_lo[:m], xl)
                new_hi[:m] = np.minimum(new_hi[:m], xh)
            if Y_SYM in inner:
                yl, yh = (np.broadcast_to(v, (m,)) for v in inner[Y_SYM])
                new_lo[1:m + 1] = np.maximum(new_lo[1:m + 1], yl)
                new_hi[1:m + 1] = np.minimum(new_hi[1:m + 1], yh)
        if np.any(new_lo > new_hi):
            raise _Empty
        return new_lo, new_hi
