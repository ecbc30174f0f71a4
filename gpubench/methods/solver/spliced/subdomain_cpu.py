"""subdomain-bnb's enclosures of a node's N subdomains on the CPU: serial (paper 001's baseline) or
in parallel, each subdomain decoded from its index (:func:`.cut._sub_box`) and enclosed by
:func:`.subdomain._sub_eval`.  Spliced by :mod:`gpubench.methods.subdomain_bounds`."""
from numba import njit as _njit, prange as _prange

if __name__ == "gpubench.methods.solver.spliced.subdomain_cpu":  # imported as itself: stand-in forms
    from gpubench.methods.solver.spliced.stand_in_cpu import _sub_box, _sub_eval


@_njit(cache=True, error_model="numpy")
def sub_bounds_serial(lo, hi, counts, p, form, out_lo, out_hi, BLO, BHI, C, GLO, GHI, WLO, WHI):
    for r in range(out_lo.shape[0]):
        _sub_box(lo, hi, counts, r, BLO[r], BHI[r])
        out_lo[r], out_hi[r] = _sub_eval(form, BLO[r], BHI[r], p, C[r], GLO[r], GHI[r], WLO[r], WHI[r])


@_njit(cache=True, parallel=True, error_model="numpy")
def sub_bounds_parallel(lo, hi, counts, p, form, out_lo, out_hi, BLO, BHI, C, GLO, GHI, WLO, WHI):
    for r in _prange(out_lo.shape[0]):
        _sub_box(lo, hi, counts, r, BLO[r], BHI[r])
        out_lo[r], out_hi[r] = _sub_eval(form, BLO[r], BHI[r], p, C[r], GLO[r], GHI[r], WLO[r], WHI[r])
