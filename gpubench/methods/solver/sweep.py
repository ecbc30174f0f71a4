"""Host side of the subregion sweep, per backend: allocate, launch, bring results back."""
import numpy as np

from ...forms import carded  # load: through the function's card where it has one (no sympy)
from . import kernels
from .outcome import reduce_host  # the GPU's DeviceReduction is imported by the CUDA sweep alone


class CpuSweep:
    """numba ``prange`` over chunks of subregions, on every CPU core."""
    name = "cpu"

    def __init__(self, definition, n, params, dom_lo, dom_hi):
        self.module = carded.load(definition, "cpu", kernels.extensions("cpu"))
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
        """The n-independent sweep (``kernels.evaluate_split``) with the iteration's tables ``tb``:
        first the cut tables (``kernels.fill_cut_tables``), then the subregions."""
        m = self.module
        VTlo, VThi, DTlo, DThi = cut_table_arrays(m, samples, tb)
        m.cut_tables(sel_lo, sel_hi, tb.samp, tb.slot, tb.win1, tb.win2, tb.special, parts, t_shift, t_den,
                     self.params, tb.tab, tb.vtotal, tb.dtab, tb.dtotal, VTlo, VThi, DTlo, DThi)
        out_lb = np.empty(count)
        out_ub = np.empty(count)
        out_grad = np.empty(count, dtype=np.int8)
        m.sweep_split(sel_lo, sel_hi, tb.samp, self.dom_lo, self.dom_hi, np.asarray(dims, dtype=np.int64), tb.slot,
                      parts, samples, t_shift, t_den, gub_prev, self.params, tb.win1, tb.win2, tb.base_lo,
                      tb.base_hi, tb.uflags, tb.special, tb.Rlo, tb.Rhi, tb.Kclo, tb.Kchi, tb.cfree,
                      tb.tab, VTlo, VThi, tb.dtab, DTlo, DThi, out_lb, out_ub, out_grad)
        return reduce_host(out_lb, out_ub, out_grad, gub_prev) if reduce else (out_lb, out_ub, out_grad)


def cut_table_shapes(module, samples, vtotal, dtotal):
    """Shapes of the cut tables (values: rows x entries x columns; derivatives: entries x columns),
    never of zero size (a device array of none has no bytes to view)."""
    return ((samples + 1, max(vtotal, 1), module.CUT_COLS), (max(dtotal, 1), module.DERIV_COLS))


def cut_table_arrays(module, samples, tb):
    """Fresh host arrays for the cut tables of ``tb``."""
    vshape, dshape = cut_table_shapes(module, samples, tb.vtotal, tb.dtotal)
    return np.empty(vshape), np.empty(vshape), np.empty(dshape), np.empty(dshape)


BLOCK_SIZES = (64, 128, 256, 512)
ALIGN = 16  # bytes between tables in the staging buffers: every view stays aligned for float64


