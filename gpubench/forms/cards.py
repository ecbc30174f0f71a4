"""A function's card: what a new process needs of it, cached by the hash of its definition's source.

Deriving a function's forms needs sympy (its definition is sympy expressions), and importing
sympy costs a new process about a second.  The generated modules are already cached
(:func:`gpubench.forms.codegen.load`); this module lets a second process find them without the
definition at all (issue 25, item 1):

* :func:`source_key` hashes the text of the file that defines the function, of the helper
  modules beside it (``_*.py``, ``__init__.py``), of the generators (``GENERATOR_FILES``:
  ``gpubench/forms/definition.py``, ``codegen.py``, the form generators and this module), the versions of sympy and mpmath (their files, read,
  not imported) and Python's.  A changed definition file, helper, generator or version is a new
  key, so a stale card is never found.
* A :class:`Card` (``$GPUBENCH_CACHE/generated/cards/NAME-KEY.json``) holds the function's
  metadata, its bounds, optimum and parameters at each dimension a process has used, and the
  name of its generated module for each (backend, extensions) a process has loaded.
* :class:`gpubench.forms.function.TestFunction` reads the card first and imports the definition (sympy)
  only for what the card does not hold, recording it there for the next process.
* :func:`import_generated` imports a generated module by its name (numba's disk cache then
  loads its compiled kernels), as :func:`gpubench.forms.codegen.load` does after deriving it.

Light: no sympy, no numba at import.  A definition file that imports a module of the user's
other than its ``_*.py`` neighbours is keyed by its own text only: change that module and
``gpubench cache clear``.
"""
import hashlib
import importlib.util
import json
import os
import sys
import threading
from pathlib import Path

_HERE = Path(__file__).parent
# the modules whose code decides a generated text (gpubench.forms.codegen.generator_key hashes them)
GENERATOR_FILES = tuple(_HERE / f for f in ("definition.py", "codegen.py", "emitters.py", "structure.py",
                                             "box_forms.py", "templates.py", "split_forms.py", "term_forms.py",
                                             "cards.py"))
_KEYS = {}  # path -> source key, in this process


def _version_files():
    """The files that state the versions of sympy and mpmath (found, not imported)."""
    out = []
    for pkg, rel in (("sympy", "release.py"), ("mpmath", "__init__.py")):
        spec = importlib.util.find_spec(pkg)
        if spec is not None and spec.origin:
            out.append(Path(spec.origin).parent / rel)
    return out


def source_key(path):
    """The hash of everything a definition file's card depends on (see the module's docstring)."""
    path = Path(path).resolve()
    if path in _KEYS:
        return _KEYS[path]
    h = hashlib.sha256()
    helpers = sorted(p for p in path.parent.glob("_*.py") if p != path)
    for p in [path, *helpers, *GENERATOR_FILES, *_version_files()]:
        h.update(str(p.name).encode() + b"\0")
        try:
            h.update(p.read_bytes())
        except OSError:
            h.update(b"missing")
        h.update(b"\0")
    h.update(repr(sys.version_info[:2]).encode())
    _KEYS[path] = h.hexdigest()
    return _KEYS[path]


class Derived:
    """An extension of a generated module derived from the definition by the generator function
    ``name`` (one of :data:`gpubench.forms.codegen.DERIVED`, e.g. ``term_forms``), named without
    importing codegen (sympy): codegen calls it by that name when it generates the text."""

    def __init__(self, name):
        self.__name__ = name

    def __repr__(self):
        return f"Derived({self.__name__!r})"


def extensions_key(backend, extensions=(), negate=False):
    """The key, within a card, of a generated module: backend, negation and each extension's
    text (a derived one by its name, as :func:`gpubench.forms.codegen.load` keys it)."""
    h = hashlib.sha256(f"{backend} {bool(negate)}".encode())
    for e in extensions:
        h.update(b"\0callable " + e.__name__.encode() if callable(e) or isinstance(e, Derived) else b"\0" + e.encode())
    return h.hexdigest()[:32]


def _cards():
    from .cache import folder
    return folder() / "cards"


