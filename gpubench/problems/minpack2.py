"""MINPACK-2 minimisation problems used by Fei et al. (2014), Tables 1 and 4.

    B. M. Averick, R. G. Carter, J. J. More, G.-L. Xue, "The MINPACK-2 test problem
    collection", Argonne preprint MCS-P153-0692 (1992).

Written from the published definitions (the integrals and their finite-element
discretisation), not from the Fortran.  Every problem is a vectorised value-and-
gradient ``fg(v) -> (f, g)`` on numpy or CuPy vectors (the module is taken from
the argument), with its bounds and starting point.

Discretisation (the collection's, for every problem on a rectangle D): a grid of
``nx x ny`` interior points with steps ``hx = |D_1| / (nx + 1)``,
``hy = |D_2| / (ny + 1)``; v is the piecewise-linear interpolant on the
triangulation whose "lower" triangles have vertices (i, j), (i+1, j), (i, j+1)
and whose "upper" ones (i, j), (i-1, j), (i, j-1), with the boundary values
(zero unless stated).  On every triangle T the gradient of v is constant
(forward or backward differences); an integrand phi(x, v, grad v) becomes
``sum_T area(T) * phi(...)`` with area hx hy / 2, terms that depend on v alone
are integrated exactly for linear terms (each interior vertex carries hx hy) and
by the vertex rule otherwise.

Problems (the collection's names and parameter values):

torsion (EPT)
    q(v) = int_D 1/2 |grad v|^2 - c v,  D = (0,1)^2, c = 5,
    |v(x)| <= dist(x, boundary of D); start: the upper bound.
journal-bearing (PJB)
    q(v) = int_D 1/2 w_q |grad v|^2 - w_l v,  D = (0, 2 pi) x (0, 2 b), b = 10,
    w_q = (1 + eps cos x1)^3, w_l = eps sin x1, eps = 0.1, v >= 0; w_q on a triangle
    is the mean of its vertices' values; start max(sin x1, 0).
minimal-surface (MSA)
    f(v) = int_D (1 + |grad v|^2)^(1/2), D = (-1/2, 1/2)^2, v = Enneper's surface on
    the boundary (u^2 - v^2 where x1 = u + u v^2 - u^3/3, x2 = -v - u^2 v + v^3/3,
    solved by Newton's method); unbounded; start: the mean of the linear
    interpolations of the boundary values along x1 and along x2.
optimal-design (ODC)
    f(v) = int_D psi_lambda(|grad v|) - v,  D = (0,1)^2, lambda = 0.008,
    mu1 = 1, mu2 = 2, psi piecewise quadratic with t1 = sqrt(2 lambda mu1/mu2),
    t2 = sqrt(2 lambda mu2/mu1):  mu2 t^2/2 (t <= t1),  mu2 t1 (t - t1/2)
    (t1 <= t <= t2),  mu1 (t^2 - t2^2)/2 + mu2 t1 (t2 - t1/2) (t >= t2); unbounded;
    start: dist(x, boundary)^2 (our choice).
combustion (SFD, steady-state combustion / solid fuel ignition)
    f(v) = int_D 1/2 |grad v|^2 - lambda e^v,  D = (0,1)^2, lambda = 5; the
    exponential by the vertex rule (each interior vertex carries hx hy e^v; the
    constant from the boundary vertices is left out); unbounded;
    start lambda/(lambda+1) sqrt(dist(x, boundary)).
lennard-jones (LJC)
    f(x) = sum_{i<j} r_ij^-12 - 2 r_ij^-6 over n/3 atoms (pair minimum -1 at r = 1);
    unbounded; start: atoms on a centred cubic lattice of spacing min(1, 1.8/(side-1)) (our choice).
ginzburg-landau-1d (GL1, a lead/tin/lead layer: MINPACK-2's dgl1)
    f(psi) = int_{-d}^{d} alpha(x) psi^2 + beta(x)/2 psi^4 + gamma psi'^2 dx, periodic
    (psi(d) = psi(-d)), d = ds + dn, ds = 1 (tin, |x| < ds), dn = 2.2 (lead); alpha, beta
    from the materials' critical temperatures (7.32 K, 3.73 K), fields (803, 309 gauss) and
    penetration depths (3.7e-6, 3.4e-6 cm) at the temperature t, gamma = hbar^2 / (4 m_e),
    scaled by 1e6 per length unit; psi piecewise linear on n subintervals (n/4 on each lead
    half-layer, the rest on the tin), every term integrated exactly; unbounded;
    t = 5 K (the collection asks for t in (3.73, 7.32) and leaves the value to the user;
    ours); start: the constant sqrt((beta_s + beta_n) / (2 (|alpha_s| + |alpha_n|))).
ginzburg-landau-2d (GL2, a type-II superconductor with vortices: MINPACK-2's dgl2)
    f(psi, A) = 1/N sum_cells [-|psi|^2 + |psi|^4/2 + |psi_E - e^{i hx A_x} psi|^2/hx^2
    + |psi_N - e^{i hy A_y} psi|^2/hy^2 + kappa^2 ((A_y,E - A_y)/hx - (A_x,N - A_x)/hy)^2]
    on an nx x ny grid (N = nx ny, n = 4N: Re psi, Im psi, A_x, A_y), kappa = 5, vornum = 8
    vortices, hx = 3 sqrt(vornum/2)/nx, hy = 3 sqrt(3) sqrt(vornum/2)/ny; periodic in y, and
    in x up to the gauge: psi(nx+1, j) = e^{2 pi i vornum (j-1)/ny} psi(1, j),
    A_y(nx+1, j) = A_y(1, j) + 2 pi vornum/(ny hy); unbounded; start: Re psi =
    1 - (sin(sqrt(vornum) pi x/6) sin(sqrt(vornum) pi y/(6 sqrt 3)))^2, Im psi = 0, A_x = 0,
    A_y = bave x / kappa with bave = 2 pi vornum kappa/(N hx hy).

Fei et al. state that Table 1 uses "the boundary [-1, 1] for all dimensions";
``make(..., box=1.0)`` intersects each problem's own bounds with [-box, box].
"""
import math

