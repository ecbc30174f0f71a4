"""Interval operations, written once over the directed-rounding primitives.

Every function here takes and returns intervals as ``(lo, hi)`` pairs of
float64 and calls only the primitives named in ``PRIMITIVE_NAMES`` (``add_dn``,
``mul_up``, ``sin_enc`` ...).  ``gpubench.interval.backends`` compiles this one
source twice: with the CPU primitives under ``numba.njit`` and with the GPU
primitives as numba-cuda device functions.  So both backends run the same case
analysis, and a fix here fixes both.

Conventions
- The whole line is ``(-inf, inf)``; the empty set is ``(nan, nan)``.  Every
  operation returns empty when an argument is empty.
- A function applied outside its domain is taken on the part of the argument
  inside the domain (``sqrt([-1, 4]) = [0, 2]``), and is empty when nothing is.
- ``0 * inf`` counts as 0, since an infinite endpoint is a bound, not a value.
- Kinks: ``isign`` and ``istep`` are the generalized derivatives of ``|u|`` and of
  ``max(a, b)`` (``[-1, 1]`` and ``[0, 1]`` wherever the kink can be), ``idelta``
  that of ``sign`` (the whole line where the jump can be).
- Jumps: ``ifloor``, ``itrunc`` and ``irint`` (round half to even, numpy's ``round``)
  are nondecreasing, so their range on [lo, hi] is [r(lo), r(hi)], exact in floating
  point; ``ijump`` is the derivative of any of them, given the enclosure of its value:
  0 where the value is one integer on the box (the step function is constant there),
  the whole line where a jump can lie inside.

The ``p_*`` functions at the end are plain floating-point helpers for the generated
*point* forms (values, not bounds), kept here so both backends share them.
"""
import math

PRIMITIVE_NAMES = (
    "next_up next_dn add_dn add_up mul_dn mul_up div_dn div_up sqrt_dn sqrt_up "
    "exp_dn exp_up log_dn log_up sin_enc cos_enc tanh_enc log1p_dn log1p_up"
).split()

INF = math.inf
NAN = math.nan
# Enclosures of pi/2 and 1/(2 pi), verified against python-flint in the tests.
HALF_PI_LO = 1.5707963267948966  # float(pi/2) < pi/2
HALF_PI_HI = 1.5707963267948968
PI_LO = 3.141592653589793  # float(pi) < pi
PI_HI = 3.1415926535897936
TWO_PI_LO = 6.283185307179586
TWO_PI_HI = 6.283185307179587
INV_TWO_PI_LO = 0.15915494309189532  # float(1/(2 pi)) < 1/(2 pi)
INV_TWO_PI_HI = 0.15915494309189535
EXACT_INTEGER_LIMIT = 4503599627370496.0  # 2**52: every double beyond is an integer


def is_empty(lo, hi):
    return lo != lo or hi != hi


def iadd(alo, ahi, blo, bhi):
    return add_dn(alo, blo), add_up(ahi, bhi)


def isub(alo, ahi, blo, bhi):
    return add_dn(alo, -bhi), add_up(ahi, -blo)


def ineg(alo, ahi):
    return -ahi, -alo


def _zero_if_nan(v):
    return 0.0 if v != v else v


def imul(alo, ahi, blo, bhi):
    if is_empty(alo, ahi) or is_empty(blo, bhi):
        return NAN, NAN
    p1 = _zero_if_nan(mul_dn(alo, blo))
    p2 = _zero_if_nan(mul_dn(alo, bhi))
    p3 = _zero_if_nan(mul_dn(ahi, blo))
    p4 = _zero_if_nan(mul_dn(ahi, bhi))
    q1 = _zero_if_nan(mul_up(alo, blo))
    q2 = _zero_if_nan(mul_up(alo, bhi))
    q3 = _zero_if_nan(mul_up(ahi, blo))
    q4 = _zero_if_nan(mul_up(ahi, bhi))
    return min(min(p1, p2), min(p3, p4)), max(max(q1, q2), max(q3, q4))


