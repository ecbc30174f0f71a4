"""Batched point evaluation (the sampling form): points per second = count / time."""
from . import _common as C


def _points(n, count, lo, hi, seed=0):
    import numpy as np
    rng = np.random.default_rng(seed)
    return rng.uniform(lo, hi, (count, n))


class CpuPoints:
    """``TestFunction.points`` on 2^16 points at n = 10 (a serial numba loop)."""
    params = ["rosenbrock", "levy"]
    param_names = ["function"]

    def setup(self, function):
        from gpubench import functions
        self.fn = functions.get(function)
        lo, hi = self.fn.bounds(C.CPU_DIM)
        self.X = _points(C.CPU_DIM, C.CPU_POINTS, lo, hi)
        self.fn.points(self.X[:2])  # JIT outside the timing

    def time_points(self, function):
        self.fn.points(self.X)


class CudaPoints:
    """The generated ``points`` kernel on 2^20 points at n = 50, arrays already on the device."""
    params = C.GPU_FUNCTIONS
    param_names = ["function"]
    timeout = 300
    rounds = 1
    repeat = (3, 20, 10.0)
    warmup_time = 0.0
    threads = 128

    def setup(self, function):
        C.require_cuda()
        import numpy as np
        from numba import cuda
        from gpubench import functions
        fn = functions.get(function)
        lo, hi = fn.bounds(C.GPU_DIM)
        self.kernel = fn.module("cuda").points
        self.d_X = cuda.to_device(_points(C.GPU_DIM, C.GPU_POINTS, lo, hi))
        self.d_p = cuda.to_device(np.ascontiguousarray(fn.params(C.GPU_DIM)))
        self.d_out = cuda.device_array(C.GPU_POINTS)
        self.blocks = (C.GPU_POINTS + self.threads - 1) // self.threads
        self.time_points(function)  # compiles on the first call of the process

    def time_points(self, function):
        self.kernel[self.blocks, self.threads](self.d_X, self.d_p, self.d_out)
        C.synchronize()
