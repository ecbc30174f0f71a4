"""Directed-rounding primitives for the GPU (numba-cuda device functions).

The arithmetic uses the hardware's directed-rounding instructions through
libdevice (``add.rm.f64``/``add.rp.f64`` ...), never plain ``*`` and ``+``:
numba-cuda contracts ``a*b + c`` into ``fma.rn`` even without fastmath, and a
contracted product is not "round to nearest, then step".

CUDA's transcendentals are not correctly rounded.  The CUDA programming guide
documents maximum errors of 2 ulp (sin, cos) and 1 ulp (exp, log) in double; we
widen by the documented error plus 2 ulps: 4 for sin/cos, 3 for exp/log; tanh
(documented 2 ulps) by 4 and log1p (1 ulp) by 3.

Under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) libdevice functions
are stubs that return None.  There the same names are bound to exact
pure-Python implementations (``fractions.Fraction`` plus ``math.nextafter``),
so simulated kernels compute correct enclosures; the simulator cannot check
ulp margins or FMA behaviour, which ``tests/test_ptx.py`` and the real-GPU check
cover instead.
"""
import math
import struct
from fractions import Fraction

from numba import config, cuda

SIN_COS_ULPS = 4
EXP_LOG_ULPS = 3
TANH_ULPS = 4

if config.ENABLE_CUDASIM:

    def _round_dn(exact):
        r = float(exact)
        if Fraction(r) > exact:
            r = math.nextafter(r, -math.inf)
        return r

    def _round_up(exact):
        r = float(exact)
        if Fraction(r) < exact:
            r = math.nextafter(r, math.inf)
        return r

    def _rounded(exact, down):
        try:
            return _round_dn(exact) if down else _round_up(exact)
        except OverflowError:
            if exact > 0:
                return 1.7976931348623157e308 if down else math.inf
            return -math.inf if down else -1.7976931348623157e308

    def _add(a, b, down):
        if not (math.isfinite(a) and math.isfinite(b)):
            return a + b
        return _rounded(Fraction(a) + Fraction(b), down)

    def _mul(a, b, down):
        if not (math.isfinite(a) and math.isfinite(b)):
            return a * b
        return _rounded(Fraction(a) * Fraction(b), down)

    def _div(a, b, down):
        if b == 0.0 or not (math.isfinite(a) and math.isfinite(b)):
            try:
                return a / b
            except ZeroDivisionError:  # Python raises where IEEE 754 gives inf/NaN
                if a != a or a == 0.0:
                    return float("nan")
                return math.copysign(1.0, a) * math.copysign(1.0, b) * math.inf
        return _rounded(Fraction(a) / Fraction(b), down)

    def _sqrt(a, down):
        if a != a or a < 0.0:
            return float("nan")
        if a == math.inf:
            return a
        r = math.sqrt(a)
        exact_sq = Fraction(a)
        if down and Fraction(r) ** 2 > exact_sq:
            r = math.nextafter(r, -math.inf)
        if not down and Fraction(r) ** 2 < exact_sq:
            r = math.nextafter(r, math.inf)
        return r

    def dadd_rd(a, b):
        return _add(a, b, True)

    def dadd_ru(a, b):
        return _add(a, b, False)

    def dmul_rd(a, b):
        return _mul(a, b, True)

    def dmul_ru(a, b):
        return _mul(a, b, False)

    def ddiv_rd(a, b):
        return _div(a, b, True)

    def ddiv_ru(a, b):
        return _div(a, b, False)

    def dsqrt_rd(a):
        return _sqrt(a, True)

    def dsqrt_ru(a):
        return _sqrt(a, False)

    def _sin(a):
        return math.sin(a) if math.isfinite(a) else float("nan")

    def _cos(a):
        return math.cos(a) if math.isfinite(a) else float("nan")

    def _exp(a):
        try:
            return math.exp(a)
        except OverflowError:
            return math.inf

    def _log(a):
        if a != a or a < 0.0:
            return float("nan")
        if a == 0.0:
            return -math.inf
        return math.log(a)

    def _next_up(x):
        return math.nextafter(x, math.inf)

    def _tanh(a):
        return math.tanh(a) if a == a else float("nan")

    def _log1p(a):
        if a != a or a < -1.0:
            return float("nan")
        if a == -1.0:
            return -math.inf
        return math.log1p(a)

    def _as_bits(x):
        return struct.unpack("<q", struct.pack("<d", x))[0]

    def _from_bits(b):
        return struct.unpack("<d", struct.pack("<q", b))[0]

    def dadd_rn(a, b):
        return a + b

    def dmul_rn(a, b):
        return a * b

    def ddiv_rn(a, b):
        try:
            return a / b
        except ZeroDivisionError:
            return _div(a, b, True)

    def _next_dn(x):
        return math.nextafter(x, -math.inf)