def _min_skip_nan(a, b):
    if a != a:
        return b
    if b != b:
        return a
    return min(a, b)


def _max_skip_nan(a, b):
    if a != a:
        return b
    if b != b:
        return a
    return max(a, b)


def idiv_corners(alo, ahi, blo, bhi):
    """a / b for a divisor of one sign (0 not in b), from all four corners: the reference of
    :func:`idiv`'s two-division path, and its fallback where a corner is inf/inf."""
    # inf/inf gives NaN at a corner; the other corners already bound it.
    lo = _min_skip_nan(_min_skip_nan(div_dn(alo, blo), div_dn(alo, bhi)),
                       _min_skip_nan(div_dn(ahi, blo), div_dn(ahi, bhi)))
    hi = _max_skip_nan(_max_skip_nan(div_up(alo, blo), div_up(alo, bhi)),
                       _max_skip_nan(div_up(ahi, blo), div_up(ahi, bhi)))
    return lo, hi


def idiv(alo, ahi, blo, bhi):
    if is_empty(alo, ahi) or is_empty(blo, bhi):
        return NAN, NAN
    if blo > 0.0 or bhi < 0.0:
        # b keeps one sign, so x / y is monotone in x and in y over the box and each end of a / b is
        # one corner's quotient, chosen by the signs; directed rounding is monotone too, so these are
        # the four corners' min and max bit for bit (idiv_corners), in two divisions instead of eight
        # (on a GPU each is a call of some 50 instructions: 88 a subregion in Levy's split sweep).
        # A chosen corner inf/inf (NaN) takes the four corners, which skip it.
        if blo > 0.0:
            lo = div_dn(alo, bhi if alo >= 0.0 else blo)
            hi = div_up(ahi, blo if ahi >= 0.0 else bhi)
        else:
            lo = div_dn(ahi, bhi if ahi >= 0.0 else blo)
            hi = div_up(alo, blo if alo >= 0.0 else bhi)
        if lo != lo or hi != hi:
            return idiv_corners(alo, ahi, blo, bhi)
        return lo, hi
    if blo == 0.0 and bhi == 0.0:
        return NAN, NAN
    if alo == 0.0 and ahi == 0.0:
        return 0.0, 0.0
    if blo == 0.0:  # b = [0, d], d > 0: only b in (0, d] counts
        if alo >= 0.0:
            return div_dn(alo, bhi), INF
        if ahi <= 0.0:
            return -INF, div_up(ahi, bhi)
    if bhi == 0.0:  # b = [-d, 0]
        if alo >= 0.0:
            return -INF, div_up(alo, blo)
        if ahi <= 0.0:
            return div_dn(ahi, blo), INF
    return -INF, INF


def irecip(alo, ahi):
    return idiv(1.0, 1.0, alo, ahi)


def _pow_nonneg_dn(a, k):
    # a >= 0 and k >= 1: every partial product is >= 0, so rounding each one
    # down keeps a lower bound.
    while k & 1 == 0:
        a = mul_dn(a, a)
        k >>= 1
    r = a
    k >>= 1
    while k > 0:
        a = mul_dn(a, a)
        if k & 1:
            r = mul_dn(r, a)
        k >>= 1
    return r


def _pow_nonneg_up(a, k):
    # a >= 0 and k >= 1: every partial product is >= 0, so rounding each one
    # up keeps a upper bound.
    while k & 1 == 0:
        a = mul_up(a, a)
        k >>= 1
    r = a
    k >>= 1
    while k > 0:
        a = mul_up(a, a)
        if k & 1:
            r = mul_up(r, a)
        k >>= 1
    return r


