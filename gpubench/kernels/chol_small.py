"""Batched Cholesky of small matrices with n a compile-time constant: the factor in registers.

Paper 003 (Kim, Pacaud, Kim & Anitescu, ExaTron, Section 4.3, Table 1) factors each matrix with
a thread block; :mod:`gpubench.kernels.chol_gpu` with a group of a warp's lanes, n a run-time
argument, the matrix in shared memory.  Here one kernel is compiled per n (a closure over the
constant ``N``, cached on disk: numba keys a closure's cache entry by the values it closes over),
so every loop over rows and columns has a constant trip count, is unrolled, and the factor's
entries, indexed by constants, live in registers:

- ``thread``: one thread per matrix, its lower triangle in registers (n <= :data:`THREAD_UNROLLED`;
  above, NVVM leaves the loops rolled and the factor in local memory), left-looking
  (Cholesky-Crout).  The block's matrices are loaded and stored by the whole block
  through shared memory (contiguous, coalesced) and read by their own thread with an odd
  stride (no bank conflicts).
- ``lanes`` (n <= 32): a group of ``W`` lanes (the smallest power of two >= n) per matrix, lane
  r holding row r of the matrix in registers; right-looking: at column k the pivot and then
  each l_ck are broadcast by warp shuffles (no shared memory, no barrier).  Lane r reads and
  writes its row straight from global memory: for each column the group's lanes touch
  consecutive addresses (coalesced).
- ``lanes_shared``: ``lanes`` with column k of L exchanged through shared memory (each lane
  writes its l_rk once, the group reads every l_ck as a broadcast, a warp barrier on either
  side) instead of a shuffle per entry: one shared load of a double against two 32-bit shuffles
  and their index, side by side with ``lanes`` to say by measurement which exchange is faster.
- ``lanes_unrolled``: ``lanes`` with both loops written out in generated text
  (:mod:`gpubench.kernels.chol_unrolled`): no branch between a step's shuffles;
  ``lanes_unrolled_shared`` the same with each column exchanged through shared memory.
- ``auto``: :data:`AUTO`, the kernel measured fastest (or within a microsecond of it) at every n.

Storage as :mod:`gpubench.kernels.chol_gpu`: matrices are column-major rows of ``A`` (batch,
n*n), the lower triangle is overwritten with L, the upper triangle left as it was; ``OK[b]`` is 0
where a pivot is not positive (that factor is meaningless, the others are unaffected).  Numba's
simulator has no warp shuffle: there a shared-memory exchange between two block barriers stands
in for it (every thread runs the same steps).
"""
import math
from functools import lru_cache

from numba import config, cuda, float64

from gpubench.errors import InputError
from gpubench.kernels.chol_gpu import _warp_sync

_SIM = bool(config.ENABLE_CUDASIM)
_FULL = 0xFFFFFFFF
_SCRATCH = 1024 if _SIM else 1     # doubles of shared memory the simulator's shuffle uses
THREAD_MAX = 32         # one thread per matrix: any n <= 32 factors, but only up to
THREAD_UNROLLED = 6     # n = 6 does NVVM unroll every loop (sm_90 PTX: no local memory, the factor in registers)
LANES_MAX = 32          # one lane per row, at most a warp per matrix
# auto's choice, by measurement (H200, 1f9d28e, `gpubench reproduce device_peers_cholesky --backend
# cuda`, ms pipelined of 10^4 matrices, docs/tron.md): lanes_unrolled_shared is the fastest at 25 of
# n = 1..32 and within 2 us of the fastest at the others (n <= 8, where every register kernel takes
# 5-10 us, a launch's floor); the guess before it, thread up to n = 4 (5.8-8.0 us there against
# 5.3-7.4) and lanes above (0.154 ms at n = 32 against 0.073), was slower or equal at every n
AUTO = "lanes_unrolled_shared"
SHARED_BYTES = 48 * 1024
VARIANTS = ("thread", "lanes", "lanes_shared", "lanes_unrolled", "lanes_unrolled_shared", "auto")


def group_width(n):
    """Lanes per matrix of ``lanes``: the smallest power of two >= n."""
    W = 1
    while W < n:
        W *= 2
    return W


