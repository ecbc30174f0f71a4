"""The rigorous GPU solver of Zhang, Shan & Cagan (2026) and its CPU twin.

``solve(function, dim, ...)`` or ``gpubench.methods.minimize(function, dim,
method=...)`` with the method that :mod:`gpubench.methods.interval` declares.
See :mod:`gpubench.methods.solver.core` for the search.  The names below are loaded on
first use, so that ``gpubench.methods.solver.settings`` is light to import.
"""
__all__ = ["solve", "run_search", "Search", "Settings"]


def __getattr__(name):
    if name in __all__:
        from . import core
        return getattr(core, name)
    raise AttributeError(name)
