"""The subregion sweep: one thread (or loop step) per subregion of the selected region.

The source below is appended to the function's generated module (see
:func:`gpubench.codegen.load`), so it calls the function's ``interval`` and
``interval_gradient`` forms directly and is compiled and cached with them.
``evaluate_subregion`` is written once and shared by the CPU driver (numba
``prange`` over chunks) and the CUDA kernel (one thread per subregion, SPSD:
each thread decodes its own subregion from its index and the selected region).
"""
from functools import lru_cache

# The j-th of parts+1 cut points of [lo, hi] (partition.cut on the device): a function of the
# index alone, so neighbouring boxes share their common edge exactly and the ends are lo and hi
# exactly; round-to-nearest operations, so no FMA contraction changes it between CPU and GPU.
# Also appended by methods/subdomain_bnb.py (its subdomains of a node).
CUT = '''
@device
def _cut(lo, hi, j, parts):
    if j <= 0:
        return lo
    if j >= parts:
        return hi
    b = add_rn(lo, div_rn(mul_rn(add_rn(hi, -lo), float(j)), float(parts)))
    return min(max(b, lo), hi)
'''

SHARED = CUT + '''


@device
def evaluate_subregion(r, sel_lo, sel_hi, dom_lo, dom_hi, dims, parts, samples, t_shift, t_den,
                       gub_prev, p, win1, win2, base_lo, base_hi, lo, hi, x, glo, ghi, wlo, whi, mv):
    """(lower bound or inf if ruled out, best sampled upper bound, gradient evaluated?).

    ``base_lo/base_hi[0]`` hold the aggregates over the windows of the uncut
    coordinates for the box, row m for sample m: the same in every subregion,
    so computed once per iteration; only the windows in ``win1``/``win2`` (those
    touching a cut coordinate) are evaluated here.
    """
    n = sel_lo.shape[0]
    for d in range(n):
        lo[d] = sel_lo[d]
        hi[d] = sel_hi[d]
    q = r
    for j in range(dims.shape[0]):
        d = dims[j]
        l = q % parts
        q = q // parts
        lo[d] = _cut(sel_lo[d], sel_hi[d], l, parts)
        hi[d] = _cut(sel_lo[d], sel_hi[d], l + 1, parts)
    # samples evenly spaced along the diagonal, t = (m + t_shift)/t_den, as degenerate intervals
    best = math.inf
    for m in range(1, samples + 1):
        t = div_rn(float(m + t_shift), float(t_den))
        for d in range(n):
            v = add_rn(lo[d], mul_rn(t, add_rn(hi[d], -lo[d])))
            x[d] = min(max(v, lo[d]), hi[d])
        slo, shi = interval_partial(x, x, p, win1, win2, base_lo[m], base_hi[m])
        if shi < best:
            best = shi
    flo, fhi = interval_partial(lo, hi, p, win1, win2, base_lo[0], base_hi[0])
    if flo != flo:
        # empty enclosure (f undefined on the whole subregion): keep it undecided, with no
        # gradient test either (a gradient where f has no value proves nothing); the host
        # reports it (Search._check_defined)
        return -math.inf, best, 0
    # gub_prev and this subregion's own samples are valid upper bounds of the
    # global minimum already; the host applies the iteration's final GUB later.
    if flo > min(gub_prev, best):
        return math.inf, best, 0
    interval_gradient(lo, hi, p, glo, ghi, wlo, whi)
    if mv:
        # inclusion "best": intersect with the mean value form f(c) + G(X).(X - c) (paper
        # 001, section 2.2), whose overestimation shrinks quadratically with the box
        for d in range(n):
            x[d] = _inner_point(lo[d], hi[d])
        mlo, mhi = interval(x, x, p)
        for d in range(n):
            dlo, dhi = isub(lo[d], hi[d], x[d], x[d])
            tlo, thi = imul(glo[d], ghi[d], dlo, dhi)
            mlo, mhi = iadd(mlo, mhi, tlo, thi)
        if mlo > flo:  # False for NaN
            flo = mlo
        if flo > min(gub_prev, best):
            return math.inf, best, 1
    for d in range(n):
        # the first-order condition cannot hold inside: f is monotone in x_d and
        # the subregion does not touch the domain's edge where the minimum could sit
        if glo[d] > 0.0 and lo[d] != dom_lo[d]:
            return math.inf, best, 1
        if ghi[d] < 0.0 and hi[d] != dom_hi[d]:
            return math.inf, best, 1
    return flo, best, 1


@device
def _value_split(clo, chi, ulo, uhi, slot, p, win1, win2, base_lo, base_hi, umeets, uin):
    # the spike test of ``interval``: uncut coordinates per iteration (umeets, uin), cut ones here
    if HAS_SPIKE:
        meets = umeets != 0
        inside = uin != 0
        for j in range(win1.shape[0]):
            if chi[j] < SPIKE_LO or clo[j] > SPIKE_HI:
                meets = False
            if clo[j] < SPIKE_LO or chi[j] > SPIKE_HI:
                inside = False
        if meets:
            if inside:
                return SPIKE_VALUE, SPIKE_VALUE
            flo, fhi = value_split_raw(clo, chi, ulo, uhi, slot, p, win1, win2, base_lo, base_hi)
            return ihull(flo, fhi, SPIKE_VALUE, SPIKE_VALUE)
    return value_split_raw(clo, chi, ulo, uhi, slot, p, win1, win2, base_lo, base_hi)


@device
def evaluate_split(r, sel_lo, sel_hi, samp, dom_lo, dom_hi, dims, slot, parts, samples, t_shift, t_den,
                   gub_prev, p, win1, win2, base_lo, base_hi, uflags, special, Rlo, Rhi,
                   Kclo, Kchi, cfree, clo, chi, xs, Clo, Chi, wlo, whi):
    """``evaluate_subregion`` in O(s^2 + len(Kclo[0])) work, whatever n is.

    The subregion's cut coordinates live in ``clo/chi`` (position ``slot[d]``);
    every other coordinate is read from the selected region (``sel_lo/sel_hi``)
    or from its own samples (``samp[m]``), which a subregion's samples share
    off the cut coordinates.  The gradient test runs in two parts: exactly at
    the special coordinates (``gradient_split_raw``), and for the others as
    g_d = sum_a C_a K_{a,d} over the candidates the host listed (all of them,
    or for one aggregate the four that decide the test: docs/solver-scaling.md).
    """
    ncut = dims.shape[0]
    q = r
    for j in range(ncut):
        d = dims[j]
        l = q % parts
        q = q // parts
        sj = slot[d]
        clo[sj] = _cut(sel_lo[d], sel_hi[d], l, parts)
        chi[sj] = _cut(sel_lo[d], sel_hi[d], l + 1, parts)
    best = math.inf
    for m in range(1, samples + 1):
        t = div_rn(float(m + t_shift), float(t_den))
        for j in range(ncut):
            v = add_rn(clo[j], mul_rn(t, add_rn(chi[j], -clo[j])))
            xs[j] = min(max(v, clo[j]), chi[j])
        slo, shi = _value_split(xs, xs, samp[m], samp[m], slot, p, win1, win2, base_lo[m], base_hi[m],
                                uflags[m, 0], uflags[m, 1])
        if shi < best:
            best = shi
    flo, fhi = _value_split(clo, chi, sel_lo, sel_hi, slot, p, win1, win2, base_lo[0], base_hi[0],
                            uflags[0, 0], uflags[0, 1])
    if flo != flo:
        # empty enclosure (f undefined on the whole subregion): kept undecided, with no gradient
        # test (a gradient where f has no value proves nothing); Search._check_defined reports it
        return -math.inf, best, 0
    if flo > min(gub_prev, best):
        return math.inf, best, 0
    if HAS_SPIKE:
        meets = uflags[0, 0] != 0
        for j in range(ncut):
            if chi[j] < SPIKE_LO or clo[j] > SPIKE_HI:
                meets = False
        if meets:  # no derivative to bound (interval_gradient returns (-inf, inf) there)
            return flo, best, 1
    if gradient_split_raw(clo, chi, sel_lo, sel_hi, slot, p, win1, win2, base_lo[0], base_hi[0], special,
                          Rlo, Rhi, dom_lo, dom_hi, Clo, Chi, wlo, whi) != 0:
        return math.inf, best, 1
    for c in range(Kclo.shape[1]):
        g_lo = 0.0
        g_hi = 0.0
        for a in range(N_AGGREGATES):
            c_lo, c_hi = imul(Clo[a], Chi[a], Kclo[a, c], Kchi[a, c])
            g_lo, g_hi = iadd(g_lo, g_hi, c_lo, c_hi)
        if g_lo > 0.0 and cfree[0, c] != 0:
            return math.inf, best, 1
        if g_hi < 0.0 and cfree[1, c] != 0:
            return math.inf, best, 1
    return flo, best, 1
'''

