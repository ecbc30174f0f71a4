"""de-gpu's xoroshiro128+ states come from numba-cuda's own host initialiser through a wrapper that numba
caches (gpubench/methods/de_states.py; issue 42: numba-cuda compiled it again in every process, 0.55 s):
the states must be numba-cuda's bit for bit.  Checked in a child process without the CUDA simulator,
under which numba-cuda compiles its initialiser in object mode (the wrapper is then not used)."""
import os
import subprocess
import sys

CHECK = """
import numpy as np
from numba.cuda.random import init_xoroshiro128p_states_cpu, xoroshiro128p_dtype
from gpubench.methods.de_states import fill_states
for n, seed, start in ((1, 0, 0), (7, 12345, 0), (64, 2**62 + 11, 0), (5, 3, 2)):
    ours = np.empty(n, dtype=xoroshiro128p_dtype)
    theirs = np.empty(n, dtype=xoroshiro128p_dtype)
    fill_states(ours, seed, start)
    init_xoroshiro128p_states_cpu(theirs, seed, start)
    assert np.array_equal(ours.view(np.uint64), theirs.view(np.uint64)), (n, seed, start)
a, b = np.empty(2, dtype=xoroshiro128p_dtype), np.empty(2, dtype=xoroshiro128p_dtype)
fill_states(a, 1, 0)
fill_states(b, 2, 0)
assert not np.array_equal(a.view(np.uint64), b.view(np.uint64))   # not two arrays left as they were
print("same")
"""


def test_the_cached_states_are_numba_cudas_bit_for_bit():
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "0"}
    out = subprocess.run([sys.executable, "-c", CHECK], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "same", out.stderr[-2000:]
