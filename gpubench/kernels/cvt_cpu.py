"""The CPU twins (numba) of :mod:`gpubench.kernels.cvt_gpu`: the jump-flooding Voronoi
assignment of a pixel grid, the CVT energy and gradient from an assignment, and the exact
(brute-force) nearest-site assignment that defines the discrete energy.

Fei, Rong, Wang & Wang (2014), Computers & Graphics 40:1-9 (paper 004), section 5.1, evaluate the
CVT energy F(X) = sum_i int_{Omega_i} rho(x) ||x - x_i||^2 dx on the GPU with the jump flooding
algorithm (JFA) of Rong & Tan (2006); :mod:`gpubench.problems.cvt` states the discretisation.
Every loop here visits pixels and neighbours in the order the GPU kernels do, and breaks ties
the same way (the smaller squared distance, then the smaller site index), so the twin's
assignment equals the kernels' pixel for pixel; only the order of the floating-point sums of
the energy and gradient differs (the GPU adds with atomics).

Pixel (i, j) of an R x R grid on the unit square is number k = j R + i, with centre
((i + 1/2) / R, (j + 1/2) / R); sites are x = (x_0, y_0, x_1, y_1, ...).
"""
import numba as nb
import numpy as np

from .cvt_pixel import nearest_neighbour_site

EMPTY = np.int32(2147483647)        # a pixel no site has reached yet


@nb.njit(cache=True)
def seed(x, R, label):
    """label[k] <- the smallest index of the sites whose pixel is k, EMPTY elsewhere."""
    label[:] = EMPTY
    n = x.shape[0] // 2
    for s in range(n):
        i = min(max(int(x[2 * s] * R), 0), R - 1)
        j = min(max(int(x[2 * s + 1] * R), 0), R - 1)
        k = j * R + i
        if s < label[k]:
            label[k] = s


_nearest = nb.njit(cache=True)(nearest_neighbour_site)


@nb.njit(cache=True)
def jfa_pass(x, R, step, src, dst):
    """One JFA pass: each pixel keeps the nearest of the sites its 9 neighbours at +-step hold."""
    for j in range(R):
        for i in range(R):
            dst[j * R + i] = _nearest(x, R, step, src, i, j, EMPTY)


def jfa(x, R, extra=1):
    """The JFA assignment (steps R/2, R/4, ..., 1, then ``extra`` more passes of step 1: 1+JFA)."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    a = np.empty(R * R, np.int32)
    b = np.empty(R * R, np.int32)
    seed(x, R, a)
    for step in steps(R, extra):
        jfa_pass(x, R, step, a, b)
        a, b = b, a
    return a


def steps(R, extra=1):
    """The step lengths of the passes: R/2 (rounded up to a power of two's half), ..., 1, and ``extra`` 1s."""
    out = []
    s = 1
    while s < R:
        s *= 2
    s //= 2
    while s >= 1:
        out.append(s)
        s //= 2
    return out + [1] * extra


@nb.njit(cache=True)
def nearest(x, R, label):
    """The exact assignment: every pixel's nearest site by brute force (ties: the smaller index)."""
    n = x.shape[0] // 2
    h = 1.0 / R
    for j in range(R):
        for i in range(R):
            px = (i + 0.5) * h
            py = (j + 0.5) * h
            best = EMPTY
            bd = np.inf
            for s in range(n):
                dx = px - x[2 * s]
                dy = py - x[2 * s + 1]
                d = dx * dx + dy * dy
                if d < bd:
                    bd = d
                    best = s
            label[j * R + i] = best


@nb.njit(cache=True)
def energy_grad(x, R, label, rho, g):
    """F = sum_k rho_k h^2 ||p_k - x_{label_k}||^2 and g = dF/dx with the assignment held
    (g_i = 2 sum_{k in cell i} rho_k h^2 (x_i - p_k)); returns F, writes g."""
    g[:] = 0.0
    h = 1.0 / R
    a = h * h
    f = 0.0
    for j in range(R):
        for i in range(R):
            k = j * R + i
            s = label[k]
            if s == EMPTY:
                continue
            w = rho[k] * a
            dx = (i + 0.5) * h - x[2 * s]
            dy = (j + 0.5) * h - x[2 * s + 1]
            f += w * (dx * dx + dy * dy)
            g[2 * s] -= 2.0 * w * dx
            g[2 * s + 1] -= 2.0 * w * dy
    return f


@nb.njit(cache=True)
def errors(x, R, label, exact, rho):
    """(pixels whose label is farther than their nearest site, the energy those pixels add):
    JFA's errors against the exact assignment.  A tie (equally near) is not an error."""
    h = 1.0 / R
    a = h * h
    count = 0
    excess = 0.0
    for j in range(R):
        for i in range(R):
            k = j * R + i
            s, t = label[k], exact[k]
            px = (i + 0.5) * h
            py = (j + 0.5) * h
            if s == EMPTY:          # no site reached the pixel: wrong, its energy not counted at all
                count += 1
                continue
            ds = (px - x[2 * s]) ** 2 + (py - x[2 * s + 1]) ** 2
            dt = (px - x[2 * t]) ** 2 + (py - x[2 * t + 1]) ** 2
            if ds > dt:
                count += 1
                excess += rho[k] * a * (ds - dt)
    return count, excess