class Staging:
    """An iteration's host tables in one pinned buffer and one device buffer: one copy a launch.

    Each table copied on its own cost a driver call plus numba's Python (a device-array
    slice per copy), about 0.2 ms, 16 times an iteration (results/gpu/solver/run1_9aa8190).  The
    device views are made again only when a table changes shape (and the buffers grow only)."""

    def __init__(self, cuda):
        self.cuda = cuda
        self.layout = None
        self.capacity = 0

    def put(self, tables):
        """Device arrays holding ``tables`` (numpy arrays), in order."""
        tables = [np.ascontiguousarray(t) for t in tables]
        layout = tuple((t.shape, t.dtype.str) for t in tables)
        if layout != self.layout:
            self._arrange(tables, layout)
        for h, t in zip(self.host_views, tables):
            if h is not None:
                h[...] = t
        self.device.copy_to_device(self.host)
        return [self.cuda.to_device(t) if v is None else v for v, t in zip(self.device_views, tables)]

    def _arrange(self, tables, layout):
        cuda = self.cuda
        offsets, end = [], 0
        for t in tables:
            offsets.append(end)
            end += -(-t.nbytes // ALIGN) * ALIGN
        end = max(end, ALIGN)
        if end > self.capacity:
            self.capacity = max(end, 2 * self.capacity)
            self.host_all = cuda.pinned_array(self.capacity, np.uint8)
            self.device_all = cuda.device_array(self.capacity, np.uint8)
        self.host = self.host_all[:end]
        self.device = self.device_all[:end]
        # a zero-size table has no bytes to view: it travels on its own (None marks it)
        self.host_views = [self.host[o:o + t.nbytes].view(t.dtype).reshape(t.shape) if t.size else None
                           for o, t in zip(offsets, tables)]
        self.device_views = [self.device[o:o + t.nbytes].view(t.dtype).reshape(t.shape) if t.size else None
                             for o, t in zip(offsets, tables)]
        self.layout = layout


class CudaSweep:
    """One CUDA thread per subregion; only the selected region travels to the GPU (SPSD)."""
    name = "cuda"
    threads_per_block = 128

    def __init__(self, definition, n, params, dom_lo, dom_hi, split_dims=10, full=False):
        from numba import cuda

        from ...device.gpu import Buffers, Timer, phase
        self.cuda = cuda
        with phase("cuda.context"):  # made here, where to_device below would make it anyway
            cuda.get_current_device()
        # only the kernel that runs is generated: the split one's size depends on s, not on n
        ext = (kernels.extensions("cuda", nmax=kernels.nmax_for(n)) if full
               else kernels.extensions("cuda", smax=kernels.smax_for(min(split_dims, n))))
        self.module = carded.load(definition, "cuda", ext)
        self.params = cuda.to_device(np.ascontiguousarray(params))
        self.dom_lo = cuda.to_device(dom_lo)
        self.dom_hi = cuda.to_device(dom_hi)
        self.buffers = Buffers()
        self._views = (None, None)
        self.timer = Timer(cuda=True)
        self.staging = {"full": Staging(cuda), "split": Staging(cuda)}
        self.block_sizes = {}
        from .reduce import DeviceReduction
        self.reduction = DeviceReduction()
        self.events = tuple(cuda.event() for _ in range(3))  # timing events by default
        self._cut = None  # (samples, value capacity, derivative capacity, VTlo, VThi, DTlo, DThi)

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

    def _outputs(self, count):
        # views kept while the count stays (it is p^s in every iteration of a search): a device
        # array slice costs numba ~0.1 ms of Python
        if self._views[0] != count:
            b = self.buffers
            self._views = (count, (b.device("lb", count, np.float64), b.device("ub", count, np.float64),
                                   b.device("grad", count, np.int8)))
        return self._views[1]

    def _launch(self, kernel, count, args, tail=(), gub_prev=None, before=None):
        """Run ``kernel`` over ``count`` subregions, after ``before()`` (the launches that fill its
        tables, timed with it).  With ``gub_prev`` the bounds stay on the
        device and :class:`DeviceReduction` returns the iteration's outcome; without, (lb, ub, grad)
        come back as views of grow-only pinned buffers, valid until the next call."""
        outs = self._outputs(count)
        tpb = self.block_size(kernel)
        blocks = (count + tpb - 1) // tpb
        if gub_prev is not None:
            # events, not a timer: the only wait of the iteration is the outcome's read-back
            ev = self.events
            ev[0].record()
            if before is not None:
                before()
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
            if before is not None:
                before()
            kernel[blocks, tpb](*args, *outs, *tail)
        b = self.buffers
        hosts = (b.pinned("lb", count, np.float64), b.pinned("ub", count, np.float64),
                 b.pinned("grad", count, np.int8))
        for d, h in zip(outs, hosts):
            d.copy_to_host(h)
        return hosts

    def __call__(self, sel_lo, sel_hi, dims, parts, samples, t_shift, t_den, gub_prev, count,
                 win1, win2, base_lo, base_hi, mv=0, reduce=False):
        lo, hi, d, w1, w2, blo, bhi = self.staging["full"].put(
            (sel_lo, sel_hi, np.asarray(dims, dtype=np.int64), win1, win2, base_lo, base_hi))
        args = (lo, hi, self.dom_lo, self.dom_hi, d, parts, samples, t_shift, t_den, gub_prev, self.params,
                w1, w2, blo, bhi)
        return self._launch(self.module.sweep, count, args, tail=(mv,), gub_prev=gub_prev if reduce else None)

    def split(self, sel_lo, sel_hi, dims, parts, samples, t_shift, t_den, gub_prev, count, tb, reduce=False):
        (lo, hi, samp, d, slot, w1, w2, blo, bhi, uflags, special, Rlo, Rhi, Kclo, Kchi,
         cfree, tab, dtab) = self.staging["split"].put(
            (sel_lo, sel_hi, tb.samp, np.asarray(dims, dtype=np.int64), tb.slot, tb.win1, tb.win2, tb.base_lo,
             tb.base_hi, tb.uflags, tb.special, tb.Rlo, tb.Rhi, tb.Kclo, tb.Kchi, tb.cfree, tb.tab, tb.dtab))
        # the cut tables, filled on the device (so with the device's rounding, as the sweep would
        # evaluate the terms), one thread a value, into grow-only buffers, just before the sweep
        VTlo, VThi, DTlo, DThi = self._cut_tables(samples, tb.vtotal, tb.dtotal)
        total = (samples + 1) * tb.vtotal + tb.dtotal
        tpb = self.threads_per_block

        def tables():
            if total:
                self.module.cut_tables[(total + tpb - 1) // tpb, tpb](
                    lo, hi, samp, slot, w1, w2, special, parts, t_shift, t_den, self.params, tab, tb.vtotal, dtab,
                    tb.dtotal, VTlo, VThi, DTlo, DThi)

        args = (lo, hi, samp, self.dom_lo, self.dom_hi, d, slot, parts, samples, t_shift, t_den, gub_prev,
                self.params, w1, w2, blo, bhi, uflags, special, Rlo, Rhi, Kclo, Kchi, cfree,
                tab, VTlo, VThi, dtab, DTlo, DThi)
        return self._launch(self.module.sweep_split, count, args, gub_prev=gub_prev if reduce else None,
                            before=tables)

    def _cut_tables(self, samples, vtotal, dtotal):
        # device arrays at least as large as the iteration's cut tables, kept while they fit (the
        # kernels index them by the layout, so spare room is never read); a new shape costs numba's
        # Python for four device arrays, so it grows by doubling
        held = self._cut
        if held is None or held[0] != samples or held[1] < vtotal or held[2] < dtotal:
            vcap = max(vtotal, 2 * held[1] if held and held[0] == samples else 1)
            dcap = max(dtotal, 2 * held[2] if held and held[0] == samples else 1)
            vshape, dshape = cut_table_shapes(self.module, samples, vcap, dcap)
            cuda = self.cuda
            held = (samples, vcap, dcap, cuda.device_array(vshape), cuda.device_array(vshape),
                    cuda.device_array(dshape), cuda.device_array(dshape))
            self._cut = held
        return held[3:]


def make(backend, definition, n, params, dom_lo, dom_hi, split_dims=10, full=False):
    from ...device.gpu import resolve_backend
    backend = resolve_backend(backend)
    if backend == "cpu":
        return CpuSweep(definition, n, params, dom_lo, dom_hi)
    return CudaSweep(definition, n, params, dom_lo, dom_hi, split_dims=split_dims, full=full)
