"""DE's random numbers and bound folds, written once for the CUDA kernels (:mod:`.de_gpu`,
:mod:`.de_stream`) and the CPU twins (:mod:`.de_cpu`).

Spliced (:func:`gpubench.kernels.splice`) before the kernels of either backend, after a function's
generated forms, whose ``device`` decorator (``numba.cuda.jit(device=True)`` or ``numba.njit``)
compiles them for that backend.  Imported as itself (lint, PTX checks) it takes the CUDA stand-in
of :mod:`gpubench.kernels.stand_in`.

The rejection draws of the paper's modes (``_indices``) take a uniform double from ``_uniform(states,
t)``, the xoroshiro128+ of the module they are spliced with (numba-cuda's on the GPU, its twin in
:mod:`.de_cpu`).  The counter-based streams (stream mode and its CPU twin): splitmix64 of (seed, generation,
member, counter), so no random state is read or written and the same seed gives the same
populations on both backends; r1, r2, r3 distinct by skipping, not rejection.
"""
from numba import float64 as _df64
from numba import uint64 as _duint64

if __name__ == "gpubench.kernels.de_random":  # imported as itself: the stand-in decorator, CUDA's draws
    from numba.cuda.random import xoroshiro128p_uniform_float64 as _uniform
    from gpubench.kernels.stand_in import device

_TWO_M53 = 1.0 / 9007199254740992.0
_M1 = _duint64(0xBF58476D1CE4E5B9)
_M2 = _duint64(0x94D049BB133111EB)
_GAMMA = _duint64(0x9E3779B97F4A7C15)
_U11 = _duint64(11)
_U27 = _duint64(27)
_U30 = _duint64(30)
_U31 = _duint64(31)
# counters of a member's stream in a generation: 0-3 its indices, 4 + j the crossover draw of
# element j, 4 + D + j that element's reinit draw


@device
def _folded(v, lo, hi, mode):
    """A mutant element outside [lo, hi] brought back: clipped (mode 0) or reflected (mode 1);
    reinit (mode 2) needs a draw, which each kernel makes from its own generator."""
    if mode == 1:
        if v < lo:
            v = 2.0 * lo - v
        else:
            v = 2.0 * hi - v
    return min(max(v, lo), hi)


@device
def _draw(u, n):
    k = int(u * n)
    if k >= n:
        k = n - 1
    return k


@device
def _index(states, t, n):
    return _draw(_uniform(states, t), n)


@device
def _indices(states, t, i, NP, D):
    """r1, r2, r3 distinct from each other and from i, by rejection, then j_rand: one stream's draws."""
    r1 = _index(states, t, NP)
    while r1 == i:
        r1 = _index(states, t, NP)
    r2 = _index(states, t, NP)
    while r2 == i or r2 == r1:
        r2 = _index(states, t, NP)
    r3 = _index(states, t, NP)
    while r3 == i or r3 == r1 or r3 == r2:
        r3 = _index(states, t, NP)
    return r1, r2, r3, _index(states, t, D)


@device
def _mix(z):
    """splitmix64's output function (Steele, Lea & Flood 2014)."""
    z = (z ^ (z >> _U30)) * _M1
    z = (z ^ (z >> _U27)) * _M2
    return z ^ (z >> _U31)


@device
def _member_key(skey, gen, gi):
    """The key of member gi's stream in generation gen."""
    return _mix(_mix(skey + _duint64(gen) * _GAMMA) + _duint64(gi) * _GAMMA)


@device
def _cu(key, c):
    """Number c of the stream ``key``: a double in [0, 1) (53 bits)."""
    return _df64(_mix(key + _duint64(c + 1) * _GAMMA) >> _U11) * _TWO_M53


@device
def _distinct(key, i, NP, D):
    """r1, r2, r3 uniform over the ordered triples of distinct members other than i (each drawn
    among the members left and shifted past the excluded ones in ascending order), and j_rand."""
    r1 = _draw(_cu(key, 0), NP - 1)
    if r1 >= i:  # DONOR SKIPS TARGET
        r1 += 1
    a = min(i, r1)
    b = max(i, r1)
    r2 = _draw(_cu(key, 1), NP - 2)
    if r2 >= a:
        r2 += 1
    if r2 >= b:
        r2 += 1
    e1 = min(a, r2)
    e3 = max(b, r2)
    e2 = a + b + r2 - e1 - e3
    r3 = _draw(_cu(key, 2), NP - 3)
    if r3 >= e1:
        r3 += 1
    if r3 >= e2:
        r3 += 1
    if r3 >= e3:
        r3 += 1
    return r1, r2, r3, _draw(_cu(key, 3), D)
