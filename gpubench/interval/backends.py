"""Compile the one source of the interval operations for each backend.

``namespace("cpu")`` and ``namespace("cuda")`` return dictionaries mapping every
primitive and interval operation name (``iadd``, ``isin``, ``add_dn`` ...) to its
compiled form: ``numba.njit`` functions for the CPU, numba-cuda device functions
for the GPU.  Generated code (see ``gpubench.forms.codegen``) runs with one of these
dictionaries as its globals, which is how a single definition becomes code for
both backends.
"""
import functools
import itertools
import math
import types

from . import ops

BACKENDS = ("cpu", "cuda")


_VARIANTS = itertools.count(1)


def _rebind(func, globals_dict, label=None):
    """The same code object as ``func``, resolving its globals in ``globals_dict``; qualified by
    ``label`` when given (see :func:`build_namespace`)."""
    clone = types.FunctionType(func.__code__, globals_dict, func.__name__,
                               func.__defaults__, func.__closure__)
    clone.__qualname__ = func.__qualname__ if label is None else f"{label}.{func.__qualname__}"
    clone.__module__ = func.__module__
    clone.__doc__ = func.__doc__
    return clone


def build_namespace(primitives, compile_, variant=True):
    """Compile the interval operations over ``primitives`` with ``compile_``.

    ``namespace`` uses this with the real primitives (``variant=False``); tests use it with
    deliberately broken ones to show that the oracles catch a missing step.

    A variant's operations are qualified by a name of their own (``variant<k>.iadd``): numba names
    a compiled function by module, qualified name and a counter of the process that compiled it,
    and code loaded from numba's disk cache carries the real ``ops.iadd`` under another process's
    counter, so a variant compiled here could draw the same symbol name.  Naming variants apart
    rules that out.  (Suspected, not proven, behind CI stop 34's split-sweep bounds that differed
    by an ulp only after other tests had run in the same process.)
    """
    ns = {"math": math, "__builtins__": __builtins__}
    ns.update({k: getattr(ops, k) for k in dir(ops) if k.isupper()})
    ns.update(primitives)
    label = f"variant{next(_VARIANTS)}" if variant else None
    for name in ops.COMPOSITE_NAMES:
        ns[name] = compile_(_rebind(getattr(ops, name), ns, label))
    return ns


@functools.lru_cache(maxsize=None)
def namespace(backend):
    if backend == "cpu":
        from numba import njit

        from . import rounding_cpu as rounding

        rounding.check_no_flush_to_zero()
        # error_model="numpy": x/0 gives inf or nan as IEEE 754 says, not an exception
        compile_ = njit(error_model="numpy")
    elif backend == "cuda":
        from numba import cuda

        from . import rounding_gpu as rounding

        # Forcing inline=True on every composite op made NVVM take minutes on
        # functions with many isin calls; NVVM still inlines small ones itself.
        compile_ = cuda.jit(device=True)
    else:
        raise ValueError(f"unknown backend {backend!r}; expected one of {BACKENDS}")
    return build_namespace(rounding.PRIMITIVES, compile_, variant=False)

