"""The device-side control of the batched fused L-BFGS-B driver (:mod:`gpubench.methods.lbfgsb.fused`,
``sync_every`` > 1): the decisions the host takes after each evaluation, taken on the device, so
that the host launches many iterations without reading anything back.

``lf_gate_push`` (one block: its thread 0 gates, all of them push; after the first trial's f and g.d are in ``st[FA]``, ``st[SLOPE]``) takes the
decisions of the per-evaluation driver in its order: the previous step's stopping test, the
iteration and evaluation limits, the descent test, then the strong Wolfe test of the first trial
(c1 = 1e-3, c2 = 0.9: :func:`gpubench.methods.lbfgsb.shared._line_search`'s first evaluation).  A
first trial it accepts completes the iteration on the device (the memory update in the same launch,
then the move); anything else (a stop, a limit, no descent, a trial the search would not keep at once)
sets ``st[RUN] = 0``, so that every later pass is a no-op, and ``st[CODE]`` says why; the host reads
``st`` once per batch and takes over where the device stopped.  Every comparison is the host's,
on the same doubles (the one sum of a product, f0 + c1 a g0, is rounded as the host rounds it:
the GPU would otherwise fuse it into one FMA).
"""
import math

from numba import config, cuda, float64

from gpubench.kernels.lbfgsb_fused_push import _push
from gpubench.kernels.lbfgsb_fused_layout import (
    TPB, GN, D, _into, V3_GD, V3_DD, STP, STPMAX, C_PG, RUN, CODE, F_CUR, F_OLD, PEND, NIT, NFEV, A_ACC, FA, SLOPE,
    GATE_PGTOL, GATE_FDEC, GATE_FACTR, GATE_MAXITER, GATE_MAXFUN, GATE_HOST, _clear_update)

FTOL, GTOL = 1e-3, 0.9          # shared.FTOL, shared.GTOL (strong Wolfe, SciPy's)
_SIM = bool(config.ENABLE_CUDASIM)


@cuda.jit(device=True)
def _add_rn(a, b):
    # a + b rounded once, never contracted with a preceding product into an FMA (as the host computes)
    if _SIM:
        return a + b
    return cuda.libdevice.dadd_rn(a, b)


@cuda.jit(cache=True)
def lf_enter(st, f, fold, pend, nit, nfev):
    """The host's state handed to the device before a batch: f, the pending stopping test, counts."""
    st[F_CUR] = f
    st[F_OLD] = fold
    st[PEND] = pend
    st[NIT] = nit
    st[NFEV] = nfev
    st[CODE] = 0.0
    st[RUN] = 1.0
    # the memory update's sums: the batched driver's lf_pair runs before its gate, so a batch that
    # hands an iteration to the host leaves that trial's sums here; the host's own lf_pair adds to 0
    _clear_update(st)


@cuda.jit(cache=True)
def lf_take(VEC, ga, st):
    """A first trial's gradient ``ga`` into GN and g.d into st[SLOPE] (lf_trial cleared it): one pass where
    a copy, a product and a reduction were three (about 55 us of a 4e6 torsion iteration, c7ece94).  Both
    drivers take the first trial's slope from here, so that they decide on the same doubles.  A no-op once
    the gate stopped the batch (the trial, and so its gradient and slope, are those already in place)."""
    sh = cuda.shared.array(TPB, float64)
    if st[RUN] == 0.0:
        return
    acc = 0.0
    i = cuda.grid(1)
    while i < VEC.shape[1]:
        gi = ga[i]
        VEC[GN, i] = gi
        acc += gi * VEC[D, i]
        i += cuda.gridsize(1)
    _into(st, SLOPE, sh, acc, 0)


@cuda.jit(device=True)
def _stop(st, code):
    st[CODE] = code
    st[RUN] = 0.0


@cuda.jit(cache=True)
def lf_gate_push(st, pgtol, factr_eps, ftol_abs, maxiter, maxfun, m, SMB):
    """The gate, then, where it accepted, the memory update's small part (``lf_push`` with the
    device's curvature threshold) in one launch.  The pass of the update's sums
    (``lf_pair``) runs before it: its sums of a trial the gate does not accept are never used
    (``lf_enter`` clears them before the host's own update).  One block of PUSH_THREADS threads:
    thread 0 gates, all of them push."""
    if cuda.threadIdx.x == 0:
        _gate(st, pgtol, factr_eps, ftol_abs, maxiter, maxfun)
    cuda.syncthreads()
    if st[RUN] == 0.0:
        return
    _push(st, m, -1.0, SMB)


@cuda.jit(device=True)
def _gate(st, pgtol, factr_eps, ftol_abs, maxiter, maxfun):
    """Accept the first trial on the device or hand the iteration to the host (module docstring).
    ``ftol_abs`` = -inf when Fei et al.'s decrease rule is off."""
    if st[RUN] == 0.0:
        return
    f0 = st[F_CUR]
    if st[PEND] != 0.0:                                   # fused.minimize's stop_test
        fold = st[F_OLD]
        fnew = f0
        if st[C_PG] <= pgtol:
            _stop(st, GATE_PGTOL)
            return
        if fold - fnew < ftol_abs:
            _stop(st, GATE_FDEC)
            return
        big = abs(fold)                                   # Python's max(|fold|, |fnew|, 1.0)
        if abs(fnew) > big:
            big = abs(fnew)
        if 1.0 > big:
            big = 1.0
        if (fold - fnew) / big <= factr_eps:
            _stop(st, GATE_FACTR)
            return
        st[PEND] = 0.0
    if st[NIT] >= maxiter:
        _stop(st, GATE_MAXITER)
        return
    if st[NFEV] >= maxfun:
        _stop(st, GATE_MAXFUN)
        return
    gd = st[V3_GD]
    dnorm = math.sqrt(st[V3_DD])
    if not (gd < 0.0) or dnorm == 0.0:                   # the host retries or stops
        _stop(st, GATE_HOST)
        return
    stp = st[STP]
    stpmax = st[STPMAX]
    a = stpmax if stpmax < stp else stp                   # min(stp, stpmax)
    fa = st[FA]
    ga = st[SLOPE]
    ok = False
    if a == stp and not (math.isinf(fa) or math.isnan(fa)) and not (fa > _add_rn(f0, FTOL * a * gd)):
        if abs(ga) <= -GTOL * gd:
            ok = True
        elif not (ga >= 0.0) and a >= stpmax:
            ok = True
    if not ok:                                            # zoom, extrapolation or a new trial: the host
        _stop(st, GATE_HOST)
        return
    st[NFEV] = st[NFEV] + 1.0
    st[NIT] = st[NIT] + 1.0
    st[A_ACC] = a
    st[F_OLD] = f0
    st[F_CUR] = fa
    st[PEND] = 1.0