def ipow(alo, ahi, k):
    """x**k for an integer k >= 0 (negative powers: irecip(ipow(...)))."""
    if is_empty(alo, ahi):
        return NAN, NAN
    if k == 0:
        return 1.0, 1.0
    if k % 2 == 1:
        lo = _pow_nonneg_dn(alo, k) if alo >= 0.0 else -_pow_nonneg_up(-alo, k)
        hi = _pow_nonneg_up(ahi, k) if ahi >= 0.0 else -_pow_nonneg_dn(-ahi, k)
        return lo, hi
    if alo >= 0.0:
        return _pow_nonneg_dn(alo, k), _pow_nonneg_up(ahi, k)
    if ahi <= 0.0:
        return _pow_nonneg_dn(-ahi, k), _pow_nonneg_up(-alo, k)
    return 0.0, max(_pow_nonneg_up(-alo, k), _pow_nonneg_up(ahi, k))


def isqr(alo, ahi):
    return ipow(alo, ahi, 2)


def isqrt(alo, ahi):
    if is_empty(alo, ahi) or ahi < 0.0:
        return NAN, NAN
    lo = 0.0 if alo <= 0.0 else sqrt_dn(alo)
    return lo, sqrt_up(ahi)


def iexp(alo, ahi):
    if is_empty(alo, ahi):
        return NAN, NAN
    return exp_dn(alo), exp_up(ahi)


def ilog(alo, ahi):
    if is_empty(alo, ahi) or ahi <= 0.0:
        return NAN, NAN
    lo = -INF if alo <= 0.0 else log_dn(alo)
    return lo, log_up(ahi)


def iabs(alo, ahi):
    if is_empty(alo, ahi):
        return NAN, NAN
    if alo >= 0.0:
        return alo, ahi
    if ahi <= 0.0:
        return -ahi, -alo
    return 0.0, max(-alo, ahi)


def imin(alo, ahi, blo, bhi):
    if is_empty(alo, ahi) or is_empty(blo, bhi):
        return NAN, NAN
    return min(alo, blo), min(ahi, bhi)


def imax(alo, ahi, blo, bhi):
    if is_empty(alo, ahi) or is_empty(blo, bhi):
        return NAN, NAN
    return max(alo, blo), max(ahi, bhi)


def isign(alo, ahi):
    """sign(u), and the generalized derivative of |u|: [-1, 1] wherever u can be 0.

    The value sign(0) = 0 and Clarke's gradient of |u| at 0, [-1, 1], are both
    inside, so the one op serves a user's ``sign`` and the derivative of ``Abs``.
    """
    if is_empty(alo, ahi):
        return NAN, NAN
    if alo > 0.0:
        return 1.0, 1.0
    if ahi < 0.0:
        return -1.0, -1.0
    return -1.0, 1.0


def istep(alo, ahi):
    """The derivative of max(a, b) with respect to a, for u = a - b: 1 if u > 0, 0 if u < 0.

    Where u can be 0 (both can be the max) it is [0, 1], Clarke's generalized
    gradient of the kink; codegen writes d max(a, b)/db as 1 - step(a - b).
    """
    if is_empty(alo, ahi):
        return NAN, NAN
    if alo > 0.0:
        return 1.0, 1.0
    if ahi < 0.0:
        return 0.0, 0.0
    return 0.0, 1.0


def idelta(alo, ahi):
    """The derivative of sign(u): 0 away from u = 0, unbounded where the jump can be."""
    if is_empty(alo, ahi):
        return NAN, NAN
    if alo > 0.0 or ahi < 0.0:
        return 0.0, 0.0
    return -INF, INF


def p_trunc(x):
    """x rounded toward 0, as a double (math.trunc gives an int, which overflows past 2**63)."""
    if not abs(x) < EXACT_INTEGER_LIMIT:  # huge, infinite or NaN: already an integer (or NaN)
        return x
    return float(int(x))


def p_floor(x):
    """The largest integer <= x, as a double (exact: t - 1 is exact below 2**52)."""
    t = p_trunc(x)
    return t - 1.0 if t > x else t


