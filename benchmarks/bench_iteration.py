"""One solver iteration: select, sweep, prune, insert (``Search._iterate``), from a mid-search state.

The state after a few iterations is restored before every timed call (asv
re-runs ``setup`` per call), so each call does the same work.
"""
from . import _common as C


class CpuIteration:
    """Iteration 5 of levy/rosenbrock at n = 10 with 4^6 subregions per iteration."""
    params = ["levy", "rosenbrock"]
    param_names = ["function"]
    number = 1
    start_at = 5

    def setup(self, function):
        self.search = C.search(function, C.CPU_DIM, "cpu", *C.CPU_SWEEP)
        if not hasattr(self.search, "snapshot"):
            self.search.snapshot = C.advance(self.search, self.start_at)  # JIT happens here
        self.search.state = C.copy.deepcopy(self.search.snapshot)

    def time_iteration(self, function):
        self.search._iterate()


class CudaIteration:
    """Iteration 5 of rosenbrock at n = 50 with the paper's 4^10 subregions per iteration."""
    params = ["rosenbrock"]
    param_names = ["function"]
    number = 1
    start_at = 5
    timeout = 300
    rounds = 1
    repeat = (3, 20, 10.0)
    warmup_time = 0.0

    def setup(self, function):
        C.require_cuda()
        self.search = C.search(function, C.GPU_DIM, "cuda", *C.GPU_SWEEP)
        if not hasattr(self.search, "snapshot"):
            self.search.snapshot = C.advance(self.search, self.start_at)
            C.synchronize()
        self.search.state = C.copy.deepcopy(self.search.snapshot)

    def time_iteration(self, function):
        self.search._iterate()
        C.synchronize()