class Card:
    """The cached card of the function ``name`` defined in the file ``path``; ``data`` is None
    until a process with the definition has filled it."""

    def __init__(self, name, path, loader):
        self.name, self.path, self.loader = name, Path(path), loader
        self.key = source_key(path)
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
        self.file = _cards() / f"{safe}-{self.key[:40]}.json"
        try:
            self.data = json.loads(self.file.read_text())
        except (OSError, ValueError):
            self.data = None

    def fill(self, definition):
        """Record the metadata of ``definition`` (its first process)."""
        meta = {"name": definition.name, "title": definition.title, "source": definition.source,
                "sense": definition.sense, "continuous": definition.continuous, "dim": definition.dim}
        if self.data is None or self.data.get("meta") != meta:
            self.data = {"meta": meta, "at": {}, "modules": {}}
            self._write()

    # ------------------------------------------------------------ reading
    @property
    def meta(self):
        return None if self.data is None else self.data["meta"]

    def at(self, n, what):
        """A value recorded at dimension ``n`` (``bounds``, ``xstar``, ``fstar``, ``params``), or None."""
        if self.data is None:
            return None
        return self.data["at"].get(str(n), {}).get(what)

    def module(self, key):
        return None if self.data is None else self.data["modules"].get(key)

    # ------------------------------------------------------------ recording
    def record_at(self, n, what, value):
        if self.data is None or self.at(n, what) == value:
            return
        self.data["at"].setdefault(str(n), {})[what] = value
        self._write()

    def record_module(self, key, modname):
        if self.data is None or self.module(key) == modname:
            return
        self.data["modules"][key] = modname
        self._write()

    def _write(self):
        """Write the card, merged with what another process wrote since this one read it: cards
        are shared by concurrent processes (a test run's workers, a queue's shares), and a
        last-writer-wins write would drop the other's facts, costing a later process a sympy
        import (tests/test_levelset_card.py)."""
        from ..device.gpu import atomic_write
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            with open(self.file.with_suffix(".lock"), "a") as lock:
                try:
                    import fcntl
                    fcntl.flock(lock, fcntl.LOCK_EX)
                except (ImportError, OSError):  # no advisory locks here: merge without
                    pass
                self._merge_from_disk()
                atomic_write(self.file, json.dumps(self.data), fsync=False)
        except Exception:  # a cache that cannot be written costs the next process time, nothing else
            pass

    def _merge_from_disk(self):
        try:
            disk = json.loads(self.file.read_text())
        except (OSError, ValueError):
            return
        if not isinstance(disk, dict) or disk.get("meta") != self.data["meta"]:
            return  # another definition's card: ours replaces it
        for n, facts in disk.get("at", {}).items():
            mine = self.data["at"].setdefault(n, {})
            for what, value in facts.items():
                mine.setdefault(what, value)
        for key, modname in disk.get("modules", {}).items():
            self.data["modules"].setdefault(key, modname)


# ---------------------------------------------------------------- importing a generated module
def decorators(backend):
    """(device, kernel) decorators for generated code on ``backend`` (what a generated module
    imports: here, so that importing it needs no sympy)."""
    if backend == "cpu":
        from numba import njit
        # error_model="numpy": x/0 gives inf or nan as IEEE 754 says, not an exception
        return (njit(cache=True, error_model="numpy"),
                njit(cache=True, error_model="numpy"))
    from numba import cuda
    # kernels cached on disk: the generated module is a real file (numba locates its source), named
    # by the hash of its text, so a changed function or kernel is a new file, never a stale entry
    return cuda.jit(device=True), cuda.jit(cache=True)



LOAD_LOCK = threading.RLock()
LOADED = {}  # modules that have run to the end (sys.modules holds them while they run)


def generated_path(modname):
    from .cache import folder
    return folder() / f"{modname}.py"


def digest(text):
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def intact(modname):
    """Whether the generated file of ``modname`` is there with the text its name hashes."""
    try:
        return modname.endswith(digest(generated_path(modname).read_text()))
    except OSError:
        return False


def import_generated(modname, backend):
    """Import the generated module ``modname`` (once per process; thread-safe)."""
    module = LOADED.get(modname)
    if module is not None:
        return module
    from ..device.gpu import phase, watch_compiles
    with LOAD_LOCK:
        module = LOADED.get(modname)
        if module is not None:
            return module
        from .cache import ensure_bytecode
        path = generated_path(modname)
        ensure_bytecode(path)     # the next process's import reads it, whatever PYTHONDONTWRITEBYTECODE says
        spec = importlib.util.spec_from_file_location(modname, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[modname] = module  # numba's cache locator looks the module up while it runs
        try:
            with phase("codegen.import"):
                watch_compiles(cuda=backend == "cuda")  # imports numba, as the module is about to
                spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(modname, None)
            raise
        LOADED[modname] = module
        return module


def enabled():
    """Cards are read and written unless ``GPUBENCH_NO_CARDS`` is set (to compare with and without)."""
    return not os.environ.get("GPUBENCH_NO_CARDS")
