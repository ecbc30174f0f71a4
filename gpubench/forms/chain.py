"""Two-coordinate pieces of a chained sum, combined by a min-plus pass (issue 41: EggHolder, Rana).

A Sum whose term reads x_i and x_{i+1} (window 2), S = sum_{i<m} t_i(x_i, x_{i+1}), is a chain: each
coordinate meets only its two neighbours' terms.  The one-coordinate pieces of the level set do not
apply to it, and bounding each term alone by its own lowest value loses the coupling: on EggHolder
n = 10 the nine terms' separate minima sum to -8,637 while S >= -8,291.

Here each coordinate's interval [lo_k, hi_k] is cut into CELLS equal cells (neighbours share their
ends exactly, the end cells end on the box's ends, so they cover it) and each term is enclosed on
every pair of cells (a, b) of (x_i, x_{i+1}): its natural form intersected with the mean value form
t(c) + t_x(A, B) (A - c_x) + t_y(A, B) (B - c_y), whose slack shrinks with the square of the cell's
width.  Their lower ends L_i[a, b] bound S from below along every path of cells: every point x of the
box lies in one cell a_k per coordinate, so S(x) >= sum_i L_i[a_i, a_{i+1}] >= the least such sum over
all paths, which a forward min-plus pass F_{i+1}[b] = min_a F_i[a] + L_i[a, b] finds in m CELLS^2
steps (dynamic programming over the chain).  With the backward pass B_i, F_k[a] + B_k[a] bounds S
from below over the points whose x_k lies in cell a: a cell where that exceeds S's target (from f <=
GUB) holds no point of the level set, and x_k narrows to the hull of the other cells.

Rigor: the enclosures are the level set's (every operation rounded outward), each sum of the passes
is rounded down one ulp (``_dn``), a NaN lower end counts as -inf.  ``tests/test_chain.py`` checks
the bound and the cells kept against exact rational values of the sum on random and adversarial
boxes, and catches a broken variant.  The level set's guess (a multistart's first start) follows a
path of least sum of the terms' values at the cells' centres where the chain is on.
"""
import os

import numpy as np

from ..interval.arrays import INF, Undefined, _dn, add, mul, sub

# cells per coordinate (m CELLS^2 enclosures of the term a pass); 0: off; None (the default): AUTO cells
# where the term is gated (:func:`gated`), else off.  With the cells compiled (chain_cells.py) on the CPU
# twin (scipy_go_certify_n10's settings at split_dims 6, 30 s, a loaded 2-core machine) 64 cells take
# EggHolder n = 10's gap from 2,057 to 0.33 (GLB -8291.57, GUB -8291.24) and Rana's from 4,556 to 2,838,
# neither certified (1e-6); typed-in Levy / Rosenbrock n = 10 0.03 -> 0.04 s (docs/strong-search.md).  With
# Rana rewritten (docs/scipy_go.md, hard41) 64 cells certify Rana n = 3 (0.8 s; off: gap 61 at 10 s) and
# n = 5 (14 s; off: gap 137 at 60 s, its descents never reaching the minimum the chain's guess finds), so
# the gate turns them on where the level set's one-coordinate pieces can't apply.  GPUBENCH_CHAIN_CELLS
# (digits) sets CELLS for every chain, e.g. 0 or 64 for a measurement of the H200's device loop, where
# the chain is root work only.
CELLS = None
AUTO = 64
_RAW = os.environ.get("GPUBENCH_CHAIN_CELLS", "").strip()
if _RAW:
    if not _RAW.isdigit():
        from ..errors import InputError
        raise InputError(f"GPUBENCH_CHAIN_CELLS={_RAW!r} is not a number of cells (digits, e.g. 64; 0: off)")
    CELLS = int(_RAW)
COMPILED = True        # the cells enclosed by chain_cells' compiled kernel (False: the numpy walk below)
MAX_CELLS = 1 << 17   # no chain where m CELLS^2 exceeds this (n > 33 at 64 cells: its cost and memory grow with n)


