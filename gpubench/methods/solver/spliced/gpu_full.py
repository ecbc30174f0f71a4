"""The full sweep on the GPU: one thread a subregion, every coordinate copied into it.

The reference the split sweep is tested against, and the sweep of inclusion "best".  ``NMAX``, the
per-thread arrays' size, is set per variant when spliced (:func:`gpubench.methods.solver.kernels.nmax_for`).
"""
from numba import cuda as _cuda, float64 as _float64

if __name__ == "gpubench.methods.solver.spliced.gpu_full":  # imported as itself: stand-in forms
    from gpubench.methods.solver.spliced.stand_in_cuda import evaluate_subregion

NMAX = 128


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
