"""Derive every form of a test function from its one symbolic definition.

From a :class:`gpubench.forms.definition.Definition` this module writes Python source
for, on one backend:

- ``point(x, p)`` and ``interval(lo, hi, p)``;
- ``gradient(x, p, g, w)`` and ``interval_gradient(lo, hi, p, glo, ghi, wlo, whi)``,
  where the derivative comes from ``sympy.diff`` applied to the terms and to the
  outer expression and is assembled by the chain rule over the declared
  structure (the ``w`` arrays hold the prefix products a product's gradient
  needs);
- ``interval_mv(lo, hi, p, c, glo, ghi, wlo, whi)``, the mean value form
  ``f(c) + G(X).(X - c)`` (paper 001, section 2.2) with ``f(c)`` the interval form on
  the degenerate box at the midpoint ``c`` and ``G`` the interval gradient, and
  ``interval_best``, its intersection with the natural form (``c``, ``g*``, ``w*``
  are scratch arrays of length n);
- batched drivers (``points`` ... ) that loop or launch over many points/boxes.

The source is the same for the CPU and the GPU except for the decorator; the
interval operations it calls (``iadd``, ``isin`` ...) come from
:func:`gpubench.interval.namespace`.  Generated files are written to a cache
directory (``GPUBENCH_CACHE``, default ``~/.cache/gpubench``) under a content
hash, so numba's on-disk cache works and a user can read exactly what runs; an
index there, keyed by the definition and this generator, lets a new process
find its module without deriving the forms again (see :func:`load`).

``p`` is a float64 array of shape ``(len(params), n)`` with the definition's
per-coordinate parameters (possibly zero rows).

This module loads and caches; the generators are modules of their own, by form:
:mod:`.box_forms` (the forms over a whole vector or box, with :mod:`.templates`),
:mod:`.split_forms` (the solver's n-independent sweep), :mod:`.term_forms` (per-coordinate forms
for DE on the GPU), over :mod:`.emitters` and :mod:`.structure`.
"""
import functools
import hashlib
import sys
from pathlib import Path

import sympy as sp

from ..device.gpu import atomic_write, phase
from . import cards as formcache
from .cache import cache_dir  # noqa: F401  (this module's API; defined where it needs no sympy)
from .box_forms import _generate
from .cards import GENERATOR_FILES, Derived, digest, import_generated
from .structure import GENERATOR_VERSION, check_derivatives  # noqa: F401  (check_derivatives: an entry point)
from .term_forms import term_forms

# functions of the generators that derive an extension from the definition, by name (a
# cards.Derived names one without importing sympy)
DERIVED = {"term_forms": term_forms}


def source(defn, backend, extensions=()):
    """The generated Python source of every form of ``defn`` on ``backend``.

    ``extensions`` are further source texts appended to the module, e.g. a
    method's kernels, which then call the forms directly (and are cached with
    them), or functions of this module taking the definition (e.g. :func:`term_forms`),
    called only when the text is generated: a second process that finds the module in the
    index derives nothing.
    """
    key = (definition_key(defn), backend)
    if key not in _GENERATED:  # a solver loads the same forms with several extensions
        _GENERATED[key] = _generate(defn, backend)
    return _GENERATED[key] + "".join("\n\n" + _extension_text(e, defn) for e in extensions)


def _extension_text(e, defn):
    """An extension's code: a text as given; a function of this module, or one named by a
    :class:`~gpubench.forms.cards.Derived`, called on the definition (one of ``DERIVED``)."""
    if isinstance(e, Derived) or callable(e):
        return DERIVED[e.__name__](defn)
    return e


# ---------------------------------------------------------------- the cache of generated sources
# Deriving the forms (sympy) is done once per definition and generator: an index file named by a
# hash of everything the generated text depends on holds the name of the module file written
# from it, whose own name is the hash of its text.  A change to the definition, to this
# generator or to the sympy that runs it changes the key, so a stale text is never found.
_GENERATOR_SOURCES = tuple(map(str, GENERATOR_FILES))
_GENERATED = {}  # (definition_key, backend) -> text, in this process
_INDEXED = {}  # load key -> module name, in this process


