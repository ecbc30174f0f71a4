"""Interval sweep throughput: one iteration's subregions, bounded and sampled, per function.

Each timed call sweeps a fixed number of subregions of the whole domain (the
solver's first iteration), so subregions per second = ``count / time``:
CPU 4^6 = 4096 subregions at n = 10, CUDA 4^10 = 1,048,576 at n = 50.
Lower time is better.
"""
from . import _common as C


class CpuSweep:
    """numba ``prange`` sweep over 4^6 subregions at n = 10 (NUMBA_NUM_THREADS pinned by asv.conf.json)."""
    params = C.FUNCTIONS12
    param_names = ["function"]
    timeout = 120

    def setup(self, function):
        self.search = C.search(function, C.CPU_DIM, "cpu", *C.CPU_SWEEP)
        # JIT (or load numba's disk cache) here, outside the timing
        self.sweep, self.args, self.kwargs = C.root_sweep(self.search)

    def time_sweep(self, function):
        self.sweep(*self.args, **self.kwargs)


class CudaSweep:
    """One CUDA thread per subregion, 4^10 subregions at n = 50; kernel, launch and copies back."""
    params = C.GPU_FUNCTIONS
    param_names = ["function"]
    timeout = 300
    rounds = 1          # a new process per round would compile the kernel again (~30 s for levy)
    repeat = (3, 20, 10.0)
    warmup_time = 0.0

    def setup(self, function):
        C.require_cuda()
        self.search = C.search(function, C.GPU_DIM, "cuda", *C.GPU_SWEEP)
        # compiles on the first call of the process
        self.sweep, self.args, self.kwargs = C.root_sweep(self.search)
        C.synchronize()

    def time_sweep(self, function):
        self.sweep(*self.args, **self.kwargs)  # waits for the kernel, copies the bounds back
        C.synchronize()
