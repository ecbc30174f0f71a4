"""The sums over the n-vectors of :mod:`gpubench.kernels.lbfgsb_fused`'s passes: a few a thread in registers
(lf_pair: s.y, y.y, s.s, YS s and the next Cauchy point's YS d, y.d, s.d, d.d; lf_move: d.d), or many a tile at a time (lf_reduced: YS r and the free
rows' gram).

**In registers** (``reg_fold``): each thread sums its elements' products in a local array whose loops run to a
constant (``NREG_PAIR``, ``NREG_MOVE``: a slot past the history skipped), so they unroll, every index is a
constant and the array lives in registers; at the pass's end each warp folds them by shuffles, thread q adds the
warps' sum q to ``st`` (one atomic a sum and block).

**A tile at a time** (``tile_start``, ``tile_pass``, ``tile_fold``): a block puts one element of each of its
threads into a tile in shared memory (rows of YS and r; zeros where an element does not count).  The products
are entries (a, b) of the tile's rows' gram, taken in blocks of 4 x 4 entries: rows a0..a0+3 against rows
b0..b0+3 (``block``; entries the pass does not need are summed and dropped).  The block's threads form groups
of ``gw`` lanes (a warp, or half of one; one thread under the simulator), a group a block of entries, and each
lane sums its share of the tile's elements into 16 partial sums kept in registers across the tiles: eight
shared-memory loads for 16 products an element.  At the pass's end a group's partials are folded by a
butterfly of shuffles and lane 0 adds each needed entry to ``st`` (``dst``: one atomic an entry and block).
A group's lanes start at their own columns, so that a warp reads 32 consecutive columns at once (rows are
2 KB apart: the same banks).  Where a block has fewer groups than blocks of entries (fewer than 16 threads:
the simulator's 8), a group takes several, one lane each, and adds each tile's sums to ``st`` at once.

Why (ncu at 4e6, results/gpu/solve-5956f77/ to solve-c7ece94/, docs/lbfgsb.md): a thread keeping a pass's
products in a local array indexed by the run-time m, updated at every element, moved 701 MB in lf_pair where
its vectors are 448 MB; a warp a product with a shuffle fold every tile made lf_reduced wait (452 us for
175 MB); lanes keeping partial sums of single products in local arrays, or a thread a product over the whole
tile, still loaded two shared operands a product and element and took 337-428 us.  Registers are the right
place for a pass of few sums (lf_pair's 19: 134 us at 3.4 TB/s, capped at 64 registers; its 38 since b21e9a0
under 128); lf_reduced's 65 to 152
sums are too many for one thread.
"""
from numba import config, cuda, float64

from gpubench.kernels.lbfgsb_fused_layout import (
    NTILE, U_SY, U_YSS, U_YSD, U_YD, U_SD, U_DD, C_DD, V1_R, packed)

_SIM = bool(config.ENABLE_CUDASIM)
MIN_THREADS = 8                  # the fewest threads a block of these passes may have
PAIR, MOVE = 0, 1                # the register passes (where each sum goes)
# lf_pair's register sums: s.y, y.y, s.s, YS s, then at the trial YS d, y.d, s.d, d.d; sum q goes to st[U_SY + q],
# so their places are the layout's slots less U_SY
P_YSS, P_YSD, P_YD, P_SD, P_DD = (u - U_SY for u in (U_YSS, U_YSD, U_YD, U_SD, U_DD))
NREG_PAIR = P_DD + 1
NREG_MOVE = 1                    # lf_move's (an empty history): d.d


@cuda.jit(device=True)
def nblocks(m):
    """How many 4 x 4 blocks of entries the pass needs: lf_reduced's upper triangle of rows 0..2m (YS, r)."""
    p = (2 * m + 1 + 3) // 4
    return p * (p + 1) // 2


@cuda.jit(device=True)
def block(m, blk):
    """``(a0, b0)``: the first rows of block ``blk``."""
    p = (2 * m + 1 + 3) // 4
    i = 0
    while blk >= p - i:            # row i of the upper triangle holds p - i blocks
        blk -= p - i
        i += 1
    return 4 * i, 4 * (i + blk)


@cuda.jit(device=True)
def dst(m, a, b):
    """Where entry (a, b) goes in ``st``, -1 where the pass does not need it (lf_reduced's rows: YS
    0..2m-1, r 2m; YS r, then the gram's packed upper triangle row by row)."""
    m2 = 2 * m
    if b == m2 and a < m2:
        return V1_R + a
    if a <= b and b < m2:
        return V1_R + m2 + packed(a, b, m2)
    return -1


@cuda.jit(device=True)
def reg_dst(kind, m, q):
    """Where register sum q goes in ``st``, -1 for a slot past the history: lf_pair's s.y, y.y, s.s, YS s,
    YS d, y.d, s.d, d.d (contiguous from U_SY); lf_move's d.d."""
    if kind == PAIR:
        if (q >= P_YSS + 2 * m and q < P_YSD) or (q >= P_YSD + 2 * m and q < P_YD):
            return -1
        return U_SY + q
    return C_DD


@cuda.jit(device=True)
def _fold(v, width, wl):
    """v summed over the ``width`` lanes of its group (a butterfly of shuffles; groups aligned to width,
    a power of two), every lane getting the sum; ``wl`` the lanes the warp has."""
    off = width // 2
    while off > 0:
        v += _lane_swap(v, off, wl)
        off //= 2
    return v


