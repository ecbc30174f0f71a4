"""numba's BLAS probe without importing ``scipy.linalg`` (issue 42, item 4: a second process in a second).

The first compile or disk-cache load of a numba dispatcher sets up its target (``refresh``), which
imports ``numba.np.arraymath`` (the CPU target) or ``numba.cuda.np.arraymath`` (numba-cuda's); each
asks at import whether BLAS is there, ``_HAVE_BLAS = _check_blas()``, by importing
``scipy.linalg.cython_blas``.  That import (``scipy.linalg`` and, through scipy's array-API shim,
``numpy.f2py``, ``numpy.testing`` with ``unittest``, ``numpy.ma``) took 0.15 s of every process that
loads a kernel on this project's CPU, though no kernel of gpubench calls BLAS from numba.

The command line (:mod:`gpubench.cli`) calls :func:`install` before it imports anything that
imports numba; ``import gpubench`` alone does not, so a user's own program keeps numba's probe.
:func:`install` puts a finder first on ``sys.meta_path`` that runs only those two modules'
own import with their ``ensure_blas`` answered by :func:`probe`: the same question (is
``scipy.linalg.cython_blas`` installed, and for the CPU target numba's check that its LAPACK
integer width is scipy's), asked of the files, not by importing it.  Once the module has run,
its ``ensure_blas`` (and its ``linalg`` module's) is numba's own again, so compiling ``np.dot``
still imports scipy and checks as before; compiled code that calls BLAS imports
``scipy.linalg.cython_blas`` itself on its first call (numba's ``_helperlib``).  Where scipy's
files cannot be found so, :func:`probe` asks numba's own ``ensure_blas``.

Light: importlib, os, sys only.
"""
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

# the module whose import asks for BLAS -> the module holding the ensure_blas it imports
WATCHED = {"numba.np.arraymath": "numba.np.linalg",
           "numba.cuda.np.arraymath": "numba.cuda.np.linalg"}


def cython_blas_file():
    """The path of ``scipy/linalg/cython_blas*.so`` as installed, found without importing scipy
    (None where there is none)."""
    try:
        spec = importlib.util.find_spec("scipy")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        folder = os.path.join(root, "linalg")
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(folder, "cython_blas" + suffix)
            if os.path.isfile(path):
                return path
    return None


def probe_for(linalg):
    """An ``ensure_blas`` for ``_check_blas`` at import: ImportError where numba's would raise it."""
    real = linalg.ensure_blas

    def probe():
        if cython_blas_file() is None:
            return real()  # scipy elsewhere (a zip, a frozen build) or absent: numba's own answer
        check = getattr(linalg, "_check_lapack_int_width", None)
        if check is not None:  # numba's LP64/ILP64 guard; it reads scipy.__config__ only
            check()
    return probe


class _Loader(importlib.abc.Loader):
    def __init__(self, loader, linalg_name):
        self.loader, self.linalg_name = loader, linalg_name

    def __getattr__(self, name):  # get_source, get_filename, ...: the module's own loader's
        return getattr(self.loader, name)

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        linalg = importlib.import_module(self.linalg_name)  # the module imports it first anyway
        real = linalg.ensure_blas
        linalg.ensure_blas = probe_for(linalg)
        try:
            self.loader.exec_module(module)
        finally:
            linalg.ensure_blas = real
            if getattr(module, "ensure_blas", None) is not None:
                module.ensure_blas = real


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        linalg_name = WATCHED.get(name)
        if linalg_name is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _Loader(spec.loader, linalg_name)
        return spec


_FINDER = _Finder()


def install():
    """Put the finder first on ``sys.meta_path`` (once); modules already imported are left as they are."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
