"""Centroidal Voronoi tessellation (CVT) in 2-D with a density: the application of paper 004.

    Y. Fei, G. Rong, B. Wang, W. Wang, "Parallel L-BFGS-B algorithm on GPU", Computers &
    Graphics 40 (2014) 1-9, section 5.1 and Tables 2-3: L-BFGS-B minimises the CVT energy

        F(X) = sum_i int_{Omega_i} rho(x) ||x - x_i||^2 dx                        (their eq. 8)

    evaluated on the GPU by jump flooding (VTGPU, G. Rong et al. 2011) at resolutions 512,
    1,024 and 2,048, for 200 to 60,000 sites.

What is computed (the exact relations the tests check):

* The domain is the unit square, cut into R x R pixels of area h^2 (h = 1/R) with centres p_k;
  rho_k = rho(p_k).  The *discrete energy* is the midpoint rule of eq. 8 with every pixel in
  the cell of its nearest site:  F_R(X) = sum_k rho_k h^2 min_i ||p_k - x_i||^2.  It is
  continuous and piecewise quadratic in X; where no pixel is equidistant from two sites its
  gradient is  dF_R/dx_i = 2 sum_{k in cell i} rho_k h^2 (x_i - p_k)  (the assignment is locally
  constant), the discrete form of the CVT gradient 2 m_i (x_i - c_i) of Du, Faber & Gunzburger
  (1999).  The brute-force assignment (``exact=True``) defines it.
* Jump flooding gives an assignment a(k) that can differ from the nearest site at a few pixels
  ("JFA errors"; and a site sharing its seed pixel with a smaller-indexed one is never
  propagated).  What L-BFGS-B is given is the energy of that assignment,
  E(X) = sum_k rho_k h^2 ||p_k - x_{a(k)}||^2, with the gradient of the same formula at a held.
  Hence E(X) >= F_R(X), and E(X) - F_R(X) is exactly the sum, over the misassigned pixels, of
  rho_k h^2 (||p_k - x_{a(k)}||^2 - min_i ||p_k - x_i||^2): :meth:`CVT.check` measures both
  (``errors`` counts the pixels, ``excess`` the energy) on either backend.

The paper does not print its density, domain or initial sites.  Ours: the unit square, sites
drawn uniformly from ``numpy.random.default_rng(seed)``, bounds [0, 1] on every coordinate, and
the density by name: ``uniform`` (rho = 1), or ``gaussian`` (rho = exp(-20(u^2 + v^2)) +
0.05 sin^2(pi u) sin^2(pi v) with u = 2x - 1, v = 2y - 1, the test density of Liu et al.,
"On centroidal Voronoi tessellation - energy smoothness and fast computation", ACM TOG 28(4),
2009).  Variables: x = (x_0, y_0, x_1, y_1, ...), 2 n of them.
"""
import time

import numpy as np

from ..errors import InputError

DENSITIES = ("uniform", "gaussian")
RESOLUTIONS = (512, 1024, 2048)         # the paper's; any power of two from 8 runs


def density(name, R):
    """rho at the R x R pixel centres, row-major (pixel (i, j) at j R + i)."""
    if name not in DENSITIES:
        raise InputError(f"cvt: density must be one of {', '.join(DENSITIES)}, got {name!r}")
    c = (np.arange(R) + 0.5) / R
    px, py = np.meshgrid(c, c)          # px varies along a row (i), py down the rows (j)
    if name == "uniform":
        return np.ones(R * R)
    u, v = 2 * px - 1, 2 * py - 1
    rho = np.exp(-20 * (u * u + v * v)) + 0.05 * np.sin(np.pi * u) ** 2 * np.sin(np.pi * v) ** 2
    return rho.ravel()


