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

    def split(self, sel_lo, sel_hi, dims, parts, samples, t_shift, t_den, gub_prev, count, tb):
        """The n-independent sweep (``kernels.evaluate_split``) with the iteration's tables ``tb``."""
        out_lb = np.empty(count)
        out_ub = np.empty(count)
        out_grad = np.empty(count, dtype=np.int8)
        self.module.sweep_split(sel_lo, sel_hi, tb.samp, self.dom_lo, self.dom_hi,
                                np.asarray(dims, dtype=np.int64), tb.slot, parts, samples, t_shift, t_den,
                                gub_prev, self.params, tb.win1, tb.win2, tb.base_lo, tb.base_hi, tb.uflags,
                                tb.special, tb.Rlo, tb.Rhi, tb.Kclo, tb.Kchi, tb.cfree,
                                out_lb, out_ub, out_grad)
        return out_lb, out_ub, out_grad


class CudaSweep:
    """One CUDA thread per subregion; only the selected region travels to the GPU (SPSD)."""
    name = "cuda"
    threads_per_block = 128

    def __init__(self, definition, n, params, dom_lo, dom_hi, split_dims=10, full=False):
        from numba import cuda

        from ..device import Buffers, Timer, phase
        self.cuda = cuda
        with phase("cuda.context"):  # made here, where to_device below would make it anyway
            cuda.get_current_device()
        # only the kernel that runs is generated: the split one's size depends on s, not on n
        ext = (kernels.extensions("gpu", nmax=kernels.nmax_for(n)) if full
               else kernels.extensions("gpu", smax=kernels.smax_for(min(split_dims, n))))
        self.module = codegen.load(definition, "gpu", ext)
        self.params = cuda.to_device(np.ascontiguousarray(params))
        self.dom_lo = cuda.to_device(dom_lo)
        self.dom_hi = cuda.to_device(dom_hi)
        self.buffers = Buffers()
        self.timer = Timer(cuda=True)

    @property
    def kernel_seconds(self):
        return self.timer.seconds.get("kernel", 0.0)

    def _launch(self, kernel, count, args, tail=()):
        """Run ``kernel`` over ``count`` subregions; (lb, ub, grad) as views of grow-only pinned buffers,
        valid until the next call, which is all the caller needs."""
        b = self.buffers
        outs = (b.device("lb", count, np.float64), b.device("ub", count, np.float64),
                b.device("grad", count, np.int8))
        blocks = (count + self.threads_per_block - 1) // self.threads_per_block
        with self.timer.time("kernel"):
            kernel[blocks, self.threads_per_block](*args, *outs, *tail)
        hosts = (b.pinned("lb", count, np.float64), b.pinned("ub", count, np.float64),
                 b.pinned("grad", count, np.int8))
        for d, h in zip(outs, hosts):
            d.copy_to_host(h)
        return hosts

    def __call__(self, sel_lo, sel_hi, dims, parts, samples, t_shift, t_den, gub_prev, count,
                 win1, win2, base_lo, base_hi, mv=0):
        dev = self.cuda.to_device
        args = (dev(sel_lo), dev(sel_hi), self.dom_lo, self.dom_hi, dev(np.asarray(dims, dtype=np.int64)),
                parts, samples, t_shift, t_den, gub_prev, self.params, dev(win1), dev(win2), dev(base_lo),
                dev(base_hi))
        return self._launch(self.module.sweep, count, args, tail=(mv,))

    def split(self, sel_lo, sel_hi, dims, parts, samples, t_shift, t_den, gub_prev, count, tb):
        dev = self.cuda.to_device
        args = (dev(sel_lo), dev(sel_hi), dev(tb.samp), self.dom_lo, self.dom_hi,
                dev(np.asarray(dims, dtype=np.int64)), dev(tb.slot), parts, samples, t_shift, t_den, gub_prev,
                self.params, dev(tb.win1), dev(tb.win2), dev(tb.base_lo), dev(tb.base_hi), dev(tb.uflags),
                dev(tb.special), dev(tb.Rlo), dev(tb.Rhi), dev(tb.Kclo), dev(tb.Kchi), dev(tb.cfree))
        return self._launch(self.module.sweep_split, count, args)


def make(backend, definition, n, params, dom_lo, dom_hi, split_dims=10, full=False):
    from ..device import resolve_backend
    backend = resolve_backend(backend)
    if backend == "cpu":
        return CpuSweep(definition, n, params, dom_lo, dom_hi)
    return CudaSweep(definition, n, params, dom_lo, dom_hi, split_dims=split_dims, full=full)
