"""A lower bound of f = sum_i w_i r_i(x)^2 + rest(x) over a box that couples the residuals (issue 41,
docs/scipy_go.md "lsq41").

Why: on the least-squares cases (Kowalik, Watson, Thurber, Ratkowsky01/02) every residual alone reaches
0 somewhere in a coarse box, so the natural form's bound, a sum of per-term minima dist(0, r_i(X))^2,
is 0, while the residuals cannot vanish at one point (sos41).  A bound that sees the residuals move
together is needed.

The bound, on a box X with float centre c (in X) and D = X - c (enclosed outward):

1. Taylor with an interval Hessian: for every x = c + d in X and each residual (C^2 on X; the trees'
   derivatives are sympy's, :mod:`gpubench.forms.lsq`),
       r_i(c + d) = r_i(c) + grad r_i(c).d + 1/2 d^T H_i(xi) d,  xi in X,
   so r_i(c + d) in gm_i.d + [A_i, B_i], gm_i a float vector (the midpoint of grad r_i(c)'s enclosure) and
   [A_i, B_i] = r_i(c) + (grad r_i(c) - gm_i).D + sum_{j<=k} h_jk H_i,jk(X) D_j D_k (h = 1/2 on the
   diagonal, with D_j^2 >= 0; 1 off it), every step outward.  Where that is wider than the natural
   enclosure [L_i, H_i] of r_i over X, the natural one is used for that residual (both are valid).
2. Weak duality, one multiplier a_i (any real) per residual: (r - a)^2 >= 0 gives r^2 >= 2 a r - a^2, so
       f(x) >= sum_i w_i (2 a_i r_i(x) - a_i^2) + rest(x)
   which is affine in the residuals, hence, through step 1, affine in d plus interval constants: its
   minimum over the box D is bounded below by interval arithmetic, term by term (the lower end of each
   constant, the least s_j D_j of the slope's enclosure s = sum_i 2 w_i a_i gm_i).  Any a gives a valid
   bound; the best is the residuals' values at the minimiser of the convex relaxation
   min_D sum_i w_i dist(gm_i.d + [A_i, B_i], 0)^2, found approximately in floats (projected Newton,
   :func:`_multipliers`): inexactness loosens the bound, never its validity.
   At the relaxation's exact minimiser the bound equals the relaxation's minimum (KKT), which is the
   "Gauss-Newton over the box" bound, f's minimum over X to second order.

3. Rational fits (Kowalik, Thurber) are bounded a second time with their denominators cleared
   (:func:`gpubench.forms.lsq.cleared_program`: w_i r_i^2 = (w_i / D_i^2) N_i^2 >= (w_i / max_X D_i^2) N_i^2,
   :func:`_weights`), the better of the two kept: across a pole of the model r_i's enclosure is the whole
   line and the first bound gets nothing, while N_i stays a low-degree polynomial (Thurber's is linear,
   Kowalik's bilinear: Taylor is exact) and max D_i^2 is finite.

A box where a residual or a derivative is undefined (NaN) or unbounded (a pole of Kowalik's or Thurber's
rational models) gets that residual's natural enclosure, or no bound (-inf) where that fails too.
``tests/test_lsq_floor.py`` checks the bound against exact minima (Fraction, mpmath) and catches a variant
that drops the Taylor remainder.
"""
import math

import numpy as np

from ...forms.lsq import cleared_least_squares, least_squares
from ...interval.arrays import INF, Undefined, _dn, _up, add, ipow, mul, sub
from . import gate

NEWTON = 8           # projected Newton steps for the multipliers (the bound is valid after any number)
ENABLED = True       # off: the search runs as before this bound (measurements, tests)
CLEARED = True       # off: no bound of the fit with its denominators cleared (forms.lsq.cleared_program)
ACTIVE_SET = True    # off: the multipliers from the projected Newton steps alone (_multipliers)
MAX_BOXES = 1024     # subregions bounded a chunk (raise_children; more chunks while each pays): ~85 ms for 2,048 of Ratkowsky02, 944 ms of Thurber (CPU);
                     # Kowalik (twin, cert41c): certified in 37 s (498 it.) against 57 s (870) at 512 and 64 s (481) at 2,048
