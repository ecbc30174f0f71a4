"""What an iteration keeps of its sweep: the best sample, the gradient count and the survivors.

The sweep bounds every subregion of the selected region (10^6 at the paper's
s = 10, p = 4).  Of those arrays the search needs only

- the smallest sampled upper bound and its subregion (the first on ties, as
  ``np.argmin``), which may lower GUB;
- how many subregions evaluated the gradient (``njev``);
- the survivors, ``lb <= GUB`` and not ruled out (``lb != inf``), in subregion order.

:func:`reduce_host` computes them with numpy from host arrays (the CPU
backend).  :class:`DeviceReduction` computes the same on the GPU from the
sweep's device arrays with three kernels (best sample; survivors counted per
block and scanned; survivors written at their rank), and copies back a
five-number header and the survivors only, instead of 17 bytes per subregion: the CUDA backend's
twin of :func:`reduce_host`, equal to it entry for entry (tests/test_reduce.py).
"""
import math

import numpy as np
from numba import cuda, float64, int64

from .outcome import Outcome, reduce_host  # noqa: F401  (this module's API: the host's twin)
from ...kernels.unsigned import u as _u

# threads per block of the reduction kernels: a compile-time size of their shared arrays
TPB = 256
# blocks of the best-sample kernel at most (a grid-stride loop covers the rest); its last block
# reduces the per-block results, so their number bounds that serial step
MAX_BLOCKS = 1024
NO_INDEX = 2 ** 62
# the header the kernels fill: read back once per iteration
BEST, INDEX, NJEV, GUB, COUNT = range(5)
HEADER = 5


@cuda.jit(device=True)
def _better(v, i, bv, bi):
    # ties go to the smaller index, as np.argmin's first
    return v < bv or (v == bv and i < bi)


@cuda.jit(device=True)
def _block_reduce(sv, si, sn, tid):
    # blockDim.x is a power of two <= TPB (DeviceReduction.launch)
    step = cuda.blockDim.x // 2
    while step > 0:
        if tid < step:
            if _better(sv[_u(tid + step)], si[_u(tid + step)], sv[_u(tid)], si[_u(tid)]):
                sv[_u(tid)] = sv[_u(tid + step)]
                si[_u(tid)] = si[_u(tid + step)]
            sn[_u(tid)] += sn[_u(tid + step)]
        cuda.syncthreads()
        step //= 2


@cuda.jit(cache=True)  # on disk: a second process loads it (issue 42, item 4)
def best_sample(ub, grad, gub_prev, part_ub, part_idx, part_nj, done, header):
    """Per block the best (ub, index) and the gradient count; the last block to finish folds
    the blocks' results into ``header`` (so one launch, no second pass from the host)."""
    sv = cuda.shared.array(TPB, float64)
    si = cuda.shared.array(TPB, int64)
    sn = cuda.shared.array(TPB, int64)
    last = cuda.shared.array(1, int64)
    tid = cuda.threadIdx.x
    bv = math.inf
    bi = NO_INDEX
    nj = 0
    r = cuda.blockIdx.x * cuda.blockDim.x + tid
    stride = cuda.gridDim.x * cuda.blockDim.x
    while r < ub.shape[0]:
        v = ub[r]
        # False for NaN (a sample where f is undefined bounds nothing); indices rise along the
        # loop, so the strict test keeps this thread's first minimum
        if v < bv:
            bv = v
            bi = r
        nj += grad[r]
        r += stride
    sv[tid] = bv
    si[tid] = bi
    sn[tid] = nj
    cuda.syncthreads()
    _block_reduce(sv, si, sn, tid)
    if tid == 0:
        part_ub[cuda.blockIdx.x] = sv[0]
        part_idx[cuda.blockIdx.x] = si[0]
        part_nj[cuda.blockIdx.x] = sn[0]
        # the parts must be visible to the last block before it learns it is last
        cuda.threadfence()
        last[0] = 1 if cuda.atomic.add(done, 0, 1) == cuda.gridDim.x - 1 else 0
    cuda.syncthreads()
    if last[0] == 0:
        return
    bv = math.inf
    bi = NO_INDEX
    nj = 0
    b = tid
    while b < cuda.gridDim.x:
        if _better(part_ub[b], part_idx[b], bv, bi):
            bv = part_ub[b]
            bi = part_idx[b]
        nj += part_nj[b]
        b += cuda.blockDim.x
    sv[tid] = bv
    si[tid] = bi
    sn[tid] = nj
    cuda.syncthreads()
    _block_reduce(sv, si, sn, tid)
    if tid == 0:
        best = sv[0]
        header[BEST] = best
        header[INDEX] = 0 if si[0] == NO_INDEX else si[0]
        header[NJEV] = sn[0]
        header[GUB] = best if best < gub_prev else gub_prev
        header[COUNT] = 0.0
        done[0] = 0  # ready for the next iteration without a host write


@cuda.jit(device=True)
def _kept(v, header):
    # not ruled out (inf) and not above the iteration's GUB; False for NaN
    return v <= header[GUB] and v != math.inf


@cuda.jit(device=True)
def _inclusive_scan(s, tid):
    # Hillis-Steele over the block's shared array (blockDim.x entries)
    off = 1
    while off < cuda.blockDim.x:
        v = s[_u(tid - off)] if tid >= off else 0
        cuda.syncthreads()
        s[_u(tid)] += v
        cuda.syncthreads()
        off *= 2


