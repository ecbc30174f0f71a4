"""Rigorous interval arithmetic on CPU (numba) and GPU (numba-cuda).

The operations are written once in :mod:`gpubench.interval.ops` over a few
directed-rounding primitives (:mod:`.rounding_cpu`, :mod:`.rounding_gpu`) and
compiled per backend by :func:`gpubench.interval.backends.namespace`.
"""
from .backends import namespace

__all__ = ["namespace"]
