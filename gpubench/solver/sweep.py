"""Host side of the subregion sweep, per backend: allocate, launch, bring results back."""
import numpy as np

from .. import codegen
from . import kernels
from .reduce import DeviceReduction, reduce_host


class CpuSweep:
    """numba ``prange`` over chunks of subregions, on every CPU core."""
    name = "cpu"

    def __init__(self, definition, n, params, dom_lo, dom_hi):
        self.module = codegen.load(definition, "cpu", kernels.extensions("cpu"))
        self.params = np.ascontiguousarray(params)
        self.dom_lo, self.dom_hi = dom_lo, dom_hi

    def __call__(self, sel_lo, sel_hi, dims, parts, samples, t_shift, t_den, gub_prev, count,
                 win1, win2, base_lo, base_hi, mv=0, reduce=False):
        """(lb, ub, grad) per subregion, or with ``reduce`` their :class:`~.reduce.Outcome`."""
        out_lb = np.empty(count)
        out_ub = np.empty(count)
        out_grad = np.empty(count, dtype=np.int8)
        self.module.sweep(sel_lo, sel_hi, self.dom_lo, self.dom_hi, np.asarray(dims, dtype=np.int64),
                          parts, samples, t_shift, t_den, gub_prev, self.params,
                          win1, win2, base_lo, base_hi, out_lb, out_ub, out_grad, mv)
        return reduce_host(out_lb, out_ub, out_grad, gub_prev) if reduce else (out_lb, out_ub, out_grad)

    def split(self, sel_lo, sel_hi, dims, parts, samples, t_shift, t_den, gub_prev, count, tb, reduce=False):
        """The n-independent sweep (``kernels.evaluate_split``) with the iteration's tables ``tb``."""
        out_lb = np.empty(count)
        out_ub = np.empty(count)
        out_grad = np.empty(count, dtype=np.int8)
        self.module.sweep_split(sel_lo, sel_hi, tb.samp, self.dom_lo, self.dom_hi,
                                np.asarray(dims, dtype=np.int64), tb.slot, parts, samples, t_shift, t_den,
                                gub_prev, self.params, tb.win1, tb.win2, tb.base_lo, tb.base_hi, tb.uflags,
                                tb.special, tb.Rlo, tb.Rhi, tb.Kclo, tb.Kchi, tb.cfree,
                                out_lb, out_ub, out_grad)
        return reduce_host(out_lb, out_ub, out_grad, gub_prev) if reduce else (out_lb, out_ub, out_grad)


