"""Long runs, only in the nightly set (``make bench`` skips this module by its regex).

The paper's default partition on the CPU: n = 10 with 10 coordinates split in
4 parts per iteration (4^10 = 1,048,576 subregions per iteration); about
1-2 minutes per solve with 2 threads.
"""
from . import _common as C
from . import bench_solve  # the module, not its class: asv would list an imported class twice


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
        from gpubench.methods.solver import solve
        self.solve = solve
        C.warm(function, C.CPU_DIM, "cpu")  # JIT or numba's disk cache, outside the timing

    def time_solve(self, function):
        self.solve(function, C.CPU_DIM, backend="cpu")


class LbfgsbGpuMultistart:
    """lbfgsb-gpu: 10^4 seeded starts of Rosenbrock at n = 10, one CUDA launch (Fei et al. 2014)."""
    number = 1
    repeat = 3
    rounds = 1
    warmup_time = 0.0
    timeout = 600

    def setup(self):
        C.require_cuda()
        from gpubench import functions
        from gpubench.methods.lbfgsb import batch
        import numpy as np
        self.fn = functions.get("rosenbrock")
        self.lo, self.hi = self.fn.bounds(10)
        self.X0 = self.lo + (self.hi - self.lo) * np.random.default_rng(0).random((10_000, 10))
        self.batch = batch
        batch.solve(self.fn, self.X0[:64], self.lo, self.hi, backend="cuda")   # compile, untimed

    def time_starts(self):
        self.batch.solve(self.fn, self.X0, self.lo, self.hi, backend="cuda")


class LbfgsbGpuTorsion:
    """lbfgsb-gpu on one large problem: 100 iterations of torsion at 10^6 variables (CuPy)."""
    params = ["approximate", "exact"]
    param_names = ["cauchy"]
    number = 1
    repeat = 3
    rounds = 1
    warmup_time = 0.0
    timeout = 600

    def setup(self, cauchy):
        C.require_cuda()
        try:
            import cupy
        except ImportError:
            raise NotImplementedError("no CuPy here")
        from gpubench.methods.lbfgsb import core
        from gpubench.problems import minpack2
        self.core, self.xp = core, cupy
        self.p = minpack2.make("torsion", 1_000_000)
        self.lo, self.hi, self.x0 = self.p.on(cupy)
        core.minimize(self.p.fg, self.x0, self.lo, self.hi, maxiter=3, cauchy=cauchy, backend=cupy)

    def time_100_iterations(self, cauchy):
        self.core.minimize(self.p.fg, self.x0, self.lo, self.hi, m=5, pgtol=0.0, factr=0.0, maxiter=100,
                           cauchy=cauchy, backend=self.xp)
        self.xp.cuda.Stream.null.synchronize()


class TronHs45Batch:
    """Batched TRON (paper 003, ExaTron) on hs45-type problems: the CPU twin (1,000 problems)
    and the GPU kernel (10,000 problems), n = 8 and 32.  gpubench/problems/tron_rows.py measures the rest."""
    params = (["cpu", "cuda"], [8, 32])
    param_names = ["backend", "n"]
    number = 1
    repeat = 3
    warmup_time = 0.0
    timeout = 600

    def setup(self, backend, n):
        from gpubench.device.gpu import gpu_available
        if backend == "cuda" and not gpu_available():
            raise NotImplementedError("no CUDA GPU here")
        from gpubench.methods import tron
        self.tron = tron
        self.batch = 10_000 if backend == "cuda" else 1_000
        tron.solve_hs45(2, n, backend=backend)  # compiles outside the timing

    def time_solve(self, backend, n):
        self.tron.solve_hs45(self.batch, n, backend=backend)


class DeGpuFevalsPerSecond:
    """de-gpu (differential evolution, paper 002) on shifted Rastrigin, fp64, F = 0.5, CR = 0.3:
    function evaluations per second of one run (fast mode), and of 25 runs in one launch.
    On the GPU when there is one, else on the parallel CPU twin (the record's machine says which).
    D = 1000 (several elements per thread on an H200) only on a GPU."""
    params = ([(10, 100), (100, 1000), (100, 100000), (1000, 10000)], [1, 25])
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
        if D >= 1000 and not C.cuda_ready():
            raise NotImplementedError("D = 1000 only on a GPU")
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


class CudaLargeSolve(bench_solve.CudaSolve):
    """The rigorous solver at the paper's scale (Zhang, Shan & Cagan 2026, Table 2): whole solves of
    Levy at n = 1,000 and 2,000 with the paper's settings (s = 10, p = 4, tol = 1e-4), warm.
    `gpubench reproduce table2 --backend cuda` runs the full rows up to n = 10,000."""
    params = [1000, 2000]
    repeat = 1
    timeout = 600


