"""Long runs, only in the nightly set (``make bench`` skips this module by its regex).

The paper's default partition on the CPU: n = 10 with 10 coordinates split in
4 parts per iteration (4^10 = 1,048,576 subregions per iteration); about
1-2 minutes per solve with 2 threads.
"""
from . import _common as C


class CpuDefaultSolve:
    """Whole CPU solve of levy at n = 10 with the paper's default settings."""
    params = ["levy"]
    param_names = ["function"]
    number = 1
    repeat = 1
    rounds = 1
    warmup_time = 0.0
    timeout = 600

    def setup(self, function):
        from gpubench.solver import solve
        self.solve = solve
        C.warm(function, C.CPU_DIM, "cpu")  # JIT or numba's disk cache, outside the timing

    def time_solve(self, function):
        self.solve(function, C.CPU_DIM, backend="cpu")
