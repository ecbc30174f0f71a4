"""Many dot products over the n-vectors summed a tile at a time (:mod:`gpubench.kernels.lbfgsb_fused`'s
memory update and Cauchy passes: YS s and S y; YS r with the free rows' gram).

A block puts one element of each of its threads into a tile in shared memory (a row per vector: rows of
YS, s, y or r; zeros where an element does not count); then thread q of the block sums product q (and
q + nt, q + 2 nt, ... where a block has fewer threads than products: the simulator's 8) over the whole
tile, into a partial sum it keeps in a register across the tiles.  At the pass's end each thread adds
its products to ``st`` (one atomic a product and block).  A thread starts its walk over the tile at its
own column, so that a warp's threads read 32 consecutive columns at once (no shared-memory bank
conflicts: the rows are 2 KB apart, the same banks).

Why: a thread that kept all of a pass's products in a local array updated at every element made local
memory traffic a pass's main cost (lf_pair at 4e6: 701 MB moved where its vectors are 448 MB), folding
every tile's products across a warp's lanes as they came (d0c0fa2's lf_reduced) made that pass wait on
shuffles (452 us at 4e6 for 175 MB), and lanes keeping partial sums of several products each in local
arrays moved more than either (9d8f4be; ncu in results/gpu/solve-5956f77/ and solve-9d8f4be/).

A product is coded a * 64 + b (the tile's rows a and b); its place in ``st`` is the pass's own rule.
"""
from numba import cuda

from gpubench.kernels.lbfgsb_fused_layout import NACC

MIN_THREADS = 8                  # the fewest threads a block of these passes may have
RMAX = -(-NACC // MIN_THREADS)   # products a thread takes at most (the widest pass in 8 threads)


@cuda.jit(device=True)
def own(nv):
    """How many of ``nv`` products this block's threads take each: thread t those numbered t + c nt."""
    nt = cuda.blockDim.x
    return (nv + nt - 1) // nt


@cuda.jit(device=True)
def _dot(sh2, code, t, nt):
    a = code // 64
    b = code - 64 * a
    s0 = 0.0
    s1 = 0.0                    # two chains of additions: fewer waits on the previous one
    j = 0
    while j < nt:               # nt: a power of two, at least 8
        e = (t + j) & (nt - 1)
        s0 += sh2[a, e] * sh2[b, e]
        e = (t + j + 1) & (nt - 1)
        s1 += sh2[a, e] * sh2[b, e]
        j += 2
    return s0 + s1


@cuda.jit(device=True)
def tile_add(sh2, s, code, ab, acc, rounds):
    """The thread's products over the tile: the first (``code``) returned as ``s`` plus its sum (kept in
    a register), the others (c >= 1, ``ab[c]``) added to ``acc[c]``.  The caller filled the tile and
    synchronised the block, and synchronises it again before refilling."""
    t = cuda.threadIdx.x
    nt = cuda.blockDim.x
    if code >= 0:
        s += _dot(sh2, code, t, nt)
    for c in range(1, rounds):
        if ab[c] >= 0:
            acc[c] += _dot(sh2, ab[c], t, nt)
    return s


@cuda.jit(device=True)
def tile_fold(st, s, dst, acc, rounds):
    """The thread's products added to st[dst[c]] (the first is ``s``; dst[c] < 0: no product)."""
    if rounds > 0 and dst[0] >= 0:
        cuda.atomic.add(st, dst[0], s)
    for c in range(1, rounds):
        if dst[c] >= 0:
            cuda.atomic.add(st, dst[c], acc[c])
