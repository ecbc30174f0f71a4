"""One subregion of the selected region bounded: the full evaluation, the split one, the cut tables.

``evaluate_subregion`` (every coordinate in every subregion: the reference, and inclusion "best")
and ``evaluate_split`` (O(s) a subregion with the iteration's tables; docs/solver-scaling.md) are
written once and shared by the CPU driver (numba ``prange`` over chunks, :mod:`.cpu`) and the CUDA
kernels (one thread per subregion, :mod:`.gpu_full`, :mod:`.gpu_split`, :mod:`.loop`): each decodes
its own subregion from its index and the selected region.  They call the function's generated
forms directly, spliced after them (:mod:`gpubench.methods.solver.spliced`).

**Samples that cannot matter are not evaluated.**  Both evaluate the subregion's box first; where its
lower bound exceeds GUB before the iteration (``flo > gub_prev``) they return ``(inf, inf, 0)`` without
its samples.  Each sample x_m lies in the subregion, so its enclosure's upper bound is >= f(x_m) >= flo
> gub_prev: it can neither lower GUB (an iteration takes a strict fall: ``outcome.reduce_host``, the
device loop's step 5) nor keep the subregion (its bound rules it out).  So the search is the paper's bit
for bit, and ``nfev`` still counts every subregion's box and samples, as the paper does.  Where most
subregions are ruled out by their bound this is most of the sweep (Rosenbrock n = 1,000 evaluates the
gradient of 0.04 % of its subregions, Levy 14 %).
"""
import math

import numpy as np

from gpubench.kernels.unsigned import u as _u

if __name__ == "gpubench.methods.solver.spliced.subregion":  # imported as itself: stand-in forms
    from gpubench.methods.solver.spliced.stand_in_cuda import (
        HAS_SPIKE, N_AGGREGATES, SPLIT_READS_ENDS, SPIKE_HI, SPIKE_LO, SPIKE_VALUE, _deriv_entry, _inner_point,
        _log2_exact, _part, _value_entry, add_rn, deriv_terms, device, div_rn, entry_offsets, entry_terms,
        gradient_split_raw, iadd, ihull, imul, interval, interval_gradient, interval_partial, isub, mul_rn,
        value_split_raw)



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
        lo[_u(d)] = sel_lo[_u(d)]
        hi[_u(d)] = sel_hi[_u(d)]
    q = r
    for j in range(dims.shape[0]):
        d = dims[_u(j)]
        l = q % parts
        q = q // parts
        lo[_u(d)], hi[_u(d)] = _part(sel_lo[_u(d)], sel_hi[_u(d)], l, parts)
    flo, fhi = interval_partial(lo, hi, p, win1, win2, base_lo[0], base_hi[0])
    if flo > gub_prev:
        # the samples cannot matter (the module's note): ruled out, none of them evaluated
        return math.inf, math.inf, 0
    # samples evenly spaced along the diagonal, t = (m + t_shift)/t_den, as degenerate intervals
    best = math.inf
    for m in range(1, samples + 1):
        t = div_rn(float(m + t_shift), float(t_den))
        for d in range(n):
            x[_u(d)] = _diagonal(lo[_u(d)], hi[_u(d)], t)
        slo, shi = interval_partial(x, x, p, win1, win2, base_lo[_u(m)], base_hi[_u(m)])
        if shi < best:
            best = shi
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
            x[_u(d)] = _inner_point(lo[_u(d)], hi[_u(d)])
        mlo, mhi = interval(x, x, p)
        for d in range(n):
            dlo, dhi = isub(lo[_u(d)], hi[_u(d)], x[_u(d)], x[_u(d)])
            tlo, thi = imul(glo[_u(d)], ghi[_u(d)], dlo, dhi)
            mlo, mhi = iadd(mlo, mhi, tlo, thi)
        if mlo > flo:  # False for NaN
            flo = mlo
        if flo > min(gub_prev, best):
            return math.inf, best, 1
    for d in range(n):
        # the first-order condition cannot hold inside: f is monotone in x_d and
        # the subregion does not touch the domain's edge where the minimum could sit
        if glo[_u(d)] > 0.0 and lo[_u(d)] != dom_lo[_u(d)]:
            return math.inf, best, 1
        if ghi[_u(d)] < 0.0 and hi[_u(d)] != dom_hi[_u(d)]:
            return math.inf, best, 1
    return flo, best, 1


