"""The sweeps on the CPU: numba ``prange`` over chunks of subregions, every core.

The same ``evaluate_subregion`` and ``evaluate_split`` as the GPU's (:mod:`.subregion`), so a
search on the CPU is the GPU's twin, subregion for subregion.
"""
import numpy as np
from numba import njit as _njit, prange as _prange

if __name__ == "gpubench.methods.solver.spliced.cpu":  # imported as itself: stand-in forms
    from gpubench.methods.solver.spliced.stand_in_cpu import (
        CUT_COLS, DERIV_COLS, N_AGGREGATES, N_PRODUCTS, evaluate_split, evaluate_subregion, fill_cut_tables)

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
        cc = np.empty(ncut + win2.shape[0] + 2, dtype=np.int64)
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
                                       clo, chi, xs, lp, cc, tlo, thi, Clo, Chi, wlo, whi)
            out_lb[r] = lb
            out_ub[r] = ub
            out_grad[r] = g