BLOCK_SIZES = (64, 128, 256, 512)


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
        self.staged = {}
        self.block_sizes = {}
        self.reduction = DeviceReduction()
        self.events = tuple(cuda.event() for _ in range(3))  # timing events by default

    @property
    def kernel_seconds(self):
        return self.timer.seconds.get("kernel", 0.0)

    @property
    def reduce_seconds(self):
        return self.timer.seconds.get("reduce", 0.0)

    def block_size(self, kernel):
        """Threads per block from the occupancy query of the compiled kernel: the size with the most
        resident threads (blocks per SM x SMs x size; the smaller on ties, for finer tails).

        The first launch compiles with ``threads_per_block``; the query needs the compiled kernel,
        so the choice applies from the second launch on.  Every thread's result is its own, so the
        block size changes no bound."""
        tpb = self.block_sizes.get(kernel)
        if tpb is not None:
            return tpb
        overloads = list(getattr(kernel, "overloads", {}).values())
        if len(overloads) != 1 or not hasattr(overloads[0], "max_cooperative_grid_blocks"):
            return self.threads_per_block  # not compiled yet, or the simulator
        fits = []
        for t in BLOCK_SIZES:
            try:
                fits.append((overloads[0].max_cooperative_grid_blocks(t) * t, -t))
            except Exception:  # more threads than the kernel's registers allow in a block
                pass
        tpb = -max(fits)[1] if fits and max(fits)[0] > 0 else self.threads_per_block
        self.block_sizes[kernel] = tpb
        return tpb

    def _put(self, name, host):
        """``host`` in a device array kept under ``name``: allocated again only when its shape
        changes, so an iteration costs one copy per table and no allocation."""
        host = np.ascontiguousarray(host)
        if host.size == 0:
            return self.cuda.to_device(host)
        d = self.staged.get(name)
        if d is None or d.shape != host.shape or d.dtype != host.dtype:
            d = self.staged[name] = self.cuda.device_array(host.shape, host.dtype)
        d.copy_to_device(host)
        return d

    def _outputs(self, count):
        b = self.buffers
        return (b.device("lb", count, np.float64), b.device("ub", count, np.float64),
                b.device("grad", count, np.int8))

    def _launch(self, kernel, count, args, tail=(), gub_prev=None):
        """Run ``kernel`` over ``count`` subregions.  With ``gub_prev`` the bounds stay on the
        device and :class:`DeviceReduction` returns the iteration's outcome; without, (lb, ub, grad)
        come back as views of grow-only pinned buffers, valid until the next call."""
        outs = self._outputs(count)
        tpb = self.block_size(kernel)
        blocks = (count + tpb - 1) // tpb
        if gub_prev is not None:
            # events, not a timer: the only wait of the iteration is the outcome's read-back
            ev = self.events
            ev[0].record()
            kernel[blocks, tpb](*args, *outs, *tail)
            ev[1].record()
            self.reduction.launch(*outs, gub_prev)
            ev[2].record()
            outcome = self.reduction.fetch()
            sec = self.timer.seconds
            sec["kernel"] = sec.get("kernel", 0.0) + ev[0].elapsed_time(ev[1]) / 1000.0
            sec["reduce"] = sec.get("reduce", 0.0) + ev[1].elapsed_time(ev[2]) / 1000.0
            return outcome
        with self.timer.time("kernel"):
            kernel[blocks, tpb](*args, *outs, *tail)
        b = self.buffers
        hosts = (b.pinned("lb", count, np.float64), b.pinned("ub", count, np.float64),
                 b.pinned("grad", count, np.int8))
        for d, h in zip(outs, hosts):
            d.copy_to_host(h)
        return hosts

    def __call__(self, sel_lo, sel_hi, dims, parts, samples, t_shift, t_den, gub_prev, count,
                 win1, win2, base_lo, base_hi, mv=0, reduce=False):
        put = self._put
        args = (put("sel_lo", sel_lo), put("sel_hi", sel_hi), self.dom_lo, self.dom_hi,
                put("dims", np.asarray(dims, dtype=np.int64)), parts, samples, t_shift, t_den, gub_prev,
                self.params, put("win1", win1), put("win2", win2), put("base_lo", base_lo),
                put("base_hi", base_hi))
        return self._launch(self.module.sweep, count, args, tail=(mv,), gub_prev=gub_prev if reduce else None)

    def split(self, sel_lo, sel_hi, dims, parts, samples, t_shift, t_den, gub_prev, count, tb, reduce=False):
        put = self._put
        args = (put("sel_lo", sel_lo), put("sel_hi", sel_hi), put("samp", tb.samp), self.dom_lo, self.dom_hi,
                put("dims", np.asarray(dims, dtype=np.int64)), put("slot", tb.slot), parts, samples, t_shift,
                t_den, gub_prev, self.params, put("win1", tb.win1), put("win2", tb.win2),
                put("base_lo", tb.base_lo), put("base_hi", tb.base_hi), put("uflags", tb.uflags),
                put("special", tb.special), put("Rlo", tb.Rlo), put("Rhi", tb.Rhi), put("Kclo", tb.Kclo),
                put("Kchi", tb.Kchi), put("cfree", tb.cfree))
        return self._launch(self.module.sweep_split, count, args, gub_prev=gub_prev if reduce else None)


def make(backend, definition, n, params, dom_lo, dom_hi, split_dims=10, full=False):
    from ..device import resolve_backend
    backend = resolve_backend(backend)
    if backend == "cpu":
        return CpuSweep(definition, n, params, dom_lo, dom_hi)
    return CudaSweep(definition, n, params, dom_lo, dom_hi, split_dims=split_dims, full=full)