CPU_DRIVER = '''
from numba import njit as _njit, prange as _prange

CHUNK = 512


@_njit(parallel=True, cache=True, error_model="numpy")
def sweep(sel_lo, sel_hi, dom_lo, dom_hi, dims, parts, samples, t_shift, t_den, gub_prev, p,
          win1, win2, base_lo, base_hi, out_lb, out_ub, out_grad, mv):
    n = sel_lo.shape[0]
    k = out_lb.shape[0]
    nchunks = (k + CHUNK - 1) // CHUNK
    for c in _prange(nchunks):
        lo = np.empty(n)
        hi = np.empty(n)
        x = np.empty(n)
        glo = np.empty(n)
        ghi = np.empty(n)
        wlo = np.empty(n)
        whi = np.empty(n)
        for r in range(c * CHUNK, min(k, (c + 1) * CHUNK)):
            lb, ub, g = evaluate_subregion(r, sel_lo, sel_hi, dom_lo, dom_hi, dims, parts, samples,
                                           t_shift, t_den, gub_prev, p, win1, win2, base_lo, base_hi,
                                           lo, hi, x, glo, ghi, wlo, whi, mv)
            out_lb[r] = lb
            out_ub[r] = ub
            out_grad[r] = g


@_njit(parallel=True, cache=True, error_model="numpy")
def sweep_split(sel_lo, sel_hi, samp, dom_lo, dom_hi, dims, slot, parts, samples, t_shift, t_den, gub_prev,
                p, win1, win2, base_lo, base_hi, uflags, special, Rlo, Rhi, Kclo, Kchi, cfree,
                out_lb, out_ub, out_grad):
    ncut = dims.shape[0]
    k = out_lb.shape[0]
    nchunks = (k + CHUNK - 1) // CHUNK
    for c in _prange(nchunks):
        clo = np.empty(ncut)
        chi = np.empty(ncut)
        xs = np.empty(ncut)
        Clo = np.empty(max(N_AGGREGATES, 1))
        Chi = np.empty(max(N_AGGREGATES, 1))
        wlo = np.empty(max(N_PRODUCTS, 1) * ncut)
        whi = np.empty(max(N_PRODUCTS, 1) * ncut)
        for r in range(c * CHUNK, min(k, (c + 1) * CHUNK)):
            lb, ub, g = evaluate_split(r, sel_lo, sel_hi, samp, dom_lo, dom_hi, dims, slot, parts, samples,
                                       t_shift, t_den, gub_prev, p, win1, win2, base_lo, base_hi, uflags,
                                       special, Rlo, Rhi, Kclo, Kchi, cfree, clo, chi, xs, Clo, Chi, wlo, whi)
            out_lb[r] = lb
            out_ub[r] = ub
            out_grad[r] = g
'''

