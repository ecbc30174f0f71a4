"""Cut points and sub-boxes: how a box is divided, on every backend and in every method that divides.

The j-th of parts+1 cut points of [lo, hi] (:func:`gpubench.methods.solver.partition.cut` on the
host) is a function of the index alone, so neighbouring boxes share their common edge exactly and
the ends are lo and hi exactly; its operations round to nearest, so no FMA contraction changes it
between CPU and GPU.  The solver's subregions (:mod:`.subregion`, :mod:`.loop`) and the subdomains
of :mod:`gpubench.methods.subdomain_bnb` decode their boxes with :func:`_part`.
"""
if __name__ == "gpubench.methods.solver.spliced.cut":  # imported as itself: stand-in forms
    from gpubench.methods.solver.spliced.stand_in_cuda import add_rn, device, div_rn, mul_rn


@device
def _log2_exact(parts):
    # k where parts == 2 ** k, else -1: such parts take shifts and masks for the digits of a subregion's index
    # and a multiplication for its cut points, where a division is a software call on a GPU
    k = 0
    while (1 << k) < parts:
        k += 1
    return k if (1 << k) == parts else -1


@device
def _cut(lo, hi, j, parts):
    if j <= 0:
        return lo
    if j >= parts:
        return hi
    w = mul_rn(add_rn(hi, -lo), float(j))
    k = _log2_exact(parts)
    if k >= 0:
        # parts a power of two (the paper's 4): w / parts and w * (1 / parts) are one real number, 1 / parts
        # exact, so both round to the same double (the host's division's); a multiplication where a
        # division is a subroutine of some 40 instructions on a GPU, 2 s of them a subregion
        inv = 1.0
        for _ in range(k):
            inv = inv * 0.5
        q = mul_rn(w, inv)
    else:
        q = div_rn(w, float(parts))
    b = add_rn(lo, q)
    return min(max(b, lo), hi)


@device
def _part(lo, hi, l, parts):
    # part l of [lo, hi] cut into ``parts``: (lower, upper)
    return _cut(lo, hi, l, parts), _cut(lo, hi, l + 1, parts)


@device
def _sub_box(lo, hi, counts, r, blo, bhi):
    # sub-box r of the box [lo, hi] cut into counts[k] parts along every coordinate k: r's digits
    # in the mixed radix of counts, the first coordinate the fastest
    idx = r
    for k in range(lo.shape[0]):
        m = counts[k]
        j = idx % m
        idx = idx // m
        blo[k], bhi[k] = _part(lo[k], hi[k], j, m)
