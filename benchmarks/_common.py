"""Shared sizes and helpers of the asv benchmarks.

gpubench and numba are imported lazily (inside functions), so that asv's
discovery and the cheap ``track_`` processes stay fast.
"""
import copy
import os

# The 12 functions of paper 000 (experiments/functions12.toml)
FUNCTIONS12 = ["ackley", "belegundu", "breiman", "fu", "griewank", "levy", "rastrigin", "salomon",
               "styblinski", "zabinsky", "rosenbrock", "levy_delta"]

# CPU sizes: small enough for 2 cores (CI), large enough to time the kernel, not the launch
CPU_DIM = 10
CPU_SWEEP = (6, 4)      # split_dims, parts: 4^6 = 4096 subregions per sweep
CPU_SOLVE = (6, 4)      # whole CPU solves at n = 10 (the paper's default is 10, 4: see bench_nightly)
CPU_METRICS = (5, 4)    # the track_ solves: 4^5 subregions per iteration, all 12 functions
CPU_POINTS = 1 << 16    # points per batched point evaluation
CPU_MAX_ITERATIONS = 5000  # a cap, never reached by the 12 functions at CPU_METRICS (deterministic)

# CUDA sizes: the paper's partition
GPU_FUNCTIONS = ["rosenbrock", "levy"]  # rosenbrock compiles in seconds, levy (interval sin) in ~30 s
GPU_DIM = 50
GPU_SWEEP = (10, 4)     # 4^10 = 1,048,576 subregions per sweep
GPU_POINTS = 1 << 20


def cuda_ready():
    """True where a real CUDA GPU is usable (numba's simulator does not count)."""
    if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"):
        return False
    from gpubench.device.gpu import gpu_available
    return gpu_available()


def require_cuda():
    """Skip the calling benchmark (asv: ``NotImplementedError`` in setup) without a GPU."""
    if not cuda_ready():
        raise NotImplementedError("no CUDA GPU here")


def synchronize():
    from numba import cuda
    cuda.synchronize()


_SEARCHES = {}


def search(function, dim, backend, split_dims, parts, **settings):
    """A warm :class:`gpubench.methods.solver.core.Search` (cached per process: asv re-runs setup per sample)."""
    # the host loop: these searches are stepped and their sweep called from the host (the device
    # loop, the default on CUDA since 218dacb, builds no host sweep; CudaLoopSolve times it whole)
    settings = {"loop": "host", **settings}
    key = (function, dim, backend, split_dims, parts, tuple(sorted(settings.items())))
    if key not in _SEARCHES:
        from gpubench import functions
        from gpubench.methods.solver.core import Search, Settings
        s = Search(functions.get(function), dim,
                   settings=Settings(backend=backend, split_dims=split_dims, parts=parts, **settings))
        s.initial_state = copy.deepcopy(s.state)
        _SEARCHES[key] = s
    return _SEARCHES[key]


def root_sweep(s):
    """(sweep, args, kwargs) exactly as the solver calls its sweep in the first iteration.

    Captured from the solver's first iteration through a recording wrapper on
    this instance, so the benchmark follows any change of the sweep's signature.
    """
    if getattr(s, "root", None) is not None:
        return s.root
    sweep, seen = s.sweep, []

    class Record:
        """The sweep, recording the call the solver makes (``sweep(...)`` or ``sweep.split(...)``)."""
        def __getattr__(self, name):
            return getattr(sweep, name)

        def __call__(self, *args, **kwargs):
            seen.append((sweep, args, kwargs))
            return sweep(*args, **kwargs)

        def split(self, *args, **kwargs):
            seen.append((sweep.split, args, kwargs))
            return sweep.split(*args, **kwargs)

    s.sweep = Record()
    try:
        run_to(s, 1)
    finally:
        s.sweep = sweep
        s.state = copy.deepcopy(s.initial_state)
    s.root = seen[0]
    return s.root


def warm(function, dim, backend):
    """Compile (or load from numba's disk cache) the code that ``solve`` will run, cheaply.

    One iteration of a 2^2-subregion search: the generated module, and so the
    compiled sweep, depends on the function, backend and (CUDA) dimension
    only, and is shared by every Search of the process, ``solve``'s included.
    """
    run_to(search(function, dim, backend, 2, 2), 1)
    if backend == "cuda":
        synchronize()


def run_to(s, iterations):
    """Restart ``s`` and run its first ``iterations`` iterations (fewer if it converges first).

    Goes through ``Search.run``, so the stopping rules stay the solver's own.
    """
    s.state = copy.deepcopy(s.initial_state)
    saved = s.settings.max_iterations
    s.settings.max_iterations = iterations
    try:
        s.run()
    finally:
        s.settings.max_iterations = saved
    return s.state


def advance(s, iterations):
    """A snapshot of the state after the first ``iterations`` iterations."""
    return copy.deepcopy(run_to(s, iterations))


def outcome(result, fn):
    """The tracked numbers of one solve; ``failed`` when f* or x* escapes the enclosure."""
    import numpy as np
    n = result.dim
    fstar, xstar = fn.fstar(n), fn.xstar(n)
    f_ok = result.glb is not None and result.glb <= fstar <= result.gub
    x_ok = bool(result.n_regions) and bool(np.any(np.all(
        (result.regions_lo <= xstar) & (xstar <= result.regions_hi), axis=1)))
    return {"iterations": int(result.iterations), "regions": int(result.n_regions),
            "gap": float(result.gub - result.glb), "converged": bool(result.converged),
            "failed": not (f_ok and x_ok), "seconds": float(result.seconds)}


def solve_cases(cases, backend, **settings):
    """{case name: outcome} for (function, dim) cases; a solver error counts as a failure."""
    from gpubench import functions
    from gpubench.methods.solver import solve
    out = {}
    for function, dim in cases:
        name = f"{function}-{dim}"
        try:
            r = solve(function, dim, backend=backend, **settings)
            out[name] = outcome(r, functions.get(function))
        except Exception as exc:  # a broken case is a failure, not a crashed benchmark
            out[name] = {"iterations": float("nan"), "regions": float("nan"), "gap": float("nan"),
                         "converged": False, "failed": True, "error": f"{type(exc).__name__}: {exc}"}
    return out


def failure_percent(outcomes):
    return 100.0 * sum(o["failed"] for o in outcomes.values()) / max(1, len(outcomes))