@functools.lru_cache(maxsize=None)
def generator_key():
    """A hash of what decides the generated text besides the definition: the code of the generators
    (``cards.GENERATOR_FILES``: this module, the form generators, and gpubench.forms.definition's
    lower, window, the functions' classes), the versions of sympy and
    mpmath (printing, simplification, the evalf that encloses constants), and Python's."""
    import mpmath
    h = hashlib.sha256()
    for path in _GENERATOR_SOURCES:
        h.update(Path(path).read_bytes())
    h.update(f"{GENERATOR_VERSION} {sp.__version__} {mpmath.__version__} {sys.version_info[:2]}".encode())
    return h.hexdigest()


_DEFINITION_KEYS = {}  # id(defn) -> (defn, identities of the fields read, key)


def definition_key(defn):
    """A hash of every field of ``defn`` that the generator reads (see ``_generate``): name, expr,
    terms (in order, with their kinds), parameter names, spike and dim.  The bounds, optimum and
    parameter values are not in the generated text (parameters are passed at run time).

    Remembered per definition object while the objects of those fields stay the same (printing a
    large expression costs tens of ms, and a solver that loads its forms once per batch, such as
    the ADMM of :mod:`gpubench.problems.opf`, would pay it every iteration)."""
    ids = (defn.name, id(defn.expr), tuple((id(a), id(t)) for a, t in defn.terms.items()),
           tuple(defn.param_names), id(defn.spike), defn.dim)
    hit = _DEFINITION_KEYS.get(id(defn))
    if hit is not None and hit[0] is defn and hit[1] == ids:
        return hit[2]
    key = _definition_key(defn)
    _DEFINITION_KEYS[id(defn)] = (defn, ids, key)
    return key


def _definition_key(defn):
    spike = None if defn.spike is None else [sp.srepr(v) for v in (defn.spike.center, defn.spike.halfwidth,
                                                                    defn.spike.value)]
    fields = [defn.name, sp.srepr(defn.expr),
              [(sp.srepr(a), type(t).__name__, sp.srepr(t.term)) for a, t in defn.terms.items()],
              list(defn.param_names), spike, defn.dim]
    return hashlib.sha256(repr(fields).encode()).hexdigest()


def _load_key(defn, backend, extensions):
    h = hashlib.sha256(f"{generator_key()} {definition_key(defn)} {backend}".encode())
    for e in extensions:
        if callable(e) or isinstance(e, Derived):  # a generator's function: its code is in generator_key, defn in definition_key
            if DERIVED.get(e.__name__) is not e and not isinstance(e, Derived):
                raise ValueError(f"a callable extension must be one of {sorted(DERIVED)}, got {e!r}")
            h.update(b"\0callable " + e.__name__.encode())
        else:
            h.update(b"\0" + e.encode())
    return h.hexdigest()[:32]


def _indexed_module(key, prefix):
    """The module name the index holds for ``key``, if its file is there with the text that name
    hashes (else None: the text is generated again)."""
    try:
        modname = (cache_dir() / "index" / key).read_text().strip()
        text = (cache_dir() / f"{modname}.py").read_text()
    except OSError:
        return None
    ok = modname.startswith(prefix) and modname.endswith(_digest(text))
    return modname if ok else None


_digest = digest


def load(defn, backend, extensions=()):
    """Generate (or find in the cache), write and import the module of ``defn``'s forms on ``backend``.

    Thread-safe: Dask's in-process workers load the same function at once, and a
    module is published in ``sys.modules`` only once it has run to the end
    (:func:`gpubench.forms.cards.import_generated`).
    """
    prefix = f"gpubench_generated_{defn.name}_{backend}_"
    with phase("codegen.source"):
        key = _load_key(defn, backend, extensions)
        modname = _INDEXED.get(key) or _indexed_module(key, prefix)
        text = None
        if modname is None:
            text = source(defn, backend, extensions)
            modname = prefix + _digest(text)
    module = formcache.LOADED.get(modname)
    if module is not None:
        return module
    with formcache.LOAD_LOCK:
        if text is not None and modname not in formcache.LOADED:
            path = cache_dir() / f"{modname}.py"
            if not path.exists() or path.read_text() != text:
                atomic_write(path, text, fsync=False)
            atomic_write(cache_dir() / "index" / key, modname, fsync=False)
        _INDEXED[key] = modname
        return import_generated(modname, backend)
