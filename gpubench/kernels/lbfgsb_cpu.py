"""The CPU driver of the batched L-BFGS-B: spliced after :mod:`gpubench.kernels.lbfgsb`."""
from numba import njit as _lbnjit, prange as _lbprange

if __name__ == "gpubench.kernels.lbfgsb_cpu":  # imported as itself: stand-ins
    from gpubench.kernels.lbfgsb import _lb_solve_one


# starts are independent: numba's threads share them out (NUMBA_NUM_THREADS); ``live`` lists the
# starts still running, each advanced by at most ``cap`` iterations (its state stays in the arrays)
@_lbnjit(cache=True, error_model="numpy", parallel=True)
def lbfgsb_starts(X0, lo, hi, p, sign, m, pgtol, factr, maxiter, maxfun, approx, project, cap, live,
                  V, SYb, SM, SV, XOUT, RES):
    for t in _lbprange(live.shape[0]):
        r = live[t]
        _lb_solve_one(X0[r], lo, hi, p, sign, m, pgtol, factr, maxiter, maxfun, approx, project, cap,
                      V[r], SYb[r], SM[r], SV[r], XOUT[r], RES[r])
