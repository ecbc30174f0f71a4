"""One entry point for every method: ``minimize(function, dim, method=..., **options)``.

A method is a callable ``run(fn, dim, **options) -> OptimizeResult`` registered
under a name with :func:`register`.  The rigorous interval solver registers as
``"interval"``; the baselines (SciPy's methods, GPU DE, ...) register from
``gpubench.baselines``.  Adding a method means writing one module that calls
``register`` and listing it in ``_METHOD_MODULES``.
"""
import importlib

from .forms import InputError

_METHODS = {}
_METHOD_MODULES = (
    "gpubench.solver",
    "gpubench.baselines.scipy_methods",
)


def register(name, run, description=""):
    if name in _METHODS:
        raise ValueError(f"method {name!r} is already registered")
    run.description = description or (run.__doc__ or "").strip().splitlines()[0:1]
    _METHODS[name] = run
    return run


def _discover():
    for mod in _METHOD_MODULES:
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as exc:
            if exc.name != mod:
                raise


def names():
    _discover()
    return sorted(_METHODS)


def get(name):
    _discover()
    try:
        return _METHODS[name]
    except KeyError:
        raise InputError(f"unknown method {name!r}; known: {', '.join(sorted(_METHODS))}") from None


def minimize(function, dim, method="interval", **options):
    """Minimise (or, for ``sense="max"``, maximise) ``function`` in ``dim`` dimensions.

    ``function`` is a name from ``gpubench.functions.names()``, a
    ``path/to/file.py:NAME`` string, or a TestFunction.
    """
    from . import functions
    from .forms import check_dim
    fn = functions.get(function)
    return get(method)(fn, check_dim(dim), **options)
