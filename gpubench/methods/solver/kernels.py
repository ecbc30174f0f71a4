"""The subregion sweep: one thread (or loop step) per subregion of the selected region.

The source below is appended to the function's generated module (see
:func:`gpubench.forms.codegen.load`), so it calls the function's ``interval`` and
``interval_gradient`` forms directly and is compiled and cached with them.
``evaluate_subregion`` is written once and shared by the CPU driver (numba
``prange`` over chunks) and the CUDA kernel (one thread per subregion, SPSD:
each thread decodes its own subregion from its index and the selected region).
"""
import os
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

# The iteration's cut tables (forms/split_forms.py): every window term that touches a cut coordinate,
# and the hoisted subexpressions of x_first and x_last, take one value per combination of the parts
# of their cut coordinates and per row (the box, sample m), so they are evaluated once an iteration
# and each subregion reads them.  ``tab[e] = (offset, size)`` for the value entries e (the windows
# of win1, then of win2, then x_first and x_last); ``dtab[3 qq + kind]`` for the derivative entries
# of special coordinate qq (kind 0: x_d's window, 1: window d - 1, 2: window d).  An entry whose
# table would hold no fewer values than the sweep evaluates (its size >= count, as for a window of
# two cut coordinates when only two are cut) gets offset -1 and is evaluated in place.  Also
# appended to the host's CPU module (uncut.HOST_BASES), which lays the tables out for both backends.
CUT_LAYOUT = '''
@device
def _cut_combo(lp, slot, ca, cb, parts):
    # the index of a subregion's parts of (x_ca, x_cb) among an entry's combinations (cb < 0: one)
    sa = slot[ca]
    c = 0
    if sa >= 0:
        c = lp[sa]
    if cb >= 0:
        sb = slot[cb]
        if sb >= 0:
            c = c * parts + lp[sb]
    return c


@device
def _entry_size(slot, ca, cb, parts):
    size = parts if slot[ca] >= 0 else 1
    if cb >= 0 and slot[cb] >= 0:
        size *= parts
    return size


@device
def _value_entry(e, n, win1, win2):
    # (class, first coordinate, second coordinate or -1) of value entry e
    ncut = win1.shape[0]
    nw2 = win2.shape[0]
    if e < ncut:
        return 0, win1[e], -1
    if e < ncut + nw2:
        k = win2[e - ncut]
        return 1, k, k + 1
    if e == ncut + nw2:
        return 2, 0, -1
    return 3, n - 1, -1


@device
def _deriv_entry(e, special):
    # (kind, first coordinate, second coordinate or -1) of derivative entry e
    qq = e // 3
    kind = e - 3 * qq
    d = special[qq]
    if kind == 0:
        return 0, d, -1
    if kind == 1:
        return 1, d - 1, d
    return 2, d, d + 1


@device
def _place(tab, e, used, size, count, off):
    # entry e at offset off if used and smaller than the sweep, else evaluated in place; the next offset
    if used and size < count:
        tab[e, 0] = off
        tab[e, 1] = size
        return off + size
    tab[e, 0] = -1
    tab[e, 1] = 0
    return off


@device
def cut_layout(n, win1, win2, special, slot, parts, count, uses, duses, tab, dtab):
    """Lay the cut tables out (``tab``, ``dtab``); returns (values a row, derivative values)."""
    voff = np.int64(0)  # not the literal 0: _place would be compiled for it and for int64
    for e in range(win1.shape[0] + win2.shape[0] + 2):
        cls, ca, cb = _value_entry(e, n, win1, win2)
        voff = _place(tab, e, uses[cls] > 0, _entry_size(slot, ca, cb, parts), count, voff)
    doff = np.int64(0)
    for e in range(3 * special.shape[0]):
        kind, ca, cb = _deriv_entry(e, special)
        used = duses[0] > 0 if kind == 0 else (duses[1] > 0 and ca >= 0 and cb <= n - 1)
        doff = _place(dtab, e, used, _entry_size(slot, ca, cb, parts) if used else 0, count, doff)
    return voff, doff
'''

