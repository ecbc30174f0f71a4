"""CPU twins: the same core functions with one thread per problem and numba's ``prange`` over
the batch (:mod:`gpubench.kernels.tron_cpu`, compiled with the core in the file that
``load_core("cpu", ...)`` writes, cached on disk)."""
from functools import lru_cache

from .loader import load_core


@lru_cache(maxsize=None)
def linalg_twins():
    core = load_core("cpu", "hs45")
    return core.cholesky, core.backsolve, core.forwardsolve


_TRON = {}


def tron_twin(objective="hs45", forms=None, hess=None):
    key = (objective, None if forms is None else forms.__name__, None if hess is None else hess.__name__)
    if key not in _TRON:
        _TRON[key] = load_core("cpu", objective, forms, hess).tron
    return _TRON[key]
