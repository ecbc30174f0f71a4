"""A plain copy kernel: the bandwidth reference of device rows (what a stream read and
written once reaches on this GPU), timed beside the kernels it is compared with."""
from numba import cuda


@cuda.jit(cache=True)
def copy(src, dst):
    """dst[i] = src[i], grid-stride."""
    i = cuda.grid(1)
    s = cuda.gridsize(1)
    while i < src.shape[0]:
        dst[i] = src[i]
        i += s
