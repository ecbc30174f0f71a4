"""Cold JIT compilation, reported apart from every warm timing.

Each sample runs in a fresh interpreter (asv ``timeraw_``) with an empty
``GPUBENCH_CACHE``, so neither numba's disk cache nor an in-process cache can
help.  Timed: building a ``Search`` (generating the
function's module with the solver's sweep, sympy) and its first iteration on
2^2 subregions, which compiles the sweep (CPU: numba ``njit`` with
``parallel=True``; CUDA: the sweep kernel, NVVM and PTX, then
``cuda.synchronize()``).  Imports and the CUDA context are set up untimed.
"""
from . import _common as C

_SETUP = """
import atexit, os, shutil, tempfile
_d = tempfile.mkdtemp(prefix="gpubench-coldjit-")
atexit.register(shutil.rmtree, _d, True)
os.environ["GPUBENCH_CACHE"] = _d
import numpy as np
from gpubench import functions
from gpubench.methods.solver.core import Search, Settings
fn = functions.get({function!r})
if {cuda}:
    from numba import cuda
    cuda.current_context()
"""

_STMT = """
Search(fn, {n}, settings=Settings(backend={backend!r}, split_dims=2, parts=2, max_iterations=1)).run()
if {cuda}:
    cuda.synchronize()
"""


def _code(backend, function, n):
    cuda = backend == "cuda"
    return (_STMT.format(backend=backend, cuda=cuda, n=n),
            _SETUP.format(function=function, cuda=cuda))


class ColdJitCpu:
    """Generate and compile a function's CPU sweep (n = 10) in a fresh process."""
    params = ["rosenbrock", "levy"]
    param_names = ["function"]
    number = 1
    repeat = 3
    rounds = 1
    warmup_time = 0.0
    timeout = 300

    def timeraw_cold_sweep(self, function):
        return _code("cpu", function, C.CPU_DIM)


class ColdJitCuda:
    """Generate and compile a function's CUDA sweep kernel (n = 50) in a fresh process."""
    params = ["levy"]
    param_names = ["function"]
    number = 1
    repeat = 1
    rounds = 1
    warmup_time = 0.0
    timeout = 300

    def setup(self, function):
        C.require_cuda()

    def timeraw_cold_sweep(self, function):
        return _code("cuda", function, C.GPU_DIM)