import numpy as np

from ..errors import InputError


def _xp(a):
    mod = type(a).__module__.split(".")[0]
    if mod == "cupy":
        import cupy
        return cupy
    return np


class Problem:
    """One MINPACK-2 instance: ``fg(x) -> (f, g)``, ``lo``, ``hi``, ``x0`` (numpy), and its sizes."""

    def __init__(self, name, n, fg, lo, hi, x0, shape=None, params=None):
        self.name, self.n, self.fg = name, n, fg
        self.lo, self.hi, self.x0 = lo, hi, x0
        self.shape, self.params = shape, params or {}

    def on(self, xp):
        """(lo, hi, x0) as arrays of module ``xp`` (e.g. CuPy)."""
        return xp.asarray(self.lo), xp.asarray(self.hi), xp.asarray(self.x0)

    def __repr__(self):
        return f"<MINPACK-2 {self.name}, n={self.n}>"


# ------------------------------------------------------------------ grid helpers
def _grid_side(n, name):
    s = int(round(math.sqrt(n)))
    if s * s != n or s < 1:
        raise InputError(f"{name}: n must be a perfect square (nx = ny), got {n}")
    return s


def _pad(v, ny, nx, boundary=None):
    xp = _xp(v)
    V = xp.zeros((ny + 2, nx + 2)) if boundary is None else boundary.copy()
    V[1:-1, 1:-1] = v.reshape(ny, nx)
    return V


def _triangle_slopes(V, hx, hy):
    """(dx, dy) of the lower triangles (at (i, j), i,j = 0..n) and upper ones (at i,j = 1..n+1)."""
    dxl = (V[:-1, 1:] - V[:-1, :-1]) / hx
    dyl = (V[1:, :-1] - V[:-1, :-1]) / hy
    dxu = (V[1:, 1:] - V[1:, :-1]) / hx
    dyu = (V[1:, 1:] - V[:-1, 1:]) / hy
    return dxl, dyl, dxu, dyu


def _scatter(ax_l, ay_l, ax_u, ay_u, hx, hy, shape):
    """Vertex gradient of sum_T E_T(dx_T, dy_T), given dE/d(dx), dE/d(dy) per triangle."""
    xp = _xp(ax_l)
    G = xp.zeros(shape)
    # lower triangle at (i, j): dx = (V[j, i+1] - V[j, i]) / hx, dy = (V[j+1, i] - V[j, i]) / hy
    G[:-1, :-1] -= ax_l / hx + ay_l / hy
    G[:-1, 1:] += ax_l / hx
    G[1:, :-1] += ay_l / hy
    # upper triangle at (i, j): dx = (V[j, i] - V[j, i-1]) / hx, dy = (V[j, i] - V[j-1, i]) / hy
    G[1:, 1:] += ax_u / hx + ay_u / hy
    G[1:, :-1] -= ax_u / hx
    G[:-1, 1:] -= ay_u / hy
    return G[1:-1, 1:-1].ravel()


