"""Compile :mod:`gpubench.methods.tron.core` for one backend and one objective.

``core.py`` (with ``linalg.py``, ``objectives.py`` and ``subproblem.py``) is written once; this module writes, for one (backend, objective,
function), a file into the cache folder (``GPUBENCH_CACHE``/generated) holding a
header that binds the backend's decorator, barrier, objective and the function's
generated forms (see the docstring of ``core.py``), then the text of those four files,
then the kernels (:mod:`gpubench.kernels.tron_gpu`) or CPU twins
(:mod:`gpubench.kernels.tron_cpu`), and imports it.  So the GPU kernels and the CPU
twin run the same lines, and numba's on-disk cache (which keys by file) locates the
file: its name is the hash of its text, which names the forms' own (hashed) module
and carries a hash of this loader, so a changed function, core or kernel is a new
file, never a stale cache entry.
"""
import hashlib
from pathlib import Path

cuda = None  # numba.cuda, imported by primitives("cuda") only (a CPU run never imports it); a module
# global: the CUDA simulator swaps it in __globals__

# TRON's core, written once in four files (core.py's docstring says what they bind), in this order
_CORE = tuple(Path(__file__).with_name(f) for f in ("core.py", "linalg.py", "objectives.py", "subproblem.py"))
_LOADED = {}

OBJECTIVES = {"hs45": 0, "library": 1, "symbolic": 2}


def _syncthreads():
    cuda.syncthreads()


def primitives(backend):
    """(device decorator, sync) for ``backend`` ('cpu' or 'cuda')."""
    if backend == "cpu":
        from numba import njit
        # error_model="numpy": x/0 gives inf/nan (caught as a numerical failure), no exception
        device = njit(error_model="numpy")

        @device
        def sync():
            return None
    else:
        global cuda
        from numba import cuda
        device = cuda.jit(device=True)
        sync = device(_syncthreads)
    return device, sync


# ------------------------------------------------------------------ one warp: reductions by shuffles
# linalg.py's reduce_sum and reduce_max take these when the block is at most one warp (nt <= 32, the
# lanes of the block being the lanes of warp 0 in the order of tid): the same tree as their shared-memory
# path, level by level, each lane reading lane tid + h's partial sum by shfl.down instead of red[tid + h]
# after a block barrier.  ``mask`` has a bit for each of the block's nt lanes (a block of fewer than 32
# threads has no other lanes to name).
_FULL = 0xFFFFFFFF


def _syncwarp(nt):
    cuda.syncwarp(_FULL >> (32 - nt))


def _shfl_down(v, h, nt, red, tid):
    return cuda.shfl_down_sync(_FULL >> (32 - nt), v, h)


def _shfl_first(v, nt, red, tid):
    return cuda.shfl_sync(_FULL >> (32 - nt), v, 0)


# numba's simulator has no warp shuffle and no syncwarp (its threads are not lanes of a warp): there the
# exchange goes through the reduction's shared scratch ``red`` between block barriers, as
# gpubench.kernels.chol_small's stand-in does (the same lanes read the same partial sums)
def _sim_syncwarp(nt):
    cuda.syncthreads()


def _sim_shfl_down(v, h, nt, red, tid):
    cuda.syncthreads()
    red[tid] = v
    cuda.syncthreads()
    w = red[tid + h] if tid + h < nt else v   # shfl.down past the last lane returns the lane's own v
    cuda.syncthreads()
    return w


def _sim_shfl_first(v, nt, red, tid):
    cuda.syncthreads()
    red[tid] = v
    cuda.syncthreads()
    w = red[0]
    cuda.syncthreads()
    return w


def warp_primitives(backend):
    """(syncwarp, shfl_down, shfl_first) for ``backend``: the warp path of the core's reductions.
    On the CPU (tid = 0, nt = 1: a block of one lane) no lane but this one: the value itself."""
    if backend == "cpu":
        from numba import njit
        device = njit(error_model="numpy")

        @device
        def syncwarp(nt):
            return None

        @device
        def shfl_down(v, h, nt, red, tid):
            return v

        @device
        def shfl_first(v, nt, red, tid):
            return v
        return syncwarp, shfl_down, shfl_first
    device, _ = primitives(backend)
    from numba import config
    if config.ENABLE_CUDASIM:
        return device(_sim_syncwarp), device(_sim_shfl_down), device(_sim_shfl_first)
    return device(_syncwarp), device(_shfl_down), device(_shfl_first)


def load_core(backend, objective="hs45", forms=None, hess=None):
    """The core module for ``backend`` with ``objective`` ('hs45', 'library' or 'symbolic').

    ``forms`` is the generated module (``codegen.load``) of a library function on
    the matching backend; its ``point`` and ``gradient`` become the objective.
    ``hess`` (objective 'symbolic') is the module of :mod:`gpubench.methods.tron.hessian`.
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"unknown objective {objective!r}")
    key = (backend, objective, None if forms is None else forms.__name__,
           None if hess is None else hess.__name__)
    if key in _LOADED:
        return _LOADED[key]
    mod = _load_file(backend, objective, forms, hess)
    _LOADED[key] = mod
    return mod


_HEADER = '''"""Generated by gpubench.methods.tron.loader (loader {loader}): TRON's core (gpubench/methods/tron/: core, linalg, objectives, subproblem) and
{driver} on {backend}, objective {objective}, forms {forms}, Hessian {hess}.  Do not edit."""
# ruff: noqa
import sys as _sys
from gpubench.methods.tron.loader import primitives as _primitives, warp_primitives as _warp_primitives
device, sync = _primitives({backend!r})
syncwarp, shfl_down, shfl_first = _warp_primitives({backend!r})
OBJECTIVE = {objective_code}
{bind}
'''

_DUMMY_FORMS = '''

@device
def point(x, p):
    return 0.0


@device
def gradient(x, p, g, w):
    return None
'''

_DUMMY_HESSIAN = '''

@device
def hessian(x, p, H):
    return None
'''


def _text(backend, objective, forms, hess):
    from ... import kernels
    driver = "tron_gpu" if backend == "cuda" else "tron_cpu"
    bind = (_DUMMY_FORMS if forms is None else
            f"point, gradient = _sys.modules[{forms.__name__!r}].point, _sys.modules[{forms.__name__!r}].gradient")
    bind += "\n" + (_DUMMY_HESSIAN if hess is None else f"hessian = _sys.modules[{hess.__name__!r}].hessian")
    head = _HEADER.format(loader=hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16],
                          driver=f"gpubench/kernels/{driver}.py", backend=backend, objective=objective,
                          forms=None if forms is None else forms.__name__,
                          hess=None if hess is None else hess.__name__,
                          objective_code=OBJECTIVES[objective], bind=bind)
    core = "\n\n".join(p.read_text() for p in _CORE)
    return head + "\n\n" + core + "\n\n" + kernels.splice(driver)


def _load_file(backend, objective, forms, hess):
    from ...forms.cache import import_text  # not codegen's import: no sympy
    text = _text(backend, objective, forms, hess)
    return import_text(f"gpubench_tron_{backend}_{objective}_{hashlib.sha256(text.encode()).hexdigest()[:16]}", text)