SPLIT_MIN = 8        # a batch where f is undefined on some box is halved down to this many boxes
PROBE, BUDGET = 8, 1.0   # the cost gate (_pays): first iterations always, then seconds <= BUDGET x the sweeps' or x a sweep a drop


def _isum(lo, hi, axis):
    """Outward-rounded sum of intervals (lo, hi) along ``axis``."""
    lo = np.moveaxis(np.asarray(lo, dtype=np.float64), axis, 0)
    hi = np.moveaxis(np.asarray(hi, dtype=np.float64), axis, 0)
    s = (np.zeros(lo.shape[1:]), np.zeros(hi.shape[1:]))
    for k in range(lo.shape[0]):
        s = add(s, (lo[k], hi[k]))
    return s


def _stack(pairs):
    """A list of (lo, hi) arrays -> (lo, hi) stacked on a last axis."""
    return np.stack([p[0] for p in pairs], -1), np.stack([p[1] for p in pairs], -1)


def _weights(lsq, enclosed):
    """The weights' enclosure (B, m), from ``enclosed``: the enclosures of ``lsq.weights`` and ``lsq.den``
    over the boxes (made by the caller's one walk).  For the cleared program
    (:func:`gpubench.forms.lsq.cleared_program`, weights w_i / D_i^2) the point interval of its lower end
    w_i / max_X D_i^2, rounded down (0 where D_i is unbounded): f >= sum_i (w_i / max D_i^2) N_i^2 + rest
    holds at every point of the box where f is defined, as N_i^2 >= 0; the weight's upper end (infinite
    across a pole) is never used."""
    wts = _stack(enclosed[0])
    if not lsq.den:
        return wts
    dl, dh = _stack(enclosed[1])
    with np.errstate(all="ignore"):
        m2 = _up(np.maximum(_up(dl * dl), _up(dh * dh)))
        w = _dn(wts[0] / m2)
    w = np.where(np.isfinite(w) & (w > 0), w, 0.0)
    return w, w


def _pieces(lsq, lo, hi, c, remainder=True):
    """Per box and residual: (A, B) of step 1, the natural (L, H), the gradient midpoints gm (B, m, n),
    the weights' enclosure and rest's; raises Undefined where a tree is NaN on some box."""
    dlo, dhi = _dn(lo - c), _up(hi - c)                              # D = X - c
    # one walk over the boxes and one at the centres, each with one memo: a node that several trees share
    # (a residual's denominator in its value, gradient and Hessian) is enclosed once, not once a tree (the
    # same values: an enclosure depends on its node and the boxes alone)
    box = lsq.enclose(lo, hi, [lsq.value, lsq.rest, lsq.weights, lsq.den] + ([lsq.hess] if remainder else []))
    nat = _stack(box[0])                                             # (B, m)
    rest = box[1]
    wts = _weights(lsq, (box[2], box[3]))
    rc, g = lsq.enclose(c, c, [lsq.value, lsq.grad])
    rc = _stack(rc)
    glo = np.stack([np.stack([p[0] for p in row], -1) for row in g], -2)   # (B, m, n)
    ghi = np.stack([np.stack([p[1] for p in row], -1) for row in g], -2)
    with np.errstate(invalid="ignore", over="ignore"):
        gm = 0.5 * glo + 0.5 * ghi
    gm = np.where(np.isfinite(gm), gm, 0.0)
    D = (dlo[:, None, :], dhi[:, None, :])
    mis = _isum(*mul(sub((glo, ghi), (gm, gm)), D), -1)              # (grad r(c) - gm).D
    K = add(rc, mis)
    if remainder:
        hs = box[4]
        hlo = np.stack([np.stack([p[0] for p in row], -1) for row in hs], -2)   # (B, m, P)
        hhi = np.stack([np.stack([p[1] for p in row], -1) for row in hs], -2)
        plo, phi = [], []
        for j, k in lsq.pairs:
            if j == k:   # 1/2 D_j^2: the square is >= 0, the halving exact
                q = ipow((dlo[:, j], dhi[:, j]), 2)
                q = (0.5 * q[0], 0.5 * q[1])
            else:        # H_jk = H_kj: both off-diagonal entries at once
                q = mul((dlo[:, j], dhi[:, j]), (dlo[:, k], dhi[:, k]))
            plo.append(q[0])
            phi.append(q[1])
        P = (np.stack(plo, -1)[:, None, :], np.stack(phi, -1)[:, None, :])
        K = add(K, _isum(*mul((hlo, hhi), P), -1))
    return K, nat, gm, wts, rest, (dlo, dhi)


