"""The launch geometry of DE's GPU kernels (:mod:`gpubench.methods.de_gpu`, Section 4 of paper 002):
the device's limits, threads per member and members per block of each kernel from its registers
and shared memory (the mode ``auto`` resolves to is measured: :mod:`.de_auto`)."""
from ..device.gpu import device_limits as _device_limits, simulator  # noqa: F401  (_device_limits: de_cuda's, which tests patch)
from ..errors import InputError


def _compiled(kernel, args):
    """The compiled kernel for these arguments (None under the simulator)."""
    if simulator():
        return None
    import numba
    return kernel.compile(tuple(numba.typeof(a) for a in args))


def _shared_bytes(D, m, T, slots):
    """Dynamic shared memory of a block: m trial vectors, slots partial aggregates per thread, and per
    member its four indices and its replacement flag."""
    return 8 * (m * D + slots * m * T + 5 * m)


def _threads_per_member(D, limit):
    """T: D when it fits under limit, else the fewest threads (whole warps where that stays under
    limit) that take ceil(D / limit) elements each, so that the strided loops are balanced."""
    limit = max(1, limit)
    if D <= limit:
        return D
    per_thread = -(-D // limit)
    T = -(-D // per_thread)
    if T > 32 and -(-T // 32) * 32 <= limit:
        T = -(-T // 32) * 32
    return T


def launch_config(D, members, slots, regs, limits, cap=None):
    """(T, m, shared bytes): threads per member, members per block, dynamic shared memory.

    Section 4 of the paper: one thread per element (T = D) unless the block or
    register limits (or ``cap``) forbid it; then each thread takes ceil(D / T)
    elements, strided, with T as small as that many elements per thread allows;
    then as many members per block as registers, shared memory and the
    threads-per-block limit allow (and no more than there are members).
    """
    max_t = limits["max_threads_per_block"]
    if regs:
        # Registers are allocated per warp in units of 256, and warps in groups of four (one per
        # SM sub-partition, each with a quarter of the register file): 88 registers give 23 warps
        # by the plain quotient but 20 in fact, which the H200's occupancy query confirmed.
        per_warp = -(-regs * 32 // 256) * 256
        warps = limits["max_registers_per_block"] // per_warp // 4 * 4
        max_t = min(max_t, max(warps, 1) * 32)
    T = _threads_per_member(D, max_t if cap is None else min(max_t, cap))
    if _shared_bytes(D, 1, T, slots) > limits["max_shared_memory_per_block"]:
        raise InputError(f"de-gpu: dimension {D} does not fit the block's shared memory "
                         f"({limits['max_shared_memory_per_block']} bytes) on this device")
    m = max_t // T
    while m > 1 and _shared_bytes(D, m, T, slots) > limits["max_shared_memory_per_block"]:
        m -= 1
    m = max(1, min(m, members))
    return T, m, _shared_bytes(D, m, T, slots)


def _group_width(D, cap=None):
    """T of the cooperative kernel: the smallest power of two >= D, at most 32 (one warp) and at
    most ``cap`` (rounded down to a power of two)."""
    limit = 32 if cap is None else max(1, min(32, cap))
    T = 1
    while T < D and T * 2 <= limit:
        T *= 2
    return T


def _block_threads(regs, max_t):
    """Threads of a cooperative block: 128 or 256 (whichever keeps more warps resident on an SM
    whose four sub-partitions each hold a quarter of the registers, in warps of 256-register
    units), at most ``max_t``."""
    if not regs:
        return min(256, max_t)
    per_warp = -(-regs * 32 // 256) * 256
    warps_sm = 4 * (16384 // per_warp)
    best = None
    for b in (256, 128):
        if b > max_t:
            continue
        w = b // 32
        resident = (warps_sm // w) * w
        if best is None or resident > best[0]:
            best = (resident, b)
    return best[1] if best else max_t


def group_config(D, members, slots, regs, limits, cap=None, block_threads=None, whole_warps=True):
    """(T, m, shared bytes) of the cooperative kernel ``de_fast``: a member is a group of T lanes
    of one warp (:func:`_group_width`), a block ``m`` members (``block_threads`` threads at most,
    by default :func:`_block_threads`,
    fewer when the registers, the threads-per-block limit or the trial vectors in shared memory
    forbid; a whole number of warps on a device, since the groups exchange values by shuffles).
    kernel(IE) runs on the same blocks, so its shared memory (:func:`_shared_bytes`) must fit too."""
    max_t = limits["max_threads_per_block"]
    if regs:
        per_warp = -(-regs * 32 // 256) * 256
        warps = limits["max_registers_per_block"] // per_warp // 4 * 4
        max_t = min(max_t, max(warps, 1) * 32)
    T = _group_width(D, cap)
    if _shared_bytes(D, 1, T, slots) > limits["max_shared_memory_per_block"]:
        raise InputError(f"de-gpu: dimension {D} does not fit the block's shared memory "
                         f"({limits['max_shared_memory_per_block']} bytes) on this device")
    if block_threads is None:
        block_threads = _block_threads(regs, max_t)
    m = max(1, min(block_threads, max_t) // T)
    while m > 1 and _shared_bytes(D, m, T, slots) > limits["max_shared_memory_per_block"]:
        m -= 1
    quantum = 32 // T if whole_warps else 1
    m = max(1, min(m, -(-members // quantum) * quantum))
    if whole_warps and m >= quantum:
        m = m // quantum * quantum
    return T, m, 8 * m * D


def stream_config(D, members, regs, limits, cap=None, block_threads=None, whole_warps=True):
    """(T, m, shared bytes) of the stream kernel: groups of T lanes as :func:`group_config` (a
    power of two up to a warp), ``block_threads`` threads a block at most (by default
    :func:`_block_threads`), as many members as the trials (8 D bytes each, the kernel's only
    shared memory) allow."""
    max_t = limits["max_threads_per_block"]
    if regs:
        per_warp = -(-regs * 32 // 256) * 256
        max_t = min(max_t, max(limits["max_registers_per_block"] // per_warp // 4 * 4, 1) * 32)
    T = _group_width(D, cap)
    if 8 * D > limits["max_shared_memory_per_block"]:
        raise InputError(f"de-gpu: dimension {D} does not fit the block's shared memory "
                         f"({limits['max_shared_memory_per_block']} bytes) on this device")
    if block_threads is None:
        block_threads = _block_threads(regs, max_t)
    m = max(1, min(block_threads, max_t) // T)
    m = min(m, max(1, limits["max_shared_memory_per_block"] // (8 * D)))
    quantum = 32 // T if whole_warps else 1
    m = max(1, min(m, -(-members // quantum) * quantum))
    if whole_warps and m >= quantum:
        m = m // quantum * quantum
    return T, m, 8 * m * D