@cuda.jit(cache=True)
def count_kept(lb, header, block_count, block_start, done):
    """Survivors per block; the last block to finish turns the counts into each block's first
    output position (an exclusive scan) and the total into ``header[COUNT]``."""
    s = cuda.shared.array(TPB, int64)
    last = cuda.shared.array(1, int64)
    tid = cuda.threadIdx.x
    r = cuda.blockIdx.x * cuda.blockDim.x + tid
    s[tid] = 1 if r < lb.shape[0] and _kept(lb[r], header) else 0
    cuda.syncthreads()
    step = cuda.blockDim.x // 2
    while step > 0:
        if tid < step:
            s[tid] += s[tid + step]
        cuda.syncthreads()
        step //= 2
    if tid == 0:
        block_count[cuda.blockIdx.x] = s[0]
        cuda.threadfence()
        last[0] = 1 if cuda.atomic.add(done, 1, 1) == cuda.gridDim.x - 1 else 0
    cuda.syncthreads()
    if last[0] == 0:
        return
    # each thread scans a contiguous chunk of the block counts
    nb = cuda.gridDim.x
    chunk = (nb + cuda.blockDim.x - 1) // cuda.blockDim.x
    a = min(tid * chunk, nb)
    b = min(a + chunk, nb)
    tot = 0
    for i in range(a, b):
        tot += block_count[i]
    cuda.syncthreads()
    s[tid] = tot
    cuda.syncthreads()
    _inclusive_scan(s, tid)
    run = s[tid] - tot
    for i in range(a, b):
        block_start[i] = run
        run += block_count[i]
    if tid == cuda.blockDim.x - 1:
        header[COUNT] = s[tid]
        done[1] = 0


@cuda.jit(cache=True)
def survivors(lb, header, block_start, out_sidx, out_lb):
    """Write every kept subregion at its rank among the kept ones: subregion order, as the host's
    ``np.flatnonzero``, with no sort."""
    s = cuda.shared.array(TPB, int64)
    tid = cuda.threadIdx.x
    r = cuda.blockIdx.x * cuda.blockDim.x + tid
    v = lb[r] if r < lb.shape[0] else math.inf
    k = 1 if r < lb.shape[0] and _kept(v, header) else 0
    s[tid] = k
    cuda.syncthreads()
    _inclusive_scan(s, tid)
    if k:
        pos = block_start[cuda.blockIdx.x] + s[tid] - 1
        out_sidx[pos] = r
        out_lb[pos] = v


class DeviceReduction:
    """:func:`reduce_host` on device arrays: three launches, then the header and the survivors read back."""

    def __init__(self):
        from ...device.gpu import Buffers
        self.buffers = Buffers()
        self._views = (None, None)
        self.part_ub = cuda.device_array(MAX_BLOCKS, np.float64)
        self.part_idx = cuda.device_array(MAX_BLOCKS, np.int64)
        self.part_nj = cuda.device_array(MAX_BLOCKS, np.int64)
        self.done = cuda.to_device(np.zeros(2, np.int64))  # the last-block tickets of the two passes
        self.header = cuda.device_array(HEADER, np.float64)
        self.header_host = cuda.pinned_array(HEADER, np.float64)

    def launch(self, lb, ub, grad, gub_prev, stream=0):
        """Queue the kernels on ``stream``; nothing waits."""
        count = lb.shape[0]
        # small sweeps (small n, and the simulator's tests) get small blocks: a power of two for
        # the tree reduction, at least a warp
        tpb = TPB
        while tpb > 32 and tpb // 2 >= count:
            tpb //= 2
        blocks = min(MAX_BLOCKS, (count + tpb - 1) // tpb)
        best_sample[blocks, tpb, stream](ub, grad, gub_prev, self.part_ub, self.part_idx, self.part_nj,
                                         self.done, self.header)
        grid = (count + tpb - 1) // tpb
        if self._views[0] != count:  # a device slice costs numba ~0.1 ms: kept while the count stays
            b = self.buffers
            self._views = (count, (b.device("sidx", count, np.int64), b.device("lb", count, np.float64),
                                   b.device("block_count", grid, np.int64), b.device("block_start", grid, np.int64)))
        self._sidx, self._lb, block_count, block_start = self._views[1]
        count_kept[grid, tpb, stream](lb, self.header, block_count, block_start, self.done)
        survivors[grid, tpb, stream](lb, self.header, block_start, self._sidx, self._lb)

    def fetch(self, stream=0):
        """Wait for ``launch`` and bring back the outcome: the header, then the survivors."""
        h = self.header_host
        self.header.copy_to_host(h, stream=stream)
        if stream:
            stream.synchronize()
        k = int(h[COUNT])
        sidx = np.empty(k, np.int64)
        lb = np.empty(k, np.float64)
        if k:
            # straight into the arrays the region list keeps (a pinned buffer would need a copy)
            self._sidx[:k].copy_to_host(sidx, stream=stream)
            self._lb[:k].copy_to_host(lb, stream=stream)
            if stream:
                stream.synchronize()
        return Outcome(float(h[BEST]), int(h[INDEX]), int(h[NJEV]), sidx, lb)

    def __call__(self, lb, ub, grad, gub_prev):
        self.launch(lb, ub, grad, gub_prev)
        return self.fetch()