def _objective(G, A0, B0, L, H, w, u):
    """sum_i w_i e_i^2 with e_i the point of [max(z_i + A_i, L_i), min(z_i + B_i, H_i)] nearest 0, z = G u."""
    z = np.einsum("bmn,bn->bm", G, u)
    e = np.maximum(np.maximum(z + A0, L), 0.0) + np.minimum(np.minimum(z + B0, H), 0.0)
    return np.sum(w * e * e, axis=1), e, z


def _multipliers(A, B, L, H, gm, rad, w, linear):
    """``(a, z)``: the residuals a (B, m) at an approximate minimiser d of the convex relaxation
    sum_i w_i dist([max(gm_i.d + A_i, L_i), min(gm_i.d + B_i, H_i)], 0)^2 over the box |d_j| <= rad_j (a
    residual not ``linear``: its natural enclosure alone), and z = gm.d there.  All boxes at once, in
    u = d / rad: a Gauss-Newton start to the intervals' midpoints clipped to the box, then projected
    Newton steps (the variables at a bound that the gradient pushes out held; the Gauss-Newton matrix of
    the residuals whose linear side is active) with the best of a few step lengths.  (Accelerated projected
    gradient stalled on Watson's and Ratkowsky02's ill-conditioned Jacobians: 0.2 where the relaxation's
    minimum is 8; scipy's BVLS box by box cost ~1 ms a box, and a sweep keeps thousands.)"""
    G = np.where(linear[..., None], gm * rad[:, None, :], 0.0)            # (B, m, n)
    A0 = np.where(linear, A, -INF)
    B0 = np.where(linear, B, INF)
    nb, _, n = G.shape
    eye = np.eye(n)
    wl = np.where(linear, w, 0.0)
    Q = np.einsum("bmn,bm,bmk->bnk", G, wl, G)
    reg = 1e-12 * np.trace(Q, axis1=1, axis2=2)[:, None, None] * eye + 1e-300 * eye
    rhs = -np.einsum("bmn,bm->bn", G, wl * np.where(linear, 0.5 * A + 0.5 * B, 0.0))
    u = np.clip(np.linalg.solve(Q + reg, rhs[..., None])[..., 0], -1.0, 1.0)
    u = np.where(np.isfinite(u), u, 0.0)
    best, e, z = _objective(G, A0, B0, L, H, w, u)
    for _ in range(NEWTON):
        act = wl * (((z + A0 > 0) & (z + A0 > L)) | ((z + B0 < 0) & (z + B0 < H)))
        grad = np.einsum("bmn,bm->bn", G, act * e)
        held = ((u <= -1.0) & (grad > 0)) | ((u >= 1.0) & (grad < 0))
        Qa = np.einsum("bmn,bm,bmk->bnk", G, act, G)
        Qa = np.where(held[:, :, None] | held[:, None, :], 0.0, Qa) + np.where(held[:, :, None], eye, 0.0)
        Qa = Qa + 1e-12 * np.trace(Qa, axis1=1, axis2=2)[:, None, None] * eye + 1e-300 * eye
        step = -np.linalg.solve(Qa, np.where(held, 0.0, grad)[..., None])[..., 0]
        step = np.where(np.isfinite(step), step, 0.0)
        moved = False
        for t in (1.0, 0.5, 0.25, 0.1):
            cand = np.clip(u + t * step, -1.0, 1.0)
            val, ce, cz = _objective(G, A0, B0, L, H, w, cand)
            better = val < best
            if better.any():
                moved = True
                u = np.where(better[:, None], cand, u)
                best = np.where(better, val, best)
                e = np.where(better[:, None], ce, e)
                z = np.where(better[:, None], cz, z)
        if not moved:
            break
    plain = None
    if ACTIVE_SET:   # the bounded least squares of the midpoints (_active_set's why)
        cand = _active_set(Q, -rhs, eye)
        val, ce, cz = _objective(G, A0, B0, L, H, w, cand)
        better = val < best
        e = np.where(better[:, None], ce, e)
        z = np.where(better[:, None], cz, z)
        # and its residuals themselves, the linear form's midpoints at its minimiser: on Kowalik's cleared
        # boxes (cert41c) these keep 238 of 420, the relaxation's residuals there 282
        plain = np.where(linear, cz + 0.5 * A + 0.5 * B, 0.0)
        plain = np.where(np.isfinite(plain), plain, 0.0)
    return np.where(np.isfinite(e), e, 0.0), z, plain