SHARED = CUT + CUT_LAYOUT + '''


@device
def _diagonal(lo, hi, t):
    # the point at fraction t of [lo, hi], kept inside it: a sample's coordinate (partition.diagonal_point)
    v = add_rn(lo, mul_rn(t, add_rn(hi, -lo)))
    return min(max(v, lo), hi)


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
            x[d] = _diagonal(lo[d], hi[d], t)
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
def _part_coord(sel_lo, sel_hi, samp, m, d, cut, l, parts, t_shift, t_den):
    """Coordinate d in row m (0: the box, m: sample m) of a subregion in whose part l it lies (if cut):
    the operations of ``evaluate_split``, so the same bits."""
    if not cut:
        if m == 0:
            return sel_lo[d], sel_hi[d]
        return samp[m, d], samp[m, d]
    lo = _cut(sel_lo[d], sel_hi[d], l, parts)
    hi = _cut(sel_lo[d], sel_hi[d], l + 1, parts)
    if m == 0:
        return lo, hi
    v = _diagonal(lo, hi, div_rn(float(m + t_shift), float(t_den)))
    return v, v


@device
def _find_entry(tab, idx):
    # the entry holding table index idx (entries lie in order; inline ones hold none)
    e = 0
    while tab[e, 0] < 0 or idx >= tab[e, 0] + tab[e, 1]:
        e += 1
    return e


@device
def fill_cut_tables(j, sel_lo, sel_hi, samp, slot, win1, win2, special, parts, t_shift, t_den, p,
                    tab, vtotal, dtab, VTlo, VThi, DTlo, DThi):
    """Value j of the cut tables: row-major over (row, value index), then the derivative values."""
    n = sel_lo.shape[0]
    rows = samp.shape[0]
    if j < rows * vtotal:
        m = j // vtotal
        idx = j - m * vtotal
        e = _find_entry(tab, idx)
        cls, ca, cb = _value_entry(e, n, win1, win2)
        rel = idx - tab[e, 0]
    else:
        m = 0
        idx = j - rows * vtotal
        e = _find_entry(dtab, idx)
        cls, ca, cb = _deriv_entry(e, special)
        rel = idx - dtab[e, 0]
    lb = 0
    if cb >= 0 and slot[cb] >= 0:
        lb = rel % parts
        rel = rel // parts
    a_lo, a_hi = _part_coord(sel_lo, sel_hi, samp, m, ca, slot[ca] >= 0, rel, parts, t_shift, t_den)
    b_lo = 0.0
    b_hi = 0.0
    if cb >= 0:
        b_lo, b_hi = _part_coord(sel_lo, sel_hi, samp, m, cb, slot[cb] >= 0, lb, parts, t_shift, t_den)
    if j < rows * vtotal:
        entry_terms(cls, ca, a_lo, a_hi, b_lo, b_hi, p, n, VTlo[m, idx], VThi[m, idx])
    else:
        deriv_terms(cls, ca, a_lo, a_hi, b_lo, b_hi, p, n, DTlo[idx], DThi[idx])


@device
def _value_split(m, lp, parts, clo, chi, ulo, uhi, slot, p, win1, win2, base_lo, base_hi, tab, VTlo, VThi,
                 tlo, thi, umeets, uin):
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
            flo, fhi = value_split_raw(m, lp, parts, clo, chi, ulo, uhi, slot, p, win1, win2, base_lo, base_hi,
                                       tab, VTlo, VThi, tlo, thi)
            return ihull(flo, fhi, SPIKE_VALUE, SPIKE_VALUE)
    return value_split_raw(m, lp, parts, clo, chi, ulo, uhi, slot, p, win1, win2, base_lo, base_hi,
                           tab, VTlo, VThi, tlo, thi)


@device
def evaluate_split(r, sel_lo, sel_hi, samp, dom_lo, dom_hi, dims, slot, parts, samples, t_shift, t_den,
                   gub_prev, p, win1, win2, base_lo, base_hi, uflags, special, Rlo, Rhi,
                   Kclo, Kchi, cfree, tab, VTlo, VThi, dtab, DTlo, DThi,
                   clo, chi, xs, lp, tlo, thi, Clo, Chi, wlo, whi):
    """``evaluate_subregion`` in O(s^2 + len(Kclo[0])) work, whatever n is.

    The subregion's cut coordinates live in ``clo/chi`` (position ``slot[d]``) and their parts in
    ``lp``; every other coordinate is read from the selected region (``sel_lo/sel_hi``) or from its
    own samples (``samp[m]``), which a subregion's samples share off the cut coordinates.  The terms
    of the windows touching a cut coordinate are read from the iteration's cut tables (``tab``,
    ``dtab``: :func:`cut_layout`, :func:`fill_cut_tables`).  The gradient test runs in two parts:
    exactly at the special coordinates (``gradient_split_raw``), and for the others as
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
        lp[sj] = l
        clo[sj] = _cut(sel_lo[d], sel_hi[d], l, parts)
        chi[sj] = _cut(sel_lo[d], sel_hi[d], l + 1, parts)
    best = math.inf
    for m in range(1, samples + 1):
        t = div_rn(float(m + t_shift), float(t_den))
        for j in range(ncut):
            xs[j] = _diagonal(clo[j], chi[j], t)
        slo, shi = _value_split(m, lp, parts, xs, xs, samp[m], samp[m], slot, p, win1, win2, base_lo[m],
                                base_hi[m], tab, VTlo, VThi, tlo, thi, uflags[m, 0], uflags[m, 1])
        if shi < best:
            best = shi
    # the row as an int64 (not the literal 0, for which numba would compile _value_split again)
    flo, fhi = _value_split(np.int64(0), lp, parts, clo, chi, sel_lo, sel_hi, slot, p, win1, win2, base_lo[0],
                            base_hi[0], tab, VTlo, VThi, tlo, thi, uflags[0, 0], uflags[0, 1])
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
    if gradient_split_raw(lp, parts, clo, chi, sel_lo, sel_hi, slot, p, win1, win2, base_lo[0], base_hi[0], tab,
                          VTlo, VThi, tlo, thi, special, Rlo, Rhi, dom_lo, dom_hi, Clo, Chi, wlo, whi,
                          dtab, DTlo, DThi) != 0:
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


# serial: an iteration's tables are a few thousand values whatever n (the sweep is millions of
# subregions), and a parallel loop would cost seconds more to compile on every cold start
@_njit(cache=True, error_model="numpy")
def cut_tables(sel_lo, sel_hi, samp, slot, win1, win2, special, parts, t_shift, t_den, p, tab, vtotal, dtab,
               dtotal, VTlo, VThi, DTlo, DThi):
    for j in range(samp.shape[0] * vtotal + dtotal):
        fill_cut_tables(j, sel_lo, sel_hi, samp, slot, win1, win2, special, parts, t_shift, t_den, p,
                        tab, vtotal, dtab, VTlo, VThi, DTlo, DThi)


@_njit(parallel=True, cache=True, error_model="numpy")
def sweep_split(sel_lo, sel_hi, samp, dom_lo, dom_hi, dims, slot, parts, samples, t_shift, t_den, gub_prev,
                p, win1, win2, base_lo, base_hi, uflags, special, Rlo, Rhi, Kclo, Kchi, cfree,
                tab, VTlo, VThi, dtab, DTlo, DThi, out_lb, out_ub, out_grad):
    ncut = dims.shape[0]
    k = out_lb.shape[0]
    nchunks = (k + CHUNK - 1) // CHUNK
    for c in _prange(nchunks):
        clo = np.empty(ncut)
        chi = np.empty(ncut)
        xs = np.empty(ncut)
        lp = np.empty(ncut, dtype=np.int64)
        tlo = np.empty(max(CUT_COLS, DERIV_COLS))
        thi = np.empty(max(CUT_COLS, DERIV_COLS))
        Clo = np.empty(max(N_AGGREGATES, 1))
        Chi = np.empty(max(N_AGGREGATES, 1))
        wlo = np.empty(max(N_PRODUCTS, 1) * ncut)
        whi = np.empty(max(N_PRODUCTS, 1) * ncut)
        for r in range(c * CHUNK, min(k, (c + 1) * CHUNK)):
            lb, ub, g = evaluate_split(r, sel_lo, sel_hi, samp, dom_lo, dom_hi, dims, slot, parts, samples,
                                       t_shift, t_den, gub_prev, p, win1, win2, base_lo, base_hi, uflags,
                                       special, Rlo, Rhi, Kclo, Kchi, cfree, tab, VTlo, VThi, dtab, DTlo, DThi,
                                       clo, chi, xs, lp, tlo, thi, Clo, Chi, wlo, whi)
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
from numba import cuda as _cuda, float64 as _float64, int64 as _int64

SMAX = {smax}
NAGG1 = N_AGGREGATES if N_AGGREGATES > 0 else 1
SCRATCH = SMAX * (N_PRODUCTS if N_PRODUCTS > 0 else 1)
TCOLS = max(CUT_COLS, DERIV_COLS)


@_cuda.jit(cache=True)
def cut_tables(sel_lo, sel_hi, samp, slot, win1, win2, special, parts, t_shift, t_den, p, tab, vtotal, dtab,
               dtotal, VTlo, VThi, DTlo, DThi):
    j = _cuda.grid(1)
    if j < samp.shape[0] * vtotal + dtotal:
        fill_cut_tables(j, sel_lo, sel_hi, samp, slot, win1, win2, special, parts, t_shift, t_den, p,
                        tab, vtotal, dtab, VTlo, VThi, DTlo, DThi)


@_cuda.jit(cache=True)
def sweep_split(sel_lo, sel_hi, samp, dom_lo, dom_hi, dims, slot, parts, samples, t_shift, t_den, gub_prev,
                p, win1, win2, base_lo, base_hi, uflags, special, Rlo, Rhi, Kclo, Kchi, cfree,
                tab, VTlo, VThi, dtab, DTlo, DThi, out_lb, out_ub, out_grad):
    r = _cuda.grid(1)
    if r < out_lb.shape[0]:
        ncut = dims.shape[0]
        clo = _cuda.local.array(SMAX, _float64)
        chi = _cuda.local.array(SMAX, _float64)
        xs = _cuda.local.array(SMAX, _float64)
        lp = _cuda.local.array(SMAX, _int64)
        tlo = _cuda.local.array(TCOLS, _float64)
        thi = _cuda.local.array(TCOLS, _float64)
        Clo = _cuda.local.array(NAGG1, _float64)
        Chi = _cuda.local.array(NAGG1, _float64)
        wlo = _cuda.local.array(SCRATCH, _float64)
        whi = _cuda.local.array(SCRATCH, _float64)
        lb, ub, g = evaluate_split(r, sel_lo, sel_hi, samp, dom_lo, dom_hi, dims, slot, parts, samples,
                                   t_shift, t_den, gub_prev, p, win1, win2, base_lo, base_hi, uflags,
                                   special, Rlo, Rhi, Kclo, Kchi, cfree, tab, VTlo, VThi, dtab, DTlo, DThi,
                                   clo[:ncut], chi[:ncut], xs[:ncut], lp[:ncut], tlo, thi, Clo, Chi, wlo, whi)
        out_lb[r] = lb
        out_ub[r] = ub
        out_grad[r] = g
'''