class SecondProcessSolve:
    """End to end from the shell in a new process with the kernels already in the disk cache:
    `gpubench solve levy --dim 50 --backend cuda` (interpreter start, imports, CUDA context,
    kernel load, the solve).  The issue's target on the GPU host is 3 s."""
    number = 1
    repeat = 3
    rounds = 1
    warmup_time = 0.0
    timeout = 300

    def setup(self):
        C.require_cuda()
        import subprocess
        import sys
        import tempfile
        self.args = [sys.executable, "-m", "gpubench", "solve", "levy", "--dim", "50", "--backend", "cuda"]
        # from a neutral folder: `python -m` puts the working folder first on sys.path, and a
        # checkout's own gpubench/ must not shadow the installed package
        self.cwd = tempfile.gettempdir()
        subprocess.run(self.args, check=True, capture_output=True, cwd=self.cwd)  # fills the disk cache

    def time_second_process(self):
        import subprocess
        subprocess.run(self.args, check=True, capture_output=True, cwd=self.cwd)


class SecondProcessMinimize:
    """The same for every GPU method (issue 25): `gpubench minimize levy --dim 10 --method M --backend
    cuda --json` in a new process with the method's kernels already in the disk cache, typed-in
    defaults.  The issue's target: wall minus the method's own seconds <= 1 s."""
    params = ["de-gpu", "lbfgsb-gpu", "tron-gpu", "subdomain-bnb", "interval"]
    param_names = ["method"]
    number = 1
    repeat = 3
    rounds = 1
    warmup_time = 0.0
    timeout = 300

    def setup(self, method):
        C.require_cuda()
        import subprocess
        import sys
        import tempfile
        self.args = [sys.executable, "-m", "gpubench", "minimize", "levy", "--dim", "10", "--method", method,
                     "--backend", "cuda", "--json"]
        self.cwd = tempfile.gettempdir()  # as SecondProcessSolve: no checkout on sys.path
        subprocess.run(self.args, check=True, capture_output=True, cwd=self.cwd)  # fills the disk cache

    def time_second_process(self, method):
        import subprocess
        subprocess.run(self.args, check=True, capture_output=True, cwd=self.cwd)


# The methods with a CUDA backend, each typed in as a user would (issue 25, item 4)
START_METHODS = ["de-gpu", "interval", "lbfgsb-gpu", "subdomain-bnb", "tron-gpu"]
START_FUNCTION, START_DIM = "levy", 10


def _minimize(method, cache):
    """``gpubench minimize levy --dim 10 --method M --backend cuda --json`` in a new process with
    ``cache`` as GPUBENCH_CACHE: (process wall time, the solve's own seconds), both in seconds."""
    import json
    import os
    import subprocess
    import sys
    import time
    env = dict(os.environ, GPUBENCH_CACHE=cache, NUMBA_CACHE_DIR=os.path.join(cache, "numba"),
               PYTHONPATH=os.pathsep.join(p for p in sys.path if p))  # the gpubench asv imports
    cmd = [sys.executable, "-m", "gpubench", "minimize", START_FUNCTION, "--dim", str(START_DIM),
           "--method", method, "--backend", "cuda", "--json"]
    t = time.perf_counter()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - t
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[1:])} failed ({p.returncode}): {p.stderr[-500:]}")
    return wall, float(json.loads(p.stdout.strip().splitlines()[-1])["seconds"])


class StartUp:
    """What a typed-in ``gpubench minimize`` costs besides its solve, per method on the GPU:
    process wall time minus the solve's own clock, for the first process (empty cache: forms
    derived, kernels compiled) and for a second one (the cache warm: kernels loaded).  Targets
    (issue 25): first <= 10 s, second <= 1 s.  setup_cache runs each method's first process in its
    own empty cache; track_second_wall_minus_solve starts the second process in that cache."""
    params = START_METHODS
    param_names = ["method"]
    timeout = 900
    unit = "seconds"

    def setup_cache(self):
        import os
        if not C.cuda_ready():
            return {}
        out = {}
        for method in START_METHODS:
            cache = os.path.abspath(f"startup-cache-{method}")
            wall, solve = _minimize(method, cache)
            out[method] = {"cache": cache, "first": wall - solve}
        return out

    def setup(self, caches, method):
        C.require_cuda()

    def track_first_wall_minus_solve(self, caches, method):
        return caches[method]["first"]

    def track_second_wall_minus_solve(self, caches, method):
        wall, solve = _minimize(method, caches[method]["cache"])
        return wall - solve