GPU_DRIVER = '''
from numba import cuda as _cuda, float64 as _float64

NMAX = {nmax}


@_cuda.jit(cache=True)
def sweep(sel_lo, sel_hi, dom_lo, dom_hi, dims, parts, samples, t_shift, t_den, gub_prev, p,
          win1, win2, base_lo, base_hi, out_lb, out_ub, out_grad, mv):
    r = _cuda.grid(1)
    if r < out_lb.shape[0]:
        n = sel_lo.shape[0]
        lo = _cuda.local.array(NMAX, _float64)
        hi = _cuda.local.array(NMAX, _float64)
        x = _cuda.local.array(NMAX, _float64)
        glo = _cuda.local.array(NMAX, _float64)
        ghi = _cuda.local.array(NMAX, _float64)
        wlo = _cuda.local.array(NMAX, _float64)
        whi = _cuda.local.array(NMAX, _float64)
        lb, ub, g = evaluate_subregion(r, sel_lo, sel_hi, dom_lo, dom_hi, dims, parts, samples,
                                       t_shift, t_den, gub_prev, p, win1, win2, base_lo, base_hi,
                                       lo[:n], hi[:n], x[:n], glo[:n], ghi[:n], wlo[:n], whi[:n], mv)
        out_lb[r] = lb
        out_ub[r] = ub
        out_grad[r] = g
'''

