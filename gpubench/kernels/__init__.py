"""Method kernels as real modules, compiled once per machine.

A kernel that calls a function's generated forms (``point``, ``term_fold`` ...) is written
here as an ordinary module against the stand-in forms of :mod:`gpubench.kernels.stand_in`
(so it lints, imports and compiles to PTX alone).  For a function, :func:`splice` gives its
text to :func:`gpubench.forms.codegen.load`, which appends it to the function's generated module:
one real ``.py`` file in the cache folder (``GPUBENCH_CACHE``) named by the hash of its text.
Numba's on-disk cache (``cache=True``) locates that file, so the next process for the same
(function, method variant, device) loads the compiled kernels instead of compiling them.

Each module imports its stand-ins under ``if __name__ == "gpubench.kernels.<name>"``: inside a
generated module ``__name__`` differs, so the generated forms above it stand.
"""
from pathlib import Path

_HERE = Path(__file__).parent


def path(name):
    """The file of kernel module ``name`` (e.g. 'de_gpu')."""
    return _HERE / f"{name}.py"


def splice(name, replace=()):
    """The source text of kernel module ``name``, with each (old, new) of ``replace`` applied
    (an ``old`` that is not in the text is an error: a test's deliberate breakage must land)."""
    text = path(name).read_text()
    for old, new in replace:
        if old not in text:
            raise ValueError(f"gpubench.kernels.{name}: {old!r} not found")
        text = text.replace(old, new)
    return text
