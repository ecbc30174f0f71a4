"""Test set-up shared by every test module.

Without a GPU, GPU code runs under numba's CUDA simulator.  The flag must be
set before numba is first imported, hence here.  CPU code (numba njit) is not
affected by it.  ``tests/test_ptx.py`` compiles real PTX in a subprocess
without the simulator.
"""
import os
import shutil

if "NUMBA_ENABLE_CUDASIM" not in os.environ and shutil.which("nvidia-smi") is None:
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
os.environ.setdefault("GPUBENCH_CACHE", os.path.join(os.path.dirname(__file__), "..", ".cache"))
