"""The generated module the stand-ins read: Levy's forms with the shared device code spliced in."""
from functools import lru_cache

from . import SHARED, text


@lru_cache(maxsize=None)
def forms(backend):
    from gpubench import functions
    from gpubench.forms import codegen
    return codegen.load(functions.get("levy").definition, backend, tuple(text(name) for name in SHARED))
