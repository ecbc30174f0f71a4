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


import importlib  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

# The simulator runs a block as one Python thread per CUDA thread, and the thread that launched
# it polls them in a loop that never blocks: each time it gets the GIL it keeps it for the whole
# switch interval (5 ms by default) doing nothing useful.  At 1 ms the simulated tests take about
# a third less CPU and wall time (the 20 of tests/test_reduce.py and test_devloop.py that simulate:
# 80 -> 48 CPU seconds); the switch interval changes no result, only how often threads take turns.
sys.setswitchinterval(0.001)

import pytest  # noqa: E402


@pytest.fixture
def script(monkeypatch):
    """``script("host_s12")``: a module of scripts/, imported by name (not from a path) so that
    worker processes it spawns can import it too."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "scripts"))
    return importlib.import_module
