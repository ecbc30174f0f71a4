"""L-BFGS-B for one large problem on the CPU (numpy) or a GPU (CuPy), and its pieces.

``minimize(fun_and_grad, x0, lo, hi, m=5, pgtol=1e-5, factr=1e7, cauchy="exact"|"approximate",
backend="cpu"|"cupy"|"auto")`` is the Python API (the backend names the array library: numpy or CuPy); see :mod:`gpubench.methods.lbfgsb.core`.
The multi-start method over the function library is :mod:`gpubench.methods.lbfgsb_gpu`.
"""
from ...device.gpu import gpu_available
from ...errors import InputError
from . import core
from .core import LbfgsbResult, projected_gradient_norm  # noqa: F401


def minimize(fun_and_grad, x0, lo=None, hi=None, m=5, pgtol=1e-5, factr=1e7, maxiter=15000,
             maxfun=15000, cauchy="exact", step="project", backend="auto", record_cauchy=False,
             callback=None, ftol_abs=None):
    """L-BFGS-B (Byrd, Lu, Nocedal & Zhu 1995) with the Cauchy point of Fei et al. (2014) as an option.

    ``backend`` names the array library: ``"cpu"`` (numpy) or ``"cupy"`` (CuPy, on a GPU), and
    ``"auto"`` is ``"cupy"`` on a real GPU with CuPy, else ``"cpu"``; on ``"cupy"``,
    ``x0``/``lo``/``hi`` may be CuPy arrays or host arrays and ``fun_and_grad`` receives and returns
    CuPy arrays.
    """
    if backend == "auto":
        try:
            import cupy  # noqa: F401
            backend = "cupy" if gpu_available() else "cpu"
        except ImportError:
            backend = "cpu"
    elif backend not in ("cpu", "cupy"):
        raise InputError(f"lbfgsb: unknown backend {backend!r}; expected one of auto, cpu, cupy")
    return core.minimize(fun_and_grad, x0, lo, hi, m=m, pgtol=pgtol, factr=factr, maxiter=maxiter,
                         maxfun=maxfun, cauchy=cauchy, step=step, backend=backend,
                         record_cauchy=record_cauchy, callback=callback, ftol_abs=ftol_abs)
