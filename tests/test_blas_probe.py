"""numba's import-time BLAS probe is answered without importing scipy.linalg (gpubench/device/blas_probe.py;
issue 42, item 4: 0.15 s of every process that loads a kernel), and numba's BLAS is unchanged: the
probe says there is BLAS, ``ensure_blas`` is numba's own again afterwards, and ``np.dot`` in a jitted
function still compiles and gives numpy's answer.  Each check runs in a child process, the target set up
there for the first time (without the CUDA simulator, whose numba.cuda has no CUDA target)."""
import os
import subprocess
import sys

CPU = """
import sys
import gpubench.cli  # installs the probe's finder
import numpy as np
from numba import njit

@njit
def plus_one(x):
    return x + 1

assert plus_one(1) == 2                      # the CPU target's first compile: numba.np.arraymath imported
assert "numba.np.arraymath" in sys.modules
assert "scipy.linalg" not in sys.modules, "the BLAS probe imported scipy.linalg"
am, la = sys.modules["numba.np.arraymath"], sys.modules["numba.np.linalg"]
assert am._HAVE_BLAS is True
assert am.ensure_blas is la.ensure_blas and la.ensure_blas.__module__ == "numba.np.linalg"

@njit
def dot(a, b):
    return np.dot(a, b)

a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
assert np.array_equal(dot(a, b), a @ b)      # BLAS through scipy, as numba does it
assert "scipy.linalg.cython_blas" in sys.modules
print("ok")
"""

CUDA_TARGET = """
import sys
import gpubench.cli  # installs the probe's finder
import numba.cuda
from numba.cuda.descriptor import cuda_target
cuda_target.target_context.refresh()         # what the first kernel compile or cache load does
assert "numba.cuda.np.arraymath" in sys.modules
assert "scipy.linalg" not in sys.modules, "the BLAS probe imported scipy.linalg"
am, la = sys.modules["numba.cuda.np.arraymath"], sys.modules["numba.cuda.np.linalg"]
assert am._HAVE_BLAS is True
assert am.ensure_blas is la.ensure_blas and la.ensure_blas.__module__ == "numba.cuda.np.linalg"
print("ok")
"""


def _child(code):
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "0"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-3000:]


def test_the_cpu_target_is_set_up_without_scipy_linalg_and_blas_still_works():
    _child(CPU)


def test_the_cuda_target_is_set_up_without_scipy_linalg():
    _child(CUDA_TARGET)


def test_the_probe_finds_scipys_cython_blas():
    from gpubench.device import blas_probe
    path = blas_probe.cython_blas_file()
    assert path is not None and os.path.basename(path).startswith("cython_blas")


LAPACK = """
import sys
import numpy as np
import gpubench.cli  # installs the probe's finder
sys.path.insert(0, sys.argv[1])
from lapack_kernel import solve
A, b = np.array([[4.0, 1.0], [1.0, 3.0]]), np.array([1.0, 2.0])
x, y = solve(A, b)
assert np.allclose(x, np.linalg.solve(A, b)) and np.allclose(y, A @ b)
print("ok")
"""


def test_a_kernel_calling_lapack_compiles_then_loads_from_the_cache_and_runs(tmp_path):
    """The second process loads the kernel without compiling it: its LAPACK and BLAS come from scipy
    when it runs (numba's _helperlib imports them then), not from the probe."""
    (tmp_path / "lapack_kernel.py").write_text(
        "import numpy as np\nfrom numba import njit\n\n\n@njit(cache=True)\n"
        "def solve(A, b):\n    return np.linalg.solve(A, b), np.dot(A, b)\n")
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "0", "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    for _ in range(2):  # compiled, then loaded
        out = subprocess.run([sys.executable, "-c", LAPACK, str(tmp_path)], env=env, capture_output=True,
                             text=True, timeout=300)
        assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-3000:]
    assert any((tmp_path / "numba").rglob("*.nbc"))


LIBRARY = """
import sys
import gpubench, gpubench.methods, gpubench.device.blas_probe as bp
assert bp._FINDER not in sys.meta_path, "import gpubench installed the finder"
print("ok")
"""


def test_importing_the_library_leaves_the_users_imports_alone():
    """Only the command line installs the finder: a program that imports gpubench keeps numba's probe."""
    _child(LIBRARY)
