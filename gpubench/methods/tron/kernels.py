"""GPU kernels: one thread block per problem (paper 003, Section 4.1).

The kernels are in :mod:`gpubench.kernels.tron_gpu`, compiled with the core's device
functions in the file ``load_core("cuda", ...)`` writes (cached on disk); this module picks
them and sizes their launches.
"""
from functools import lru_cache

import numpy as np
from numba import config, cuda

from .loader import load_core


@lru_cache(maxsize=None)
def linalg_kernels():
    """(cholesky kernel, back-substitution kernel, forward-substitution kernel)."""
    core = load_core("cuda", "hs45")
    return core.cholesky, core.backsolve, core.forwardsolve


_TRON = {}


def bind_flags(kernel, flags):
    """``kernel``'s Python function (``tron``) with its four flags (cholesky, explicit, layout2d,
    shared: run-time arguments) rebound to the constants ``flags`` on its first line, compiled in
    its own module's globals (the core's device functions), so NVVM drops the branches of the
    other values: for hs45 on sm_90 with shared memory 162 registers a thread against the generic
    kernel's 212 (W addressed as shared memory, ld.shared, where the generic kernel's W, shared or
    global, takes generic loads)."""
    import inspect
    import sys
    values = [int(v) for v in flags]
    if len(values) != 4:
        raise ValueError("bind_flags: four flags (cholesky, explicit, layout2d, shared)")
    lines = inspect.getsource(kernel).splitlines()
    start = next(k for k, ln in enumerate(lines) if ln.startswith("def "))
    lines = lines[start:]
    end = next(k for k, ln in enumerate(lines) if ln.rstrip().endswith(":"))   # the def's last line
    body = "    cholesky, explicit, layout2d, shared = " + ", ".join(map(str, values))
    src = "\n".join(lines[:end + 1] + [body] + lines[end + 1:]) + "\n"
    mod = sys.modules[kernel.__module__]
    space = {}
    exec(compile(src, mod.__file__, "exec"), mod.__dict__, space)
    return space[kernel.__name__]


def tron_kernel(objective="hs45", forms=None, hess=None, registers=0, flags=None):
    """The batched TRON kernel for ``objective`` (one block per problem).  ``registers`` > 0: the
    same kernel compiled with at most that many registers a thread (ptxas's maxrregcount, spilling
    the rest to local memory), so more blocks fit an SM (at 212 registers, hs45's count on sm_90,
    9 blocks of one warp).  ``flags`` (cholesky, explicit, layout2d, shared): the kernel compiled
    for these values only (:func:`bind_flags`), the launch's own arguments then unused.  Either
    is not cached on disk: numba's cache keys a kernel by its function and types, not by the limit
    or the bound source, so a cached entry could be another variant's code."""
    flags = None if flags is None else tuple(int(v) for v in flags)
    key = (objective, None if forms is None else forms.__name__, None if hess is None else hess.__name__,
           int(registers), flags)
    if key not in _TRON:
        kern = load_core("cuda", objective, forms, hess).tron
        if registers or flags:
            opts = {} if config.ENABLE_CUDASIM else {"max_registers": int(registers) or None}  # the simulator has no registers
            kern = cuda.jit(**opts)(bind_flags(kern.py_func, flags) if flags else kern.py_func)
        _TRON[key] = kern
    return _TRON[key]


def block_shape(n, layout, threads=0):
    """Threads of one block: 1-D, one warp (or enough warps to cover n, or ``threads``);
    2-D, an n x n tile capped at 32 x 32 (1,024 threads)."""
    if layout == "2d":
        side = min(n, 32)
        return (side, side)
    if threads:
        return (int(threads), 1)
    return (32 * max(1, -(-n // 32)), 1)


def padded(nt):
    return int(nt) + 8


def dynamic_shared_bytes(n, nt, memory):
    words = padded(nt) + (2 * n * n + 16 * n if memory == "shared" else 0)
    return 8 * words


MAX_SHARED_BYTES = 48 * 1024


def launch_linalg(kind, A, n, *, variant=0, explicit=1, layout="1d", threads=0, B=None,
                  shared=True, stream=0, ok=None):
    """Launch one of the Table 1/2 kernels on device arrays; returns the OK array for Cholesky.
    Cholesky ``variant``: 0 left-looking, 1 right-looking (a block per matrix, as the paper),
    2 a group of lanes of one warp per matrix (n <= 32, :mod:`gpubench.kernels.chol_gpu`),
    3 thread, 4 lanes, 5 auto (n a compile-time constant, :mod:`gpubench.kernels.chol_small`)."""
    if kind == "cholesky" and ok is None:  # pass one in when timing: an allocation can synchronise
        ok = cuda.device_array(A.shape[0], dtype=np.int32, stream=stream)
    # one launch: binding it (a compile lookup, the arguments marshalled) would cost more than it saves
    linalg_launcher(kind, A, n, variant=variant, explicit=explicit, layout=layout, threads=threads, B=B,
                    shared=shared, stream=stream, ok=ok, bind=False)()
    return ok if kind == "cholesky" else None


def linalg_launcher(kind, A, n, *, variant=0, explicit=1, layout="1d", threads=0, B=None,
                    shared=True, stream=0, ok=None, bind=True):
    """A function of no argument that launches what :func:`launch_linalg` launches, on these same
    device arrays (``ok`` given for Cholesky): kernel, geometry and arguments resolved once
    (:func:`gpubench.device.gpu.bound_launch`), so each call costs the driver's launch alone."""
    from ...device.gpu import bound_launch
    chol, back, fwd = linalg_kernels()
    block = block_shape(n, layout, threads)
    nb = A.shape[0]
    l2 = 1 if layout == "2d" else 0
    if kind == "cholesky":
        if variant == 2:  # one group of a warp's lanes per matrix (n <= 32), several per block
            from ...kernels import chol_gpu
            grid, threads_, per_block, smem = chol_gpu.group_launch(n, nb)
            return bound_launch(chol_gpu.cholesky_groups, grid, threads_,
                                (A, n, chol_gpu.group_width(n), per_block, ok), stream, smem, bind)
        if variant >= 3:  # n a compile-time constant, the factor in registers
            from ...kernels import chol_small
            from . import SMALL_CHOLESKY
            return chol_small.launcher(SMALL_CHOLESKY[variant], A, n, ok, stream, threads, bind)
        smem = 8 * n * n if shared else 0
        return bound_launch(chol, nb, block, (A, n, variant, l2, 1 if shared else 0, ok), stream, smem, bind)
    smem = 8 * (n * n + n)
    if kind == "backsolve":
        return bound_launch(back, nb, block, (A, B, n, explicit, l2), stream, smem, bind)
    return bound_launch(fwd, nb, block, (A, B, n), stream, smem, bind)
