"""Batched Cholesky for small matrices (n <= 32): a group of lanes of one warp per matrix.

Paper 003 (Kim, Pacaud, Kim & Anitescu, ExaTron, Section 4.3, Table 1) factors each matrix
with a thread block.  For n <= 32 a matrix fits one warp, so here a matrix is a group of
``W`` lanes (``W`` the smallest power of two >= n: one lane for n = 1, a whole warp for
n = 17..32) and a block holds several matrices, loaded and stored by the whole block from
consecutive rows of ``A`` (coalesced).  Lane r owns row r: right-looking, column k is
scaled by its own lane's entry and the pivot, then each lane updates its own row of the
trailing matrix; inside a factorization only the warp synchronises (``syncwarp``), never
the block.  Matrices are column-major rows of ``A`` (batch, n*n), as
:mod:`gpubench.kernels.tron_gpu`'s ``cholesky``; the lower triangle is overwritten with L,
the upper triangle is left as it was.  Numba's simulator has no ``syncwarp``: there the
block barrier stands in (every thread runs the same number of steps).
"""
import math

from numba import config, cuda, float64

from gpubench.errors import InputError

_SIM = bool(config.ENABLE_CUDASIM)
_FULL = 0xFFFFFFFF


@cuda.jit(device=True)
def _warp_sync():
    if _SIM:
        cuda.syncthreads()
    else:
        cuda.syncwarp(_FULL)


@cuda.jit(cache=True)
def cholesky_groups(A, n, W, per_block, OK):
    """A[b] (n*n, column-major) <- its lower Cholesky factor; OK[b] = 0 where a pivot is not
    positive (then that matrix's factor is meaningless, the others are unaffected)."""
    sh = cuda.shared.array(0, float64)
    tid = cuda.threadIdx.x
    nt = cuda.blockDim.x
    nn = n * n
    b0 = cuda.blockIdx.x * per_block
    count = min(per_block, A.shape[0] - b0)
    for q in range(tid, count * nn, nt):
        mq = q // nn
        sh[q] = A[b0 + mq, q - mq * nn]
    cuda.syncthreads()
    g = tid // W
    r = tid - g * W
    off = g * nn
    mine = g < count
    valid = mine and r < n
    bad = False
    for k in range(n):
        d = 1.0
        if mine:
            d = sh[off + k + k * n]
        if not (d > 0.0) or not math.isfinite(d):
            bad = True
            d = 1.0
        s = math.sqrt(d)
        _warp_sync()  # every lane has read the pivot before its own lane overwrites it
        lrk = 0.0
        if valid and r >= k:
            if r == k:
                sh[off + k + k * n] = s
            else:
                lrk = sh[off + r + k * n] / s
                sh[off + r + k * n] = lrk
        _warp_sync()
        if valid and r > k:
            for c in range(k + 1, r + 1):
                sh[off + r + c * n] -= lrk * sh[off + c + k * n]
        _warp_sync()
    if mine and r == 0:
        OK[b0 + g] = 0 if bad else 1
    cuda.syncthreads()
    for q in range(tid, count * nn, nt):
        mq = q // nn
        A[b0 + mq, q - mq * nn] = sh[q]


def group_width(n):
    """Lanes per matrix: the smallest power of two >= n (n <= 32)."""
    W = 1
    while W < n:
        W *= 2
    return W


def group_launch(n, nb, threads=256, shared_bytes=48 * 1024):
    """(grid, block, matrices per block, dynamic shared bytes) of :func:`cholesky_groups`:
    ``threads`` per block at most, whole warps, as many matrices as shared memory holds."""
    if not 1 <= n <= 32:
        raise InputError(f"cholesky variant warp: n must be 1..32 (one warp per matrix), not {n}")
    W = group_width(n)
    per_warp = 32 // W
    per_block = max(1, min(threads // W, shared_bytes // (8 * n * n)))
    if per_block >= per_warp:
        per_block = per_block // per_warp * per_warp
    per_block = min(per_block, max(1, nb))
    block = -(-per_block * W // 32) * 32
    return -(-nb // per_block), block, per_block, 8 * per_block * n * n
