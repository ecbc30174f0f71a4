"""de-gpu's xoroshiro128+ states are numba-cuda's bit for bit, computed by numpy (gpubench/methods/de_states.py;
issue 42: numba-cuda compiled its host initialiser again in every process, 0.55 s, and a cached wrapper
of it still set up numba's CPU target, 0.12 s, in a process that otherwise launches CUDA kernels only).
Checked in a child process without the CUDA simulator, under which numba-cuda compiles its initialiser
in object mode; the states are made first, so the child shows that they need no CPU target."""
import os
import subprocess
import sys

CHECK = """
import sys
import numpy as np
from numba.cuda.random import xoroshiro128p_dtype
from gpubench.methods.de_states import fill_states
cases = ((1, 0, 0), (2, 0, 0), (7, 12345, 0), (64, 2**62 + 11, 0), (5, 3, 2), (37, 1, 13), (1025, 2**63 - 1, 3),
         (3000, 9, 0))
ours = {}
for n, seed, start in cases:
    ours[n, seed, start] = np.empty(n, dtype=xoroshiro128p_dtype)
    fill_states(ours[n, seed, start], seed, start)
assert "numba.np.arraymath" not in sys.modules, "the states set up numba's CPU target"
from numba.cuda.random import init_xoroshiro128p_states_cpu
for (n, seed, start), a in ours.items():
    theirs = np.empty(n, dtype=xoroshiro128p_dtype)
    init_xoroshiro128p_states_cpu(theirs, seed, start)
    assert np.array_equal(a.view(np.uint64), theirs.view(np.uint64)), (n, seed, start)
a, b = np.empty(2, dtype=xoroshiro128p_dtype), np.empty(2, dtype=xoroshiro128p_dtype)
fill_states(a, 1, 0)
fill_states(b, 2, 0)
assert not np.array_equal(a.view(np.uint64), b.view(np.uint64))   # not two arrays left as they were
fill_states(np.empty(0, dtype=xoroshiro128p_dtype), 1, 0)          # no state: nothing to do
print("same")
"""


def test_the_states_are_numba_cudas_bit_for_bit_without_numbas_cpu_target():
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "0"}
    out = subprocess.run([sys.executable, "-c", CHECK], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "same", out.stderr[-2000:]