# operations whose argument, reading both coordinates, makes a term gated (:func:`gated`)
OSCILLATING = {"sin", "cos", "exp", "log", "tanh", "abs"}
_GATED = {}   # id(term tree) -> (tree, gated): the answer for each term, found once


def gated(spec):
    """Whether the chained term of ``spec`` (the level set's plain tree) has an oscillating or kinked
    operation (OSCILLATING) whose argument reads both x and y: EggHolder's sin(sqrt|y + x/2 + 47|),
    Rana's, SineEnvelope's, StretchedV's.  There the level set's one-coordinate pieces can't apply and
    the natural form of a pair loses the coupling; on a polynomial (Rosenbrock, Trid, DixonPrice) or a
    product of one-coordinate factors (Penalty01/02) the cheaper passes already decide."""
    tree = spec.term
    hit = _GATED.get(id(tree))
    if hit is None or hit[0] is not tree:
        def names(node, acc):
            if node.op == "sym":
                acc.add(node.name)
            for a in node.args:
                names(a, acc)
            return acc

        def walk(node):
            if node.op in OSCILLATING and {"x", "y"} <= names(node, set()):
                return True
            return any(walk(a) for a in node.args)
        hit = _GATED[id(tree)] = (tree, walk(tree))
    return hit[1]


def cells(spec):
    """The cells per coordinate for the chained term of ``spec``: CELLS where set, else AUTO where
    :func:`gated`, else 0 (off)."""
    if CELLS is not None:
        return CELLS
    return AUTO if gated(spec) else 0


def edges(lo, hi, k=None):
    """(a, b): the k (CELLS where not given) cells' ends of each coordinate's interval, arrays (n, k);
    they cover [lo, hi]."""
    k = CELLS if k is None else k
    t = np.arange(k + 1) / k
    e = np.minimum(lo[:, None] + (hi - lo)[:, None] * t[None, :], hi[:, None])
    e[:, 0], e[:, -1] = lo, hi
    return e[:, :-1], e[:, 1:]


def lower_ends(forward, spec, env, lo, hi, m, x_sym, y_sym, compiled=None, mean_value=True, centres=True):
    """(L, C), each (m, k, k) with k = :func:`cells`: L the lower end of term i on cell a of x_i times cell b of
    x_{i+1}, C the midpoint of its enclosure at the cells' centres (NaN where not found: a guess's,
    no bound rests on it); or None where the chain does not apply (an unbounded box, too many cells).  ``forward(tree, env)`` is the
    level set's forward enclosure; ``env`` the term's environment on the box (arrays of length m).
    ``compiled``: (kernel, params, dim) of :mod:`.chain_cells`, which encloses the same forms in
    compiled code (used where given and COMPILED; the kernel None: the numpy walk); there, without
    ``mean_value``, L is the natural form's alone (what the children's pass reads), and without
    ``centres`` C is NaN (only the guess reads it)."""
    k = cells(spec)
    if k < 2 or m < 1 or m * k * k > MAX_CELLS or not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        return None
    if COMPILED and compiled is not None and compiled[0] is not None:
        from .chain_cells import enclose
        nat, centre, mvl = enclose(compiled[0], *edges(lo[:m + 1], hi[:m + 1], k), compiled[1], m, compiled[2],
                                   mean_value, centres)
        if np.isnan(nat).any():   # f undefined on some cell: nothing concluded (the walk's Undefined)
            return None
        if spec.second is None:
            return nat, centre
        return np.where(np.isnan(mvl), nat, np.maximum(nat, mvl)), centre
    a, b = edges(lo[:m + 1], hi[:m + 1], k)
    A = (a[:m, :, None], b[:m, :, None])             # x_i's cells along axis 1
    B = (a[1:m + 1, None, :], b[1:m + 1, None, :])   # x_{i+1}'s along axis 2
    base = {k: tuple(np.asarray(v).reshape(-1, 1, 1) if np.ndim(v) == 1 else v for v in pair)
            for k, pair in env.items() if k not in (x_sym, y_sym)}
    shape = (m, k, k)
    at = dict(base, **{x_sym: A, y_sym: B})
    try:
        nlo = np.broadcast_to(forward(spec.term, at)[0], shape)
    except Undefined:
        return None
    low = np.where(np.isnan(nlo), -INF, nlo)
    cx = np.minimum(np.maximum(0.5 * A[0] + 0.5 * A[1], A[0]), A[1])
    cy = np.minimum(np.maximum(0.5 * B[0] + 0.5 * B[1], B[0]), B[1])
    try:
        fc = forward(spec.term, dict(base, **{x_sym: (cx, cx), y_sym: (cy, cy)}))
    except Undefined:
        return low, np.full(shape, np.nan)
    with np.errstate(invalid="ignore", over="ignore"):
        centre = np.broadcast_to(0.5 * fc[0] + 0.5 * fc[1], shape)
    if spec.second is None:
        return low, centre
    try:
        gx = forward(spec.dterm, at)
        gy = forward(spec.second[0], at)
        mv = add(add(fc, mul(gx, sub(A, (cx, cx)))), mul(gy, sub(B, (cy, cy))))
    except Undefined:
        return low, centre
    mlo = np.broadcast_to(mv[0], shape)
    return np.where(np.isnan(mlo), low, np.maximum(low, mlo)), centre