def _dist(nx, ny):
    i = np.arange(1, nx + 1)
    j = np.arange(1, ny + 1)
    di = np.minimum(i, nx + 1 - i) / (nx + 1)
    dj = np.minimum(j, ny + 1 - j) / (ny + 1)
    return np.minimum(di[None, :], dj[:, None]).ravel()


# ------------------------------------------------------------------ problems
def torsion(n, c=5.0):
    nx = ny = _grid_side(n, "torsion")
    hx, hy = 1.0 / (nx + 1), 1.0 / (ny + 1)
    area = 0.5 * hx * hy

    def fg(v):
        V = _pad(v, ny, nx)
        dxl, dyl, dxu, dyu = _triangle_slopes(V, hx, hy)
        xp = _xp(v)
        f = 0.5 * area * float(xp.sum(dxl * dxl + dyl * dyl) + xp.sum(dxu * dxu + dyu * dyu)) \
            - c * hx * hy * float(xp.sum(v))
        g = _scatter(area * dxl, area * dyl, area * dxu, area * dyu, hx, hy, V.shape) - c * hx * hy
        return f, g

    ax, ay, lin = hy / hx, hx / hy, c * hx * hy
    kernels = {}

    def fg_stencil(v):
        """The same f and g in one pass: on this triangulation the quadratic form is the
        5-point Laplacian, g = hx hy (-Lap_h v) - c hx hy, and f = (v.g - c hx hy sum v) / 2.
        On CuPy the gradient is one fused kernel (Table 4's GPU runs use this form)."""
        xp = _xp(v)
        if xp is np:
            V = _pad(v, ny, nx)
            C = V[1:-1, 1:-1]
            g = (ax * (2 * C - V[1:-1, :-2] - V[1:-1, 2:]) + ay * (2 * C - V[:-2, 1:-1] - V[2:, 1:-1])).ravel() - lin
        else:
            if "g" not in kernels:
                # h = v (g - lin), the terms of 2 f, written beside g: f is then one sum (v @ g and sum(v)
                # apart were a product array and two reductions, about 60 us of a 4e6 L-BFGS-B iteration)
                kernels["g"] = xp.ElementwiseKernel(
                    "raw float64 v, int32 nx, int32 ny, float64 ax, float64 ay, float64 lin", "float64 g, float64 h",
                    """int j = i / nx, k = i % nx; double c = v[i];
                    double l = k > 0 ? v[i - 1] : 0.0, r = k < nx - 1 ? v[i + 1] : 0.0;
                    double b = j > 0 ? v[i - nx] : 0.0, t = j < ny - 1 ? v[i + nx] : 0.0;
                    g = ax * (2.0 * c - l - r) + ay * (2.0 * c - b - t) - lin;
                    h = c * (g - lin);""", "torsion_gradient")
            g = xp.empty_like(v)
            h = xp.empty_like(v)
            kernels["g"](v, np.int32(nx), np.int32(ny), ax, ay, lin, g, h)   # the range: g's size
            # f stays on the device (a 0-d array): the solver fetches it with the line-search slope
            return 0.5 * xp.sum(h), g
        return 0.5 * (v @ g - lin * xp.sum(v)), g

    # on CuPy its work is all on the current stream, nothing read back, no host state changed after
    # the first call: the fused L-BFGS-B driver may capture it in a CUDA graph and replay it
    fg_stencil.capturable = True
    d = _dist(nx, ny)
    prob = Problem("torsion", n, fg, -d, d.copy(), d.copy(), (ny, nx), {"c": c})
    prob.fg_stencil = fg_stencil
    return prob


