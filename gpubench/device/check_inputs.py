"""The inputs of the GPU interval check (:mod:`gpubench.device.gpucheck`): the operations checked,
and seeded input boxes of every width and sign mixed with adversarial ones (huge, subnormal, zero
endpoints, unbounded, divisors holding 0, boxes around the extrema of sin/cos), with a point
inside each."""
import sys

import numpy as np

OPS = ("iadd", "isub", "imul", "idiv", "isqrt", "iexp", "ilog", "isin", "icos")
BINARY = frozenset({"iadd", "isub", "imul", "idiv"})
TRANSCENDENTAL = {"iexp": "exp", "ilog": "log", "isin": "sin", "icos": "cos"}
# CUDA's documented maximum errors (ulps) and the widening rounding_gpu applies
DOCUMENTED_ULPS = {"sin": 2, "cos": 2, "exp": 1, "log": 1}
DBL_MAX = sys.float_info.max
TINY = 5e-324
MAX_EXAMPLES = 20


# ---------------------------------------------------------------- input boxes
def _mag(rng, n, emin, emax):
    return np.ldexp(rng.uniform(1.0, 2.0, n), rng.integers(emin, emax + 1, n))


def _signs(rng, n):
    return np.where(rng.random(n) < 0.5, -1.0, 1.0)


def _step_up(x, k):
    """x moved up by k[i] doubles, elementwise (k >= 0)."""
    out = np.array(x, dtype=np.float64)
    k = np.broadcast_to(np.asarray(k), out.shape)
    with np.errstate(over="ignore"):
        for j in range(int(k.max(initial=0))):
            out = np.where(k > j, np.nextafter(out, np.inf), out)
    return out


def _step_dn(x, k):
    return -_step_up(-np.asarray(x, dtype=np.float64), k)


def _sorted(a, b):
    return np.minimum(a, b), np.maximum(a, b)


def _nearest_extrema(ks):
    """The doubles nearest to k*pi/2 (mpmath at a precision that covers k)."""
    import mpmath

    out = np.empty(len(ks))
    for i, k in enumerate(ks):
        with mpmath.workprec(128 + int(k).bit_length()):
            out[i] = float(mpmath.mpf(int(k)) * mpmath.pi / 2)
    return out


def family_boxes(rng, n, family, op=None):
    """``n`` boxes (lo, hi) of one family; see ``FAMILIES``."""
    if family == "tiny":  # widths of 0 to 4 ulps, magnitudes 2**-40 .. 2**40, both signs
        lo = _signs(rng, n) * _mag(rng, n, -40, 40)
        return lo, _step_up(lo, rng.integers(0, 5, n))
    if family == "wide":
        return _sorted(_signs(rng, n) * _mag(rng, n, -20, 30), _signs(rng, n) * _mag(rng, n, -20, 30))
    if family == "mixed":  # lo < 0 < hi
        return -_mag(rng, n, -30, 30), _mag(rng, n, -30, 30)
    if family == "huge":  # |x| from 2**900 to 2**1024 - ulp, tiny or wide
        a = _signs(rng, n) * _mag(rng, n, 900, 1023)
        a = np.where(rng.random(n) < 0.05, np.copysign(DBL_MAX, a), a)
        wide = _sorted(a, _signs(rng, n) * _mag(rng, n, 900, 1023))
        tiny = _sorted(a, np.clip(_step_up(a, rng.integers(0, 4, n)), -DBL_MAX, DBL_MAX))
        pick = rng.random(n) < 0.5
        return np.where(pick, wide[0], tiny[0]), np.where(pick, wide[1], tiny[1])
    if family == "subnormal":  # k * 2**-1074 with k < 2**52, widths of 0 to 3 units
        k = rng.integers(1, 2**52, n).astype(np.float64)
        lo = _signs(rng, n) * k * TINY
        hi = lo + rng.integers(0, 4, n) * TINY  # exact: subnormal spacing
        return lo, hi
    if family == "zero":  # an endpoint is +0 or -0
        z = np.where(rng.random(n) < 0.5, 0.0, -0.0)
        m = _mag(rng, n, -30, 30)
        left = rng.random(n) < 0.5
        return np.where(left, z, -m), np.where(left, m, z)
    if family == "unbounded":
        x = _signs(rng, n) * _mag(rng, n, -10, 10)
        r = rng.integers(0, 3, n)
        return np.where(r == 1, x, -np.inf), np.where(r == 0, x, np.inf)
    if family == "special":
        return _special_boxes(rng, n, op)
    raise ValueError(family)


