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


class DeGpuFevalsPerSecond:
    """de-gpu (differential evolution, paper 002) on shifted Rastrigin, fp64, F = 0.5, CR = 0.3:
    function evaluations per second of one run (fast mode), and of 25 runs in one launch.
    On the GPU when there is one, else on the parallel CPU twin (the record's machine says which)."""
    params = ([(10, 100), (100, 1000), (100, 100000)], [1, 25])
    param_names = ["D, NP", "runs"]
    number = 1
    repeat = 1
    rounds = 1
    warmup_time = 0.0
    timeout = 600
    unit = "evaluations/s"

    def setup(self, size, runs):
        D, NP = size
        if runs > 1 and NP * D > 100_000:
            raise NotImplementedError("25 runs only for the small populations")
        from gpubench import methods
        self.minimize = methods.minimize
        self.kw = dict(np=NP, runs=runs, F=0.5, CR=0.3, seed=0, mode="fast",
                       backend="cuda" if C.cuda_ready() else "cpu")
        self.minimize("shifted_rastrigin", D, "de-gpu", max_evaluations=3 * NP, **self.kw)  # compile

    def track_fevals_per_second(self, size, runs):
        D, NP = size
        gens = 2000 if NP * D * runs <= 100_000 else 50
        r = self.minimize("shifted_rastrigin", D, "de-gpu", max_evaluations=NP * (1 + gens), **self.kw)
        return r.nfev / r.seconds