def journal_bearing(n, b=10.0, ecc=0.1):
    nx = ny = _grid_side(n, "journal-bearing")
    hx, hy = 2 * math.pi / (nx + 1), 2 * b / (ny + 1)
    area = 0.5 * hx * hy
    xi = np.arange(nx + 2) * hx
    wq = (1 + ecc * np.cos(xi)) ** 3
    wl = ecc * np.sin(xi[1:-1])
    # a triangle's weight: the mean over its vertices (lower: columns i, i+1, i; upper: i, i-1, i)
    wlow = ((2 * wq[:-1] + wq[1:]) / 3)[None, :]
    wup = ((2 * wq[1:] + wq[:-1]) / 3)[None, :]
    WL = np.tile(wl, ny)
    cache = {}

    def fg(v):
        xp = _xp(v)
        if xp not in cache:
            cache[xp] = (xp.asarray(wlow), xp.asarray(wup), xp.asarray(WL))
        a, bb, w = cache[xp]
        V = _pad(v, ny, nx)
        dxl, dyl, dxu, dyu = _triangle_slopes(V, hx, hy)
        f = 0.5 * area * float(xp.sum(a * (dxl * dxl + dyl * dyl)) + xp.sum(bb * (dxu * dxu + dyu * dyu))) \
            - hx * hy * float(w @ v)
        g = _scatter(area * a * dxl, area * a * dyl, area * bb * dxu, area * bb * dyu, hx, hy, V.shape) \
            - hx * hy * w
        return f, g

    x0 = np.tile(np.maximum(np.sin(xi[1:-1]), 0.0), ny)
    return Problem("journal-bearing", n, fg, np.zeros(n), np.full(n, np.inf), x0, (ny, nx),
                   {"b": b, "ecc": ecc})


def _enneper(x1, x2, iters=30):
    """Enneper's surface height u^2 - v^2 at the point mapped to (x1, x2), by Newton's method."""
    u, w = x1.copy(), -x2.copy()
    for _ in range(iters):
        f1 = u + u * w * w - u ** 3 / 3 - x1
        f2 = -w - u * u * w + w ** 3 / 3 - x2
        a, b = 1 + w * w - u * u, 2 * u * w
        c, d = -2 * u * w, -1 - u * u + w * w
        det = a * d - b * c
        u, w = u - (d * f1 - b * f2) / det, w - (-c * f1 + a * f2) / det
    return u * u - w * w


def minimal_surface(n):
    nx = ny = _grid_side(n, "minimal-surface")
    hx, hy = 1.0 / (nx + 1), 1.0 / (ny + 1)
    area = 0.5 * hx * hy
    s1 = -0.5 + np.arange(nx + 2) * hx
    s2 = -0.5 + np.arange(ny + 2) * hy
    B = np.zeros((ny + 2, nx + 2))
    B[0, :] = _enneper(s1, np.full(nx + 2, s2[0]))
    B[-1, :] = _enneper(s1, np.full(nx + 2, s2[-1]))
    B[:, 0] = _enneper(np.full(ny + 2, s1[0]), s2)
    B[:, -1] = _enneper(np.full(ny + 2, s1[-1]), s2)
    cache = {}

    def fg(v):
        xp = _xp(v)
        if xp not in cache:
            cache[xp] = xp.asarray(B)
        V = _pad(v, ny, nx, cache[xp])
        dxl, dyl, dxu, dyu = _triangle_slopes(V, hx, hy)
        rl = xp.sqrt(1 + dxl * dxl + dyl * dyl)
        ru = xp.sqrt(1 + dxu * dxu + dyu * dyu)
        f = area * float(xp.sum(rl) + xp.sum(ru))
        g = _scatter(area * dxl / rl, area * dyl / rl, area * dxu / ru, area * dyu / ru, hx, hy, V.shape)
        return f, g

    i = np.arange(1, nx + 1) / (nx + 1)
    j = np.arange(1, ny + 1) / (ny + 1)
    along2 = B[0, 1:-1][None, :] * (1 - j[:, None]) + B[-1, 1:-1][None, :] * j[:, None]
    along1 = B[1:-1, 0][:, None] * (1 - i[None, :]) + B[1:-1, -1][:, None] * i[None, :]
    x0 = (0.5 * (along1 + along2)).ravel()
    return Problem("minimal-surface", n, fg, np.full(n, -np.inf), np.full(n, np.inf), x0, (ny, nx))


