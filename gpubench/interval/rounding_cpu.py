"""Directed-rounding primitives for the CPU (numba ``@njit``).

numba gives no control of the FPU rounding mode, so every primitive computes in
round-to-nearest and then steps outward.  + - * / and sqrt are correctly rounded
(IEEE 754), so one ulp outward is enough.  ``math.sin`` and friends lower to the
platform libm; glibc documents at most 1 ulp for them in double precision and we
step 3 ulps (see ``shared/notes/interval.md``), so a libm that is a little worse
than documented is still enclosed.

``fastmath`` must never be enabled here: it permits FMA contraction and folds
``x != x`` to False, which would silently delete the NaN (empty interval) checks.
"""
import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

TRANSCENDENTAL_ULPS = 3
TANH_ULPS = 4


@intrinsic
def _f64_bits(typingctx, x):
    sig = types.int64(types.float64)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return sig, codegen


@intrinsic
def _bits_f64(typingctx, b):
    sig = types.float64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return sig, codegen


@njit(error_model="numpy")
def next_up(x):
    if x != x or x == math.inf:
        return x
    if x == 0.0:
        return 5e-324
    b = _f64_bits(x)
    return _bits_f64(b + 1 if x > 0.0 else b - 1)


@njit(error_model="numpy")
def next_dn(x):
    return -next_up(-x)


@njit(error_model="numpy")
def up_ulps(x, k):
    # away from 0, subnormals and overflow, k ulps up is k steps of the bit pattern
    if 1e-300 < abs(x) < 1e300:
        b = _f64_bits(x)
        return _bits_f64(b + k if x > 0.0 else b - k)
    for _ in range(k):
        x = next_up(x)
    return x


@njit(error_model="numpy")
def dn_ulps(x, k):
    return -up_ulps(-x, k)


@njit(error_model="numpy")
def add_dn(a, b):
    return next_dn(a + b)


@njit(error_model="numpy")
def add_up(a, b):
    return next_up(a + b)


@njit(error_model="numpy")
def mul_dn(a, b):
    return next_dn(a * b)


@njit(error_model="numpy")
def mul_up(a, b):
    return next_up(a * b)


@njit(error_model="numpy")
def div_dn(a, b):
    return next_dn(a / b)


@njit(error_model="numpy")
def div_up(a, b):
    return next_up(a / b)


@njit(error_model="numpy")
def sqrt_dn(a):
    return max(next_dn(math.sqrt(a)), 0.0)


@njit(error_model="numpy")
def sqrt_up(a):
    return next_up(math.sqrt(a))


@njit(error_model="numpy")
def exp_dn(a):
    return max(dn_ulps(math.exp(a), TRANSCENDENTAL_ULPS), 0.0)


@njit(error_model="numpy")
def exp_up(a):
    return up_ulps(math.exp(a), TRANSCENDENTAL_ULPS)


@njit(error_model="numpy")
def log_dn(a):
    return dn_ulps(math.log(a), TRANSCENDENTAL_ULPS)


@njit(error_model="numpy")
def log_up(a):
    return up_ulps(math.log(a), TRANSCENDENTAL_ULPS)


@njit(error_model="numpy")
def sin_enc(a):
    """(lo, hi) around sin(a): one libm call, stepped both ways."""
    v = math.sin(a)
    return max(dn_ulps(v, TRANSCENDENTAL_ULPS), -1.0), min(up_ulps(v, TRANSCENDENTAL_ULPS), 1.0)


@njit(error_model="numpy")
def cos_enc(a):
    """(lo, hi) around cos(a): one libm call, stepped both ways."""
    v = math.cos(a)
    return max(dn_ulps(v, TRANSCENDENTAL_ULPS), -1.0), min(up_ulps(v, TRANSCENDENTAL_ULPS), 1.0)


@njit(error_model="numpy")
def tanh_enc(a):
    """(lo, hi) around tanh(a): one libm call, stepped both ways, clamped to [-1, 1]."""
    v = math.tanh(a)
    return max(dn_ulps(v, TANH_ULPS), -1.0), min(up_ulps(v, TANH_ULPS), 1.0)


@njit(error_model="numpy")
def log1p_dn(a):
    return dn_ulps(math.log1p(a), TRANSCENDENTAL_ULPS)


@njit(error_model="numpy")
def log1p_up(a):
    return up_ulps(math.log1p(a), TRANSCENDENTAL_ULPS)


# Round-to-nearest arithmetic spelled out, so that code shared with the GPU
# (where a*b + c would be contracted into an FMA) computes bit-identical values.
@njit(error_model="numpy")
def add_rn(a, b):
    return a + b


@njit(error_model="numpy")
def mul_rn(a, b):
    return a * b


@njit(error_model="numpy")
def div_rn(a, b):
    return a / b


# cached: compiling it cost every new process about a tenth of a second; the check is the run
@njit(cache=True)
def _flushes_subnormals(tiny):
    return tiny / 2.0 == 0.0


def check_no_flush_to_zero():
    """Refuse to run when the process flushes subnormals to zero.

    A library built with ``-ffast-math`` can switch FTZ/DAZ on for the whole
    process; every one-ulp step near zero would then be wrong.
    """
    if _flushes_subnormals(np.finfo(np.float64).tiny):
        raise RuntimeError(
            "the CPU flushes subnormal numbers to zero in this process "
            "(a library built with -ffast-math?); rigorous interval arithmetic is impossible"
        )


PRIMITIVES = {
    name: globals()[name]
    for name in (
        "next_up next_dn add_dn add_up mul_dn mul_up div_dn div_up sqrt_dn sqrt_up "
        "exp_dn exp_up log_dn log_up sin_enc cos_enc tanh_enc log1p_dn log1p_up "
        "add_rn mul_rn div_rn"
    ).split()
}