def _special_boxes(rng, n, op):
    if op in ("isin", "icos"):
        # straddle k*pi/2: k small, and k up to 1e16 where a few ulps still span < 2*pi
        nk = max(1, min(n, 512))
        ks = np.concatenate([rng.integers(1, 2000, nk - nk // 2),
                             np.round(10.0 ** rng.uniform(5.0, 16.0, nk // 2)).astype(np.int64)])
        ks = ks * np.where(rng.random(nk) < 0.5, -1, 1)
        c = _nearest_extrema(ks)[rng.integers(0, nk, n)]
        return _step_dn(c, rng.integers(0, 4, n)), _step_up(c, rng.integers(0, 4, n))
    if op == "iexp":  # near overflow (709.78) and underflow (-745.13)
        x = _signs(rng, n) * rng.uniform(700.0, 746.0, n)
        return x, _step_up(x, rng.integers(0, 4, n))
    if op == "ilog":  # near 1
        x = _step_dn(np.ones(n), rng.integers(0, 6, n))
        return x, _step_up(x, rng.integers(0, 8, n))
    if op == "idiv":  # a divisor of [0, 0] or with 0 as an endpoint: the caller puts it in b
        z = rng.random(n)
        m = _mag(rng, n, -10, 10)
        return np.where(z < 0.3, -m, 0.0), np.where(z < 0.3, 0.0, np.where(z < 0.6, 0.0, m))
    x = _signs(rng, n) * _mag(rng, n, -10, 10)  # point boxes
    return x, x.copy()


FAMILIES = ("tiny", "wide", "mixed", "huge", "subnormal", "zero", "unbounded", "special")
WEIGHTS = (0.25, 0.15, 0.1, 0.1, 0.1, 0.1, 0.05, 0.15)


def random_boxes(rng, n, op=None):
    fam = rng.choice(len(FAMILIES), size=n, p=WEIGHTS)
    lo = np.empty(n)
    hi = np.empty(n)
    for j, name in enumerate(FAMILIES):
        sel = np.flatnonzero(fam == j)
        if sel.size:
            lo[sel], hi[sel] = family_boxes(rng, sel.size, name, op)
    return lo, hi


def point_inside(rng, lo, hi):
    """One double inside each box: interpolated, or of a random magnitude when it fits."""
    n = lo.shape[0]
    lo_f = np.maximum(lo, -DBL_MAX)
    hi_f = np.minimum(hi, DBL_MAX)
    u = rng.random(n)
    with np.errstate(all="ignore"):
        p = lo_f * (1.0 - u) + hi_f * u
    q = _signs(rng, n) * _mag(rng, n, -1074, 1023)
    p = np.where((rng.random(n) < 0.3) & (q >= lo) & (q <= hi), q, p)
    p = np.where(np.isfinite(p), p, hi_f)
    return np.minimum(np.maximum(p, lo_f), hi_f)


def make_inputs(op, n, rng):
    """The input arrays of one op: alo ahi (blo bhi) px py."""
    alo, ahi = random_boxes(rng, n, None if op == "idiv" else op)
    d = {"alo": alo, "ahi": ahi}
    if op in BINARY:
        d["blo"], d["bhi"] = random_boxes(rng, n, op)
    else:
        d["blo"], d["bhi"] = np.zeros(n), np.zeros(n)
    d["px"] = point_inside(rng, d["alo"], d["ahi"])
    d["py"] = point_inside(rng, d["blo"], d["bhi"])
    return d
