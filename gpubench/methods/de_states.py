"""xoroshiro128+ states for de-gpu's kernels: numba-cuda's, computed by numpy.

``numba.cuda.random.create_xoroshiro128p_states`` fills the states on the host with a CPU ``@jit``
function (``init_xoroshiro128p_states_cpu``) that numba-cuda does not cache, so every process that ran
de-gpu on a GPU compiled it again: 0.55 s a process on this project's CPU, about half of de-gpu's
second-process "compile or load" (1.0 s) on the H200 (issue 42).  A wrapper cached by numba
(``fill_states``, 2026-11-28) made that a load from disk, but a load still sets up numba's CPU target
(its typing and lowering registries: 0.12 s on this CPU) in a process that otherwise only launches
CUDA kernels.  :func:`fill_states` computes the same states with numpy alone: xoroshiro128+'s step
and its jump (2**64 steps) are linear over GF(2), so the jump is a linear map J of 128-bit states,
state i is J^i state 0, and the states come a block at a time (states m..2m-1 are J^m of states
0..m-1), each map applied a byte at a time through tables of its 256 images.  The states are
numba-cuda's bit for bit (``tests/test_de_states.py``).  Imported on the CUDA path only (it
imports numba-cuda).
"""
import numpy as np
from numba.cuda.random import xoroshiro128p_dtype

_MASK = (1 << 64) - 1
# numba.cuda.random.xoroshiro128p_jump's constants: the jump polynomial's 128 bits, low word first
_JUMP = (0xBEAC0467EBA5FACB, 0xD86B048B86AA9922)
_J = []   # the jump as a linear map (jump_map), made once per process


def _splitmix(seed):
    """numba.cuda.random.init_xoroshiro128p_state: s0 = s1 = splitmix64(seed)."""
    z = (int(seed) + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


def _jump_words(s0, s1):
    """xoroshiro128p_jump of every state (s0[i], s1[i]) at once (uint64 arrays): the states 2**64
    steps on."""
    o0, o1 = np.zeros_like(s0), np.zeros_like(s1)
    for word in _JUMP:
        for b in range(64):
            if (word >> b) & 1:
                o0 = o0 ^ s0
                o1 = o1 ^ s1
            # xoroshiro128p_next
            s1 = s1 ^ s0
            s0 = _rotl(s0, 55) ^ s1 ^ (s1 << np.uint64(14))
            s1 = _rotl(s1, 36)
    return o0, o1


# A linear map of states over GF(2) is held as the images of the 128 one-bit states (bit i: bit i of
# s0 for i < 64, else bit i - 64 of s1), two uint64 arrays of 128; it is applied a byte at a time,
# through a table of the images of the byte's 256 values.
def _tables(image0, image1):
    on = ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(bool)        # (value, bit)
    return tuple(np.bitwise_xor.reduce(np.where(on, image.reshape(16, 1, 8), np.uint64(0)), axis=2)
                 for image in (image0, image1))                               # (byte, value)


def _apply(linear, s0, s1):
    """The states (s0[i], s1[i]) mapped by ``linear`` (its 128 images)."""
    t0, t1 = _tables(*linear)
    o0, o1 = np.zeros_like(s0), np.zeros_like(s1)
    ff = np.uint64(0xFF)
    for byte in range(16):
        word = s0 if byte < 8 else s1
        v = ((word >> np.uint64(8 * (byte % 8))) & ff).astype(np.intp)
        o0 ^= t0[byte, v]
        o1 ^= t1[byte, v]
    return o0, o1


def _square(linear):
    return _apply(linear, *linear)


def jump_map():
    """xoroshiro128p_jump as a linear map (the images of the 128 one-bit states), made once per process."""
    if not _J:
        one = np.uint64(1)
        bits = np.arange(64, dtype=np.uint64)
        zero = np.zeros(64, dtype=np.uint64)
        s0 = np.concatenate([one << bits, zero])
        s1 = np.concatenate([zero, one << bits])
        _J.append(_jump_words(s0, s1))
    return _J[0]


def fill_states(states, seed, subsequence_start):
    """``numba.cuda.random.init_xoroshiro128p_states_cpu(states, seed, subsequence_start)``: state 0 from
    splitmix64(seed), jumped ``subsequence_start`` times; state i is state i - 1 jumped once."""
    n = states.shape[0]
    if n < 1:
        return
    z = _splitmix(int(seed) & _MASK)
    s0, s1 = np.array([z], dtype=np.uint64), np.array([z], dtype=np.uint64)
    k, power = int(subsequence_start), jump_map()
    while k:                                  # J^start, by squaring
        if k & 1:
            s0, s1 = _apply(power, s0, s1)
        k >>= 1
        if k:
            power = _square(power)
    power = jump_map()
    while s0.shape[0] < n:                    # states m..2m-1 are states 0..m-1 jumped m times; then J^2m
        m = s0.shape[0]
        b0, b1 = _apply(power, s0[: n - m], s1[: n - m])
        s0, s1 = np.concatenate([s0, b0]), np.concatenate([s1, b1])
        if s0.shape[0] < n:
            power = _square(power)
    states["s0"] = s0
    states["s1"] = s1


def create_states(n, seed):
    """``numba.cuda.random.create_xoroshiro128p_states(n, seed)``: a device array of n states, the
    generators 2**64 steps apart from ``seed``'s; under the simulator numba-cuda's own function."""
    from numba import cuda

    from ..device.gpu import simulator
    if simulator():
        from numba.cuda.random import create_xoroshiro128p_states
        return create_xoroshiro128p_states(n, seed)
    host = np.empty(n, dtype=xoroshiro128p_dtype)
    fill_states(host, seed, 0)
    return cuda.to_device(host)
