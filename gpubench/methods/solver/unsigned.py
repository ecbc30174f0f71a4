"""The unsigned subscript of the solver's device code (issue 42: the device loop near its floor).

numba wraps a signed array index around (``if i < 0: i += dim``: a sign shift, a mask and a 64-bit
add, some six SASS instructions an access on sm_90); an unsigned one it takes as it is.  The device
loop's modules (:mod:`.spliced.loop`, :mod:`.spliced.loop_tables`, :mod:`.spliced.subregion`,
:mod:`.spliced.layout`) and the block folds of :mod:`.reduce` pass every subscript that cannot be
negative through :func:`u` (as ``gpubench/kernels/lbfgsb.py``'s ``_lb_u``); the arithmetic on
indices stays signed (uint64 with int64 makes float64), so the cast sits at the subscript alone.

``register_jitable``: one definition for every target that calls it, CUDA kernels and the CPU
backend's ``njit`` forms alike (subregion and layout are spliced into both); under the CUDA simulator
it is plain Python, where a negative index given to it raises (a Python int) or wraps to 2^64 - 1
and up, out of every array's bounds (a numpy int): the simulator's tests catch a wrong cast.
"""
from numba import uint64
from numba.extending import register_jitable


@register_jitable
def u(i):
    """``i``, a non-negative integer, as an unsigned array subscript."""
    return uint64(i)
