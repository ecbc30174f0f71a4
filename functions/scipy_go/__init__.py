"""SciPy's global optimization benchmark library, in gpubench's language.

SciPy's ``benchmarks/benchmarks/go_benchmark_functions`` (about 195 classes) states, for each
function, its bounds, a global minimum ``fglob`` and minimisers ``global_optimum``.  Each is
written here from its formula as a :class:`~gpubench.forms.definition.Definition` named
``scipy_go.<ClassName>``, with SciPy's statements kept beside it (:data:`ENTRIES`) so that a
rigorous method can check them (:mod:`gpubench.workflow.certify`).  Scalable ones default to n = 2, 5, 10.

These functions are a library of their own: ``gpubench.functions.names()`` (the default
library, which the tests and experiments iterate) does not list them;
``gpubench.functions.names("scipy_go")`` and ``gpubench functions --library scipy_go`` do, and
``gpubench.functions.get("scipy_go.Ackley01")`` finds one.

A function the language cannot express is in :data:`NOT_EXPRESSED`, with the construct it
lacks; a scalable one it can write only at SciPy's default dimension is in
:data:`ONLY_DEFAULT_DIM`, with what general n lacks.  :data:`FINDINGS` lists where SciPy's stated f* is not the function's value at its own
stated minimiser (checked by ``tests/test_scipy_go.py``).
"""
from ._lib import ENTRIES, LIBRARY, NOT_EXPRESSED, ONLY_DEFAULT_DIM, SCALABLE_DIMS, Entry  # noqa: F401
from . import a_to_f, g_to_m, n_to_r, s_to_z  # noqa: F401,E402  (each module registers its entries)
from .findings import FINDINGS  # noqa: E402

__all__ = ["ENTRIES", "NOT_EXPRESSED", "ONLY_DEFAULT_DIM", "LIBRARY", "SCALABLE_DIMS", "definitions", "entry", "names"]


def names():
    """``scipy_go.<ClassName>`` of every expressed benchmark, sorted."""
    return sorted(e.name for e in ENTRIES.values())


def definitions():
    return [e.definition for e in ENTRIES.values()]


def entry(name):
    """The :class:`Entry` of ``scipy_go.<ClassName>`` (or of the bare class name)."""
    cls = name.split(".", 1)[1] if name.startswith(LIBRARY + ".") else name
    return ENTRIES[cls]