else:
    from numba.cuda import libdevice

    dadd_rd = libdevice.dadd_rd
    dadd_ru = libdevice.dadd_ru
    dmul_rd = libdevice.dmul_rd
    dmul_ru = libdevice.dmul_ru
    ddiv_rd = libdevice.ddiv_rd
    ddiv_ru = libdevice.ddiv_ru
    dsqrt_rd = libdevice.dsqrt_rd
    dadd_rn = libdevice.dadd_rn
    dmul_rn = libdevice.dmul_rn
    ddiv_rn = libdevice.ddiv_rn
    dsqrt_ru = libdevice.dsqrt_ru
    _sin = libdevice.sin
    _cos = libdevice.cos
    _exp = libdevice.exp
    _log = libdevice.log
    _tanh = libdevice.tanh
    _log1p = libdevice.log1p
    _as_bits = libdevice.double_as_longlong
    _from_bits = libdevice.longlong_as_double

    @cuda.jit(device=True, inline=True)
    def _next_up(x):
        if x != x or x == math.inf:
            return x
        if x == 0.0:
            return 5e-324
        b = libdevice.double_as_longlong(x)
        return libdevice.longlong_as_double(b + 1 if x > 0.0 else b - 1)

    @cuda.jit(device=True, inline=True)
    def _next_dn(x):
        return -_next_up(-x)


_device = cuda.jit(device=True, inline=True)


@_device
def next_up(x):
    return _next_up(x)


@_device
def next_dn(x):
    return _next_dn(x)


@_device
def add_dn(a, b):
    return dadd_rd(a, b)


@_device
def add_up(a, b):
    return dadd_ru(a, b)


@_device
def mul_dn(a, b):
    return dmul_rd(a, b)


@_device
def mul_up(a, b):
    return dmul_ru(a, b)


@_device
def div_dn(a, b):
    return ddiv_rd(a, b)


@_device
def div_up(a, b):
    return ddiv_ru(a, b)


@_device
def sqrt_dn(a):
    return dsqrt_rd(a)


@_device
def sqrt_up(a):
    return dsqrt_ru(a)


@_device
def add_rn(a, b):
    return dadd_rn(a, b)


@_device
def mul_rn(a, b):
    return dmul_rn(a, b)


@_device
def div_rn(a, b):
    return ddiv_rn(a, b)


@_device
def _up(x, k):
    # away from 0, subnormals and overflow, k ulps up is k steps of the bit pattern
    if 1e-300 < abs(x) < 1e300:
        b = _as_bits(x)
        return _from_bits(b + k if x > 0.0 else b - k)
    for _ in range(k):
        x = _next_up(x)
    return x


@_device
def _dn(x, k):
    return -_up(-x, k)


@_device
def exp_dn(a):
    return max(_dn(_exp(a), EXP_LOG_ULPS), 0.0)


@_device
def exp_up(a):
    return _up(_exp(a), EXP_LOG_ULPS)


@_device
def log_dn(a):
    return _dn(_log(a), EXP_LOG_ULPS)


@_device
def log_up(a):
    return _up(_log(a), EXP_LOG_ULPS)


@_device
def sin_enc(a):
    """(lo, hi) around sin(a): one CUDA sin, widened both ways."""
    v = _sin(a)
    return max(_dn(v, SIN_COS_ULPS), -1.0), min(_up(v, SIN_COS_ULPS), 1.0)


@_device
def cos_enc(a):
    """(lo, hi) around cos(a): one CUDA cos, widened both ways."""
    v = _cos(a)
    return max(_dn(v, SIN_COS_ULPS), -1.0), min(_up(v, SIN_COS_ULPS), 1.0)


@_device
def tanh_enc(a):
    """(lo, hi) around tanh(a): one CUDA tanh, widened both ways, clamped to [-1, 1]."""
    v = _tanh(a)
    return max(_dn(v, TANH_ULPS), -1.0), min(_up(v, TANH_ULPS), 1.0)


@_device
def log1p_dn(a):
    return _dn(_log1p(a), EXP_LOG_ULPS)


@_device
def log1p_up(a):
    return _up(_log1p(a), EXP_LOG_ULPS)


PRIMITIVES = {
    name: globals()[name]
    for name in (
        "next_up next_dn add_dn add_up mul_dn mul_up div_dn div_up sqrt_dn sqrt_up "
        "exp_dn exp_up log_dn log_up sin_enc cos_enc tanh_enc log1p_dn log1p_up "
        "add_rn mul_rn div_rn"
    ).split()
}
