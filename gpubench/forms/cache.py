"""The cache folder of generated code and compiled kernels (``gpubench cache``).

``$GPUBENCH_CACHE/generated`` (default ``~/.cache/gpubench/generated``) holds, each named by the
hash of its text: the modules of functions' forms with the kernels spliced into them
(``gpubench_generated_*.py``), TRON's cores (``gpubench_tron_*.py``) and symbolic Hessians
(``gpubench_hessian_*.py``); ``index/`` maps a definition and generator to its module, and
``cards/`` a definition file's source to what a new process needs of it (gpubench.forms.cards); numba's
compiled kernels and twins sit in ``__pycache__/`` beside them (``*.nbi`` index, ``*.nbc`` code)
unless ``NUMBA_CACHE_DIR`` sends them elsewhere.  An entry is never stale: a changed
definition, generator, kernel or version is a new name.  Light: no sympy, no numba.
"""
import os
import shutil
from pathlib import Path

KINDS = (("forms and kernels", "gpubench_generated_", ".py"), ("TRON cores", "gpubench_tron_", ".py"),
         ("Hessians", "gpubench_hessian_", ".py"))


def root():
    """The cache folder, checked where the variable is read: a file named by $GPUBENCH_CACHE (or
    in its place) is one line naming the variable, not a NotADirectoryError deep in code generation."""
    given = os.environ.get("GPUBENCH_CACHE")
    path = Path(given or os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")),
                                      "gpubench"))
    what = f"GPUBENCH_CACHE={given!r}" if given else f"the cache folder {str(path)!r}"
    for p in (path, path / "generated"):
        if p.exists() and not p.is_dir():
            from ..errors import InputError
            shown = what if p == path else f"{what}: {str(p)!r}"
            raise InputError(f"{shown} is a file, not a folder (set GPUBENCH_CACHE to a folder)")
    return path


def folder():
    """The folder of generated files (not created)."""
    return root() / "generated"


def cache_dir():
    """The folder of generated files, created (one line naming the folder where it cannot be)."""
    path = folder()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a parent is a file, or not writable: the user's setting
        from ..errors import InputError
        raise InputError(f"cannot create the cache folder {str(path)!r}: {exc.strerror or exc} "
                         "(set GPUBENCH_CACHE to a writable folder)") from None
    return path


def import_text(name, text):
    """The module whose source is ``text``, named ``name`` (a name that holds the text's hash, so an
    entry is never stale): written to the cache folder where it is not there already (atomically),
    imported once a process.  Generated kernels live in files, not strings, because numba's disk
    cache keys a kernel by its module's file."""
    import importlib.util
    import sys
    module = sys.modules.get(name)
    if module is not None:
        return module
    from ..device.gpu import atomic_write
    path = cache_dir() / f"{name}.py"
    try:
        same = path.read_text() == text
    except OSError:
        same = False
    if not same:
        atomic_write(path, text, fsync=False)
    ensure_bytecode(path)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # numba's cache locator looks the module up while it runs
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def ensure_bytecode(path):
    """The module's bytecode beside it (``__pycache__``), written where it is missing or does not match
    the source (its header's size and time): an import writes it only where ``PYTHONDONTWRITEBYTECODE``
    is unset, and where it is set (the H200 host's environment) every process compiled each generated
    module from its source again.  The import then reads it, checking the same header; a cache it
    cannot be written to costs only that compile."""
    import importlib.util
    import py_compile
    pyc = importlib.util.cache_from_source(str(path))
    try:
        st = os.stat(path)
        with open(pyc, "rb") as f:
            head = f.read(16)
        if (head[:4] == importlib.util.MAGIC_NUMBER and head[4:8] == bytes(4)
                and int.from_bytes(head[8:12], "little") == int(st.st_mtime) & 0xFFFFFFFF
                and int.from_bytes(head[12:16], "little") == st.st_size & 0xFFFFFFFF):
            return
    except OSError:
        pass   # no bytecode yet (or no source: the import will say so)
    try:
        # timestamp bytecode, the header checked above (SOURCE_DATE_EPOCH would make py_compile hash it)
        py_compile.compile(str(path), cfile=pyc, doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP)
    except (OSError, py_compile.PyCompileError):
        pass   # read-only or full cache, or a text the import will report itself


def summary():
    """{"folder", "entries", "bytes", "kinds": {kind: count}} of the cache as it is now."""
    base = folder()
    kinds = {name: 0 for name, _, _ in KINDS}
    kinds.update({"index entries": 0, "function cards": 0, "compiled (numba index files)": 0, "other": 0})
    entries, size = 0, 0
    if base.is_dir():
        for path in base.rglob("*"):
            if not path.is_file():
                continue
            entries += 1
            try:
                size += path.stat().st_size
            except OSError:
                continue
            rel = path.relative_to(base)
            kind = next((k for k, prefix, ext in KINDS if len(rel.parts) == 1 and path.name.startswith(prefix)
                         and path.suffix == ext), None)
            if kind is None:
                if rel.parts[0] == "index":
                    kind = "index entries"
                elif rel.parts[0] == "cards":
                    if path.suffix != ".json":
                        continue  # a card's lock file (cards.Card._write), counted in entries and bytes
                    kind = "function cards"
                elif path.suffix == ".nbi":
                    kind = "compiled (numba index files)"
                elif path.suffix == ".nbc":
                    continue  # counted in entries and bytes; one kernel is an .nbi and its .nbc files
                else:
                    kind = "other"
            kinds[kind] += 1
    out = {"folder": str(base), "entries": entries, "bytes": size, "kinds": kinds}
    if os.environ.get("NUMBA_CACHE_DIR"):
        out["numba_cache_dir"] = os.environ["NUMBA_CACHE_DIR"]
    return out


def clear():
    """Remove the folder of generated files and compiled kernels; (entries, bytes) removed."""
    s = summary()
    base = folder()
    if base.is_dir():
        shutil.rmtree(base)
    return s["entries"], s["bytes"]
