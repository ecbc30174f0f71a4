"""The interval solver's device code as real modules, spliced after a function's generated forms.

Each module here is ordinary Python (it lints, imports and compiles to PTX alone) written against
the forms :mod:`gpubench.forms.codegen` generates for a function (``interval_partial``,
``value_split_raw``, ``window_terms``, the directed-rounding operations, ``device`` ...).
:mod:`gpubench.methods.solver.kernels` reads their text (:func:`text`) and gives it to
:func:`gpubench.forms.codegen.load`, which appends it to the function's generated module: one real
``.py`` file in the cache folder, named by the hash of its text, whose ``cache=True`` kernels numba
keeps compiled on disk beside it (as :mod:`gpubench.kernels` does for the other methods).

Imported as itself (``__name__`` is its own), a module takes those names from
:mod:`.stand_in_cpu` or :mod:`.stand_in_cuda`: the generated forms of Levy with the shared device
code spliced in.  Inside a generated module ``__name__`` differs, so the function's own forms stand.

- :mod:`.cut`: the cut points of an interval and a box's sub-boxes (also spliced by
  :mod:`gpubench.methods.subdomain_bnb`);
- :mod:`.layout`: the iteration's cut tables laid out (also spliced into the host's CPU forms);
- :mod:`.subregion`: one subregion bounded, full and split evaluation, and the cut tables' values;
- :mod:`.cpu`, :mod:`.gpu_full`, :mod:`.gpu_split`: the sweeps over every subregion;
- :mod:`.loop`: the whole iteration on the GPU (``Settings.loop = "device"``);
- :mod:`.subdomain`, :mod:`.subdomain_cpu`, :mod:`.subdomain_gpu`: paper 001's subdomains of a node
  enclosed (:mod:`gpubench.methods.subdomain_bounds`).
"""
from pathlib import Path

_HERE = Path(__file__).parent
# what a module's own imports and stand-ins need to be valid source when spliced: kept, and harmless
SHARED = ("cut", "layout", "subregion", "subdomain")


def text(name, replace=()):
    """The source of module ``name``, with each (old, new) of ``replace`` applied (an ``old`` that is
    not in the text is an error: a compile-time size or a test's deliberate breakage must land)."""
    source = (_HERE / f"{name}.py").read_text()
    for old, new in replace:
        if old not in source:
            raise ValueError(f"gpubench.methods.solver.spliced.{name}: {old!r} not found")
        source = source.replace(old, new)
    return source
