"""Stand-in forms for the kernel modules of :mod:`gpubench.kernels` imported as themselves.

The forms of f(x) = sum of x_k^2, with the names and signatures that
:mod:`gpubench.forms.codegen` generates, so a kernel module lints, imports and compiles to PTX
without a function.  Never used in a run: there the generated forms stand.
"""
from numba import cuda, njit

COOP_SLOTS = 1
TERM_WINDOW = 1  # every term reads its own coordinate only (2: x_k and x_k+1)
HAS_SPIKE = False
SPIKE_VALUE = 0.0

device = cuda.jit(device=True)
kernel = cuda.jit(cache=True)


@device
def agg_identity(a):
    return 0.0


@device
def agg_combine(a, u, v):
    return u + v


@device
def term_fold(x, off, p, k, nn, acc):
    acc[0] = acc[0] + x[off + k] * x[off + k]


@device
def outer_value(acc, x_first, x_last, nn):
    return acc[0]


@device
def in_spike_at(x, off, nn):
    return False


@device
def point(x, p):
    s = 0.0
    for k in range(x.shape[0]):
        s += x[k] * x[k]
    return s


@device
def gradient(x, p, g, w):
    for k in range(x.shape[0]):
        g[k] = 2.0 * x[k]


@njit(cache=True)
def cpu_point(x, p):
    s = 0.0
    for k in range(x.shape[0]):
        s += x[k] * x[k]
    return s
