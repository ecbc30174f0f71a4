"""Every method behind one entry point: ``minimize(function, dim, method=..., **settings)``.

A method is a module in this package, in ``gpubench.baselines`` (the checkout's
``baselines/``: SciPy's methods and the peers), or in a folder named by the environment
variable ``GPUBENCH_METHOD_PATH`` (several separated by ``os.pathsep``) that
defines ``METHOD`` (a :class:`~gpubench.methods.base.Method`) or ``METHODS``
(a list of them).  The registry finds them the way ``gpubench.functions``
finds definitions: adding a method means adding one file; nothing else knows
it by name.  ``gpubench methods`` lists them with their backends and settings.
"""
import importlib
import importlib.util
import os
import pkgutil
import sys
from pathlib import Path

from ..errors import InputError, check_dim
from .base import CONTROLS, Method, MethodSettings, setting  # noqa: F401  (the interface)

_METHODS = {}
_LOADED = []


def _register(method, module):
    if not isinstance(method, Method):
        raise InputError(f"{module}: METHOD must be a gpubench.methods.base.Method, got {type(method).__name__}")
    old = _METHODS.get(method.name)
    if old is not None and old.module != module:
        raise InputError(f"method {method.name!r} is defined twice: in {old.module} and {module}")
    if old is not None and _FOUND.get(method.name) is old:
        return  # found alone before (_one): keep the object given out
    bad = sorted(set(method.controls) - set(CONTROLS))
    if bad:
        raise InputError(f"{module}: method {method.name!r} declares unknown control {bad[0]!r}")
    _METHODS[method.name] = method if method.module else _with_module(method, module)


def _with_module(method, module):
    import dataclasses
    return dataclasses.replace(method, module=module)


def _collect(mod):
    found = list(getattr(mod, "METHODS", ()))
    if hasattr(mod, "METHOD"):
        found.append(mod.METHOD)
    for m in found:
        _register(m, mod.__name__)


def _user_folders():
    text = os.environ.get("GPUBENCH_METHOD_PATH", "")
    return [Path(p) for p in text.split(os.pathsep) if p]


def _discover():
    key = os.environ.get("GPUBENCH_METHOD_PATH", "")
    if _LOADED and _LOADED[0] == key:
        return
    _METHODS.clear()
    _METHODS.update(_FOUND)  # the same objects _one gave out
    from .. import baselines
    for pkg in (sys.modules[__name__], baselines):
        for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
            if info.name.startswith("_") or info.name == "base":
                continue
            _collect(importlib.import_module(f"{pkg.__name__}.{info.name}"))
    for folder in _user_folders():
        if not folder.is_dir():
            raise InputError(f"GPUBENCH_METHOD_PATH: {str(folder)!r} is not a folder")
        for path in sorted(folder.glob("*.py")):
            if path.name.startswith("_"):
                continue
            modname = f"gpubench_user_method_{path.stem}"
            spec = importlib.util.spec_from_file_location(modname, path)
            mod = importlib.util.module_from_spec(spec)
            sys.modules[modname] = mod
            try:
                spec.loader.exec_module(mod)
            except InputError:
                raise
            except SystemExit as exc:  # sys.exit() at import would end gpubench silently
                raise InputError(f"{path}: cannot load the method module: it calls exit ({exc.code!r}) "
                                 f"when imported") from None
            except Exception as exc:
                raise InputError(f"{path}: cannot load the method module: "
                                 f"{type(exc).__name__}: {exc}".splitlines()[0]) from None
            _collect(mod)
    _LOADED[:] = [key]


def names():
    """The registered methods' names, sorted."""
    _discover()
    return sorted(_METHODS)


def all_methods():
    _discover()
    return [_METHODS[k] for k in sorted(_METHODS)]


def _one(name):
    """The method ``name`` from the module of the same name alone (``de-gpu``: ``de_gpu.py``), as
    :func:`gpubench.functions.get` finds a function: a new process imports only the method it runs
    (not every method's dependencies).  None when that module does not define it, or while
    ``GPUBENCH_METHOD_PATH`` adds methods (every module is then read, to find a name defined twice)."""
    if not isinstance(name, str) or os.environ.get("GPUBENCH_METHOD_PATH") or _LOADED:
        return None
    for modname in {name.replace("-", "_"), name}:
        if not modname.isidentifier() or modname.startswith("_") or modname == "base":
            continue
        if importlib.util.find_spec(f"{__name__}.{modname}") is None:
            continue
        mod = importlib.import_module(f"{__name__}.{modname}")
        found = list(getattr(mod, "METHODS", ())) + ([mod.METHOD] if hasattr(mod, "METHOD") else [])
        for m in found:
            if m.name == _spelling_of(name, m.name):
                if m.name not in _FOUND:  # one object per method, as the registry holds
                    _FOUND[m.name] = m if m.module else _with_module(m, mod.__name__)
                return _FOUND[m.name]
    return None


_FOUND = {}  # methods found by _one before any full discovery


def _spelling_of(name, registered):
    """``registered`` when ``name`` spells it (hyphens and underscores alike), else ``name``."""
    return registered if name.replace("_", "-") == registered.replace("_", "-") else name


def get(name):
    """The :class:`Method` registered as ``name``."""
    if isinstance(name, Method):
        return name
    one = _one(name)
    if one is not None:
        return one
    _discover()
    try:
        return _METHODS[_spelling(name)]
    except (KeyError, TypeError, AttributeError):
        from ..errors import did_you_mean
        raise InputError(f"unknown method {name!r}{did_you_mean(name, _METHODS)}; "
                         f"known: {', '.join(sorted(_METHODS))}") from None


def _spelling(name):
    """The registered name of ``name``: ``lbfgsb_gpu`` is ``lbfgsb-gpu``, ``nelder-mead`` is
    ``nelder_mead`` (experiment files key their entries with underscores, the CLI lists hyphens)."""
    if name in _METHODS:
        return name
    for other in (name.replace("_", "-"), name.replace("-", "_")):
        if other in _METHODS:
            return other
    return name


def is_rigorous(name):
    """Whether the method ``name`` declares itself rigorous; None when it is not registered here."""
    _discover()
    m = _METHODS.get(_spelling(name)) if isinstance(name, str) else None
    return None if m is None else m.rigorous


def minimize(function, dim, method, **options):
    """Minimise (or, for ``sense="max"``, maximise) ``function`` in ``dim`` dimensions.

    ``function`` is a name from ``gpubench.functions.names()``, a
    ``path/to/file.py:NAME`` string, or a TestFunction.  ``options`` are the
    method's settings (``gpubench methods`` lists them) and the run controls it
    declares (for the rigorous solver: ``progress``, ``checkpoint``, ``resume``,
    ``checkpoint_every``).  Returns an :class:`~gpubench.result.OptimizeResult`.
    """
    from .. import functions
    m = get(method)
    fn = functions.get(function)
    dim = check_dim(dim)
    values, controls = m.split(options)
    return m.run(fn, dim, m.make_settings(values), **controls)


__all__ = ["Method", "MethodSettings", "setting", "minimize", "names", "get", "all_methods", "is_rigorous"]