def _active_set(Q, c, eye, steps=24):
    """An approximate minimiser u in [-1, 1]^n of u^T Q u / 2 + c.u for every box at once (Q (B, n, n)
    positive semidefinite, c (B, n)): a primal active-set iteration that never raises the objective (the
    coordinates at a bound that the gradient or the subspace's minimiser pushes out held there, the others
    moved toward the minimiser over them as far as the box allows), a few steps.  Why: the projected
    Newton steps of :func:`_multipliers` stall far from the minimiser on the cleared rational fits
    (Thurber: a box's bound -1.1e5 against the relaxation's minimum 1.9e4, above GUB); the multipliers only
    need to be good, never exact (any give a valid bound)."""
    reg = 1e-12 * np.trace(Q, axis1=1, axis2=2)[:, None, None] * eye + 1e-300 * eye
    with np.errstate(all="ignore"):
        u = np.clip(np.linalg.solve(Q + reg, -c[..., None])[..., 0], -1.0, 1.0)
    u = np.where(np.isfinite(u), u, 0.0)
    for _ in range(steps):
        g = np.einsum("bij,bj->bi", Q, u) + c
        held = ((u >= 1.0) & (g <= 0)) | ((u <= -1.0) & (g >= 0))
        for _ in range(u.shape[1]):   # hold, too, each coordinate at a bound the subspace's minimiser leaves
            free = ~held
            Qm = np.where(free[:, :, None] & free[:, None, :], Q + reg, 0.0) + np.where(held[:, :, None], eye, 0.0)
            rhs = np.where(free, -c - np.einsum("bij,bj->bi", Q, np.where(held, u, 0.0)), u)
            with np.errstate(all="ignore"):
                v = np.linalg.solve(Qm, rhs[..., None])[..., 0]
            v = np.where(np.isfinite(v), v, u)
            out = free & (((u >= 1.0) & (v > u)) | ((u <= -1.0) & (v < u)))
            if not out.any():
                break
            held = held | out
        step = v - u
        with np.errstate(all="ignore"):
            room = np.where(step > 0, (1.0 - u) / step, np.where(step < 0, (-1.0 - u) / step, np.inf))
        alpha = np.clip(np.min(np.where(np.isfinite(room), room, np.inf), axis=1), 0.0, 1.0)
        u = np.clip(u + alpha[:, None] * step, -1.0, 1.0)
    return u


