"""Interval arithmetic on numpy arrays, every operation rounded outward (host code).

An interval is a pair (lo, hi) of floats or broadcastable float64 arrays.  The correctly
rounded + - * / and sqrt step one ulp outward; libm's exp, log, sin, cos, tanh and pow step
``ULPS`` ulps (glibc documents at most 1; the project's CPU convention, ``rounding_cpu.py``);
0 * inf counts as 0 (the ends of an enclosure of a real quantity are bounds, the quantity is
finite); inf - inf widens to the whole line.  Used by :mod:`gpubench.forms.levelset`, which
tests every operation through its forms against exact oracles (tests/test_levelset.py).
"""
import math

import numpy as np

INF = math.inf
ULPS = 3          # libm's transcendental functions: glibc documents <= 1 ulp; we step 3


class Undefined(Exception):
    """f is undefined (NaN) somewhere in the box: nothing is concluded."""


def _dn(v, k=1):
    v = np.asarray(v, dtype=np.float64)
    for _ in range(k):
        v = np.nextafter(v, -INF)
    return v


def _up(v, k=1):
    v = np.asarray(v, dtype=np.float64)
    for _ in range(k):
        v = np.nextafter(v, INF)
    return v


def _fix(lo, hi):
    """NaNs from inf - inf in bounds widen to the whole line."""
    lo = np.where(np.isnan(lo), -INF, lo)
    hi = np.where(np.isnan(hi), INF, hi)
    return lo, hi


# ---------------------------------------------------------------- outward-rounded interval operations
def add(a, b):
    with np.errstate(invalid="ignore", over="ignore"):
        lo, hi = np.nextafter(a[0] + b[0], -INF), np.nextafter(a[1] + b[1], INF)
    if np.isnan(lo).any() or np.isnan(hi).any():   # inf - inf somewhere
        return _fix(lo, hi)
    return np.asarray(lo), np.asarray(hi)           # _fix's types (its np.where), its values


def neg(a):
    return -a[1], -a[0]


def sub(a, b):
    return add(a, neg(b))


def mul(a, b):
    with np.errstate(invalid="ignore", over="ignore"):
        p = [a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]]
        lo = np.minimum(np.minimum(p[0], p[1]), np.minimum(p[2], p[3]))
    # np.minimum propagates NaN: lo is NaN where some product is (0 * inf), and only there; where none is,
    # the products stand as they are (the NaN-to-0 step below is the identity), the same values with
    # a quarter of the array operations (interval.arrays' mul is the level set's innermost step)
    if not np.isnan(lo).any():
        return _dn(lo), _up(np.maximum(np.maximum(p[0], p[1]), np.maximum(p[2], p[3])))
    return _mul_nan(p)


def _mul_nan(p):
    """:func:`mul`'s ends where some product is NaN (0 * inf)."""
    p = [np.where(np.isnan(v), 0.0, v) for v in p]  # 0 * inf: a bound is finite, the product is 0
    lo = np.minimum(np.minimum(p[0], p[1]), np.minimum(p[2], p[3]))
    hi = np.maximum(np.maximum(p[0], p[1]), np.maximum(p[2], p[3]))
    return _dn(lo), _up(hi)


def div(a, b):
    """a / b; the whole line where 0 is in b (a projection through it then concludes nothing)."""
    blo, bhi = np.broadcast_arrays(*b)
    zero = (blo <= 0.0) & (bhi >= 0.0)
    if not zero.any():   # the np.where steps below are then the identity: the same values (and kinds), fewer steps
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            lo, hi = mul(a, (_dn(1.0 / bhi), _up(1.0 / blo)))
        lo, hi = np.broadcast_arrays(lo, hi, zero)[:2]
        return np.array(lo), np.array(hi)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        rb = (np.where(zero, -INF, _dn(1.0 / bhi)), np.where(zero, INF, _up(1.0 / blo)))
    # a / b = a * (1/b), each step outward: two roundings, still an enclosure
    lo, hi = mul(a, (np.where(zero, -1.0, rb[0]), np.where(zero, 1.0, rb[1])))
    return np.where(zero, -INF, lo), np.where(zero, INF, hi)


def _pow_nonneg(v, k, up):
    """v^k for v >= 0 (arrays), every product rounded in one direction."""
    if k < 1:
        return np.maximum(np.ones_like(v), 0.0)
    r = _up(v) if up else _dn(v)    # the first step, 1 * v, is exact (no product to make), its rounding kept
    for _ in range(k - 1):
        with np.errstate(over="ignore"):
            r = r * v
        r = _up(r) if up else _dn(r)
    return np.maximum(r, 0.0)


def ipow(a, k):
    """a^k for an integer k >= 1."""
    lo, hi = np.broadcast_arrays(*a)
    if k % 2:  # monotone: -(|lo|^k) for negative ends
        plo = np.where(lo >= 0, _pow_nonneg(np.abs(lo), k, False), -_pow_nonneg(np.abs(lo), k, True))
        phi = np.where(hi >= 0, _pow_nonneg(np.abs(hi), k, True), -_pow_nonneg(np.abs(hi), k, False))
        return plo, phi
    mlo = np.where(lo >= 0, lo, np.where(hi <= 0, -hi, 0.0))
    mhi = np.maximum(np.abs(lo), np.abs(hi))
    return _pow_nonneg(mlo, k, False), _pow_nonneg(mhi, k, True)