@device
def _part_coord(sel_lo, sel_hi, samp, m, d, cut, l, parts, t_shift, t_den):
    """Coordinate d in row m (0: the box, m: sample m) of a subregion in whose part l it lies (if cut):
    the operations of ``evaluate_split``, so the same bits."""
    if not cut:
        if m == 0:
            return sel_lo[_u(d)], sel_hi[_u(d)]
        return samp[_u(m), _u(d)], samp[_u(m), _u(d)]
    lo, hi = _part(sel_lo[_u(d)], sel_hi[_u(d)], l, parts)
    if m == 0:
        return lo, hi
    v = _diagonal(lo, hi, div_rn(float(m + t_shift), float(t_den)))
    return v, v


@device
def _find_entry(tab, idx):
    # the entry holding table index idx (entries lie in order; inline ones hold none)
    e = 0
    while tab[_u(e), 0] < 0 or idx >= tab[_u(e), 0] + tab[_u(e), 1]:
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
        rel = idx - tab[_u(e), 0]
    else:
        m = 0
        idx = j - rows * vtotal
        e = _find_entry(dtab, idx)
        cls, ca, cb = _deriv_entry(e, special)
        rel = idx - dtab[_u(e), 0]
    lb = 0
    # ca >= 0: an entry with a table (found above) has its coordinates (layout.cut_layout)
    if cb >= 0 and slot[_u(cb)] >= 0:
        lb = rel % parts
        rel = rel // parts
    a_lo, a_hi = _part_coord(sel_lo, sel_hi, samp, m, ca, slot[_u(ca)] >= 0, rel, parts, t_shift, t_den)
    b_lo = 0.0
    b_hi = 0.0
    if cb >= 0:
        b_lo, b_hi = _part_coord(sel_lo, sel_hi, samp, m, cb, slot[_u(cb)] >= 0, lb, parts, t_shift, t_den)
    if j < rows * vtotal:
        entry_terms(cls, ca, a_lo, a_hi, b_lo, b_hi, p, n, VTlo[_u(m), _u(idx)], VThi[_u(m), _u(idx)])
    else:
        deriv_terms(cls, ca, a_lo, a_hi, b_lo, b_hi, p, n, DTlo[_u(idx)], DThi[_u(idx)])


@device
def _value_split(m, cc, clo, chi, ulo, uhi, slot, p, win1, win2, base_lo, base_hi, tab, VTlo, VThi,
                 tlo, thi, umeets, uin):
    # the spike test of ``interval``: uncut coordinates per iteration (umeets, uin), cut ones here
    if HAS_SPIKE:
        meets = umeets != 0
        inside = uin != 0
        for j in range(win1.shape[0]):
            if chi[_u(j)] < SPIKE_LO or clo[_u(j)] > SPIKE_HI:
                meets = False
            if clo[_u(j)] < SPIKE_LO or chi[_u(j)] > SPIKE_HI:
                inside = False
        if meets:
            if inside:
                return SPIKE_VALUE, SPIKE_VALUE
            flo, fhi = value_split_raw(m, cc, clo, chi, ulo, uhi, slot, p, win1, win2, base_lo, base_hi,
                                       tab, VTlo, VThi, tlo, thi)
            return ihull(flo, fhi, SPIKE_VALUE, SPIKE_VALUE)
    return value_split_raw(m, cc, clo, chi, ulo, uhi, slot, p, win1, win2, base_lo, base_hi,
                           tab, VTlo, VThi, tlo, thi)


