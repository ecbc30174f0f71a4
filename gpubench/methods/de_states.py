"""xoroshiro128+ states for de-gpu's kernels: numba-cuda's own initialiser, through a cached wrapper.

``numba.cuda.random.create_xoroshiro128p_states`` fills the states on the host with a CPU ``@jit``
function (``init_xoroshiro128p_states_cpu``) that numba-cuda does not cache, so every process that ran
de-gpu on a GPU compiled it again: 0.55 s a process on this project's CPU, about half of de-gpu's
second-process "compile or load" (1.0 s) on the H200 (issue 42).  :func:`create_states` calls that
same function inside a wrapper that numba caches on disk with what it calls, so the states are
numba-cuda's bit for bit (``tests/test_de_states.py``) and a second process loads them in
milliseconds.  Imported on the CUDA path only (it imports numba-cuda).
"""
import numpy as np
from numba import njit
from numba.cuda.random import init_xoroshiro128p_states_cpu, xoroshiro128p_dtype


@njit(cache=True)
def fill_states(states, seed, subsequence_start):
    """numba-cuda's host initialiser of ``states`` (an array of ``xoroshiro128p_dtype``), compiled once."""
    init_xoroshiro128p_states_cpu(states, seed, subsequence_start)


def create_states(n, seed):
    """``numba.cuda.random.create_xoroshiro128p_states(n, seed)``: a device array of n states, the
    generators 2**64 steps apart from ``seed``'s; under the simulator numba-cuda's own function
    (its initialiser runs in object mode there, which a compiled wrapper cannot call)."""
    from numba import cuda

    from ..device.gpu import simulator
    if simulator():
        from numba.cuda.random import create_xoroshiro128p_states
        return create_xoroshiro128p_states(n, seed)
    host = np.empty(n, dtype=xoroshiro128p_dtype)
    fill_states(host, seed, 0)
    return cuda.to_device(host)