@cuda.jit(device=True)
def reg_fold(kind, m, acc, nq, sh2, st):
    """The block's sums of every thread's ``acc[0..nq)`` added to ``st`` (one atomic a sum and block): each
    warp's folded by shuffles into ``sh2[warp, q]``, then thread q adds the warps' in order; under the
    simulator (no shuffles) thread q adds every thread's, in order, from ``sh2`` read as one flat array.
    ``nq`` a constant: the loops unroll and ``acc`` stays in registers."""
    t = cuda.threadIdx.x
    nt = cuda.blockDim.x
    if _SIM:
        w = sh2.shape[1]
        cap = sh2.shape[0] * w // nt            # sums a round of the flat array holds
        q0 = 0
        while q0 < nq:
            q1 = min(nq, q0 + cap)
            for q in range(q0, q1):
                f = (q - q0) * nt + t
                sh2[f // w, f % w] = acc[q]
            cuda.syncthreads()
            q = q0 + t
            while q < q1:
                d = reg_dst(kind, m, q)
                if d >= 0:
                    s = 0.0
                    for u in range(nt):
                        f = (q - q0) * nt + u
                        s += sh2[f // w, f % w]
                    cuda.atomic.add(st, d, s)
                q += nt
            cuda.syncthreads()
            q0 = q1
        return
    wl = nt if nt < 32 else 32
    w = t // 32
    lane = t - 32 * w
    for q in range(nq):
        v = _fold(acc[q], wl, wl)
        if lane == 0:
            sh2[w, q] = v
    cuda.syncthreads()
    q = t
    while q < nq:                   # a block of fewer threads than sums: a thread several
        d = reg_dst(kind, m, q)
        if d >= 0:
            s = 0.0
            for u in range((nt + 31) // 32):
                s += sh2[u, q]
            cuda.atomic.add(st, d, s)
        q += nt
    cuda.syncthreads()


@cuda.jit(device=True)
def groups(nb):
    """``(gw, ng, grp, lane, rounds)`` of this thread for ``nb`` blocks: a warp a group where a block
    has 8 warps for them, else groups of half a warp (16 groups at 256 threads: the widest pass has 15
    blocks); under the simulator, or with fewer threads than that, one thread a group."""
    nt = cuda.blockDim.x
    ng = 8 if nb <= 8 else 16
    if _SIM or nt < ng:
        ng = nt
    gw = nt // ng
    t = cuda.threadIdx.x
    grp = t // gw
    return gw, ng, grp, t - grp * gw, (nb + ng - 1) // ng


@cuda.jit(device=True)
def _row(r):
    # a block's rows past the tile's end read the last row (their entries are dropped)
    return r if r < NTILE else NTILE - 1


@cuda.jit(device=True)
def tile_block(sh2, acc, a0, b0, grp, lane, gw):
    """acc[4 i + j] += the group's lane's share of sum_e tile[a0 + i, e] tile[b0 + j, e].  The caller
    filled the tile and synchronised the block, and synchronises it again before refilling."""
    nt = cuda.blockDim.x
    x = cuda.local.array(4, float64)
    y = cuda.local.array(4, float64)
    e = grp * gw + lane
    for _ in range(nt // gw):
        e &= nt - 1
        for i in range(4):
            x[i] = sh2[_row(a0 + i), e]
            y[i] = sh2[_row(b0 + i), e]
        for i in range(4):
            for j in range(4):
                acc[4 * i + j] += x[i] * y[j]
        e += gw


@cuda.jit(device=True)
def _lane_swap(v, off, wl):
    """The value of lane (lane xor off) of the same warp (shfl_xor) among its first ``wl`` lanes (a block
    of fewer than 32 threads fills part of its warp)."""
    mask = 0xFFFFFFFF if wl >= 32 else (1 << wl) - 1
    return cuda.shfl_xor_sync(mask, v, off)


@cuda.jit(device=True)
def tile_pass(m, sh2, acc, st, grp, ng, lane, gw, rounds, a0, b0):
    """One tile's products: with one block of entries a group (``rounds`` 1), into the lanes' partials
    ``acc``; else (one thread a group) each of the thread's blocks summed over the tile and added to
    ``st`` at once."""
    if rounds == 1:
        if a0 >= 0:
            tile_block(sh2, acc, a0, b0, grp, lane, gw)
        return
    nb = nblocks(m)
    for c in range(rounds):
        blk = grp + c * ng
        if blk < nb:
            for k in range(16):
                acc[k] = 0.0
            a, b = block(m, blk)
            tile_block(sh2, acc, a, b, grp, lane, gw)
            for k in range(16):
                d = dst(m, a + k // 4, b + k % 4)
                if d >= 0:
                    cuda.atomic.add(st, d, acc[k])


@cuda.jit(device=True)
def tile_fold(m, acc, st, lane, gw, rounds, a0, b0):
    """At the pass's end (``rounds`` 1): the group's partials folded across its lanes, and lane 0 adds
    each needed entry to ``st``."""
    if rounds != 1:
        return
    wl = cuda.blockDim.x if cuda.blockDim.x < 32 else 32
    for k in range(16):
        s = acc[k] if _SIM else _fold(acc[k], gw, wl)
        if lane == 0 and a0 >= 0:
            d = dst(m, a0 + k // 4, b0 + k % 4)
            if d >= 0:
                cuda.atomic.add(st, d, s)


@cuda.jit(device=True)
def tile_start(m, acc, grp, ng, rounds):
    """acc cleared; ``(a0, b0)`` of the group's one block (-1, -1 where it has none, or several)."""
    for k in range(16):
        acc[k] = 0.0
    if rounds == 1 and grp < nblocks(m):
        return block(m, grp)
    return -1, -1
