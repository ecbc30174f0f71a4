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


class TronHs45Batch:
    """Batched TRON (paper 003, ExaTron) on hs45-type problems: the CPU twin (1,000 problems)
    and the GPU kernel (10,000 problems), n = 8 and 32.  scripts/gpu_tron.py is the full set."""
    params = (["cpu", "cuda"], [8, 32])
    param_names = ["backend", "n"]
    number = 1
    repeat = 3
    warmup_time = 0.0
    timeout = 600

    def setup(self, backend, n):
        from gpubench.device import gpu_available
        if backend == "cuda" and not gpu_available():
            raise NotImplementedError("no CUDA GPU here")
        from gpubench import tron
        self.tron = tron
        self.batch = 10_000 if backend == "cuda" else 1_000
        tron.solve_hs45(2, n, backend=backend)  # compiles outside the timing

    def time_solve(self, backend, n):
        self.tron.solve_hs45(self.batch, n, backend=backend)
