"""Host side of the subregion sweep, per backend: allocate, launch, bring results back."""
import numpy as np

from .. import codegen
from . import kernels


class CpuSweep:
    """numba ``prange`` over chunks of subregions, on every CPU core."""
    name = "cpu"

    def __init__(self, definition, n, params, dom_lo, dom_hi):
        self.module = codegen.load(definition, "cpu", kernels.extensions("cpu"))
        self.params = np.ascontiguousarray(params)
        self.dom_lo, self.dom_hi = dom_lo, dom_hi

    def __call__(self, sel_lo, sel_hi, dims, parts, samples, t_shift, t_den, gub_prev, count,
                 win1, win2, base_lo, base_hi, mv=0):
        out_lb = np.empty(count)
        out_ub = np.empty(count)
        out_grad = np.empty(count, dtype=np.int8)
        self.module.sweep(sel_lo, sel_hi, self.dom_lo, self.dom_hi, np.asarray(dims, dtype=np.int64),
                          parts, samples, t_shift, t_den, gub_prev, self.params,
                          win1, win2, base_lo, base_hi, out_lb, out_ub, out_grad, mv)
        return out_lb, out_ub, out_grad


class CudaSweep:
    """One CUDA thread per subregion; only the selected region travels to the GPU (SPSD)."""
    name = "cuda"
    threads_per_block = 128

    def __init__(self, definition, n, params, dom_lo, dom_hi):
        from numba import cuda
        self.cuda = cuda
        self.module = codegen.load(definition, "gpu", kernels.extensions("gpu", kernels.nmax_for(n)))
        self.params = cuda.to_device(np.ascontiguousarray(params))
        self.dom_lo = cuda.to_device(dom_lo)
        self.dom_hi = cuda.to_device(dom_hi)
        self._capacity = 0
        self.kernel_seconds = 0.0

    def _ensure(self, count):
        if count > self._capacity:
            cuda = self.cuda
            self.d_lb = cuda.device_array(count)
            self.d_ub = cuda.device_array(count)
            self.d_grad = cuda.device_array(count, dtype=np.int8)
            self.h_lb = cuda.pinned_array(count)
            self.h_ub = cuda.pinned_array(count)
            self.h_grad = cuda.pinned_array(count, dtype=np.int8)
            self._capacity = count

    def __call__(self, sel_lo, sel_hi, dims, parts, samples, t_shift, t_den, gub_prev, count,
                 win1, win2, base_lo, base_hi, mv=0):
        cuda = self.cuda
        self._ensure(count)
        d_lb, d_ub, d_grad = self.d_lb[:count], self.d_ub[:count], self.d_grad[:count]
        blocks = (count + self.threads_per_block - 1) // self.threads_per_block
        start, stop = cuda.event(), cuda.event()  # timing events by default
        start.record()
        self.module.sweep[blocks, self.threads_per_block](
            cuda.to_device(sel_lo), cuda.to_device(sel_hi), self.dom_lo, self.dom_hi,
            cuda.to_device(np.asarray(dims, dtype=np.int64)), parts, samples, t_shift, t_den, gub_prev,
            self.params, cuda.to_device(win1), cuda.to_device(win2), cuda.to_device(base_lo),
            cuda.to_device(base_hi), d_lb, d_ub, d_grad, mv)
        stop.record()
        stop.synchronize()
        self.kernel_seconds += start.elapsed_time(stop) / 1000.0
        d_lb.copy_to_host(self.h_lb[:count])
        d_ub.copy_to_host(self.h_ub[:count])
        d_grad.copy_to_host(self.h_grad[:count])
        # views of the pinned buffers: valid until the next call, which is all the caller needs
        return self.h_lb[:count], self.h_ub[:count], self.h_grad[:count]


def make(backend, definition, n, params, dom_lo, dom_hi):
    from ..device import resolve_backend
    backend = resolve_backend(backend)
    if backend == "cpu":
        return CpuSweep(definition, n, params, dom_lo, dom_hi)
    return CudaSweep(definition, n, params, dom_lo, dom_hi)
