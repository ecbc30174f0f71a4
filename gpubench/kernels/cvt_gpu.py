"""CUDA kernels of the CVT evaluation (paper 004, section 5.1): jump flooding on an R x R pixel
grid, the energy and gradient from the resulting assignment, and the exact brute-force
assignment with JFA's error count.

    Y. Fei, G. Rong, B. Wang, W. Wang, "Parallel L-BFGS-B algorithm on GPU", Computers &
    Graphics 40 (2014) 1-9, section 5.1 (VTGPU: CVT energy and gradient by jump flooding);
    G. Rong, T.-S. Tan, "Jump flooding in GPU with applications to Voronoi diagram and
    distance transform", I3D 2006 (JFA, and 1+JFA: one more pass of step 1).

One thread per pixel (per site for the seeding).  Layout, tie rules and pass order are those of
the CPU twin :mod:`gpubench.kernels.cvt_cpu`, so the assignments are equal pixel for pixel; the
energy is summed per block and then by one atomic add per block, the gradient by atomic adds
per pixel (float64 atomics: compute capability 6.0 or later), so sums may differ from the
twin's in the last bits.  The host side (:mod:`gpubench.problems.cvt`) launches them.
"""
import math

from numba import cuda, float64

from .cvt_cpu import EMPTY
from .cvt_pixel import nearest_neighbour_site

THREADS = 256                       # threads per block of every per-pixel kernel (the reduction's size)
_EMPTY = int(EMPTY)


@cuda.jit(cache=True)
def clear(label, g, f):
    """label[:] <- EMPTY; g[:] <- 0; f[0] <- 0 (one launch over max(len(label), len(g)))."""
    k = cuda.grid(1)
    if k < label.shape[0]:
        label[k] = _EMPTY
    if k < g.shape[0]:
        g[k] = 0.0
    if k == 0:
        f[0] = 0.0


@cuda.jit(cache=True)
def seed(x, R, label):
    """label[pixel of site s] <- the smallest such s (atomic min: deterministic)."""
    s = cuda.grid(1)
    if s >= x.shape[0] // 2:
        return
    i = min(max(int(x[2 * s] * R), 0), R - 1)
    j = min(max(int(x[2 * s + 1] * R), 0), R - 1)
    cuda.atomic.min(label, j * R + i, s)


_nearest = cuda.jit(device=True)(nearest_neighbour_site)


@cuda.jit(cache=True)
def jfa_pass(x, R, step, src, dst):
    """One JFA pass: each pixel keeps the nearest of the sites its 9 neighbours at +-step hold
    (ties: the smaller index)."""
    k = cuda.grid(1)
    if k >= R * R:
        return
    j = k // R
    dst[k] = _nearest(x, R, step, src, k - j * R, j, _EMPTY)


@cuda.jit(device=True)
def _block_add(v, out):
    """out[0] += the sum of v over the block (shared-memory tree, one atomic per block)."""
    buf = cuda.shared.array(THREADS, float64)
    t = cuda.threadIdx.x
    buf[t] = v
    cuda.syncthreads()
    w = THREADS // 2
    while w > 0:
        if t < w:
            buf[t] += buf[t + w]
        cuda.syncthreads()
        w //= 2
    if t == 0:
        cuda.atomic.add(out, 0, buf[0])


@cuda.jit(cache=True)
def energy_grad(x, R, label, rho, g, f):
    """f[0] += sum_k rho_k h^2 ||p_k - x_{label_k}||^2; g_i += 2 rho_k h^2 (x_i - p_k) for the
    pixels k of cell i (g and f cleared before)."""
    k = cuda.grid(1)
    v = 0.0
    if k < R * R:
        s = label[k]
        if s != _EMPTY:
            j = k // R
            i = k - j * R
            h = 1.0 / R
            w = rho[k] * h * h
            dx = (i + 0.5) * h - x[2 * s]
            dy = (j + 0.5) * h - x[2 * s + 1]
            v = w * (dx * dx + dy * dy)
            cuda.atomic.add(g, 2 * s, -2.0 * w * dx)
            cuda.atomic.add(g, 2 * s + 1, -2.0 * w * dy)
    _block_add(v, f)


@cuda.jit(cache=True)
def nearest(x, R, label):
    """The exact assignment by brute force: every pixel's nearest site (ties: the smaller index)."""
    k = cuda.grid(1)
    if k >= R * R:
        return
    j = k // R
    i = k - j * R
    h = 1.0 / R
    px = (i + 0.5) * h
    py = (j + 0.5) * h
    best = _EMPTY
    bd = math.inf
    for s in range(x.shape[0] // 2):
        dx = px - x[2 * s]
        dy = py - x[2 * s + 1]
        d = dx * dx + dy * dy
        if d < bd:
            bd = d
            best = s
    label[k] = best


@cuda.jit(cache=True)
def errors(x, R, label, exact, rho, count, excess):
    """count[0] += pixels whose label is farther than their nearest site (or empty);
    excess[0] += the energy they add (cleared before)."""
    k = cuda.grid(1)
    v = 0.0
    if k < R * R:
        s = label[k]
        t = exact[k]
        if s == _EMPTY:
            cuda.atomic.add(count, 0, 1)
        else:
            j = k // R
            i = k - j * R
            h = 1.0 / R
            px = (i + 0.5) * h
            py = (j + 0.5) * h
            ds = (px - x[2 * s]) ** 2 + (py - x[2 * s + 1]) ** 2
            dt = (px - x[2 * t]) ** 2 + (py - x[2 * t + 1]) ** 2
            if ds > dt:
                cuda.atomic.add(count, 0, 1)
                v = rho[k] * h * h * (ds - dt)
    _block_add(v, excess)
