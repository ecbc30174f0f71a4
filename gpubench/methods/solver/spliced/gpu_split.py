"""The split sweep on the GPU (the host loop's): the cut tables, then one thread a subregion.

``SMAX``, the per-thread arrays' size (a power of two >= s), is set per variant when spliced
(:func:`gpubench.methods.solver.kernels.smax_for`).
"""
from numba import cuda as _cuda, float64 as _float64, int64 as _int64

if __name__ == "gpubench.methods.solver.spliced.gpu_split":  # imported as itself: stand-in forms
    from gpubench.methods.solver.spliced.stand_in_cuda import (
        CUT_COLS, DERIV_COLS, N_AGGREGATES, N_PRODUCTS, evaluate_split, fill_cut_tables)

SMAX = 16
NAGG1 = N_AGGREGATES if N_AGGREGATES > 0 else 1
SCRATCH = SMAX * (N_PRODUCTS if N_PRODUCTS > 0 else 1)
TCOLS = max(CUT_COLS, DERIV_COLS)
CSLOTS = 3 * SMAX + 2  # value entries: the one- and two-coordinate windows of s cut ones, x_first, x_last


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
        cc = _cuda.local.array(CSLOTS, _int64)
        tlo = _cuda.local.array(TCOLS, _float64)
        thi = _cuda.local.array(TCOLS, _float64)
        Clo = _cuda.local.array(NAGG1, _float64)
        Chi = _cuda.local.array(NAGG1, _float64)
        wlo = _cuda.local.array(SCRATCH, _float64)
        whi = _cuda.local.array(SCRATCH, _float64)
        lb, ub, g = evaluate_split(r, sel_lo, sel_hi, samp, dom_lo, dom_hi, dims, slot, parts, samples,
                                   t_shift, t_den, gub_prev, p, win1, win2, base_lo, base_hi, uflags,
                                   special, Rlo, Rhi, Kclo, Kchi, cfree, tab, VTlo, VThi, dtab, DTlo, DThi,
                                   clo[:ncut], chi[:ncut], xs[:ncut], lp[:ncut], cc, tlo, thi, Clo, Chi, wlo, whi)
        out_lb[r] = lb
        out_ub[r] = ub
        out_grad[r] = g