def _bound(K, nat, gm, wts, rest, D):
    """Step 2 of the module's docstring for every box: lower bounds (B,), the better of two choices of each
    residual's enclosure in the bound: the linear form wherever it is finite, even where its range over the
    box is wider than the natural enclosure, since it is what couples the residuals (Ratkowsky02 on a box
    1 % of the domain holding the minimiser: 8.0, against 0.47 with the narrower of the two per residual);
    and the side that bounds the residual at the relaxation's minimiser (linear where its side is above
    the natural end, else the natural end).  Every choice is a valid bound.  (Also tried, no box more
    dropped in censuses of Watson at width 2.5 and Kowalik at 1.25 and 0.625, so left out for their cost:
    the mean value form intersected with the Hessian's remainder, and a second relaxation with each
    residual's narrower enclosure.)"""
    A, B = K
    L, H = nat
    rad = np.maximum(-D[0], D[1])
    w = np.where(np.isfinite(wts[0]), wts[0], 0.0)
    with np.errstate(invalid="ignore", over="ignore"):
        linear = np.isfinite(A) & np.isfinite(B)
    a, z, plain = _multipliers(A, B, L, H, gm, rad, w, linear)
    active = linear & np.where(a > 0, z + A >= L, np.where(a < 0, z + B <= H, True))
    best = np.maximum(_bound_with(K, nat, gm, wts, rest, D, a, linear),
                      _bound_with(K, nat, gm, wts, rest, D, a, active))
    if plain is not None:
        best = np.maximum(best, _bound_with(K, nat, gm, wts, rest, D, plain, linear))
    return best


def _bound_with(K, nat, gm, wts, rest, D, a, linear):
    """f >= sum_i w_i (2 a_i r_i - a_i^2) + rest over the box, each r_i ``linear`` (B, m) enclosed by the
    linear form gm_i.d + [A_i, B_i], the others by their natural enclosure [L_i, H_i]."""
    A, B = K
    L, H = nat
    dlo, dhi = D
    # sum_i w_i (2 a_i k_i - a_i^2), k_i in [A_i, B_i] (linear) or [L_i, H_i], and the slope sum_i 2 w_i a_i gm_i
    klo = np.where(linear, A, L)
    khi = np.where(linear, B, H)
    two_a = (2.0 * a, 2.0 * a)
    const = mul(wts, sub(mul(two_a, (klo, khi)), mul((a, a), (a, a))))
    coef = mul(wts, two_a)                                                 # (B, m)
    coef = (np.where(linear, coef[0], 0.0), np.where(linear, coef[1], 0.0))
    s = _isum(*mul((coef[0][..., None], coef[1][..., None]), (gm, gm)), 1)   # (B, n)
    slope = _isum(*mul(s, (dlo, dhi)), -1)
    total = add(add(_isum(*const, -1), slope), rest)
    lb = total[0]
    return np.where(np.isfinite(lb), lb, -INF)


def coupled_floor(lsq, lo, hi, remainder=True):
    """Lower bounds of f over the boxes [lo, hi] (arrays (B, n)), -inf where none is proved.
    ``remainder = False`` drops Taylor's second-order term: NOT a bound (the tests' broken variant)."""
    lo = np.atleast_2d(np.asarray(lo, dtype=np.float64))
    hi = np.atleast_2d(np.asarray(hi, dtype=np.float64))
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        return np.full(lo.shape[0], -INF)
    c = np.minimum(np.maximum(0.5 * lo + 0.5 * hi, lo), hi)
    try:
        with np.errstate(all="ignore"):
            return _bound(*_pieces(lsq, lo, hi, c, remainder))
    except Undefined:
        if lo.shape[0] <= SPLIT_MIN:
            return np.full(lo.shape[0], -INF)
    # f undefined somewhere on some box: each half on its own (down to SPLIT_MIN boxes, then no bound)
    h = lo.shape[0] // 2
    return np.concatenate([coupled_floor(lsq, lo[:h], hi[:h], remainder), coupled_floor(lsq, lo[h:], hi[h:], remainder)])