def _stride(n):
    """Doubles between two matrices in the shared staging area of ``thread``: n^2, made odd."""
    return n * n if (n * n) % 2 else n * n + 1


def _check(variant, n):
    if variant not in VARIANTS:
        raise InputError(f"cholesky variant {variant!r}: known: {', '.join(VARIANTS)}")
    top = THREAD_MAX if variant == "thread" else LANES_MAX
    if not (isinstance(n, int) and 1 <= n <= top):
        raise InputError(f"cholesky variant {variant}: n must be 1..{top}, not {n}")


def pick(variant, n):
    """The kernel ``variant`` (thread, lanes, lanes_shared, lanes_unrolled, lanes_unrolled_shared or auto) runs at n: auto's choice,
    :data:`AUTO`, or any other its own name."""
    _check(variant, n)
    return AUTO if variant == "auto" else variant


# ------------------------------------------------------------------ one thread per matrix
@lru_cache(maxsize=None)
def thread_kernel(n):
    """The ``thread`` kernel for this n (compiled on first launch, cached on disk)."""
    _check("thread", n)
    N, NN, S = n, n * n, _stride(n)

    def cholesky_thread(A, OK):
        sh = cuda.shared.array(0, float64)
        tid = cuda.threadIdx.x
        nt = cuda.blockDim.x
        b0 = cuda.blockIdx.x * nt
        count = min(nt, A.shape[0] - b0)
        for q in range(tid, count * NN, nt):      # the block's matrices, contiguous in A
            m = q // NN
            sh[m * S + q - m * NN] = A[b0 + m, q - m * NN]
        cuda.syncthreads()
        if tid < count:
            a = cuda.local.array(NN, float64)
            off = tid * S
            for c in range(N):
                for r in range(N):
                    if r >= c:
                        a[r + c * N] = sh[off + r + c * N]
            bad = False
            for j in range(N):
                d = a[j + j * N]
                for k in range(N):
                    if k < j:
                        d -= a[j + k * N] * a[j + k * N]
                if not (d > 0.0) or not math.isfinite(d):
                    bad = True
                    d = 1.0
                s = math.sqrt(d)
                a[j + j * N] = s
                inv = 1.0 / s
                for i in range(N):
                    if i > j:
                        t = a[i + j * N]
                        for k in range(N):
                            if k < j:
                                t -= a[i + k * N] * a[j + k * N]
                        a[i + j * N] = t * inv
            for c in range(N):
                for r in range(N):
                    if r >= c:
                        sh[off + r + c * N] = a[r + c * N]
            OK[b0 + tid] = 0 if bad else 1
        cuda.syncthreads()
        for q in range(tid, count * NN, nt):
            m = q // NN
            A[b0 + m, q - m * NN] = sh[m * S + q - m * NN]

    cholesky_thread.__qualname__ = cholesky_thread.__name__ = f"cholesky_thread_n{n}"
    return cuda.jit(cache=True)(cholesky_thread)