@device
def evaluate_split(r, sel_lo, sel_hi, samp, dom_lo, dom_hi, dims, slot, parts, samples, t_shift, t_den,
                   gub_prev, p, win1, win2, base_lo, base_hi, uflags, special, Rlo, Rhi,
                   Kclo, Kchi, cfree, tab, VTlo, VThi, dtab, DTlo, DThi,
                   clo, chi, xs, lp, cc, tlo, thi, Clo, Chi, wlo, whi):
    """:func:`evaluate_split_mv` with the natural form alone (inclusion "natural", the paper's); the
    derivative tables stand in for the mean value form's, which it never reads."""
    return evaluate_split_mv(r, sel_lo, sel_hi, samp, dom_lo, dom_hi, dims, slot, parts, samples, t_shift,
                             t_den, gub_prev, p, win1, win2, base_lo, base_hi, uflags, special, Rlo, Rhi,
                             Kclo, Kchi, cfree, tab, VTlo, VThi, dtab, DTlo, DThi, clo, chi, xs, lp, cc, tlo, thi,
                             Clo, Chi, wlo, whi, np.int64(0), 0.0, 0.0, DTlo, DThi)


@device
def _mean_value_bound(flo, c_lo, c_hi, u_lo, u_hi, clo, chi, lp, Gclo, Gchi, mstar, t_shift, t_den):
    """The lower bound of inclusion "best" in the split sweep: ``flo`` (the natural form's) or, where
    higher and finite, that of the mean value form f(c) + sum_d G_d (X_d - c_d) (paper 001, Sec. 2.2).

    c is the subregion's sample ``mstar`` (a point of it, f(c) its sample's enclosure ``c_lo, c_hi``:
    no evaluation more), the uncut coordinates' sum ``u`` is the same in every subregion (one
    interval an iteration: the gradient over the selected box), and a cut coordinate at position j
    in its part l takes G from ``Gclo/Gchi[j, l]``, the gradient over the box with x_j in part l
    (which holds the subregion).  Outward rounded as the host's ``interval_mv``; any G enclosing f's
    (Clarke) gradient over the subregion and any c in it make a valid form, so these do."""
    t = div_rn(float(mstar + t_shift), float(t_den))
    mlo, mhi = iadd(c_lo, c_hi, u_lo, u_hi)
    for j in range(clo.shape[0]):
        x = _diagonal(clo[_u(j)], chi[_u(j)], t)   # the sample's coordinate, as evaluate_split_mv made it
        dlo, dhi = isub(clo[_u(j)], chi[_u(j)], x, x)
        glo, ghi = imul(Gclo[_u(j), _u(lp[_u(j)])], Gchi[_u(j), _u(lp[_u(j)])], dlo, dhi)
        mlo, mhi = iadd(mlo, mhi, glo, ghi)
    # False for NaN (a gradient or a value without bound); an infinite one proves nothing
    if mlo > flo and mlo < math.inf:
        return mlo
    return flo


