"""subdomain-bnb's enclosures of a node's N subdomains on the GPU: one thread a subdomain (paper 001,
Sec. 3.1, Steps 1-2), which decodes its box from its index (:func:`.cut._sub_box`) and encloses it
by :func:`.subdomain._sub_eval`.  Spliced by :mod:`gpubench.methods.subdomain_bounds`; ``cache=True``
in the generated file, so the next process loads it (issue 25, item 1)."""
from numba import cuda as _cu

if __name__ == "gpubench.methods.solver.spliced.subdomain_gpu":  # imported as itself: stand-in forms
    from gpubench.methods.solver.spliced.stand_in_cuda import _sub_box, _sub_eval


@_cu.jit(cache=True)
def sub_bounds_kernel(lo, hi, counts, p, form, out_lo, out_hi, BLO, BHI, C, GLO, GHI, WLO, WHI):
    r = _cu.grid(1)
    if r < out_lo.shape[0]:
        _sub_box(lo, hi, counts, r, BLO[r], BHI[r])
        a, b = _sub_eval(form, BLO[r], BHI[r], p, C[r], GLO[r], GHI[r], WLO[r], WHI[r])
        out_lo[r] = a
        out_hi[r] = b