def thread_launch(n, nb, threads=64):
    """(grid, block, dynamic shared bytes) of :func:`thread_kernel`: ``threads`` matrices per block
    at most, whole warps, as many as 48 KiB of shared memory holds."""
    _check("thread", n)
    per = max(1, min(threads, SHARED_BYTES // (8 * _stride(n))))
    if per >= 32:
        per = per // 32 * 32
    per = min(per, max(1, nb))
    return -(-nb // per), per, 8 * per * _stride(n)


# ------------------------------------------------------------------ a lane per row
@cuda.jit(device=True)
def _bcast(v, src, scratch):
    """Lane ``src``'s ``v`` (a lane of this warp), by shuffle; under the simulator by shared memory."""
    if _SIM:
        t = cuda.threadIdx.x
        cuda.syncthreads()
        scratch[t] = v
        cuda.syncthreads()
        return scratch[t - t % 32 + src]
    return cuda.shfl_sync(_FULL, v, src)


@lru_cache(maxsize=None)
def lanes_kernel(n, shared=False):
    """The ``lanes`` kernel for this n (compiled on first launch, cached on disk); ``shared``:
    ``lanes_shared``'s, column k exchanged through dynamic shared memory, a double a thread."""
    _check("lanes", n)
    N, W, SH = n, group_width(n), bool(shared)

    def cholesky_lanes(A, OK):
        scratch = cuda.shared.array(_SCRATCH, float64)     # the simulator's shuffle only
        xch = cuda.shared.array(0, float64)                # lanes_shared: column k, a double a lane
        tx = cuda.threadIdx.x
        t = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
        g = t // W                    # the matrix
        r = t - g * W                 # the row this lane holds
        base = cuda.threadIdx.x % 32 - r
        mine = g < A.shape[0]
        valid = mine and r < N
        # row[p] holds column k + p of this lane's row at step k: the row shifts left by one
        # column a step, so every index of ``row`` is a constant once the inner loops are
        # unrolled (the outer loop over k need not be) and the row stays in registers
        row = cuda.local.array(N, float64)
        grp = xch[tx - r:tx - r + W]  # lanes_shared: the group's column, lane c's l_ck at c
        for c in range(N):
            v = 0.0
            if valid and c <= r:
                v = A[g, r + c * N]
            row[c] = v
        bad = False
        for k in range(N):
            d = _bcast(row[0], base + k, scratch)      # the pivot a_kk, on lane k
            if not (d > 0.0) or not math.isfinite(d):
                bad = True
                d = 1.0
            s = math.sqrt(d)
            lk = row[0] / s
            if valid and r >= k:
                A[g, r + k * N] = s if r == k else lk   # column k of L is final
            if r <= k:
                lk = 0.0
            if SH:
                grp[r] = lk
                _warp_sync()                           # the column is written before it is read
            col = grp[k + 1:]         # l_ck at col[p]: p a constant once unrolled, no index check left
            # slots of columns c > r (above the diagonal) take the update too: they are never
            # stored nor broadcast, and no guard leaves the subtraction to one fma; at the first
            # column past the matrix (c = N, the same on every lane) the step ends: the slots
            # beyond hold nothing read again, so step k costs N - 1 - k updates, not N - 1 (one
            # exit from the unrolled loop, the row still in registers: checked in the PTX)
            for p in range(N - 1):
                c = k + 1 + p
                if c >= N:
                    break
                lc = col[p] if SH else _bcast(lk, base + c, scratch)     # l_ck, on lane c
                row[p] = row[p + 1] - lk * lc
            if SH:
                _warp_sync()                           # read by all before the next step writes
        if valid and r == 0:
            OK[g] = 0 if bad else 1

    cholesky_lanes.__qualname__ = cholesky_lanes.__name__ = f"cholesky_lanes{'_shared' if SH else ''}_n{n}"
    return cuda.jit(cache=True)(cholesky_lanes)


def lanes_launch(n, nb, threads=128):
    """(grid, block) of :func:`lanes_kernel`: ``threads`` lanes per block (whole warps on a GPU)."""
    _check("lanes", n)
    W = group_width(n)
    if threads % W or threads > 1024:
        raise InputError(f"cholesky variant lanes: {threads} threads per block is not a multiple of "
                         f"the group of {W} lanes (at most 1024)")
    return -(-nb * W // threads), threads


def launcher(variant, A, n, ok, stream=0, threads=0, bind=True):
    """A function of no argument that factors the device array ``A`` (batch, n*n) in place with
    ``variant`` (thread, lanes, lanes_shared, lanes_unrolled, lanes_unrolled_shared or auto) and sets ``ok``: the kernel looked up and its
    arguments marshalled once (:func:`gpubench.device.gpu.bound_launch`), so a call costs the launch alone."""
    from ..device.gpu import bound_launch
    kind = pick(variant, n)
    nb = A.shape[0]
    if kind == "thread":
        grid, block, smem = thread_launch(n, nb, threads or 64)
        return bound_launch(thread_kernel(n), grid, block, (A, ok), stream, smem, bind)
    grid, block = lanes_launch(n, nb, threads or 128)
    if kind in ("lanes_unrolled", "lanes_unrolled_shared"):
        from .chol_unrolled import kernel
        return bound_launch(kernel(n, kind == "lanes_unrolled_shared", block), grid, block, (A, ok), stream, 0, bind)
    if kind == "lanes_shared":
        return bound_launch(lanes_kernel(n, True), grid, block, (A, ok), stream, 8 * block, bind)
    return bound_launch(lanes_kernel(n), grid, block, (A, ok), stream, 0, bind)