@device
def evaluate_split_mv(r, sel_lo, sel_hi, samp, dom_lo, dom_hi, dims, slot, parts, samples, t_shift, t_den,
                      gub_prev, p, win1, win2, base_lo, base_hi, uflags, special, Rlo, Rhi,
                      Kclo, Kchi, cfree, tab, VTlo, VThi, dtab, DTlo, DThi,
                      clo, chi, xs, lp, cc, tlo, thi, Clo, Chi, wlo, whi, mstar, u_lo, u_hi, Gclo, Gchi):
    """``evaluate_subregion`` in O(s^2 + len(Kclo[0])) work, whatever n is.

    The subregion's cut coordinates live in ``clo/chi`` (position ``slot[d]``) and their parts in
    ``lp``; every other coordinate is read from the selected region (``sel_lo/sel_hi``) or from its
    own samples (``samp[m]``), which a subregion's samples share off the cut coordinates.  The terms
    of the windows touching a cut coordinate are read from the iteration's cut tables (``tab``,
    ``dtab``: :func:`cut_layout`, :func:`fill_cut_tables`), at the subregion's index in each value
    entry (``cc``: :func:`entry_offsets`, ``3 SMAX + 2`` long, once a subregion for all its rows).
    The gradient test runs in two parts:
    exactly at the special coordinates (``gradient_split_raw``), and for the others as
    g_d = sum_a C_a K_{a,d} over the candidates the host listed (all of them,
    or for one aggregate the four that decide the test: docs/solver-scaling.md).  With ``mstar`` > 0
    (inclusion "best", the device loop) the lower bound is also the mean value form's
    (:func:`_mean_value_bound`: centred at sample ``mstar``, ``u`` and ``G`` the iteration's).
    """
    ncut = dims.shape[0]
    # r's digits in base parts, the first cut coordinate the fastest.  With parts a power of two (the
    # paper's 4) by mask and shift: a 64-bit division and remainder are software calls on a GPU (some
    # 70 instructions each, 2 s of them a subregion); the same integers either way (r >= 0)
    shift = _log2_exact(parts)
    pow2 = shift >= 0
    q = r
    for j in range(ncut):
        d = dims[_u(j)]
        if pow2:
            l = q & (parts - 1)
            q = q >> shift
        else:
            l = q % parts
            q = q // parts
        sj = slot[_u(d)]  # >= 0: d is cut
        lp[_u(sj)] = l
        clo[_u(sj)], chi[_u(sj)] = _part(sel_lo[_u(d)], sel_hi[_u(d)], l, parts)
    inline = entry_offsets(lp, slot, sel_lo.shape[0], win1, win2, tab, parts, cc)
    # the box first: where its bound exceeds GUB the samples cannot matter (the module's note)
    # (the row as an int64, not the literal 0, for which numba would compile _value_split again)
    flo, fhi = _value_split(np.int64(0), cc, clo, chi, sel_lo, sel_hi, slot, p, win1, win2, base_lo[0],
                            base_hi[0], tab, VTlo, VThi, tlo, thi, uflags[0, 0], uflags[0, 1])
    if flo > gub_prev:
        return math.inf, math.inf, 0
    best = math.inf
    c_lo = math.nan
    c_hi = math.nan
    for m in range(1, samples + 1):
        t = div_rn(float(m + t_shift), float(t_den))
        if HAS_SPIKE or SPLIT_READS_ENDS or inline > 0:
            # the sample's cut coordinates, read only by an entry evaluated in place, the spike test
            # or x_first/x_last in the outer expression: with every entry tabulated, none of them
            for j in range(ncut):
                xs[_u(j)] = _diagonal(clo[_u(j)], chi[_u(j)], t)
        slo, shi = _value_split(m, cc, xs, xs, samp[_u(m)], samp[_u(m)], slot, p, win1, win2, base_lo[_u(m)],
                                base_hi[_u(m)], tab, VTlo, VThi, tlo, thi, uflags[_u(m), 0], uflags[_u(m), 1])
        if m == mstar:   # the mean value form's centre
            c_lo = slo
            c_hi = shi
        if shi < best:
            best = shi
    if flo != flo:
        # empty enclosure (f undefined on the whole subregion): kept undecided, with no gradient
        # test (a gradient where f has no value proves nothing); Search._check_defined reports it
        return -math.inf, best, 0
    if flo > min(gub_prev, best):
        return math.inf, best, 0
    if HAS_SPIKE:
        meets = uflags[0, 0] != 0
        for j in range(ncut):
            if chi[_u(j)] < SPIKE_LO or clo[_u(j)] > SPIKE_HI:
                meets = False
        if meets:  # no derivative to bound (interval_gradient returns (-inf, inf) there)
            return flo, best, 1
    if mstar > 0:
        flo = _mean_value_bound(flo, c_lo, c_hi, u_lo, u_hi, clo, chi, lp, Gclo, Gchi, mstar, t_shift, t_den)
        if flo > min(gub_prev, best):
            return math.inf, best, 1
    if gradient_split_raw(cc, lp, parts, clo, chi, sel_lo, sel_hi, slot, p, win1, win2, base_lo[0], base_hi[0], tab,
                          VTlo, VThi, tlo, thi, special, Rlo, Rhi, dom_lo, dom_hi, Clo, Chi, wlo, whi,
                          dtab, DTlo, DThi) != 0:
        return math.inf, best, 1
    for c in range(Kclo.shape[1]):
        g_lo = 0.0
        g_hi = 0.0
        for a in range(N_AGGREGATES):
            c_lo, c_hi = imul(Clo[_u(a)], Chi[_u(a)], Kclo[_u(a), _u(c)], Kchi[_u(a), _u(c)])
            g_lo, g_hi = iadd(g_lo, g_hi, c_lo, c_hi)
        if g_lo > 0.0 and cfree[0, _u(c)] != 0:
            return math.inf, best, 1
        if g_hi < 0.0 and cfree[1, _u(c)] != 0:
            return math.inf, best, 1
    return flo, best, 1