def p_rint(x):
    """x rounded to the nearest integer, ties to even (numpy's ``round``/``rint``)."""
    if not abs(x) < EXACT_INTEGER_LIMIT:
        return x
    f = p_floor(x)
    d = x - f  # exact when x >= 0; for -1 < x < 0 rounded, but never across 1/2 wrongly
    if d > 0.5:
        return f + 1.0
    if d < 0.5:
        return f
    return f if p_floor(0.5 * f) * 2.0 == f else f + 1.0


def ifloor(alo, ahi):
    """floor is nondecreasing: [floor(lo), floor(hi)], exact."""
    if is_empty(alo, ahi):
        return NAN, NAN
    return p_floor(alo), p_floor(ahi)


def itrunc(alo, ahi):
    """Rounding toward 0 (Python's int) is nondecreasing: [trunc(lo), trunc(hi)], exact."""
    if is_empty(alo, ahi):
        return NAN, NAN
    return p_trunc(alo), p_trunc(ahi)


def irint(alo, ahi):
    """Rounding to nearest, ties to even, is nondecreasing: [rint(lo), rint(hi)], exact."""
    if is_empty(alo, ahi):
        return NAN, NAN
    return p_rint(alo), p_rint(ahi)


def ijump(vlo, vhi):
    """The derivative of a step function (floor, trunc, rint) whose value on the box is [vlo, vhi].

    One value: the step function is constant on the box, derivative 0.  Two or more: a jump
    can lie in the box, where no derivative bounds the change (the whole line), so a mean
    value form or a monotonicity test through it proves nothing.
    """
    if is_empty(vlo, vhi):
        return NAN, NAN
    if vlo == vhi:
        return 0.0, 0.0
    return -INF, INF


def itanh(alo, ahi):
    """tanh is increasing: its endpoints' enclosures, stepped outward (``tanh_enc``)."""
    if is_empty(alo, ahi):
        return NAN, NAN
    lo = tanh_enc(alo)[0]
    hi = tanh_enc(ahi)[1]
    return lo, hi


def _sigmoid_dn(x):
    # 1/(1 + e^-x), every step rounded so that the quotient is a lower bound
    return max(div_dn(1.0, add_up(1.0, exp_up(-x))), 0.0)


def _sigmoid_up(x):
    return min(div_up(1.0, add_dn(1.0, exp_dn(-x))), 1.0)


def isigmoid(alo, ahi):
    """1/(1 + exp(-x)), increasing; relative error of a few ulps (1 + e loses nothing
    relative to the quotient), 0 and 1 only where the value rounds there."""
    if is_empty(alo, ahi):
        return NAN, NAN
    return _sigmoid_dn(alo), _sigmoid_up(ahi)


def _softplus_dn(x):
    # log(1 + e^x) = max(x, 0) + log1p(e^-|x|): no overflow, no cancellation
    if x > 0.0:
        return max(add_dn(x, log1p_dn(exp_dn(-x))), x)
    return max(log1p_dn(exp_dn(x)), 0.0)


def _softplus_up(x):
    if x > 0.0:
        return add_up(x, log1p_up(exp_up(-x)))
    return log1p_up(exp_up(x))


def isoftplus(alo, ahi):
    """log(1 + exp(x)), increasing; > max(x, 0), which bounds it from below exactly."""
    if is_empty(alo, ahi):
        return NAN, NAN
    return _softplus_dn(alo), _softplus_up(ahi)


# Point (plain floating-point) helpers for generated point forms: values, not bounds.
def p_sigmoid(x):
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def p_softplus(x):
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


def p_step(u):
    # a valid subgradient at the kink: max(a, b) at a tie takes a's derivative
    return 1.0 if u >= 0.0 else 0.0


def p_sign(u):
    if u > 0.0:
        return 1.0
    if u < 0.0:
        return -1.0
    return 0.0  # also a subgradient of |u| at 0


def p_delta(u):
    return 0.0 if u != 0.0 else NAN  # sign has no derivative at its jump