def check_size(n, R):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InputError(f"cvt: the number of sites must be a positive integer, got {n!r}")
    if isinstance(R, bool) or not isinstance(R, (int, np.integer)) or R < 8 or R & (R - 1):
        raise InputError(f"cvt: the resolution must be a power of two >= 8, got {R!r}")
    if n > R * R:
        raise InputError(f"cvt: {n} sites do not fit in {R} x {R} pixels")


class CVT:
    """The CVT problem of ``n`` sites at resolution ``R`` on ``backend`` ("cpu": the numba twin on
    numpy arrays; "cuda": the kernels on CuPy arrays).  ``fg(x)`` is the JFA energy and gradient
    (``exact=True``: the brute-force assignment's, i.e. F_R and its gradient); it counts its
    calls and the time they take (``evaluations``, ``eval_seconds``: on "cuda" the kernels' GPU
    time from CUDA events, read by :meth:`eval_ms`)."""

    def __init__(self, n, R, density_name="uniform", seed=0, backend="cpu", extra=1, exact=False):
        check_size(n, R)
        if backend not in ("cpu", "cuda"):
            raise InputError(f"cvt: backend must be cpu or cuda, got {backend!r}")
        self.n, self.R, self.backend, self.extra, self.exact = int(n), int(R), backend, int(extra), exact
        self.density = density_name
        rng = np.random.default_rng(seed)
        self.x0 = rng.random(2 * self.n)
        self.lo = np.zeros(2 * self.n)
        self.hi = np.ones(2 * self.n)
        self.rho = density(density_name, self.R)
        self.evaluations = 0
        self._host_seconds = 0.0
        self._events = []
        if backend == "cuda":
            self._setup_cuda()
        else:
            from ..kernels import cvt_cpu
            self._k = cvt_cpu
            self._label = np.empty(self.R * self.R, np.int32)

    # ------------------------------------------------------------------ CPU (numba twin)
    def _fg_cpu(self, x):
        k = self._k
        x = np.ascontiguousarray(x, dtype=np.float64)
        if self.exact:
            k.nearest(x, self.R, self._label)
            label = self._label
        else:
            label = k.jfa(x, self.R, self.extra)
        g = np.empty_like(x)
        f = k.energy_grad(x, self.R, label, self.rho, g)
        return f, g

    # ------------------------------------------------------------------ CUDA
    def _setup_cuda(self):
        import cupy
        from numba import cuda
        from ..kernels import cvt_gpu
        self._cp, self._cuda, self._k = cupy, cuda, cvt_gpu
        P = self.R * self.R
        self._a = cuda.device_array(P, np.int32)
        self._b = cuda.device_array(P, np.int32)
        self._rho = cuda.to_device(self.rho)
        from ..kernels.cvt_cpu import steps
        self._steps = steps(self.R, self.extra)
        T = cvt_gpu.THREADS
        self._grid_p = (P + T - 1) // T
        self._grid_s = (self.n + T - 1) // T
        self._grid_c = (max(P, 2 * self.n) + T - 1) // T

    def _labels_cuda(self, xd):
        k, T = self._k, self._k.THREADS
        if self.exact:
            k.nearest[self._grid_p, T](xd, self.R, self._a)
            return self._a
        a, b = self._a, self._b
        k.seed[self._grid_s, T](xd, self.R, a)
        for step in self._steps:
            k.jfa_pass[self._grid_p, T](xd, self.R, step, a, b)
            a, b = b, a
        return a

    def _fg_cuda(self, x):
        cp, cuda, k, T = self._cp, self._cuda, self._k, self._k.THREADS
        x = cp.ascontiguousarray(cp.asarray(x, dtype=cp.float64))
        g = cp.empty_like(x)                  # new arrays: the caller keeps the last g
        f = cp.empty(1, dtype=cp.float64)
        start, stop = cuda.event(timing=True), cuda.event(timing=True)
        start.record()
        xd, gd, fd = (cuda.as_cuda_array(v, sync=False) for v in (x, g, f))
        k.clear[self._grid_c, T](self._a, gd, fd)
        label = self._labels_cuda(xd)
        k.energy_grad[self._grid_p, T](xd, self.R, label, self._rho, gd, fd)
        stop.record()
        self._events.append((start, stop))
        return f[0], g                        # f a device scalar: fetched with the slope

    # ------------------------------------------------------------------
    def fg(self, x):
        self.evaluations += 1
        if self.backend == "cuda":
            return self._fg_cuda(x)
        t0 = time.perf_counter()
        out = self._fg_cpu(x)
        self._host_seconds += time.perf_counter() - t0
        return out

    def fg_host(self, x):
        """``fg`` for a host caller (SciPy): x copied to the device and (f, g) back on "cuda".
        Returns (f, g) as a float and a numpy array; the copies' time is ``io_seconds``."""
        if self.backend == "cpu":
            f, g = self.fg(x)
            return float(f), g
        cp = self._cp
        t0 = time.perf_counter()
        xd = cp.asarray(np.ascontiguousarray(x, dtype=np.float64))
        t1 = time.perf_counter()
        f, g = self.fg(xd)
        self._cuda.synchronize()
        t2 = time.perf_counter()
        gh = cp.asnumpy(g)
        fh = float(f.get())
        t3 = time.perf_counter()
        self.io_seconds = getattr(self, "io_seconds", 0.0) + (t1 - t0) + (t3 - t2)
        return fh, gh

    def reset_counters(self):
        self.evaluations = 0
        self._host_seconds = 0.0
        self._events = []
        self.io_seconds = 0.0

    def eval_seconds(self):
        """Seconds spent evaluating since the last reset (GPU time of the kernels on "cuda")."""
        if self.backend == "cpu":
            return self._host_seconds
        if self._events:
            self._events[-1][1].synchronize()
        return sum(self._cuda.event_elapsed_time(a, b) for a, b in self._events) / 1e3

    def check(self, x):
        """At ``x``: (JFA energy E, exact energy F_R, pixels JFA misassigns, their energy excess).
        E - F_R equals the excess up to rounding (module docstring)."""
        if self.backend == "cpu":
            from ..kernels import cvt_cpu as k
            x = np.ascontiguousarray(x, dtype=np.float64)
            label = k.jfa(x, self.R, self.extra)
            exact = np.empty(self.R * self.R, np.int32)
            k.nearest(x, self.R, exact)
            g = np.empty_like(x)
            E = k.energy_grad(x, self.R, label, self.rho, g)
            F = k.energy_grad(x, self.R, exact, self.rho, g)
            count, excess = k.errors(x, self.R, label, exact, self.rho)
            return float(E), float(F), int(count), float(excess)
        cp, cuda, k, T = self._cp, self._cuda, self._k, self._k.THREADS
        x = cp.ascontiguousarray(cp.asarray(x, dtype=cp.float64))
        xd = cuda.as_cuda_array(x, sync=False)
        g = cuda.device_array(x.shape[0], np.float64)
        fE, fF, ex = (cuda.device_array(1, np.float64) for _ in range(3))
        cnt = cuda.to_device(np.zeros(1, np.int64))
        exact = cuda.device_array(self.R * self.R, np.int32)
        k.nearest[self._grid_p, T](xd, self.R, exact)
        k.clear[self._grid_c, T](self._a, g, fF)
        k.energy_grad[self._grid_p, T](xd, self.R, exact, self._rho, g, fF)
        k.clear[self._grid_c, T](self._a, g, fE)
        label = self._labels_cuda(xd) if not self.exact else exact
        k.energy_grad[self._grid_p, T](xd, self.R, label, self._rho, g, fE)
        k.clear[1, 1](self._b[:0], g[:0], ex)
        k.errors[self._grid_p, T](xd, self.R, label, exact, self._rho, cnt, ex)
        return (float(fE.copy_to_host()[0]), float(fF.copy_to_host()[0]), int(cnt.copy_to_host()[0]),
                float(ex.copy_to_host()[0]))
