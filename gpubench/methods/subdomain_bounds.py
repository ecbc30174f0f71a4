"""Paper 001's subdomains of a node and the enclosures on them (the bounding half of subdomain-bnb).

A node's box is cut into N subdomains (``parts_per_dim``: the paper's uniform, largest and adaptive
rules, Sec. 3.1), and ``_Bounder`` encloses one function on all of them at once: a numba kernel on the
CPU (serial, the paper's baseline, or in parallel) or one GPU thread per subdomain, appended to the
function's generated module.  The search that uses them is :mod:`gpubench.methods.subdomain_bnb`.
"""
import math

import numpy as np

from .solver.kernels import CUT
from .solver.spliced import text as _text

# the paper's RTX A1000 laptop GPU: the core count adaptive partitioning fills by default
PAPER_CUDA_CORES = 2560


# --------------------------------------------------------------------- partitioning
def parts_per_dim(widths, n_sub, rule):
    """Parts per dimension for a node of the given widths (product <= n_sub, at least 1 each).

    uniform: the largest m with m^d <= N in every dimension (Sec. 3.1.1);
    largest: N parts of the widest dimension only; adaptive (Sec. 3.1.2): the
    uniform m, then one more part for the widest dimensions, one by one in
    decreasing width, while the total stays <= N.
    """
    w = np.asarray(widths, dtype=np.float64)
    d = w.size
    n_sub = max(1, int(n_sub))
    counts = np.ones(d, dtype=np.int64)
    if rule == "largest":
        counts[int(np.argmax(w))] = n_sub
        return counts
    m = max(1, int(math.floor(n_sub ** (1.0 / d) + 1e-9)))
    while (m + 1) ** d <= n_sub:      # floating-point root may fall one short
        m += 1
    while m > 1 and m ** d > n_sub:
        m -= 1
    counts[:] = m
    if rule == "adaptive":
        for k in np.argsort(-w, kind="stable"):
            if np.prod(counts) // counts[k] * (counts[k] + 1) <= n_sub:
                counts[k] += 1
    return counts


def cuda_cores():
    """CUDA cores of the current GPU (SMs x 128 FP32 lanes on Ampere/Hopper); the paper's 2560 otherwise."""
    from ..device.gpu import gpu_available
    if not gpu_available():
        return PAPER_CUDA_CORES
    from numba import cuda
    return int(cuda.get_current_device().MULTIPROCESSOR_COUNT) * 128


# The subdomains are decoded by the solver's ``_sub_box`` (solver/spliced/cut.py): its cut points are a
# function of the edge index alone, so neighbouring subdomains share their common edge exactly and their
# union is the node (no gap from rounding).  The kernels are real modules (solver/spliced/subdomain*.py)
# whose text is appended to the function's generated module, whose forms and ``device`` they call.
_EDGE = CUT + _text("subdomain")
CPU_EXTENSION = _EDGE + _text("subdomain_cpu")
GPU_EXTENSION = _EDGE + _text("subdomain_gpu")


def _load(fn, backend, extension):
    """``fn``'s generated module with ``extension``: through its card where it has one (no sympy in a
    second process: TestFunction.load), else generated from its definition (``fn`` may be one)."""
    if hasattr(fn, "load"):
        return fn.load(backend, extensions=(extension,))
    from ..forms import codegen
    return codegen.load(getattr(fn, "definition", fn), backend, extensions=(extension,))


class _Bounder:
    """Enclosures of one function on the N subdomains of a node, on one backend."""

    def __init__(self, fn, dim, params, backend, parallel):
        self.backend = backend
        self.parallel = parallel
        self.p = np.ascontiguousarray(params, dtype=np.float64)
        self.dim = dim
        if backend == "cuda":
            from numba import cuda
            self.cuda = cuda
            self.mod = _load(fn, "cuda", GPU_EXTENSION)
            self.d_p = cuda.to_device(self.p)
        else:
            self.mod = _load(fn, "cpu", CPU_EXTENSION)
        self.n = 0

    def _alloc(self, n):
        d = self.dim
        if self.backend == "cuda":
            cu = self.cuda
            self.bufs = [cu.device_array((n, d)) for _ in range(7)]
            self.out_lo, self.out_hi = cu.device_array(n), cu.device_array(n)
        else:
            self.bufs = [np.empty((n, d)) for _ in range(7)]
            self.out_lo, self.out_hi = np.empty(n), np.empty(n)
        self.n = n

    def bound(self, lo, hi, counts, form):
        n = int(np.prod(counts))
        if n != self.n:
            self._alloc(n)
        if self.backend == "cuda":
            cu = self.cuda
            self.compute(cu.to_device(lo), cu.to_device(hi), cu.to_device(counts), form)
            return self.out_lo.copy_to_host(), self.out_hi.copy_to_host()
        self.compute(lo, hi, counts, form)
        return self.out_lo.copy(), self.out_hi.copy()

    def compute(self, lo, hi, counts, form):
        """The enclosures on the ``self.n`` subdomains into ``out_lo/out_hi`` (device arrays on
        CUDA, given device arguments): the kernel alone, which the lower-bounding benchmark times."""
        if self.backend == "cuda":
            tpb = 128
            blocks = (self.n + tpb - 1) // tpb
            self.mod.sub_bounds_kernel[blocks, tpb](lo, hi, counts, self.d_p, form, self.out_lo, self.out_hi,
                                                   *self.bufs)
            return
        k = self.mod.sub_bounds_parallel if self.parallel else self.mod.sub_bounds_serial
        k(lo, hi, counts, self.p, form, self.out_lo, self.out_hi, *self.bufs)

    def boxes(self, rows=None):
        """The subdomain boxes of the last call (host arrays), or only row ``rows``."""
        blo, bhi = self.bufs[0], self.bufs[1]
        if rows is not None:
            blo, bhi = blo[rows], bhi[rows]
        if self.backend == "cuda":
            return blo.copy_to_host(), bhi.copy_to_host()
        return blo.copy(), bhi.copy()
