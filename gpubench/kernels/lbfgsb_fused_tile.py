"""Many dot products over the n-vectors summed a tile at a time (:mod:`gpubench.kernels.lbfgsb_fused`'s
memory update, move and Cauchy passes: YS s and S y, YS d, YS r with the free rows' gram).

A block puts one element of each of its threads into a tile in shared memory (a row per vector: rows of
YS, s, y, d or r; zeros where an element does not count), then its lanes take the products: the block's
threads form ``ng`` groups of ``gw`` lanes (a warp or part of one; one thread under the simulator), a
group takes products q = grp, grp + ng, ... (``rounds`` of them), and each of its lanes sums every gw-th
element of the tile for each of them into a partial sum of its own.  Only at the pass's end are a
group's partials folded by a butterfly of shuffles, and lane 0 adds the product to ``st`` (one atomic a
product and block).

Why: a thread that kept all of a pass's products in a local array updated at every element made local
memory traffic a pass's main cost (lf_pair at 4e6: 701 MB moved where its vectors are 448 MB), and folding
every tile's products across the lanes as they came (d0c0fa2's lf_reduced) made that pass wait on
shuffles: 452 us at 4e6 for 175 MB (ncu, results/gpu/solve-5956f77/).

A product is coded a * 64 + b (the tile's rows a and b); its place in ``st`` is the pass's own rule.
"""
from numba import config, cuda

from gpubench.kernels.lbfgsb_fused_layout import NACC

_SIM = bool(config.ENABLE_CUDASIM)
GROUPS = 8                       # at least this many groups a block (so that rounds <= RMAX)
RMAX = -(-NACC // GROUPS)        # products a group takes at most: the widest pass over 8 groups
MIN_THREADS = GROUPS             # blocks of fewer threads would give a group more than RMAX products


@cuda.jit(device=True)
def _lane_swap(v, off, wl):
    """The value of lane (lane xor off) of the same warp (shfl_xor) among its first ``wl`` lanes (a block
    of fewer than 32 threads fills part of its warp); never called under the simulator, where a group
    is one thread."""
    mask = 0xFFFFFFFF if wl >= 32 else (1 << wl) - 1
    return cuda.shfl_xor_sync(mask, v, off)


@cuda.jit(device=True)
def groups(nv):
    """``(gw, ng, grp, lane, rounds)`` of this thread for ``nv`` products: at least GROUPS groups of
    a power-of-two number of lanes (a warp at 256 threads; the caller checks that a block's threads
    are a power of two, at least MIN_THREADS), so that a group takes at most RMAX products."""
    nt = cuda.blockDim.x
    if _SIM:
        ng = nt
    else:
        ng = nt // 32
        if ng < GROUPS:
            ng = GROUPS if nt >= GROUPS else nt
    gw = nt // ng
    t = cuda.threadIdx.x
    grp = t // gw
    return gw, ng, grp, t - grp * gw, (nv + ng - 1) // ng


@cuda.jit(device=True)
def tile_add(sh2, acc, ab, rounds, lane, gw):
    """Every lane: its share of the tile's elements of each of its products into ``acc``.  The caller
    filled the tile and synchronised the block, and synchronises it again before refilling."""
    nt = cuda.blockDim.x
    for c in range(rounds):
        code = ab[c]
        if code >= 0:
            a = code // 64
            b = code - 64 * a
            s = 0.0
            e = lane
            while e < nt:
                s += sh2[a, e] * sh2[b, e]
                e += gw
            acc[c] += s


@cuda.jit(device=True)
def tile_fold(st, acc, dst, rounds, gw, lane):
    """Every lane: its group's partial sums folded (a butterfly of shuffles); lane 0 adds each product
    to st[dst[c]] (dst[c] < 0: no product)."""
    wl = cuda.blockDim.x if cuda.blockDim.x < 32 else 32
    for c in range(rounds):
        s = acc[c]
        if not _SIM:
            off = gw // 2
            while off > 0:
                s += _lane_swap(s, off, wl)
                off //= 2
        if lane == 0 and dst[c] >= 0:
            cuda.atomic.add(st, dst[c], s)