GPU_SPLIT_DRIVER = '''
from numba import cuda as _cuda, float64 as _float64

SMAX = {smax}
NAGG1 = N_AGGREGATES if N_AGGREGATES > 0 else 1
SCRATCH = SMAX * (N_PRODUCTS if N_PRODUCTS > 0 else 1)


@_cuda.jit(cache=True)
def sweep_split(sel_lo, sel_hi, samp, dom_lo, dom_hi, dims, slot, parts, samples, t_shift, t_den, gub_prev,
                p, win1, win2, base_lo, base_hi, uflags, special, Rlo, Rhi, Kclo, Kchi, cfree,
                out_lb, out_ub, out_grad):
    r = _cuda.grid(1)
    if r < out_lb.shape[0]:
        ncut = dims.shape[0]
        clo = _cuda.local.array(SMAX, _float64)
        chi = _cuda.local.array(SMAX, _float64)
        xs = _cuda.local.array(SMAX, _float64)
        Clo = _cuda.local.array(NAGG1, _float64)
        Chi = _cuda.local.array(NAGG1, _float64)
        wlo = _cuda.local.array(SCRATCH, _float64)
        whi = _cuda.local.array(SCRATCH, _float64)
        lb, ub, g = evaluate_split(r, sel_lo, sel_hi, samp, dom_lo, dom_hi, dims, slot, parts, samples,
                                   t_shift, t_den, gub_prev, p, win1, win2, base_lo, base_hi, uflags,
                                   special, Rlo, Rhi, Kclo, Kchi, cfree, clo[:ncut], chi[:ncut], xs[:ncut],
                                   Clo, Chi, wlo, whi)
        out_lb[r] = lb
        out_ub[r] = ub
        out_grad[r] = g
'''


def nmax_for(n):
    """Compile-time size of the per-thread arrays: a power of two >= n, at least 128.

    One size for every n <= 128 means one compilation serves n = 50 and n = 100;
    only the first n entries are ever touched.
    """
    m = 128
    while m < n:
        m *= 2
    return m


def smax_for(s):
    """Compile-time size of the per-thread arrays of the split sweep: a power of two >= s, at least 16."""
    m = 16
    while m < s:
        m *= 2
    return m


@lru_cache(maxsize=None)
def extensions(backend, nmax=None, smax=None):
    """The kernels appended to the generated module: the full sweep (``nmax`` given) or the split one."""
    if backend == "cpu":
        return (SHARED, CPU_DRIVER)
    if smax is not None:
        return (SHARED, GPU_SPLIT_DRIVER.format(smax=smax))
    return (SHARED, GPU_DRIVER.format(nmax=nmax))
