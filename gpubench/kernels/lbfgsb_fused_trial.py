"""The direction and the trial point of the fused L-BFGS-B iteration (:mod:`gpubench.kernels.lbfgsb_fused`, whose
layout and conventions these passes share): ``lf_direction`` (the subspace minimiser x_bar and d = x_bar - x with
its products) and ``lf_trial`` (SciPy's descent test and first step, x + a d clipped to the box).
"""
import math

from numba import cuda, float64

from gpubench.kernels.lbfgsb_fused_layout import (
    TPB, X, G, LO, HI, XC, FR, DU, D, K, STPMAX, STP, SUBOK, CHOICE, ALPHA, DESCENT, V2_GD, V2_AMIN, V3_GD, V3_DD, V3_RATIO,
    SLOPE, RUN, NIT, _into, _clear_update, _box_step)


@cuda.jit(cache=True)
def lf_direction(VEC, project, constrained, st):
    """The subspace minimiser x_bar: x_c (no step), the projected step where it descends (SciPy
    3.0), else the truncated step x_c + min(1, alpha_max) du; d = x_bar - x, with g.d, d.d and the
    largest step along d in the box."""
    sh = cuda.shared.array(TPB, float64)
    _direction(VEC, project, constrained, st, sh)


@cuda.jit(device=True)
def _direction(VEC, project, constrained, st, sh):
    if st[RUN] == 0.0:        # the batched driver's gate stopped the iteration
        return
    c = 0
    if st[SUBOK] != 0.0:
        c = 1 if (project != 0 and st[V2_GD] <= 0.0) else 2
    alpha = min(1.0, st[V2_AMIN])
    if cuda.grid(1) == 0:
        st[CHOICE] = c
        st[ALPHA] = alpha
    gd = 0.0
    dd = 0.0
    ratio = math.inf
    i = cuda.grid(1)
    while i < VEC.shape[1]:
        v = VEC[XC, i]
        lo = VEC[LO, i]
        hi = VEC[HI, i]
        x = VEC[X, i]
        if c == 1:
            v = v + VEC[DU, i]
            if v < lo:
                v = lo
            if v > hi:
                v = hi
        elif c == 2 and VEC[FR, i] != 0.0:
            v = v + alpha * VEC[DU, i]
        d = v - x
        VEC[D, i] = d
        gd += VEC[G, i] * d
        dd += d * d
        if constrained != 0:
            a = _box_step(lo, hi, x, d)
            if a < ratio:
                ratio = a
        i += cuda.gridsize(1)
    _into(st, V3_GD, sh, gd, 0)
    _into(st, V3_DD, sh, dd, 0)
    _into(st, V3_RATIO, sh, ratio, 1)


@cuda.jit(device=True)
def _steplength(st, constrained, boxed, nit):
    # (descent?, largest step, first step): SciPy's rules
    gd = st[V3_GD]
    dnorm = math.sqrt(st[V3_DD])
    k = int(st[K])
    descent = gd < 0.0 and dnorm != 0.0
    if constrained != 0 and (nit > 0 or k > 0):
        stpmax = st[V3_RATIO]
        if stpmax < 0.0:
            stpmax = 0.0
    elif constrained != 0:
        stpmax = 1.0
    else:
        stpmax = 1e10
    if k == 0 and nit == 0 and boxed == 0 and dnorm != 0.0:
        stp = min(1.0 / dnorm, stpmax)
    else:
        stp = min(1.0, stpmax)
    if not descent:
        stp = 0.0
    return descent, stpmax, stp


@cuda.jit(cache=True)
def lf_trial(VEC, out, a_host, first, constrained, boxed, nit, st):
    """x_a = x + a d into ``out``, clipped to the box at the largest step (rounding must not leave
    it).  ``first``: the descent test and the first step a are SciPy's rules, computed here from
    the direction's products (block 0 stores them and clears the memory update's accumulators);
    otherwise a = ``a_host``.  ``nit`` < 0: the iteration count is the device's ``st[NIT]``, so that
    the batched driver's launch has the same arguments in every iteration (bound once)."""
    _trial(VEC, out, a_host, first, constrained, boxed, nit, st)


@cuda.jit(device=True)
def _trial(VEC, out, a_host, first, constrained, boxed, nit, st):
    if st[RUN] == 0.0:        # the batched driver's gate stopped the iteration
        return
    if first != 0:
        if nit < 0:           # the batched driver: the count on the device (lf_enter's, advanced by its gate)
            nit = int(st[NIT])
        descent, stpmax, a = _steplength(st, constrained, boxed, nit)
        if cuda.grid(1) == 0:
            st[DESCENT] = 1.0 if descent else 0.0
            st[STPMAX] = stpmax
            st[STP] = a
            st[SLOPE] = 0.0           # lf_take's sum of the trial's g.d
            _clear_update(st)
    else:
        stpmax = st[STPMAX]
        a = a_host
    clip = constrained != 0 and a == stpmax
    i = cuda.grid(1)
    while i < VEC.shape[1]:
        v = VEC[X, i] + a * VEC[D, i]
        if clip:
            if v < VEC[LO, i]:
                v = VEC[LO, i]
            if v > VEC[HI, i]:
                v = VEC[HI, i]
        out[i] = v
        i += cuda.gridsize(1)
