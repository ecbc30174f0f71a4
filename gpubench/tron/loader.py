"""Compile :mod:`gpubench.tron.core` for one backend and one objective.

``core.py`` is written once; this module executes its text in a fresh module
namespace with the backend's decorator, barrier and objective injected (see the
docstring of ``core.py``), so the GPU kernels and the CPU twin run the same
lines.  Compiled cores are not cached on disk: the objective is part of the
code, and numba's cache keys by file and function name only.
"""
import sys
import types
from pathlib import Path

from numba import cuda  # a module global: the CUDA simulator swaps it in __globals__

_CORE = Path(__file__).with_name("core.py")
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
        device = cuda.jit(device=True)
        sync = device(_syncthreads)
    return device, sync


def load_core(backend, objective="hs45", forms=None, hess=None):
    """The core module for ``backend`` with ``objective`` ('hs45', 'library' or 'symbolic').

    ``forms`` is the generated module (``codegen.load``) of a library function on
    the matching backend; its ``point`` and ``gradient`` become the objective.
    ``hess`` (objective 'symbolic') is the module of :mod:`gpubench.tron.hessian`.
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"unknown objective {objective!r}")
    key = (backend, objective, None if forms is None else forms.__name__,
           None if hess is None else hess.__name__)
    if key in _LOADED:
        return _LOADED[key]
    device, sync = primitives(backend)
    if forms is None:
        @device
        def point(x, p):
            return 0.0

        @device
        def gradient(x, p, g, w):
            return None
    else:
        point, gradient = forms.point, forms.gradient
    if hess is None:
        @device
        def hessian(x, p, H):
            return None
    else:
        hessian = hess.hessian
    name = f"gpubench.tron._core_{backend}_{objective}_{len(_LOADED)}"
    mod = types.ModuleType(name)
    mod.__file__ = str(_CORE)
    mod.__dict__.update(device=device, sync=sync, OBJECTIVE=OBJECTIVES[objective],
                        point=point, gradient=gradient, hessian=hessian)
    sys.modules[name] = mod
    exec(compile(_CORE.read_text(), str(_CORE), "exec"), mod.__dict__)
    _LOADED[key] = mod
    return mod