def _chunk_bound(lsq, cleared, lo, hi, gub):
    """Lower bounds (B,) of f over the boxes: the better of the coupled bound of the fit and of the fit with
    its denominators cleared (``cleared``; None: the first alone), the cleared one first and the first only
    on the boxes it left at or under ``gub``.  A box the cleared bound puts above GUB is dropped whatever
    the other gives, so its bound there is not needed (the value kept is a lower bound of f all the same);
    every box left gets the max of both, as before.  Why: on Kowalik at split 10 (cert41f) the cleared
    bound is the cheaper (~0.7x) and drops nearly every box the first does (all of them in 6 of 7 calls), so
    the first bound's walk of those boxes was most of the host's time an iteration on the H200."""
    if cleared is None:
        return coupled_floor(lsq, lo, hi)
    bound = coupled_floor(cleared, lo, hi)
    left = np.flatnonzero(~(bound > gub))
    if left.size:
        bound[left] = np.maximum(bound[left], coupled_floor(lsq, lo[left], hi[left]))
    return bound


def _pays(search):
    """Whether to bound this iteration's subregions: always for the first PROBE iterations, then while the
    bound's seconds so far stay within BUDGET times the larger of two: the sweeps' seconds, or a mean
    sweep for each subregion it dropped (PROBE besides), the batched contraction's rule
    (:func:`.child_contract._pays`: a dropped subregion would have been selected, at a sweep's cost).
    On Ratkowsky01 (n = 4, split 3, CPU twin, 30 s) the bound on every iteration, ~4x a sweep's seconds,
    left 1,010 iterations and GLB 3,643 against 9,862 and 6,791 without it: the sweeps' seconds alone
    closed the gate there.  On Kowalik they closed it too once the selected box's contraction got
    cheaper (cert41d: 13-21 closings, the list grown to 4,000-7,000 regions, 1 certificate in 4 runs of
    the twin against 27-28 s with the bound on every iteration): there it drops dozens a call."""
    cost = gate.spent(search, "_lsq_cost")
    if cost[1] < PROBE:
        return True
    swept, sweeps = getattr(search, "sweep_cost", (0.0, 0))
    dropped = search.contract_stats.get("lsq_dropped", 0)
    if cost[0] <= BUDGET * max(swept, swept / max(sweeps, 1) * (dropped + PROBE)):
        return True
    gate.skipped(search, "lsq_skipped")
    return False


def raise_children(search, sel_lo, sel_hi, plan, sidx, lb):
    """The surviving subregions' lower bounds raised to the coupled bound where f is a sum of squares
    (variant strong's host loop, after :meth:`.strong.StrongSteps._chained`), those then above GUB left
    out.  Every subregion keeps a bound no higher than f's minimum over it, so no minimiser is lost."""
    import time
    from .partition import child_boxes
    st = search.state
    # the objective of a maximiser is -f, which a lower bound of f says nothing of
    if not ENABLED or search.maximise or sidx.size == 0 or not math.isfinite(st.gub) or not _pays(search):
        return sidx, lb
    t0 = time.perf_counter()
    lsq = least_squares(search.fn)
    if lsq is None or lsq.n != search.dim:
        search.host_seconds += time.perf_counter() - t0
        return sidx, lb
    # MAX_BOXES at a time, the lowest bounds first (those that hold GLB): a sweep of 4^10 subregions
    # (split_dims 10 at n = 3) can keep more than the host bounds in an iteration's time; the next chunk
    # while the last paid for itself (gate.chunk_paid), the others keep their bounds
    bound = np.full(sidx.size, -INF)
    cleared = cleared_least_squares(search.fn) if CLEARED else None
    for pick in gate.lowest_first(lb, MAX_BOXES):
        t1 = time.perf_counter()
        clo, chi = child_boxes(sel_lo, sel_hi, plan, sidx[pick])
        bound[pick] = _chunk_bound(lsq, cleared, clo, chi, st.gub)
        if not gate.chunk_paid(search, time.perf_counter() - t1, int(np.count_nonzero(bound[pick] > st.gub))):
            break
    raised = np.maximum(lb, bound)
    keep = raised <= st.gub
    stats = search.contract_stats
    dropped = int(np.count_nonzero(~keep))
    stats["lsq_dropped"] = stats.get("lsq_dropped", 0) + dropped
    gate.account(search, "_lsq_cost", time.perf_counter() - t0)
    return sidx[keep], raised[keep]