def optimal_design(n, lam=0.008, mu1=1.0, mu2=2.0):
    nx = ny = _grid_side(n, "optimal-design")
    hx, hy = 1.0 / (nx + 1), 1.0 / (ny + 1)
    area = 0.5 * hx * hy
    t1 = math.sqrt(2 * lam * mu1 / mu2)
    t2 = math.sqrt(2 * lam * mu2 / mu1)

    def psi(xp, t):
        return xp.where(t <= t1, 0.5 * mu2 * t * t,
                        xp.where(t <= t2, mu2 * t1 * (t - 0.5 * t1),
                                 0.5 * mu1 * (t * t - t2 * t2) + mu2 * t1 * (t2 - 0.5 * t1)))

    def dpsi_over_t(xp, t):
        # psi'(t) / t, finite at t = 0: the factor of grad v in the gradient
        with np.errstate(divide="ignore", invalid="ignore"):
            mid = mu2 * t1 / xp.where(t > 0, t, 1.0)
        return xp.where(t <= t1, mu2, xp.where(t <= t2, mid, mu1))

    def fg(v):
        xp = _xp(v)
        V = _pad(v, ny, nx)
        dxl, dyl, dxu, dyu = _triangle_slopes(V, hx, hy)
        tl = xp.sqrt(dxl * dxl + dyl * dyl)
        tu = xp.sqrt(dxu * dxu + dyu * dyu)
        f = area * float(xp.sum(psi(xp, tl)) + xp.sum(psi(xp, tu))) - hx * hy * float(xp.sum(v))
        ql, qu = area * dpsi_over_t(xp, tl), area * dpsi_over_t(xp, tu)
        g = _scatter(ql * dxl, ql * dyl, qu * dxu, qu * dyu, hx, hy, V.shape) - hx * hy
        return f, g

    x0 = _dist(nx, ny) ** 2
    return Problem("optimal-design", n, fg, np.full(n, -np.inf), np.full(n, np.inf), x0, (ny, nx),
                   {"lambda": lam, "mu1": mu1, "mu2": mu2})


def combustion(n, lam=5.0):
    nx = ny = _grid_side(n, "combustion")
    hx, hy = 1.0 / (nx + 1), 1.0 / (ny + 1)
    area = 0.5 * hx * hy

    def fg(v):
        xp = _xp(v)
        V = _pad(v, ny, nx)
        dxl, dyl, dxu, dyu = _triangle_slopes(V, hx, hy)
        ev = xp.exp(v)
        f = 0.5 * area * float(xp.sum(dxl * dxl + dyl * dyl) + xp.sum(dxu * dxu + dyu * dyu)) \
            - lam * hx * hy * float(xp.sum(ev))
        g = _scatter(area * dxl, area * dyl, area * dxu, area * dyu, hx, hy, V.shape) - lam * hx * hy * ev
        return f, g

    x0 = lam / (lam + 1) * np.sqrt(_dist(nx, ny))
    return Problem("combustion", n, fg, np.full(n, -np.inf), np.full(n, np.inf), x0, (ny, nx), {"lambda": lam})


def lennard_jones(n, chunk=512):
    if n % 3:
        raise InputError(f"lennard-jones: n must be a multiple of 3 (x, y, z per atom), got {n}")
    na = n // 3

    def fg(x):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return _fg(x)

    def _fg(x):
        xp = _xp(x)
        P = x.reshape(na, 3)
        f = 0.0
        G = xp.zeros((na, 3))
        for a in range(0, na, chunk):
            D = P[a:a + chunk, None, :] - P[None, :, :]        # (c, na, 3)
            r2 = xp.sum(D * D, axis=2)
            rows = xp.arange(a, min(a + chunk, na))
            r2[rows - a, rows] = xp.inf                         # no self-pair
            inv6 = 1.0 / r2 ** 3
            f += 0.5 * float(xp.sum(inv6 * inv6 - 2 * inv6))    # each pair seen twice
            # d/dr2 of (r2^-6 - 2 r2^-3) = -6 r2^-7 + 6 r2^-4; d r2 / d p_a = 2 D
            w = (-12 * inv6 * inv6 + 12 * inv6) / r2
            G[a:a + chunk] += xp.sum(w[:, :, None] * D, axis=1)
        return f, G.ravel()

    side = int(math.ceil(na ** (1 / 3)))
    grid = np.array([(i, j, k) for i in range(side) for j in range(side) for k in range(side)][:na], float)
    # centred, and shrunk when needed so that it fits in [-0.9, 0.9]^3 (the Table 1 box is [-1, 1])
    spacing = min(1.0, 1.8 / max(side - 1, 1))
    x0 = (spacing * (grid - grid.mean(axis=0))).ravel()
    return Problem("lennard-jones", n, fg, np.full(n, -np.inf), np.full(n, np.inf), x0, None)