def iintersect(alo, ahi, blo, bhi):
    """The intersection of two enclosures of one set; an empty (NaN) one gives the other."""
    if is_empty(alo, ahi):
        return blo, bhi
    if is_empty(blo, bhi):
        return alo, ahi
    lo = max(alo, blo)
    hi = min(ahi, bhi)
    if lo > hi:  # only when one of them was wrong; keep the hull rather than an empty set
        return min(alo, blo), max(ahi, bhi)
    return lo, hi


def ihull(alo, ahi, blo, bhi):
    if is_empty(alo, ahi):
        return blo, bhi
    if is_empty(blo, bhi):
        return alo, ahi
    return min(alo, blo), max(ahi, bhi)


def _has_integer_between(tlo, thi):
    # Conservative: may answer True spuriously, never False wrongly.
    if tlo != tlo or thi != thi:
        return True
    if thi - tlo >= 1.0 or abs(tlo) >= EXACT_INTEGER_LIMIT or abs(thi) >= EXACT_INTEGER_LIMIT:
        return True
    return math.floor(thi) >= tlo


def _scaled_dn(v):
    # a lower bound of v / (2 pi), for v itself a lower bound
    return mul_dn(v, INV_TWO_PI_LO) if v >= 0.0 else mul_dn(v, INV_TWO_PI_HI)


def _scaled_up(v):
    return mul_up(v, INV_TWO_PI_HI) if v >= 0.0 else mul_up(v, INV_TWO_PI_LO)


def _hits(alo, ahi, off_lo, off_hi):
    """Could [alo, ahi] contain off + 2 pi k for some integer k and off in [off_lo, off_hi]?

    Uses enclosures of the offset and of 1/(2 pi) instead of a rounded pi/2
    quadrant test, which misses extrema for large arguments.
    """
    return _has_integer_between(_scaled_dn(add_dn(alo, -off_hi)), _scaled_up(add_up(ahi, -off_lo)))


def isin(alo, ahi):
    if is_empty(alo, ahi):
        return NAN, NAN
    if alo == ahi:
        return sin_enc(alo)
    if add_dn(ahi, -alo) >= TWO_PI_HI:
        return -1.0, 1.0
    a_lo, a_hi = sin_enc(alo)
    b_lo, b_hi = sin_enc(ahi)
    lo = -1.0 if _hits(alo, ahi, -HALF_PI_HI, -HALF_PI_LO) else min(a_lo, b_lo)
    hi = 1.0 if _hits(alo, ahi, HALF_PI_LO, HALF_PI_HI) else max(a_hi, b_hi)
    return lo, hi


def icos(alo, ahi):
    if is_empty(alo, ahi):
        return NAN, NAN
    if alo == ahi:
        return cos_enc(alo)
    if add_dn(ahi, -alo) >= TWO_PI_HI:
        return -1.0, 1.0
    a_lo, a_hi = cos_enc(alo)
    b_lo, b_hi = cos_enc(ahi)
    lo = -1.0 if _hits(alo, ahi, PI_LO, PI_HI) else min(a_lo, b_lo)
    hi = 1.0 if _hits(alo, ahi, 0.0, 0.0) else max(a_hi, b_hi)
    return lo, hi


COMPOSITE_NAMES = (
    "is_empty iadd isub ineg _zero_if_nan imul _min_skip_nan _max_skip_nan idiv_corners idiv irecip "
    "_pow_nonneg_dn _pow_nonneg_up ipow isqr isqrt iexp ilog iabs imin imax ihull "
    "_has_integer_between _scaled_dn _scaled_up _hits isin icos isign istep idelta itanh "
    "_sigmoid_dn _sigmoid_up isigmoid _softplus_dn _softplus_up isoftplus p_sigmoid p_softplus "
    "p_step p_sign p_delta iintersect p_trunc p_floor p_rint ifloor itrunc irint ijump"
).split()
