"""The convexity test of the level set's objective on a box (the strong variant's convexity floor).

Where every symmetric matrix in an enclosure of f's Hessian over a box X is positive semidefinite,
f is convex on X, and the tangent plane at any point x of X is below it there:
f(y) >= f(x) + g(x).(y - x) (:func:`gpubench.methods.solver.contract.convex_floor`).  The Hessian
is enclosed through the definition's aggregates, a = sum_i t(x_i[, x_{i+1}]), by the chain rule
sum_a f_a H_a + sum_ab f_ab grad_a grad_b^T, each term's first and second derivatives (sympy's,
kept in the level set's program: :func:`gpubench.forms.exprtree.program`) enclosed on the box by
the level set's own forward rules, outward rounded.  Semidefiniteness is shown by diagonal
dominance after a positive scaling (:func:`_dominant`).  Only smooth trees qualify: a step or an
operation without a rule anywhere makes the test answer False, which is always safe.  A kink |u| (with
its derivatives sign(u) and DiracDelta(u)) qualifies on a box where its argument u keeps one sign (the
enclosure of u excludes 0; issue 41, hard41): there |u| = +-u is smooth, sign(u) is that sign exactly
and DiracDelta(u) is 0, so sympy's derivative trees are f's classical derivatives on the box; where
any kink's argument holds 0 the answer is False.
``tests/test_contract.py`` checks the floor against every sampled value of convex and non-convex
functions, and catches a test that takes every Hessian for semidefinite.
"""
import numpy as np

from ..interval.arrays import Undefined as _Undefined, _dn, _up, add, mul
from .levelset import _forward, _sum_interval

# operations whose first and second derivatives the trees hold as expressions (no kink, step or jump)
SMOOTH = {"sym", "const", "add", "mul", "pow", "exp", "log", "sin", "cos", "tanh"}
# |u| and its derivatives (exprtree's "sign", "dirac"): smooth on a box where u keeps one sign (_seeded)
KINKS = {"abs", "sign", "dirac"}
CONVEX_MAX_DIM = 200   # the convexity test builds the n x n interval Hessian


def _smooth(node, allowed=SMOOTH):
    return node.op in allowed and all(_smooth(a, allowed) for a in node.args)


def _kinks(node, found):
    """The kink nodes (KINKS) of the tree ``node``, added to the list ``found`` (each once)."""
    if node.op in KINKS and not any(k is node for k in found):
        found.append(node)
    for a in node.args:
        _kinks(a, found)
    return found


def _seeded(kinks, env):
    """A forward walk's store (``_forward``'s ``vals``) on ``env`` with every kink of ``kinks`` whose
    tree it walks settled: each kink's argument enclosed first and required to exclude 0 (else
    ``_Undefined``: not shown convex), then sign(u) set to that sign exactly and DiracDelta(u) to 0
    (|u| keeps the walk's own rule).  The store is shared by the trees walked on the same ``env``."""
    vals = {}
    for k in kinks:
        lo, hi = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in _forward(k.args[0], env, vals)))
        if not np.all((lo > 0) | (hi < 0)):
            raise _Undefined
        if k.op == "sign":
            s = np.where(lo > 0, 1.0, -1.0)
            vals[k] = (s, s)
        elif k.op == "dirac":
            z = np.zeros_like(lo)
            vals[k] = (z, z)
    return vals


