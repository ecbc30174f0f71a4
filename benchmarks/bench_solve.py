"""Whole solves and the solver's tracked metrics.

Timings (``time_``): one whole ``solve`` per call (number = 1), explicit repeat
and timeout; the JIT is warmed in ``setup``.

Metrics (``track_``), every one lower-is-better:

- ``iterations`` and output ``regions`` per case: a rise means the search does
  more work, or encloses the optimiser less tightly;
- ``gap`` = GUB - GLB per case (how tight the enclosure of f* is);
- ``failure_percent``: share of cases where f* is not inside [GLB, GUB], or x*
  is in no output region, or the solver raised; it must stay 0.

The metric solves run once per asv run, in ``setup_cache``; their results feed
every ``track_`` benchmark of the class.
"""
from . import _common as C

CPU_CASES = [(f, C.CPU_DIM) for f in C.FUNCTIONS12]
# the published GPU counts: levy 50 / 100 and rosenbrock 100 (595 iterations, 18 regions)
GPU_CASES = [("levy", 50), ("levy", 100), ("rosenbrock", 100)]


def _outcome(cache, case):
    o = cache[case]
    if "error" in o:
        raise RuntimeError(f"{case}: {o['error']}")
    return o


class CpuSolve:
    """Whole CPU solves at n = 10 with 4^6 subregions per iteration."""
    params = ["levy", "rosenbrock", "levy_delta"]
    param_names = ["function"]
    number = 1
    repeat = 3
    warmup_time = 0.0
    timeout = 180

    def setup(self, function):
        from gpubench.methods.solver import solve
        self.solve = solve
        self.options = dict(backend="cpu", split_dims=C.CPU_SOLVE[0], parts=C.CPU_SOLVE[1])
        C.warm(function, C.CPU_DIM, "cpu")  # JIT or numba's disk cache

    def time_solve(self, function):
        self.solve(function, C.CPU_DIM, **self.options)


class CudaSolve:
    """Whole CUDA solves of levy at n = 50 and 100, the paper's settings (4^10 subregions per iteration)."""
    params = [50, 100]
    param_names = ["n"]
    number = 1
    repeat = 3
    warmup_time = 0.0
    rounds = 1
    timeout = 300

    def setup(self, n):
        C.require_cuda()
        from gpubench.methods.solver import solve
        self.solve = solve
        C.warm("levy", n, "cuda")  # compiles on the first call of the process

    def time_solve(self, n):
        self.solve("levy", n, backend="cuda")
        C.synchronize()


class CudaLoopSolve:
    """Levy at n = 50 and 1,000 with the paper's settings, the host loop and the device loop
    (``loop = "device"``: the whole iteration on the GPU, k iterations a launch; issue 26) side by
    side in one run, so their ratio is measured on one machine.  The issue's targets on one H200:
    0.1 s (n = 50) and 2 s (n = 1,000)."""
    params = ([50, 1000], ["host", "device"])
    param_names = ["n", "loop"]
    number = 1
    repeat = 3
    warmup_time = 0.0
    rounds = 1
    timeout = 600

    def setup(self, n, loop):
        C.require_cuda()
        from gpubench.methods.solver import solve
        self.solve = solve
        # one iteration compiles (or loads) the kernels this loop runs; s = 2 shares them with s = 10
        solve("levy", n, backend="cuda", loop=loop, split_dims=2, parts=2, max_iterations=1)
        C.synchronize()

    def time_solve(self, n, loop):
        self.solve("levy", n, backend="cuda", loop=loop)
        C.synchronize()


class Reduce:
    """What an iteration keeps of a 4^10-subregion sweep (best sample, njev, survivors in order):
    ``reduce_host`` on the CPU backend, ``DeviceReduction`` (three kernels and the read-back) on
    CUDA.  Half of the subregions survive, as in Levy's first iterations, where every one does."""
    params = ["cpu", "cuda"]
    param_names = ["backend"]
    number = 1
    repeat = 5
    warmup_time = 0.0
    timeout = 120

    def setup(self, backend):
        import math

        import numpy as np
        rng = np.random.default_rng(0)
        count = C.GPU_SWEEP[1] ** C.GPU_SWEEP[0]
        lb = rng.normal(size=count)
        lb[rng.random(count) < 0.5] = math.inf
        ub = rng.normal(size=count) + 10.0
        grad = rng.integers(0, 2, count).astype(np.int8)
        from gpubench.methods.solver import reduce as red
        if backend == "cpu":
            self.run = lambda: red.reduce_host(lb, ub, grad, 5.0)
        else:
            C.require_cuda()
            from numba import cuda
            d = red.DeviceReduction()
            dl, du, dg = cuda.to_device(lb), cuda.to_device(ub), cuda.to_device(grad)
            self.run = lambda: d(dl, du, dg, 5.0)  # waits for the read-back
        self.run()  # compiles the kernels

    def time_reduce(self, backend):
        self.run()


def _metrics(cases):
    """The metrics of a solve over ``cases`` ((function, n) pairs), as a base class: asv reads a
    benchmark's params from its function, so each list of cases needs functions of its own."""
    class Metrics:
        def track_failure_percent(self, cache):
            return C.failure_percent(cache)
        track_failure_percent.unit = "%"

        def track_iterations(self, cache, case):
            return _outcome(cache, case)["iterations"]
        track_iterations.params = [f"{f}-{n}" for f, n in cases]
        track_iterations.param_names = ["case"]
        track_iterations.unit = "iterations"

        def track_regions(self, cache, case):
            return _outcome(cache, case)["regions"]
        track_regions.params = track_iterations.params
        track_regions.param_names = ["case"]
        track_regions.unit = "regions"

        def track_gap(self, cache, case):
            return _outcome(cache, case)["gap"]
        track_gap.params = track_iterations.params
        track_gap.param_names = ["case"]
        track_gap.unit = "GUB-GLB"

    return Metrics


class CpuSolveMetrics(_metrics(CPU_CASES)):
    """Metrics of the 12 functions at n = 10, 4^5 subregions per iteration (deterministic)."""
    timeout = 600

    def setup_cache(self):
        return C.solve_cases(CPU_CASES, "cpu", split_dims=C.CPU_METRICS[0], parts=C.CPU_METRICS[1],
                             max_iterations=C.CPU_MAX_ITERATIONS)


class CudaSolveMetrics(_metrics(GPU_CASES)):
    """Metrics of the published GPU cases (levy 50, 100; rosenbrock 100), the paper's settings."""
    timeout = 600

    def setup_cache(self):
        if not C.cuda_ready():
            return {}  # asv passes no cache at all for None
        return C.solve_cases(GPU_CASES, "cuda")

    def setup(self, cache, *case):
        if not cache:
            raise NotImplementedError("no CUDA GPU here")