# The whole iteration on the device (Settings.loop = "device", gpubench/methods/solver/devloop.py): one
# cooperative launch runs iterations until a given count, with grid syncs between its phases.
LOOP_REGISTERS = 64
GPU_LOOP_DRIVER = '''
from numba import cuda as _cuda, float64 as _float64, int64 as _int64
from gpubench.methods.solver.reduce import TPB as _TPB, NO_INDEX as _NO_INDEX, _better, _block_reduce, _inclusive_scan

SMAX = {smax}
NAGG1 = N_AGGREGATES if N_AGGREGATES > 0 else 1
SCRATCH = SMAX * (N_PRODUCTS if N_PRODUCTS > 0 else 1)
TCOLS = max(CUT_COLS, DERIV_COLS)
# the device state's entries (gpubench/methods/solver/devloop.py names the same numbers)
_IT, _SIZE, _STOP, _NOPEN, _SELPOS, _SELSLOT, _SELSIDX, _SELCYC = 0, 1, 2, 3, 4, 5, 6, 7
_BESTIT, _BESTIDX, _NJEV, _NCAND, _NSPEC, _NWIN2, _NINF, _NEWSIZE, _NEWOPEN = 8, 9, 10, 11, 12, 13, 14, 15, 16
_VTOTAL, _DTOTAL = 17, 18
_GUB, _MAXW, _GLB = 0, 1, 2
_FULL, _EMPTY, _UNDEFINED = 1, 2, 3
DEDUP = 8  # kept candidate columns a new one is compared with (runs of equal uncut coordinates are caught)


@device
def _insert_sorted(arr, k, v):
    # arr[:k] sorted ascending without repeats: insert v (if new), return the new length
    j = 0
    while j < k and arr[j] < v:
        j += 1
    if j < k and arr[j] == v:
        return k
    i = k
    while i > j:
        arr[i] = arr[i - 1]
        i -= 1
    arr[j] = v
    return k + 1


@device
def _kept_entry(e, size, selpos, gub, src_sidx, src_slot, src_lb, out_lb, it):
    # element e of (the list, then this iteration's subregions): kept?, its (sidx, slot, lb)
    if e < size:
        v = src_lb[e]
        return e != selpos and v <= gub, src_sidx[e], src_slot[e], v
    r = e - size
    v = out_lb[r]
    return v <= gub and v != math.inf, r, it + 1, v


@device
def _fold_row(m, n, cut1, cut2, Tlo, Thi, base_lo, base_hi):
    """``aggregates_rest`` of row m from its window terms: each aggregate folded in index order over
    the windows of uncut coordinates, as the serial form does (so the same bits)."""
    for a in range(N_AGGREGATES):
        code = AGG_FOLD[a]
        if code == 2:
            acc_lo = 1.0
            acc_hi = 1.0
        else:
            acc_lo = 0.0
            acc_hi = 0.0
        for k in range(n - 1 if code == 1 else n):
            if code == 1:
                if cut2[k] != 0:
                    continue
            elif cut1[k] != 0:
                continue
            if code == 2:
                acc_lo, acc_hi = imul(acc_lo, acc_hi, Tlo[m, a, k], Thi[m, a, k])
            else:
                acc_lo, acc_hi = iadd(acc_lo, acc_hi, Tlo[m, a, k], Thi[m, a, k])
        base_lo[m, a] = acc_lo
        base_hi[m, a] = acc_hi


@device
def _fold_tables(n, nsp, cut1, special, Tlo, Thi, DXlo, DXhi, DYlo, DYhi, Klo, Khi, Rlo, Rhi, wlo, whi):
    """``uncut_tables`` from the box's window terms and derivatives (row 0): the same operations in
    the same order, so the same bits."""
    for a in range(Klo.shape[0]):
        for k in range(n):
            Klo[a, k] = 0.0
            Khi[a, k] = 0.0
    pi = 0
    for a in range(N_AGGREGATES):
        code = AGG_FOLD[a]
        if code == 2:
            # R: the product of the uncut terms but d's, from prefix (w) and suffix (run) products
            run_lo = 1.0
            run_hi = 1.0
            for k in range(n):
                wlo[k] = run_lo
                whi[k] = run_hi
                if cut1[k] == 0:
                    run_lo, run_hi = imul(run_lo, run_hi, Tlo[0, a, k], Thi[0, a, k])
            run_lo = 1.0
            run_hi = 1.0
            for k in range(n - 1, -1, -1):
                wlo[k], whi[k] = imul(wlo[k], whi[k], run_lo, run_hi)
                Klo[a, k], Khi[a, k] = imul(wlo[k], whi[k], DXlo[a, k], DXhi[a, k])
                if cut1[k] == 0:
                    run_lo, run_hi = imul(run_lo, run_hi, Tlo[0, a, k], Thi[0, a, k])
            for qq in range(nsp):
                Rlo[pi, qq] = wlo[special[qq]]
                Rhi[pi, qq] = whi[special[qq]]
            pi += 1
        elif code == 0:
            for k in range(n):
                Klo[a, k], Khi[a, k] = iadd(Klo[a, k], Khi[a, k], DXlo[a, k], DXhi[a, k])
        else:
            for k in range(n - 1):
                Klo[a, k], Khi[a, k] = iadd(Klo[a, k], Khi[a, k], DXlo[a, k], DXhi[a, k])
                Klo[a, k + 1], Khi[a, k + 1] = iadd(Klo[a, k + 1], Khi[a, k + 1], DYlo[a, k], DYhi[a, k])


@device
def _tables(it, cyc, s, box_lo, box_hi, p, win1, win2, special, smask, cut1, Klo, Khi, Rlo, Rhi, uw_lo, uw_hi,
            Kclo, Kchi, cfree, free_lo, free_hi, fast, w2, ist, fst, itopen, tol, Tlo, Thi, DXlo, DXhi, DYlo, DYhi):
    """prepare_split's O(n) tables that are not per coordinate (one thread): the windows touching
    a cut coordinate, the special coordinates, K and R (``uncut_tables``, folded from the window
    terms) and the candidates."""
    n = box_lo.shape[1]
    dst = it + 1
    nw2 = 0
    for q in range(s):
        d = win1[q]
        for k in range(d - 1, d + 1):
            if k >= 0 and k <= n - 2 and (nw2 == 0 or k > win2[nw2 - 1]):
                win2[nw2] = k
                nw2 += 1
    nsp = _insert_sorted(special, np.int64(0), np.int64(0))
    nsp = _insert_sorted(special, nsp, n - 1)
    for q in range(s):
        d = win1[q]
        nsp = _insert_sorted(special, nsp, d)
        if w2 != 0:
            if d >= 1:
                nsp = _insert_sorted(special, nsp, d - 1)
            if d <= n - 2:
                nsp = _insert_sorted(special, nsp, d + 1)
    for q in range(nsp):
        smask[special[q]] = 1
    _fold_tables(n, nsp, cut1, special, Tlo, Thi, DXlo, DXhi, DYlo, DYhi, Klo, Khi, Rlo, Rhi, uw_lo, uw_hi)
    nc = 0
    if N_AGGREGATES > 0 and fast != 0 and N_AGGREGATES == 1:
        # one aggregate: the four coordinates that decide the test (uncut.one_aggregate_candidates)
        picks = _cuda.local.array(4, _int64)
        for w in range(4):
            picks[w] = -1
        for d in range(n):
            if smask[d] != 0:
                continue
            klo = Klo[0, d]
            khi = Khi[0, d]
            for f in range(2):
                free = free_lo[d] if f == 0 else free_hi[d]
                if free == 0:
                    continue
                if klo > 0.0 and (picks[2 * f] < 0 or klo > Klo[0, picks[2 * f]]):
                    picks[2 * f] = d
                if khi < 0.0 and (picks[2 * f + 1] < 0 or khi < Khi[0, picks[2 * f + 1]]):
                    picks[2 * f + 1] = d
        srt = _cuda.local.array(4, _int64)
        for w in range(4):
            if picks[w] >= 0:
                nc = _insert_sorted(srt, nc, picks[w])
        for c in range(nc):
            d = srt[c]
            Kclo[0, c] = Klo[0, d]
            Kchi[0, c] = Khi[0, d]
            cfree[0, c] = free_lo[d]
            cfree[1, c] = free_hi[d]
    elif N_AGGREGATES > 0:
        # several aggregates: every plain coordinate that can decide (uncut.several_aggregate_candidates);
        # a column equal to one of the last DEDUP kept, with equal edge flags, decides alike and is left
        # out (the host leaves out every repeat: the same decisions, a few more candidates here at most)
        for d in range(n):
            if smask[d] != 0 or (free_lo[d] == 0 and free_hi[d] == 0):
                continue
            straddle = True
            for a in range(N_AGGREGATES):
                if not (Klo[a, d] <= 0.0 and Khi[a, d] >= 0.0):
                    straddle = False
            if straddle:
                continue
            repeat = False
            for c in range(max(0, nc - DEDUP), nc):
                if cfree[0, c] == free_lo[d] and cfree[1, c] == free_hi[d]:
                    same = True
                    for a in range(N_AGGREGATES):
                        if Kclo[a, c] != Klo[a, d] or Kchi[a, c] != Khi[a, d]:
                            same = False
                    if same:
                        repeat = True
                        break
            if repeat:
                continue
            for a in range(N_AGGREGATES):
                Kclo[a, nc] = Klo[a, d]
                Kchi[a, nc] = Khi[a, d]
            cfree[0, nc] = free_lo[d]
            cfree[1, nc] = free_hi[d]
            nc += 1
    if nc == 0:
        # one inert column (K = 0, no edge free: never discards), as prepare_split
        for a in range(Kclo.shape[0]):
            Kclo[a, 0] = 0.0
            Kchi[a, 0] = 0.0
        cfree[0, 0] = 0
        cfree[1, 0] = 0
        nc = 1
    ist[_NCAND] = nc
    ist[_NSPEC] = nsp
    ist[_NWIN2] = nw2
    itopen[dst] = 1 if fst[_MAXW] >= tol else 0


@_cuda.jit(cache=True{jit_options})
def device_loop(ist, fst, box_lo, box_hi, itcyc, itopen, hist_glb, hist_gub, hist_size,
                a_sidx, a_slot, a_lb, b_sidx, b_slot, b_lb, dom_lo, dom_hi, p,
                dims, slot, win1, win2, cut1, cut2, smask, samp, base_lo, base_hi, uflags, special,
                Rlo, Rhi, Klo, Khi, Kclo, Kchi, cfree, uw_lo, uw_hi, free_lo, free_hi,
                Tlo, Thi, DXlo, DXhi, DYlo, DYhi, tab, dtab, VTlo, VThi, DTlo, DThi, out_lb, part_v, part_i, part_n,
                vcount, vstart, s, parts, samples, t_shift, t_den, tol, it_end, fast, w2):
    """Iterations of the search (core.Search._iterate) until ``it_end``, no open region or a stop
    code, with no host in between: one cooperative launch, the phases separated by grid syncs."""
    grid = _cuda.cg.this_grid()
    n = dom_lo.shape[0]
    count = out_lb.shape[0]
    lcap = a_lb.shape[0]
    tid = _cuda.threadIdx.x
    bid = _cuda.blockIdx.x
    tpb = _cuda.blockDim.x
    nblocks = _cuda.gridDim.x
    nthreads = nblocks * tpb
    g = bid * tpb + tid
    sv = _cuda.shared.array(_TPB, _float64)
    si = _cuda.shared.array(_TPB, _int64)
    sn = _cuda.shared.array(_TPB, _int64)
    clo = _cuda.local.array(SMAX, _float64)
    chi = _cuda.local.array(SMAX, _float64)
    xs = _cuda.local.array(SMAX, _float64)
    lp = _cuda.local.array(SMAX, _int64)
    tlo = _cuda.local.array(TCOLS, _float64)
    thi = _cuda.local.array(TCOLS, _float64)
    Clo = _cuda.local.array(NAGG1, _float64)
    Chi = _cuda.local.array(NAGG1, _float64)
    wsl = _cuda.local.array(SCRATCH, _float64)
    wsh = _cuda.local.array(SCRATCH, _float64)
    while True:
        grid.sync()
        it = ist[_IT]
        if ist[_STOP] != 0 or it >= it_end or ist[_NOPEN] == 0:
            return
        size = ist[_SIZE]
        if it % 2 == 0:
            src_sidx, src_slot, src_lb, dst_sidx, dst_slot, dst_lb = a_sidx, a_slot, a_lb, b_sidx, b_slot, b_lb
        else:
            src_sidx, src_slot, src_lb, dst_sidx, dst_slot, dst_lb = b_sidx, b_slot, b_lb, a_sidx, a_slot, a_lb
        # 1. select the open region with the smallest lower bound, the first in list order on ties
        bv = math.inf
        bi = _NO_INDEX
        e = g
        while e < size:
            v = src_lb[e]
            if v < bv and itopen[src_slot[e]] != 0:
                bv = v
                bi = e
            e += nthreads
        sv[tid] = bv
        si[tid] = bi
        sn[tid] = 0
        _cuda.syncthreads()
        _block_reduce(sv, si, sn, tid)
        if tid == 0:
            part_v[bid] = sv[0]
            part_i[bid] = si[0]
        grid.sync()
        if bid == 0:
            bv = math.inf
            bi = _NO_INDEX
            b = tid
            while b < nblocks:
                if _better(part_v[b], part_i[b], bv, bi):
                    bv = part_v[b]
                    bi = part_i[b]
                b += tpb
            sv[tid] = bv
            si[tid] = bi
            sn[tid] = 0
            _cuda.syncthreads()
            _block_reduce(sv, si, sn, tid)
            if tid == 0:
                pos = si[0]
                ist[_SELPOS] = pos
                pslot = src_slot[pos]
                ist[_SELSLOT] = pslot
                ist[_SELSIDX] = src_sidx[pos]
                cyc = 0 if pslot == 0 else (itcyc[pslot] + s) % n
                ist[_SELCYC] = cyc
                itcyc[it + 1] = cyc
                fst[_MAXW] = -math.inf
                for m in range(samples + 1):
                    uflags[m, 0] = 1
                    uflags[m, 1] = 1
        grid.sync()
        # 2. the selected box (rebuilt from its parent's), its samples, masks and children's widths
        pslot = ist[_SELSLOT]
        psidx = ist[_SELSIDX]
        cyc = ist[_SELCYC]
        pcyc = itcyc[pslot]
        dst = it + 1
        wrap = cyc + s - n  # cut coordinates 0 .. wrap-1 come first when the cycle wraps
        j = g
        while j < s:
            dims[j] = (cyc + j) % n
            j += nthreads
        d = g
        while d < n:
            lo = box_lo[pslot, d]
            hi = box_hi[pslot, d]
            if pslot != 0:
                jp = (d - pcyc) % n
                if jp < s:
                    q = psidx
                    for _ in range(jp):
                        q = q // parts
                    l = q % parts
                    plo = lo
                    lo = _cut(plo, hi, l, parts)
                    hi = _cut(plo, hi, l + 1, parts)
            box_lo[dst, d] = lo
            box_hi[dst, d] = hi
            jc = (d - cyc) % n
            if jc < s:
                cut1[d] = 1
                pos = d if d < wrap else (max(wrap, 0) + d - cyc)
                slot[d] = pos
                win1[pos] = d
                w = 0.0
                for l in range(parts):
                    w = max(w, add_rn(_cut(lo, hi, l + 1, parts), -_cut(lo, hi, l, parts)))
            else:
                cut1[d] = 0
                slot[d] = -1
                w = add_rn(hi, -lo)
            _cuda.atomic.max(fst, _MAXW, w)
            cut2[d] = 1 if jc < s or (d + 1 < n and (d + 1 - cyc) % n < s) else 0
            smask[d] = 0
            free_lo[d] = 1 if lo != dom_lo[d] else 0
            free_hi[d] = 1 if hi != dom_hi[d] else 0
            samp[0, d] = lo
            for m in range(1, samples + 1):
                samp[m, d] = _diagonal(lo, hi, div_rn(float(m + t_shift), float(t_den)))
            if HAS_SPIKE and jc >= s:
                # uncut coordinates that leave the spike (prepare_split's uflags)
                for m in range(samples + 1):
                    xa = lo if m == 0 else samp[m, d]
                    xb = hi if m == 0 else samp[m, d]
                    if xb < SPIKE_LO or xa > SPIKE_HI:
                        uflags[m, 0] = 0
                    if xa < SPIKE_LO or xb > SPIKE_HI:
                        uflags[m, 1] = 0
            d += nthreads
        grid.sync()
        # 3. every window's terms, on the box (with their derivatives) and at each sample: one thread
        # a (row, window); then the folds in index order, one thread a row and one for K, R and the
        # other tables
        rows = samples + 1
        idx = g
        while idx < rows * n:
            m = idx // n
            k = idx - m * n
            # deriv as ``m == 0``, not the literals True and False: numba would compile window_terms twice
            if m == 0:
                window_terms(box_lo[dst], box_hi[dst], p, k, m == 0, Tlo[0, :, k], Thi[0, :, k], DXlo[:, k],
                             DXhi[:, k], DYlo[:, k], DYhi[:, k])
            else:
                window_terms(samp[m], samp[m], p, k, m == 0, Tlo[m, :, k], Thi[m, :, k], DXlo[:, k],
                             DXhi[:, k], DYlo[:, k], DYhi[:, k])
            idx += nthreads
        grid.sync()
        roles = rows + 1
        stride = 32 if nthreads >= 32 * roles else 1
        if g % stride == 0 and g // stride < roles:
            role = g // stride
            if role == 0:
                _tables(it, cyc, s, box_lo, box_hi, p, win1, win2, special, smask, cut1, Klo, Khi, Rlo, Rhi,
                        uw_lo, uw_hi, Kclo, Kchi, cfree, free_lo, free_hi, fast, w2, ist, fst, itopen, tol,
                        Tlo, Thi, DXlo, DXhi, DYlo, DYhi)
                vt, dt = cut_layout(n, win1, win2[:ist[_NWIN2]], special[:ist[_NSPEC]], slot, parts, count,
                                    CUT_USES, DERIV_USES, tab, dtab)
                ist[_VTOTAL] = vt
                ist[_DTOTAL] = dt
            else:
                _fold_row(role - 1, n, cut1, cut2, Tlo, Thi, base_lo, base_hi)
        grid.sync()
        nc = ist[_NCAND]
        nsp = ist[_NSPEC]
        nw2 = ist[_NWIN2]
        # the cut tables (fill_cut_tables): one thread a value
        vt = ist[_VTOTAL]
        j = g
        while j < rows * vt + ist[_DTOTAL]:
            fill_cut_tables(j, box_lo[dst], box_hi[dst], samp, slot, win1, win2[:nw2], special[:nsp], parts,
                            t_shift, t_den, p, tab, vt, dtab, VTlo, VThi, DTlo, DThi)
            j += nthreads
        grid.sync()
        # 4. the sweep, with the best sample and the gradient count folded as it goes
        gub_prev = fst[_GUB]
        bv = math.inf
        bi = _NO_INDEX
        nj = 0
        r = g
        while r < count:
            lb, ub, gr = evaluate_split(r, box_lo[dst], box_hi[dst], samp, dom_lo, dom_hi, dims, slot, parts,
                                        samples, t_shift, t_den, gub_prev, p, win1, win2[:nw2], base_lo,
                                        base_hi, uflags, special[:nsp], Rlo, Rhi, Kclo[:, :nc], Kchi[:, :nc],
                                        cfree[:, :nc], tab, VTlo, VThi, dtab, DTlo, DThi, clo[:s], chi[:s], xs[:s],
                                        lp[:s], tlo, thi, Clo, Chi, wsl, wsh)
            out_lb[r] = lb
            if ub < bv:  # False for NaN; r rises, so a thread keeps its first minimum
                bv = ub
                bi = r
            nj += gr
            r += nthreads
        sv[tid] = bv
        si[tid] = bi
        sn[tid] = nj
        _cuda.syncthreads()
        _block_reduce(sv, si, sn, tid)
        if tid == 0:
            part_v[bid] = sv[0]
            part_i[bid] = si[0]
            part_n[bid] = sn[0]
        grid.sync()
        # 5. the iteration's GUB (reduce.best_sample's fold)
        if bid == 0:
            bv = math.inf
            bi = _NO_INDEX
            nj = 0
            b = tid
            while b < nblocks:
                if _better(part_v[b], part_i[b], bv, bi):
                    bv = part_v[b]
                    bi = part_i[b]
                nj += part_n[b]
                b += tpb
            sv[tid] = bv
            si[tid] = bi
            sn[tid] = nj
            _cuda.syncthreads()
            _block_reduce(sv, si, sn, tid)
            if tid == 0:
                best = sv[0]
                if best < fst[_GUB]:
                    fst[_GUB] = best
                    ist[_BESTIT] = it
                    ist[_BESTIDX] = 0 if si[0] == _NO_INDEX else si[0]
                ist[_NJEV] += sn[0]
                ist[_NEWOPEN] = 0
                ist[_NINF] = 0
                fst[_GLB] = math.inf
        grid.sync()
        # 6. prune by GUB, drop the selected region, append the survivors: a stable compaction of
        # (list, subregions) into the other buffer, one tpb-wide tile at a time
        gub = fst[_GUB]
        selpos = ist[_SELPOS]
        total = size + count
        ntiles = (total + tpb - 1) // tpb
        vb = bid
        while vb < ntiles:
            e = vb * tpb + tid
            k = 0
            if e < total:
                keep, _a, _b, _c = _kept_entry(e, size, selpos, gub, src_sidx, src_slot, src_lb, out_lb, it)
                k = 1 if keep else 0
            sv[tid] = math.inf
            si[tid] = 0
            sn[tid] = k
            _cuda.syncthreads()
            _block_reduce(sv, si, sn, tid)
            if tid == 0:
                vcount[vb] = sn[0]
            _cuda.syncthreads()
            vb += nblocks
        grid.sync()
        if bid == 0:
            chunk = (ntiles + tpb - 1) // tpb
            lo_t = min(tid * chunk, ntiles)
            hi_t = min(lo_t + chunk, ntiles)
            tot = 0
            for i in range(lo_t, hi_t):
                tot += vcount[i]
            si[tid] = tot
            _cuda.syncthreads()
            _inclusive_scan(si, tid)
            run = si[tid] - tot
            for i in range(lo_t, hi_t):
                vstart[i] = run
                run += vcount[i]
            if tid == tpb - 1:
                ist[_NEWSIZE] = si[tid]
        grid.sync()
        minv = math.inf
        nop = 0
        vb = bid
        while vb < ntiles:
            e = vb * tpb + tid
            keep = False
            if e < total:
                keep, es, esl, ev = _kept_entry(e, size, selpos, gub, src_sidx, src_slot, src_lb, out_lb, it)
            si[tid] = 1 if keep else 0
            _cuda.syncthreads()
            _inclusive_scan(si, tid)
            if keep:
                pos = vstart[vb] + si[tid] - 1
                dst_sidx[pos] = es
                dst_slot[pos] = esl
                dst_lb[pos] = ev
                minv = min(minv, ev)
                if itopen[esl] != 0:
                    nop += 1
                if esl == it + 1 and ev == -math.inf:
                    _cuda.atomic.add(ist, _NINF, 1)
            _cuda.syncthreads()
            vb += nblocks
        sv[tid] = minv
        si[tid] = 0
        sn[tid] = nop
        _cuda.syncthreads()
        _block_reduce(sv, si, sn, tid)
        if tid == 0:
            _cuda.atomic.min(fst, _GLB, sv[0])
            _cuda.atomic.add(ist, _NEWOPEN, sn[0])
        grid.sync()
        # 7. the iteration's history and the next one's stop codes
        if g == 0:
            newsize = ist[_NEWSIZE]
            ist[_SIZE] = newsize
            ist[_NOPEN] = ist[_NEWOPEN]
            hist_glb[it] = fst[_GLB]
            hist_gub[it] = fst[_GUB]
            hist_size[it] = newsize
            ist[_IT] = it + 1
            if newsize == 0:
                ist[_STOP] = _EMPTY
            elif ist[_NINF] > 0:
                ist[_STOP] = _UNDEFINED
            elif newsize + count > lcap:
                ist[_STOP] = _FULL
'''


