"""Stand-in forms for the CUDA modules of :mod:`gpubench.methods.solver.spliced` imported as themselves.

Every name a spliced module reads from its generated module (the forms, ``device``, the shared
device code) is looked up, on first use, in the CUDA forms of Levy with :mod:`.cut`, :mod:`.layout`, :mod:`.subdomain`
and :mod:`.subregion` spliced in.  Never used in a run: there the function's own forms stand.
"""
from ._forms import forms


def __getattr__(name):
    return getattr(forms("cuda"), name)
