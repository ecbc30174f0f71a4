"""Source templates appended to every generated module of forms (:mod:`.box_forms`): the
spike's guards, the mean value forms (``WRAPPERS``, formatted with the spike's constants) and the
batched drivers of each backend (``DRIVERS``)."""

WRAPPERS = '''
HAS_SPIKE = {has_spike}
SPIKE_LO = {s_lo!r}
SPIKE_HI = {s_hi!r}
SPIKE_VALUE = {s_val!r}


@device
def _in_spike(x):
    for k in range(x.shape[0]):
        if not (x[k] >= SPIKE_LO and x[k] <= SPIKE_HI):
            return False
    return True


@device
def _box_meets_spike(lo, hi):
    for k in range(lo.shape[0]):
        if hi[k] < SPIKE_LO or lo[k] > SPIKE_HI:
            return False
    return True


@device
def _box_in_spike(lo, hi):
    for k in range(lo.shape[0]):
        if lo[k] < SPIKE_LO or hi[k] > SPIKE_HI:
            return False
    return True


@device
def point(x, p):
    if HAS_SPIKE and _in_spike(x):
        return SPIKE_VALUE
    return point_raw(x, p)


@device
def interval(lo, hi, p):
    if HAS_SPIKE and _box_meets_spike(lo, hi):
        if _box_in_spike(lo, hi):
            return SPIKE_VALUE, SPIKE_VALUE
        flo, fhi = interval_raw(lo, hi, p)
        return ihull(flo, fhi, SPIKE_VALUE, SPIKE_VALUE)
    return interval_raw(lo, hi, p)


@device
def interval_partial(lo, hi, p, win1, win2, base_lo, base_hi):
    if HAS_SPIKE and _box_meets_spike(lo, hi):
        if _box_in_spike(lo, hi):
            return SPIKE_VALUE, SPIKE_VALUE
        flo, fhi = interval_partial_raw(lo, hi, p, win1, win2, base_lo, base_hi)
        return ihull(flo, fhi, SPIKE_VALUE, SPIKE_VALUE)
    return interval_partial_raw(lo, hi, p, win1, win2, base_lo, base_hi)


@device
def gradient(x, p, g, w):
    if HAS_SPIKE and _in_spike(x):
        for k in range(x.shape[0]):
            g[k] = 0.0
        return
    gradient_raw(x, p, g, w)


@device
def interval_gradient(lo, hi, p, glo, ghi, wlo, whi):
    # where the box meets a discontinuity there is no derivative to bound
    if HAS_SPIKE and _box_meets_spike(lo, hi):
        for k in range(lo.shape[0]):
            glo[k] = -math.inf
            ghi[k] = math.inf
        return
    interval_gradient_raw(lo, hi, p, glo, ghi, wlo, whi)


@device
def _inner_point(a, b):
    # any point of [a, b] will do: it enters the form as an exact degenerate interval,
    # so rounding (or an FMA on the GPU) here costs width, never rigour
    if a == -math.inf and b == math.inf:
        return 0.0
    if a == -math.inf:
        return b
    if b == math.inf:
        return a
    m = 0.5 * a + 0.5 * b
    return min(max(m, a), b)


@device
def interval_mv(lo, hi, p, c, glo, ghi, wlo, whi):
    # mean value form f(c) + G(X) . (X - c), c the midpoint (paper 001, section 2.2);
    # valid for the non-smooth ops too, G enclosing Clarke's gradient (Lebourg's theorem)
    if HAS_SPIKE and _box_in_spike(lo, hi):
        return SPIKE_VALUE, SPIKE_VALUE  # f is constant there (a box meeting it gets G = R)
    nn = lo.shape[0]
    for k in range(nn):
        c[k] = _inner_point(lo[k], hi[k])
    flo, fhi = interval(c, c, p)
    interval_gradient(lo, hi, p, glo, ghi, wlo, whi)
    for k in range(nn):
        dlo, dhi = isub(lo[k], hi[k], c[k], c[k])
        tlo, thi = imul(glo[k], ghi[k], dlo, dhi)
        flo, fhi = iadd(flo, fhi, tlo, thi)
    return flo, fhi


@device
def interval_best(lo, hi, p, c, glo, ghi, wlo, whi):
    # natural form intersected with the mean value form: both contain the range
    alo, ahi = interval(lo, hi, p)
    blo, bhi = interval_mv(lo, hi, p, c, glo, ghi, wlo, whi)
    return iintersect(alo, ahi, blo, bhi)
'''

DRIVERS = {
    "cpu": '''

@kernel
def points(X, p, out):
    for r in range(X.shape[0]):
        out[r] = point(X[r], p)


@kernel
def intervals(LO, HI, p, out_lo, out_hi):
    for r in range(LO.shape[0]):
        out_lo[r], out_hi[r] = interval(LO[r], HI[r], p)


@kernel
def gradients(X, p, G, W):
    for r in range(X.shape[0]):
        gradient(X[r], p, G[r], W[r])


@kernel
def interval_gradients(LO, HI, p, GLO, GHI, WLO, WHI):
    for r in range(LO.shape[0]):
        interval_gradient(LO[r], HI[r], p, GLO[r], GHI[r], WLO[r], WHI[r])


@kernel
def intervals_mv(LO, HI, p, out_lo, out_hi, C, GLO, GHI, WLO, WHI):
    for r in range(LO.shape[0]):
        out_lo[r], out_hi[r] = interval_mv(LO[r], HI[r], p, C[r], GLO[r], GHI[r], WLO[r], WHI[r])


@kernel
def intervals_best(LO, HI, p, out_lo, out_hi, C, GLO, GHI, WLO, WHI):
    for r in range(LO.shape[0]):
        out_lo[r], out_hi[r] = interval_best(LO[r], HI[r], p, C[r], GLO[r], GHI[r], WLO[r], WHI[r])
''',
    "cuda": '''
from numba import cuda as _cuda


@kernel
def points(X, p, out):
    r = _cuda.grid(1)
    if r < X.shape[0]:
        out[r] = point(X[r], p)


@kernel
def intervals(LO, HI, p, out_lo, out_hi):
    r = _cuda.grid(1)
    if r < LO.shape[0]:
        out_lo[r], out_hi[r] = interval(LO[r], HI[r], p)


@kernel
def gradients(X, p, G, W):
    r = _cuda.grid(1)
    if r < X.shape[0]:
        gradient(X[r], p, G[r], W[r])


@kernel
def interval_gradients(LO, HI, p, GLO, GHI, WLO, WHI):
    r = _cuda.grid(1)
    if r < LO.shape[0]:
        interval_gradient(LO[r], HI[r], p, GLO[r], GHI[r], WLO[r], WHI[r])


@kernel
def intervals_mv(LO, HI, p, out_lo, out_hi, C, GLO, GHI, WLO, WHI):
    r = _cuda.grid(1)
    if r < LO.shape[0]:
        out_lo[r], out_hi[r] = interval_mv(LO[r], HI[r], p, C[r], GLO[r], GHI[r], WLO[r], WHI[r])


@kernel
def intervals_best(LO, HI, p, out_lo, out_hi, C, GLO, GHI, WLO, WHI):
    r = _cuda.grid(1)
    if r < LO.shape[0]:
        out_lo[r], out_hi[r] = interval_best(LO[r], HI[r], p, C[r], GLO[r], GHI[r], WLO[r], WHI[r])
''',
}
