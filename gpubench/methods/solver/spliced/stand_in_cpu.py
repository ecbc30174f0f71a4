"""Stand-in forms for the CPU module of :mod:`gpubench.methods.solver.spliced` imported as itself:
the CPU forms of Levy with the shared device code spliced in (see :mod:`.stand_in_cuda`)."""
from ._forms import forms


def __getattr__(name):
    return getattr(forms("cpu"), name)
