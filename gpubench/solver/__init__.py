"""The rigorous GPU solver of Zhang, Shan & Cagan (2026) and its CPU twin.

``solve(function, dim, ...)`` or ``gpubench.methods.minimize(function, dim,
method="interval", ...)``.  See :mod:`gpubench.solver.core` for the method.
"""
from .. import methods
from .core import Search, Settings, solve


def _run(fn, dim, **options):
    """Complete and rigorous interval search (Zhang, Shan & Cagan 2026)."""
    return solve(fn, dim, **options)


methods.register("interval", _run)

__all__ = ["solve", "Search", "Settings"]