def _root(t, k, up):
    """t^(1/k) for t >= 0, rounded up (``up``) or down, checked by raising the candidate back."""
    t = np.asarray(t, dtype=np.float64)
    with np.errstate(all="ignore"):
        r = np.sqrt(t) if k == 2 else np.power(t, 1.0 / k)
    r = np.where(np.isnan(r), INF if up else 0.0, r)
    if up:
        r = _up(r, 2)
        for _ in range(60):  # a candidate whose power (rounded down) is below t is raised
            bad = np.isfinite(r) & (_pow_nonneg(r, k, False) < t)
            if not bad.any():
                break
            r = np.where(bad, _up(r * (1 + 1e-12)), r)
        bad = np.isfinite(r) & (_pow_nonneg(r, k, False) < t)
        return np.where(bad, INF, r)           # never verified: no bound
    r = np.maximum(_dn(r, 2), 0.0)
    for _ in range(60):
        # r = 0 is where lowering stops (0 stays 0): its power, rounded up to the least subnormal,
        # exceeds t = 0 for ever, and the final line returns 0 there anyway; left in, every root of a
        # target touching 0 ran all 60 rounds (half of variant strong's contraction at Levy n = 50)
        bad = (_pow_nonneg(r, k, True) > t) & (r > 0.0)
        if not bad.any():
            break
        r = np.where(bad, np.maximum(_dn(r * (1 - 1e-12)), 0.0), r)
    return np.where(_pow_nonneg(r, k, True) > t, 0.0, r)   # never verified: no bound


def rpow(a, r):
    """a^r for a rational r that is not an integer, on a >= 0 (libm's pow, ULPS ulps outward):
    increasing for r > 0, decreasing for r < 0; f has no real value below 0."""
    lo, hi = np.broadcast_arrays(*a)
    if np.any(hi < 0.0):
        raise Undefined
    lo = np.maximum(lo, 0.0)   # below 0 f has no real value: no point there is a minimiser (as sqrt_)
    with np.errstate(all="ignore"):
        plo, phi = np.power(lo, r), np.power(hi, r)
    if r < 0:
        plo, phi = phi, plo
    return np.maximum(_dn(plo, ULPS), 0.0), _up(phi, ULPS)


def _monotone(f, a, ulps=ULPS):
    with np.errstate(all="ignore"):
        return _dn(f(a[0]), ulps), _up(f(a[1]), ulps)


def exp_(a):
    lo, hi = _monotone(np.exp, a)
    return np.maximum(lo, 0.0), hi


def log_(a):
    lo, hi = np.broadcast_arrays(*a)
    if np.any(hi <= 0.0):
        raise Undefined
    with np.errstate(all="ignore"):
        return np.where(lo <= 0.0, -INF, _dn(np.log(np.maximum(lo, 1e-320)), ULPS)), _up(np.log(hi), ULPS)


def sqrt_(a):
    lo, hi = np.broadcast_arrays(*a)
    if np.any(hi < 0.0):
        raise Undefined
    return np.maximum(_dn(np.sqrt(np.maximum(lo, 0.0))), 0.0), _up(np.sqrt(hi))


def abs_(a):
    lo, hi = np.broadcast_arrays(*a)
    mlo = np.where(lo >= 0, lo, np.where(hi <= 0, -hi, 0.0))
    return mlo, np.maximum(np.abs(lo), np.abs(hi))


# pi's enclosure and the points where sin peaks, in units of pi: sin(t) = 1 at t = pi (2k + 1/2)
PI = (float(np.nextafter(math.pi, 0.0)), float(np.nextafter(math.pi, 4.0)))


def sin_(a, shift=0.0):
    """sin(a + shift pi/2) (shift 1: cos).  The ends' values ULPS ulps outward; an extremum
    counted in when t = (a + shift pi/2) / pi may reach (2k + 1/2) or (2k - 1/2) under either
    enclosure of pi, and the whole [-1, 1] where a is wider than 2 pi or not finite."""
    lo, hi = np.broadcast_arrays(*a)
    with np.errstate(all="ignore"):
        f = np.cos if shift else np.sin
        vlo, vhi = f(lo), f(hi)
        elo = _dn(np.minimum(vlo, vhi), ULPS)
        ehi = _up(np.maximum(vlo, vhi), ULPS)
        # a's ends in units of pi/2, shifted, under both enclosures of pi (widest reach)
        q = [(lo / p) * 2.0 + shift for p in PI] + [(hi / p) * 2.0 + shift for p in PI]
        qlo = np.minimum(q[0], q[1])
        qhi = np.maximum(q[2], q[3])
        # three roundings each: a relative margin far above them, and an absolute one near 0
        qlo = qlo - (1e-9 + 1e-13 * np.abs(qlo))
        qhi = qhi + (1e-9 + 1e-13 * np.abs(qhi))
        # a maximum at q = 1 + 4k, a minimum at q = 3 + 4k (= -1 + 4k)
        has_max = np.floor((qhi - 1.0) / 4.0) >= np.ceil((qlo - 1.0) / 4.0)
        has_min = np.floor((qhi + 1.0) / 4.0) >= np.ceil((qlo + 1.0) / 4.0)
    wide = ~(np.isfinite(lo) & np.isfinite(hi)) | (hi - lo >= 6.0)
    out_hi = np.where(has_max | wide, 1.0, np.minimum(ehi, 1.0))
    out_lo = np.where(has_min | wide, -1.0, np.maximum(elo, -1.0))
    return out_lo, out_hi