def cut_capacity(s, n, parts, count):
    """(value entries a row, derivative entries) that hold any iteration's cut tables (kernels.CUT_LAYOUT)
    for s cut coordinates of n into ``parts``: an entry is tabulated only while smaller than ``count``."""
    one = parts if parts < count else 1
    two = parts * parts if parts * parts < count else one
    return s * one + min(2 * s, n) * two + 2 * one, 3 * min(3 * s + 2, n) * two


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


def loop_registers():
    """Registers a thread of ``device_loop`` may use.  Uncapped, the fused kernel takes 170 and a
    cooperative grid gets 2 blocks of 128 threads an SM (12.5 % occupancy, measured by ncu on an
    H200), so its sweep phase waits on latency; a cap trades spills for resident warps.
    ``GPUBENCH_LOOP_REGISTERS`` (0: no cap) overrides it for measuring."""
    text = os.environ.get("GPUBENCH_LOOP_REGISTERS", str(LOOP_REGISTERS))
    if not text.isdigit():
        from ...errors import InputError
        raise InputError(f"GPUBENCH_LOOP_REGISTERS={text!r} is not a register count (0: no cap)")
    return int(text)


def _loop_jit_options():
    from numba import config
    regs = loop_registers()
    # the simulator's jit takes no max_registers
    return f", max_registers={regs}" if regs and not config.ENABLE_CUDASIM else ""


@lru_cache(maxsize=None)
def extensions(backend, nmax=None, smax=None, loop=False):
    """The kernels appended to the generated module: the full sweep (``nmax`` given), the split one,
    or with ``loop`` the device-resident iteration (``device_loop``, which runs the split sweep)."""
    if backend == "cpu":
        return (SHARED, CPU_DRIVER)
    if loop:
        return (SHARED, GPU_LOOP_DRIVER.format(smax=smax, jit_options=_loop_jit_options()))
    if smax is not None:
        return (SHARED, GPU_SPLIT_DRIVER.format(smax=smax))
    return (SHARED, GPU_DRIVER.format(nmax=nmax))