def convex(ls, lo, hi):
    """Whether f is proved convex on the box: its interval Hessian (the chain rule through the
    aggregates: sum_a f_a H_a + sum_ab f_ab grad_a grad_b^T, each term's derivatives enclosed
    on the box) is diagonally dominant after a positive scaling (:func:`_dominant`), so every
    symmetric matrix in it is positive semidefinite.  False wherever
    that cannot be shown: a kink whose argument holds 0 on the box, a step or rule without a
    derivative anywhere in the trees, a
    product aggregate, coordinates read by name, n above CONVEX_MAX_DIM, or a program made
    before the trees held second derivatives."""
    lo = np.asarray(lo, dtype=np.float64)
    hi = np.asarray(hi, dtype=np.float64)
    n = ls.dim
    if (not ls.usable or ls.named or n > CONVEX_MAX_DIM or lo.size != n
            or not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)))):
        return False
    specs = list(ls.terms.values())
    if not specs or any(not t.sum or t.second is None for t in specs):
        return False
    if ls._smooth is None:   # (outer kinks, each term's kinks), or False where a tree holds another op
        outer_trees = [ls.expr] + [v for t in specs for v in (t.dexpr, *t.second[2])]
        term_trees = [(t.term, t.dterm, t.second[0], *t.second[1]) for t in specs]
        if all(_smooth(v, SMOOTH | KINKS) for v in outer_trees + [v for ts in term_trees for v in ts]):
            ls._smooth = (_kinks_of(outer_trees), [_kinks_of(ts) for ts in term_trees])
        else:
            ls._smooth = False
    if ls._smooth is False:
        return False
    outer_kinks, term_kinks = ls._smooth
    try:
        ls._forward(lo, hi, refined=False)
        outer = ls._outer
        outer_vals = _seeded(outer_kinks, outer)
        H = (np.zeros((n, n)), np.zeros((n, n)))
        grads = []
        for (agg, t), kinks in zip(ls.terms.items(), term_kinks):
            env, m = ls._term_env(agg, lo, hi)
            full = lambda v: tuple(np.broadcast_to(np.asarray(u, dtype=np.float64), (m,)) for u in v)
            vals = _seeded(kinks, env)
            tx = full(_forward(t.dterm, env, vals))
            txx = full(_forward(t.second[1][0], env, vals))
            g = (np.zeros(n), np.zeros(n))
            g[0][:m], g[1][:m] = tx
            Ha = (np.zeros((n, n)), np.zeros((n, n)))
            d = np.arange(m)
            Ha[0][d, d], Ha[1][d, d] = txx
            if t.window == 2:
                ty = full(_forward(t.second[0], env, vals))
                txy = full(_forward(t.second[1][1], env, vals))
                tyy = full(_forward(t.second[1][2], env, vals))
                g = add(g, (np.r_[0.0, ty[0]], np.r_[0.0, ty[1]]))
                Ha = add(Ha, (_shift_diag(tyy[0], n), _shift_diag(tyy[1], n)))
                Ha[0][d, d + 1], Ha[1][d, d + 1] = txy
                Ha[0][d + 1, d], Ha[1][d + 1, d] = txy
            ea = _forward(t.dexpr, outer, outer_vals)
            H = add(H, mul(tuple(np.asarray(v, dtype=np.float64) for v in ea), Ha))
            grads.append(g)
        for a, ta in enumerate(specs):
            for b in range(len(specs)):
                eab = _forward(ta.second[2][b], outer, outer_vals)
                if np.all(np.asarray(eab[0]) == 0) and np.all(np.asarray(eab[1]) == 0):
                    continue
                ga, gb = grads[a], grads[b]
                outer_ab = mul((ga[0][:, None], ga[1][:, None]), (gb[0][None, :], gb[1][None, :]))
                H = add(H, mul(tuple(np.asarray(v, dtype=np.float64) for v in eab), outer_ab))
    except _Undefined:
        return False
    return _dominant(*H)


def _kinks_of(trees):
    found = []
    for v in trees:
        _kinks(v, found)
    return found


def _dominant(hlo, hhi):
    """Whether every symmetric matrix between hlo and hhi is positive semidefinite, shown by a
    positive u with hlo_ii u_i >= sum_{j != i} |h_ij| u_j in every row (then Gershgorin's discs of
    D^-1 H D, D = diag(u), whose eigenvalues are H's, lie in [0, inf)).  u solves the comparison
    matrix's system M u = 1 (M_ii = hlo_ii, M_ij = -|h_ij|) in floating point, a guess that the
    check then verifies with every product and sum rounded against it.  Plain diagonal dominance
    (u = 1) fails on Trid's Hessian 2 I - (the off-diagonal ones), dominant only with ties in exact
    arithmetic and not at all once its products are rounded outward; its least eigenvalue is 0.08."""
    if not (np.all(np.isfinite(hlo)) and np.all(np.isfinite(hhi))):
        return False
    d = np.diag(hlo).copy()
    if np.any(d <= 0):
        return False
    mag = np.maximum(np.abs(hlo), np.abs(hhi))
    np.fill_diagonal(mag, 0.0)
    try:
        with np.errstate(all="ignore"):
            u = np.linalg.solve(np.diag(d) - mag, np.ones(d.size))
    except np.linalg.LinAlgError:
        return False
    if not (np.all(np.isfinite(u)) and np.all(u > 0)):
        return False
    with np.errstate(over="ignore"):
        lhs = _dn(d * u)
        prods = _up(mag * u[None, :])
    for i in range(d.size):
        if not lhs[i] >= _sum_interval(prods[i], prods[i])[1]:   # the sum rounded up
            return False
    return True


def _shift_diag(v, n):
    """An n x n matrix with v (length n - 1) on the diagonal from (1, 1): a window-2 term's d2/dy2
    lands on its second coordinate."""
    out = np.zeros((n, n))
    k = np.arange(1, n)
    out[k, k] = v
    return out