def ginzburg_landau_1d(n, t=5.0):
    if n < 4:
        raise InputError(f"ginzburg-landau-1d: n must be at least 4 subintervals, got {n}")
    if not 3.73 < t < 7.32:
        raise InputError(f"ginzburg-landau-1d: the temperature t must be in (3.73, 7.32), got {t}")
    em, c, ec, hbar = 9.11e-28, 2.99e10, 4.80e-10, 1.05459e-27   # electron mass, light, charge, Planck (cgs)
    ds, dn = 1.0, 2.2                 # half-layers of tin and lead, 1e3 angstroms
    tcs, tcn, hcs, hcn = 7.32, 3.73, 803.0, 309.0
    pens, penn = 3.7e-6, 3.4e-6
    q = (ec / c) ** 2 / em
    alphas = -2 * q * hcs ** 2 * pens ** 2 * (1 - (t / tcs) ** 2) / (1 + (t / tcs) ** 2)
    alphan = -2 * q * hcn ** 2 * penn ** 2 * (1 - (t / tcn) ** 2) / (1 + (t / tcn) ** 2)
    betas = 16 * math.pi * q * q * hcs ** 2 * pens ** 4 / (1 + (t / tcs) ** 2) ** 2
    betan = 16 * math.pi * q * q * hcn ** 2 * penn ** 4 / (1 + (t / tcn) ** 2) ** 2
    gamma = hbar ** 2 / (4 * em)
    fac = 1e6                         # length unit 1e3 angstroms: the order parameter is dimensionless
    alphas, alphan = alphas * fac ** 3, alphan * fac ** 3
    betas, betan = betas * fac ** 6, betan * fac ** 6
    gamma *= fac ** 5
    n1 = n // 4
    n2 = n - 2 * n1
    h1, h2 = dn / n1, 2 * ds / n2
    # interval i joins psi_i and psi_{i+1 mod n}: lead, tin, lead
    tin = (np.arange(n) >= n1) & (np.arange(n) < n1 + n2)
    H = np.where(tin, h2, h1)
    AL = np.where(tin, alphas, alphan) / 3.0
    BE = np.where(tin, betas, betan) / 10.0
    cache = {}

    def fg(v):
        xp = _xp(v)
        if xp not in cache:
            cache[xp] = tuple(xp.asarray(a) for a in (H, AL, BE))
        h, al, be = cache[xp]
        a, b = v, xp.roll(v, -1)
        a2, b2, ab = a * a, b * b, a * b
        slope = (b - a) / h
        f = float(xp.sum(h * (al * (a2 + ab + b2) + be * (a2 * a2 + ab * (a2 + ab + b2) + b2 * b2)
                              + gamma * slope * slope)))
        # d/da and d/db of every interval's term; psi_i is the a of interval i and the b of i-1
        da = h * (al * (b + 2 * a) + be * (b2 * b + 2 * b2 * a + 3 * b * a2 + 4 * a2 * a)) - 2 * gamma * slope
        db = h * (al * (2 * b + a) + be * (4 * b2 * b + 3 * b2 * a + 2 * b * a2 + a2 * a)) + 2 * gamma * slope
        return f, da + xp.roll(db, 1)

    x0 = np.full(n, math.sqrt((betas + betan) / (2 * (abs(alphas) + abs(alphan)))))
    return Problem("ginzburg-landau-1d", n, fg, np.full(n, -np.inf), np.full(n, np.inf), x0, None,
                   {"t": t, "n_lead": n1, "n_tin": n2, "alpha": (alphan, alphas), "beta": (betan, betas),
                    "gamma": gamma, "layers": (dn, ds)})


