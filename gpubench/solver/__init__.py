"""The rigorous GPU solver of Zhang, Shan & Cagan (2026) and its CPU twin.

``solve(function, dim, ...)`` or ``gpubench.methods.minimize(function, dim,
method=...)`` with the method that :mod:`gpubench.methods.interval` declares.
See :mod:`gpubench.solver.core` for the search.
"""
from .core import Search, Settings, run_search, solve

__all__ = ["solve", "run_search", "Search", "Settings"]