def passes(L):
    """(the least sum over all paths, per coordinate k = 0..m the lower bounds F_k + B_k of the sum
    over the points whose x_k lies in each cell), every sum rounded down."""
    m, k = L.shape[0], L.shape[1]
    F = [np.zeros(k)]
    for i in range(m):
        F.append(_dn(F[-1][:, None] + L[i]).min(axis=0))
    Bk = [np.zeros(k)]
    for i in range(m - 1, -1, -1):
        Bk.append(_dn(L[i] + Bk[-1][None, :]).min(axis=1))
    Bk.reverse()
    each = [_dn(F[j] + Bk[j]) for j in range(m + 1)]
    each = [np.where(np.isnan(v), -INF, v) for v in each]
    total = float(np.nanmin(F[-1])) if np.any(~np.isnan(F[-1])) else -INF
    return total, each


MERGE = 4   # at most this many cells merged (a block of pairs, its least lower end) for the children's passes
CHILD_STEPS = 1 << 26   # children x m x (merged cells)^2 of the children's pass at most: merge less below it


def children(L, ca, cb, clo, chi):
    """Lower bounds of the chained sum over each child box [clo[k], chi[k]] (arrays (k, m + 1) of the
    chain's coordinates) of the box whose cells are ``ca``, ``cb`` and whose terms' lower ends are
    ``L``: the cells merged by 1, 2, ... MERGE (the least merge whose pass fits CHILD_STEPS), then a
    forward pass restricted, per child, to the merged cells that meet its interval (a point of the
    child lies in one of them in every coordinate)."""
    m, k = L.shape[0], L.shape[1]
    merge = 1
    while merge < MERGE and clo.shape[0] * m * (k // merge) ** 2 > CHILD_STEPS:
        merge *= 2
    g = k // merge
    if g < 1 or g * merge != k:
        return np.full(clo.shape[0], -INF)
    Lm = L.reshape(m, g, merge, g, merge).min(axis=(2, 4))
    ma, mb = ca[:, ::merge], cb[:, merge - 1::merge]
    if COMPILED:
        from .chain_cells import children_pass
        return children_pass(Lm, ma, mb, clo, chi)
    meets = (mb[None] >= clo[:, :, None]) & (ma[None] <= chi[:, :, None])     # (children, m + 1, g)
    F = np.where(meets[:, 0], 0.0, INF)
    with np.errstate(invalid="ignore"):
        for i in range(m):
            step = _dn(F[:, :, None] + Lm[i][None])
            step = np.where(np.isnan(step), INF, step)   # inf + -inf: a path the child does not allow
            F = np.where(meets[:, i + 1], step.min(axis=1), INF)
    return F.min(axis=1)
