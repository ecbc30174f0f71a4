"""The GPU driver of the batched L-BFGS-B: spliced after :mod:`gpubench.kernels.lbfgsb`."""
from numba import cuda as _lbcuda

if __name__ == "gpubench.kernels.lbfgsb_gpu":  # imported as itself: stand-ins
    from gpubench.kernels.lbfgsb import _lb_solve_one
    from gpubench.kernels.stand_in import kernel


@kernel
def lbfgsb_starts(X0, lo, hi, p, sign, m, pgtol, factr, maxiter, maxfun, approx, project, cap, live,
                  V, SYb, SM, SV, XOUT, RES):
    # thread t advances start live[t] by at most cap iterations: the host passes only the starts
    # still running, in order, so a warp holds running starts only
    t = _lbcuda.grid(1)
    if t < live.shape[0]:
        r = live[t]
        # start index last in the work arrays: neighbouring threads read neighbouring words
        _lb_solve_one(X0[r], lo, hi, p, sign, m, pgtol, factr, maxiter, maxfun, approx, project, cap,
                      V[:, :, r], SYb[:, :, :, r], SM[:, :, :, r], SV[:, :, r], XOUT[r], RES[r])