def ginzburg_landau_2d(n, vornum=8, kappa=5.0):
    if n % 4:
        raise InputError(f"ginzburg-landau-2d: n must be 4 nx ny (Re psi, Im psi, A_x, A_y), got {n}")
    nx = ny = _grid_side(n // 4, "ginzburg-landau-2d (n/4)")
    N = nx * ny
    hx = math.sqrt(vornum / 2) * 3 / nx
    hy = math.sqrt(vornum / 2) * 3 * math.sqrt(3) / ny
    # the gauge twist across the right face: psi(nx+1, j) = e^{i arg_j} psi(1, j)
    twist = np.ones((ny, nx), complex)
    twist[:, -1] = np.exp(2j * math.pi * vornum * np.arange(ny) / ny)
    jump = np.zeros((ny, nx))
    jump[:, -1] = 2 * math.pi * vornum / (ny * hy)
    k2 = kappa * kappa
    cache = {}

    def fg(v):
        xp = _xp(v)
        if xp not in cache:
            cache[xp] = (xp.asarray(twist), xp.asarray(jump))
        tw, jp = cache[xp]
        V = v.reshape(4, ny, nx)
        P = V[0] + 1j * V[1]
        Ax, Ay = V[2], V[3]
        Ex, Ey = xp.exp(1j * hx * Ax), xp.exp(1j * hy * Ay)
        PE = xp.roll(P, -1, axis=1) * tw          # east neighbour (twisted across the face)
        PN = xp.roll(P, -1, axis=0)               # north neighbour (periodic)
        Dx = PE - Ex * P
        Dy = PN - Ey * P
        B = (xp.roll(Ay, -1, axis=1) + jp - Ay) / hx - (xp.roll(Ax, -1, axis=0) - Ax) / hy
        m2 = (P * P.conj()).real
        dx2 = (Dx * Dx.conj()).real
        dy2 = (Dy * Dy.conj()).real
        f = float(xp.sum(-m2 + 0.5 * m2 * m2 + dx2 / hx ** 2 + dy2 / hy ** 2 + k2 * B * B)) / N
        # gradient as Re + i Im parts: d|z|^2 = 2 Re(conj(z) dz)
        cx, cy = 2 * Dx / hx ** 2, 2 * Dy / hy ** 2
        GP = 2 * P * (m2 - 1) - Ex.conj() * cx - Ey.conj() * cy \
            + xp.roll(tw.conj() * cx, 1, axis=1) + xp.roll(cy, 1, axis=0)
        GAx = hx * (cx.conj() * Ex * P).imag + 2 * k2 * B / hy - xp.roll(2 * k2 * B / hy, 1, axis=0)
        GAy = hy * (cy.conj() * Ey * P).imag - 2 * k2 * B / hx + xp.roll(2 * k2 * B / hx, 1, axis=1)
        g = xp.stack([GP.real, GP.imag, GAx, GAy]).ravel() / N
        return f, g

    sqrtv = math.sqrt(vornum) * math.pi
    xs = np.arange(nx) * hx
    ys = np.arange(ny) * hy
    bave = 2 * math.pi * vornum * kappa / (N * hx * hy)
    re = 1 - (np.sin(sqrtv * xs[None, :] / 6) * np.sin(sqrtv * ys[:, None] / (6 * math.sqrt(3)))) ** 2
    x0 = np.concatenate([re.ravel(), np.zeros(N), np.zeros(N), np.tile(bave * xs / kappa, ny)])
    return Problem("ginzburg-landau-2d", n, fg, np.full(n, -np.inf), np.full(n, np.inf), x0, (4, ny, nx),
                   {"vornum": vornum, "kappa": kappa})


PROBLEMS = {
    "torsion": torsion,
    "journal-bearing": journal_bearing,
    "minimal-surface": minimal_surface,
    "optimal-design": optimal_design,
    "combustion": combustion,
    "lennard-jones": lennard_jones,
    "ginzburg-landau-1d": ginzburg_landau_1d,
    "ginzburg-landau-2d": ginzburg_landau_2d,
}

# the column names of Fei et al.'s Table 1 for the problems written here
TABLE1_NAMES = {
    "torsion": "Elastic-Plastic Torsion",
    "journal-bearing": "Journal Bearing",
    "minimal-surface": "Minimal Surfaces",
    "optimal-design": "Optimal Design",
    "lennard-jones": "Lennard-Jones Clusters",
    "combustion": "Stead-State Combustion",
    "ginzburg-landau-1d": "1-D Ginzburg-Landau",
    "ginzburg-landau-2d": "2-D Ginzburg-Landau",
}


def make(name, n, box=None, **params):
    """The problem ``name`` with n variables; ``box`` intersects its bounds with [-box, box]."""
    try:
        build = PROBLEMS[name]
    except KeyError:
        raise InputError(f"unknown MINPACK-2 problem {name!r}; known: {', '.join(PROBLEMS)}") from None
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InputError(f"{name}: n must be a positive integer, got {n!r}")
    p = build(int(n), **params)
    if box is not None:
        p.lo = np.maximum(p.lo, -box)
        p.hi = np.minimum(p.hi, box)
        p.x0 = np.clip(p.x0, p.lo, p.hi)
    return p
