"""Batched Cholesky, a lane per row, every loop written out: the ``lanes_unrolled`` kernel (n <= 32).

:mod:`gpubench.kernels.chol_small`'s ``lanes`` keeps row r of a matrix in lane r's registers and
broadcasts column k of L by warp shuffles; its loop over k stays a loop (NVVM does not unroll
n steps of up to n - 1 updates), so step k's ``n - 1 - k`` updates end in a branch each (sm_90
PTX: a ``setp``/``bra`` after every shuffle pair) and each shuffle waits for the one before it:
at n = 32 about 500 shuffle latencies in a row per matrix, the step's arithmetic idle meanwhile.

Here the kernel's text is generated for each n with both loops written out: row r is the scalars
``a0 .. a{n-1}``, step k is straight-line code (the pivot's shuffle, its square root, l_rk, the
store of column k, then the ``n - 1 - k`` shuffles and fused updates, none behind a branch), so
ptxas can issue a step's shuffles back to back and overlap their latencies, and the next pivot's
update (column k + 1, written first) starts before the step's other updates.  A non-positive or
non-finite pivot is flagged without a branch (``0 < d < inf``; NaN fails both).  ``lanes_unrolled_shared``
exchanges each column through shared memory instead (a store a lane, a warp barrier, broadcast
loads; two buffers so one barrier a step), in a static array aligned to 16 bytes so that NVVM
loads two entries of the column at once (sm_90 PTX at n = 32: 240 ``ld.shared.v2.f64``, 112
registers, where ``lanes_unrolled`` spends 1,056 shuffles at 124 registers).

Storage as ``lanes``: matrices are column-major rows of ``A`` (batch, n*n); only the lower triangle
is read, L is written over it, the upper triangle is left as it was; ``OK[b]`` is 0 where a pivot
is not positive.  Launch geometry is ``lanes``' (``chol_small.lanes_launch``).  The text goes to
a file of the cache folder, as TRON's core (:mod:`gpubench.methods.tron.loader`), so numba's
on-disk cache keys each n's kernel by its file.  Under numba's simulator the shuffle is
``chol_small``'s shared-memory stand-in (every thread runs the same steps: no shuffle is skipped).
"""
import hashlib
from functools import lru_cache

from numba import config

from gpubench.errors import InputError
from gpubench.kernels.chol_gpu import group_width  # not chol_small's: its launcher imports this module


def name(n, shared=False, block=128):
    return f"cholesky_lanes_unrolled_shared_n{n}_b{block}" if shared else f"cholesky_lanes_unrolled_n{n}"


def source(n, shared=False, block=128):
    """The Python text of the kernel for this n (1 <= n <= 32); ``shared``: ``lanes_unrolled_shared``'s,
    each column of L exchanged through dynamic shared memory (a double a lane, two buffers), the
    pivot alone by shuffle."""
    if not (isinstance(n, int) and 1 <= n <= 32):
        raise InputError(f"cholesky variant lanes_unrolled: n must be 1..32, not {n}")
    W = group_width(n)
    if shared and (block % W or block > 1024):
        raise InputError(f"cholesky variant lanes_unrolled_shared: {block} threads per block is not a "
                         f"multiple of the group of {W} lanes (at most 1024)")
    out = [
        "import math",
        "from numba import cuda, float64",
        "from gpubench.kernels.chol_small import _bcast, _SCRATCH",
        "from gpubench.kernels.chol_gpu import _warp_sync",
        "",
        "",
        "@cuda.jit(cache=True)",
        f"def {name(n, shared, block)}(A, OK):",
        "    scratch = cuda.shared.array(_SCRATCH, float64)   # the simulator's shuffle only",
        "    t = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x",
        f"    g = t // {W}",
        f"    r = t - g * {W}",
        "    base = cuda.threadIdx.x % 32 - r",
        "    valid = g < A.shape[0] and r < " + str(n),
    ]
    if shared:
        # [buffer, group of the block, lane]: a static shape and 16-byte alignment, so NVVM knows
        # that l_ck and l_(c+1)k (c even) share an aligned 16 bytes and may load them as one
        align = "" if config.ENABLE_CUDASIM else ", alignment=16"    # the simulator takes no alignment
        out += [f"    xch = cuda.shared.array((2, {block // W}, {W}), float64{align})",
                f"    gl = cuda.threadIdx.x // {W}"]
    # row r, column c at A[g, r + c n]; for each c the group's lanes read consecutive addresses
    for c in range(n):
        out.append(f"    a{c} = A[g, r + {c * n}] if valid and r >= {c} else 0.0")
    out.append("    bad = False")
    for k in range(n):
        out += [
            f"    d = _bcast(a{k}, base + {k}, scratch)",
            "    good = (d > 0.0) & (d < math.inf)",
            "    bad = bad | (not good)",
            "    d = d if good else 1.0",
            "    s = math.sqrt(d)",
            f"    lk = a{k} / s   # l_rk on lanes r > k: the only ones broadcast below",
            f"    if valid and r >= {k}:",
            f"        A[g, r + {k * n}] = s if r == {k} else lk",
        ]
        if shared and k + 1 < n:
            # step k writes buffer k % 2: the reads of step k - 1 (the other buffer) need no
            # barrier before it, and step k + 1's barrier orders these reads before step k + 2's writes
            out += [f"    xch[{k % 2}, gl, r] = lk", "    _warp_sync()"]
        for c in range(k + 1, n):
            # lane c holds l_ck; lanes r < c update an entry above the diagonal: never read again
            lc = f"xch[{k % 2}, gl, {c}]" if shared else f"_bcast(lk, base + {c}, scratch)"
            out.append(f"    a{c} -= lk * {lc}")
    out += [
        "    if valid and r == 0:",
        "        OK[g] = 0 if bad else 1",
        "",
    ]
    return "\n".join(out)


@lru_cache(maxsize=None)
def kernel(n, shared=False, block=128):
    """The ``lanes_unrolled`` (``shared``: ``lanes_unrolled_shared``, for blocks of ``block``
    threads) kernel for this n (its text written once to the cache folder, compiled on first
    launch, cached on disk)."""
    from ..forms.cache import import_text  # the module, not codegen: no sympy
    block = block if shared else 128
    text = source(n, shared, block)
    fname = name(n, shared, block)
    module = import_text(f"gpubench_{fname}_{hashlib.sha256(text.encode()).hexdigest()[:16]}", text)
    return getattr(module, fname)
