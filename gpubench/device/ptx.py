"""Compile GPU code to PTX without a GPU, to inspect what the hardware will run.

``numba.cuda.compile_ptx`` takes the target compute capability as an argument,
but device functions called from the compiled function are compiled for the
*current device*, which does not exist on a machine without a GPU.  This
helper answers that query with the requested capability while it compiles.
"""
import contextlib
from types import SimpleNamespace


@contextlib.contextmanager
def _assume_device(cc):
    from numba.cuda import dispatcher
    real = dispatcher.get_current_device
    dispatcher.get_current_device = lambda: SimpleNamespace(compute_capability=cc)
    try:
        yield
    finally:
        dispatcher.get_current_device = real


def compile_ptx(func, signature, cc=(9, 0), device=True, lineinfo=False):
    """PTX text of ``func`` (a Python function or a numba-cuda dispatcher) for ``cc``; with
    ``lineinfo``, source lines for a disassembler (``ptxas -lineinfo``, ``nvdisasm -g``)."""
    from numba import cuda
    py_func = getattr(func, "py_func", func)
    with _assume_device(cc):
        ptx, _ = cuda.compile_ptx(py_func, signature, device=device, cc=cc, lineinfo=lineinfo)
    return ptx
