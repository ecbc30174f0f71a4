"""The library of scalable test functions (installed as ``gpubench.functions``).

Each module in this package defines one function as a
:class:`gpubench.forms.definition.Definition` named ``DEFINITION``.  Adding a function
means adding one file here; the registry finds it.  A user's own function,
defined the same way in their own file, is loaded with :func:`load_file`.

A subpackage is a library of its own (:data:`LIBRARIES`), kept out of the default
listing: ``names("scipy_go")`` lists SciPy's benchmarks, ``get("scipy_go.Ackley01")``
finds one.
"""
import importlib
import importlib.util
import pkgutil
from pathlib import Path

from gpubench.errors import InputError
from gpubench.forms.function import TestFunction

# gpubench.forms.definition (sympy) is imported only where a definition is made or checked: a function
# whose card is cached (gpubench.forms.cards) is served without it
_LAZY = {"Definition": "gpubench.forms.definition", "DefinitionError": "gpubench.forms.definition",
         "Problem": "gpubench.forms.definition", "ConstrainedProblem": "gpubench.forms.function"}


def __getattr__(name):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _card(name, path, loader):
    """The cached card of ``name`` defined in ``path`` (None when cards are off)."""
    from gpubench.forms import cards as formcache
    return formcache.Card(name, path, loader) if formcache.enabled() else None

_REGISTRY = {}
_SCANNED = set()  # modules of this package whose definitions are registered
_COMPLETE = []  # [True] once every module is
LIBRARIES = ("scipy_go",)  # subpackages, each a library named by its prefix "<library>."
_LIBRARY_LOADED = set()


def _library(library):
    """Register every definition of the subpackage ``library`` (under ``<library>.<Name>``)."""
    if library not in LIBRARIES:
        raise InputError(f"unknown function library {library!r}; libraries: default, "
                         f"{', '.join(LIBRARIES)}")
    if library not in _LIBRARY_LOADED:
        module = importlib.import_module(f"{__name__}.{library}")
        for defn in module.definitions():
            register(defn)
        _LIBRARY_LOADED.add(library)
    return sorted(k for k in _REGISTRY if k.startswith(library + "."))


def _scan(modname):
    if modname not in _SCANNED:
        module = importlib.import_module(f"{__name__}.{modname}")
        for defn in _definitions_in(module):
            card = _card(defn.name, module.__file__, None) if defn.name == modname else None
            if card is not None:
                card.loader = lambda d=defn: d
            register(defn, card)
        _SCANNED.add(modname)


def _from_card(name):
    """Register ``name`` from its cached card, without importing its module (sympy); False when
    there is no card for the module's current text."""
    spec = importlib.util.find_spec(f"{__name__}.{name}")
    if spec is None or not spec.origin:
        return False
    card = _card(name, spec.origin, None)
    if card is None or card.meta is None or card.meta.get("name") != name:
        return False

    def loader():
        _scan(name)
        return _REGISTRY[name]._definition
    card.loader = loader
    _REGISTRY[name] = TestFunction(card=card)
    return True


def _discover():
    if _COMPLETE:
        return
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.name.startswith("_") and not info.ispkg:
            _scan(info.name)
    _COMPLETE.append(True)


def _find(name):
    """Register the function ``name``: from the module of the same name when there is one (making
    every definition costs a new process a fifth of a second of sympy), else from all of them."""
    if name in _REGISTRY:
        return
    if name.isidentifier() and not name.startswith("_") and not _COMPLETE:
        if _from_card(name):
            return
        if importlib.util.find_spec(f"{__name__}.{name}") is not None:
            _scan(name)
    if name not in _REGISTRY:
        _discover()


def _definitions_in(module):
    found = getattr(module, "DEFINITIONS", None)
    if found is None:
        found = [getattr(module, "DEFINITION")] if hasattr(module, "DEFINITION") else []
    return list(found)


def register(definition, card=None) -> TestFunction:
    """Add a definition to the registry and return its :class:`TestFunction`."""
    old = _REGISTRY.get(definition.name)
    if old is not None:
        if old._definition is None:  # served from its card so far: this is its definition
            old._definition = definition
            old._card.fill(definition)
            return old
        raise ValueError(f"a function named {definition.name!r} is already registered")
    fn = TestFunction(definition, card)
    _REGISTRY[definition.name] = fn
    return fn


def names(library=None):
    """Names of every function of the default library, sorted; or of ``library`` (e.g. "scipy_go")."""
    if library not in (None, "default"):
        return _library(library)
    _discover()
    return sorted(k for k in _REGISTRY if k.split(".", 1)[0] not in LIBRARIES or "." not in k)


def get(name) -> TestFunction:
    """The function called ``name``, or ``path/to/file.py:NAME`` for a user's own."""
    if not isinstance(name, str):
        from gpubench.forms.definition import Problem
        from gpubench.forms.function import ConstrainedProblem
        if isinstance(name, (TestFunction, ConstrainedProblem)):
            return name
        if isinstance(name, Problem):
            return ConstrainedProblem(name)
    if ":" in str(name) and str(name).split(":", 1)[0].endswith(".py"):
        path, attr = str(name).split(":", 1)
        return load_file(path, attr)
    prefix = str(name).split(".", 1)[0]
    if "." in str(name) and prefix in LIBRARIES:
        _library(prefix)
    else:
        _find(str(name))
    try:
        return _REGISTRY[name]
    except KeyError:
        raise InputError(f"unknown function {name!r}; `gpubench functions` lists them") from None


def load_file(path, attr):
    """A :class:`TestFunction` from a Definition named ``attr`` in the Python file ``path``."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"cannot read function file {path!r}")
    card = _card(attr, p, None)
    if card is not None and card.meta is not None:
        card.loader = lambda: _load_definition(p, path, attr, card)
        return TestFunction(card=card)
    found = _load_definition(p, path, attr, card)
    from gpubench.forms.definition import Definition
    return TestFunction(found, card) if isinstance(found, Definition) else found


def _load_definition(p, path, attr, card):
    """What ``attr`` names in the file: a TestFunction or ConstrainedProblem as it is, else the
    Definition (one-line errors for anything else)."""
    from gpubench.forms.definition import Definition, DefinitionError, Problem
    from gpubench.forms.function import ConstrainedProblem
    spec = importlib.util.spec_from_file_location(f"gpubench_user_{p.stem}", p)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except DefinitionError as exc:  # already one line, naming the construct and the term
        raise InputError(f"{path}: {exc}") from None
    except SystemExit as exc:  # sys.exit() at import would end gpubench silently, with its code
        raise InputError(f"cannot load {path}: it calls exit ({exc.code!r}) when imported") from None
    except Exception as exc:  # the user's file: report, don't crash
        raise InputError(f"cannot load {path}: {type(exc).__name__}: {exc}") from None
    defn = getattr(module, attr, None)
    if isinstance(defn, (TestFunction, ConstrainedProblem)):
        return defn
    if isinstance(defn, Problem):
        return ConstrainedProblem(defn)
    if not isinstance(defn, Definition):
        raise InputError(f"{path} has no Definition named {attr!r}")
    return defn


__all__ = ["get", "names", "register", "load_file", "TestFunction", "Definition"]
