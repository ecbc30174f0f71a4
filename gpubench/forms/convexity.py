"""The convexity test of the level set's objective on a box (the strong variant's convexity floor).

Where every symmetric matrix in an enclosure of f's Hessian over a box X is positive semidefinite,
f is convex on X, and the tangent plane at any point x of X is below it there:
f(y) >= f(x) + g(x).(y - x) (:func:`gpubench.methods.solver.contract.convex_floor`).  The Hessian
is enclosed through the definition's aggregates, a = sum_i t(x_i[, x_{i+1}]), by the chain rule
sum_a f_a H_a + sum_ab f_ab grad_a grad_b^T, each term's first and second derivatives (sympy's,
kept in the level set's program: :func:`gpubench.forms.exprtree.program`) enclosed on the box by
the level set's own forward rules, outward rounded.  Semidefiniteness is shown by diagonal
dominance after a positive scaling (:func:`_dominant`).  |u| and sign(u) qualify on a box where u's
enclosure excludes 0 (their second derivatives' DiracDelta(u) is 0 there).  Otherwise only smooth
trees qualify: a kink, step
or an operation without a rule anywhere makes the test answer False, which is always safe.
``tests/test_contract.py`` checks the floor against every sampled value of convex and non-convex
functions, and catches a test that takes every Hessian for semidefinite.
"""
import numpy as np

from ..interval.arrays import Undefined as _Undefined, _dn, _up, add, mul
from .levelset import _forward, _sum_interval

# operations whose first and second derivatives the trees hold as expressions (no kink, step or jump);
# |u| and sign(u) too: their kink shows in the second derivative as DiracDelta(u) ("any" with value
# ["delta"]), whose enclosure is the whole line wherever u's may hold 0 (levelset_tree._delta), so a box
# that may hold the kink has an unbounded Hessian and is never proved convex
SMOOTH = {"sym", "const", "add", "mul", "pow", "exp", "log", "sin", "cos", "tanh", "abs", "sign"}
CONVEX_MAX_DIM = 200   # the convexity test builds the n x n interval Hessian


def _smooth(node):
    return ((node.op in SMOOTH or (node.op == "any" and node.value == ["delta"]))
            and all(_smooth(a) for a in node.args))


def convex(ls, lo, hi):
    """Whether f is proved convex on the box: its interval Hessian (the chain rule through the
    aggregates: sum_a f_a H_a + sum_ab f_ab grad_a grad_b^T, each term's derivatives enclosed
    on the box) is diagonally dominant after a positive scaling (:func:`_dominant`), so every
    symmetric matrix in it is positive semidefinite.  False wherever
    that cannot be shown: a kink, step or rule without a derivative anywhere in the trees, a
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
    if ls._smooth is None:
        trees = [ls.expr] + [v for t in specs for v in (t.term, t.dterm, t.dexpr, t.second[0], *t.second[1],
                                                          *t.second[2])]
        ls._smooth = all(_smooth(v) for v in trees)
    if not ls._smooth:
        return False
    try:
        ls._forward(lo, hi, refined=False)
        outer = ls._outer
        H = (np.zeros((n, n)), np.zeros((n, n)))
        grads = []
        for agg, t in ls.terms.items():
            env, m = ls._term_env(agg, lo, hi)
            full = lambda v: tuple(np.broadcast_to(np.asarray(u, dtype=np.float64), (m,)) for u in v)
            tx = full(_forward(t.dterm, env, {}))
            txx = full(_forward(t.second[1][0], env, {}))
            g = (np.zeros(n), np.zeros(n))
            g[0][:m], g[1][:m] = tx
            Ha = (np.zeros((n, n)), np.zeros((n, n)))
            d = np.arange(m)
            Ha[0][d, d], Ha[1][d, d] = txx
            if t.window == 2:
                ty = full(_forward(t.second[0], env, {}))
                txy = full(_forward(t.second[1][1], env, {}))
                tyy = full(_forward(t.second[1][2], env, {}))
                g = add(g, (np.r_[0.0, ty[0]], np.r_[0.0, ty[1]]))
                Ha = add(Ha, (_shift_diag(tyy[0], n), _shift_diag(tyy[1], n)))
                Ha[0][d, d + 1], Ha[1][d, d + 1] = txy
                Ha[0][d + 1, d], Ha[1][d + 1, d] = txy
            ea = _forward(t.dexpr, outer, {})
            H = add(H, mul(tuple(np.asarray(v, dtype=np.float64) for v in ea), Ha))
            grads.append(g)
        for a, ta in enumerate(specs):
            for b in range(len(specs)):
                eab = _forward(ta.second[2][b], outer, {})
                if np.all(np.asarray(eab[0]) == 0) and np.all(np.asarray(eab[1]) == 0):
                    continue
                ga, gb = grads[a], grads[b]
                outer_ab = mul((ga[0][:, None], ga[1][:, None]), (gb[0][None, :], gb[1][None, :]))
                H = add(H, mul(tuple(np.asarray(v, dtype=np.float64) for v in eab), outer_ab))
    except _Undefined:
        return False
    return _dominant(*H)


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
