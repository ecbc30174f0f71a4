"""The unsigned array subscript of gpubench's device code: one definition for every kernel.

numba wraps a signed array index around (``if i < 0: i += dim``: a sign shift, a mask and a 64-bit
add, some six SASS instructions an access on sm_90); an unsigned one it takes as it is.  Every
subscript that cannot be negative passes through :func:`u`: de-gpu's kernels
(:mod:`gpubench.kernels.de_gpu`), the L-BFGS-B solver (:mod:`gpubench.kernels.lbfgsb`,
``lbfgsb_group``: 16 % less SASS, 32 % less time for 10^4 Levy starts on an H200), TRON's core
(:mod:`gpubench.methods.tron.core` and the files spliced with it) and the rigorous solver's device loop
(:mod:`gpubench.methods.solver.spliced`, and :mod:`gpubench.methods.solver.reduce`'s block folds).  The
arithmetic on indices stays signed (uint64 with int64 makes float64), so the cast sits at the subscript
alone.

``register_jitable``: one definition for every target that calls it, CUDA kernels and the CPU twins'
``njit`` code alike (the spliced modules import it, their text carrying the import into the generated
module); under the CUDA simulator it is plain Python, where a negative index given to it raises (a
Python int) or wraps to 2^64 - 1 and up, out of every array's bounds (a numpy int): the simulator's
tests catch a wrong cast.
"""
from numba import uint64
from numba.extending import register_jitable


@register_jitable
def u(i):
    """``i``, a non-negative integer, as an unsigned array subscript."""
    return uint64(i)
