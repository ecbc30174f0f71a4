"""Resources checked before work: memory a command will need against what the machine has.

Every command that allocates in proportion to its arguments (dimension, samples, starts,
population, partition, workers) asks :func:`check` first, so that an argument too large for this
machine is one line naming it and the figure, instead of a numpy ``ArrayMemoryError`` minutes
later, or a process the kernel kills after it has swapped the machine to a halt.  The figures
are estimates from the arrays each command holds at once (order of magnitude, erring high);
they only have to separate "fits" from "cannot fit".

psutil is not a dependency: the host's figure is ``MemAvailable`` of /proc/meminfo (free pages
where there is no /proc), the GPU's is numba's device memory information.
"""
import os

from ..errors import InputError

GiB = 1024 ** 3
F64 = 8
# one Dask worker process of the runner: the interpreter, numpy, numba and a compiled function
WORKER_BYTES = 1 * GiB
# A compiled inner loop cannot be interrupted (numba never returns to the interpreter to see a
# SIGINT): one iteration of the interval solver is capped at this many coordinate evaluations
# (tens of seconds on a CPU core, or on a GPU), so that Ctrl-C and --time-limit are seen between
# iterations.  The paper's largest runs (n = 1000, 4^10 subregions, 10 samples) take 1.1e10.
MAX_ITERATION_WORK = {"cpu": 1e9, "cuda": 1e11}


def host_available():
    """Bytes of host memory a new allocation can take without swapping."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


# a need up to this share of the card's memory is not checked against its free memory (below)
SMALL_DEVICE_SHARE = 1 / 16


def device_available(need=None):
    """Free bytes on the current CUDA device; None where there is no real GPU or it is not asked.

    Its free memory is known only inside a CUDA context, and making one costs a process numba-cuda's
    import and the context (about 0.6 s on the H200 host) before anything shows that a launch will
    follow.  So a ``need`` of at most :data:`SMALL_DEVICE_SHARE` of the card's memory (asked of the
    driver without a context: :func:`gpubench.device.driver.total_memory`) is not checked: it fits
    unless other processes hold nearly all of the card, where the launch's own allocation error
    remains, as it does where the driver cannot say."""
    from ..device.gpu import gpu_available
    if not gpu_available():
        return None
    if need is not None:
        from ..device import driver
        total = driver.total_memory()
        if total is not None and need <= SMALL_DEVICE_SHARE * total:
            return None
    return _free_device_memory()


def _free_device_memory():
    try:
        from numba import cuda
        free, _total = cuda.current_context().get_memory_info()
        return int(free)
    except Exception:  # a driver that cannot say: the kernels' own errors remain
        return None


def cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _size(n):
    for unit, scale in (("TiB", 1024 ** 4), ("GiB", GiB), ("MiB", 1024 ** 2)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{max(n, 0) / 1024:.3g} KiB"


def check(needs, device=False):
    """Refuse, in one line, the first of ``needs`` that does not fit.

    ``needs`` is ``[(argument, bytes)]``: ``argument`` as the user typed it (``--dim 1000000``),
    ``bytes`` what it makes the command hold at once.  The total is compared with the host's
    available memory, and with the GPU's free memory as well when ``device``.
    """
    needs = [(arg, float(b)) for arg, b in needs if b]
    if not needs:
        return
    total = sum(b for _, b in needs)
    arg = max(needs, key=lambda n: n[1])[0]
    places = [("this machine", host_available())]
    if device:
        places.append(("the GPU", device_available(total)))
    for where, have in places:
        if have is not None and total > have:
            raise InputError(f"{arg} needs about {_size(total)} of memory; {where} has "
                             f"{_size(have)} available")


def check_work(argument, evaluations, backend="cpu"):
    """Refuse a single uninterruptible step of more than :data:`MAX_ITERATION_WORK` evaluations."""
    cap = MAX_ITERATION_WORK["cuda" if backend == "cuda" else "cpu"]
    if evaluations > cap:
        raise InputError(f"{argument} makes one solver iteration evaluate about {evaluations:.2g} "
                         f"coordinates (at most {cap:.0e} on {backend}, tens of seconds); lower it, "
                         f"or --split-dims")


def workers_cap():
    """How many runner workers this machine can hold: one a core, :data:`WORKER_BYTES` each."""
    have = host_available()
    by_memory = int(have // WORKER_BYTES) if have is not None else cores()
    return max(1, min(cores(), by_memory))


def check_workers(workers, option="--workers"):
    if workers is None:
        return
    cap = workers_cap()
    if workers > cap:
        have = host_available()
        mem = f", {_size(have)} of memory available" if have is not None else ""
        raise InputError(f"{option} {workers}: at most {cap} on this machine ({cores()} core(s){mem}, "
                         f"about {_size(WORKER_BYTES)} a worker)")


# ---------------------------------------------------------------- per command
def method_needs(dim, settings, backend="cpu", work=True, fn=None):
    """``[(argument, bytes)]`` for a run in ``dim`` dimensions with ``settings``; with ``work``,
    a solver iteration of more than :data:`MAX_ITERATION_WORK` is refused as well.  Given the
    function ``fn``, the interval solver's estimate knows whether it has the split sweep (a
    fixed-dimension definition takes the full evaluation).

    Read from the settings a method declares (a partition, starts, a population, subdomains),
    not from its name: a method names itself in its own module only.
    """
    s = settings
    n = dim
    dim_arg = f"--dim {dim}"
    # a setting left at None is the method's own default (SciPy DE's np: its popsize rule)
    get = lambda k, d=None: d if getattr(s, k, None) is None else getattr(s, k)  # noqa: E731
    has = lambda *ks: all(hasattr(s, k) for k in ks)  # noqa: E731
    if has("split_dims", "parts", "samples"):
        split_form = fn is None or getattr(fn, "fixed_dim", None) is None
        return _solver_needs(n, settings, get, dim_arg, backend, work, split_form)
    if has("starts"):
        starts = int(get("starts", 1))
        if has("m"):  # limited memory: m pairs of vectors a start
            m = int(get("m", 5))
            per = F64 * (n * (2 * m + 12) + 4 * m * m + 64)
        else:  # the Hessian, its Cholesky factor and the CG vectors of every start
            per = F64 * (3 * n * n + 20 * n + 64)
        return [(f"--set starts={starts}" if starts > 1000 else dim_arg, starts * per)]
    if has("np"):
        pop, runs = int(get("np", 50)), int(get("runs", 1))
        arg = f"--set runs={runs}" if runs > max(pop, n) else f"--set np={pop}" if pop > n else dim_arg
        return [(arg, 4 * F64 * pop * runs * (n + 2))]
    if has("subdomains"):
        sub = int(get("subdomains", 1))
        return [(f"--set subdomains={sub}" if sub > n else dim_arg, 8 * F64 * sub * (n + 4))]
    # SciPy's methods: a few vectors, and trust_constr's and trust_region's n x n matrices
    return [(dim_arg, F64 * (4 * n * n + 64 * n))]


def _solver_needs(n, settings, get, dim_arg, backend, work, split_form=True):
    """The interval solver's iteration, as the sweep that will run holds it.

    Which sweep runs is decided as the search decides it: the settings as
    :func:`~gpubench.methods.solver.settings.at_scale` makes them for ``n`` and the backend (variant
    strong above n = 100 on CUDA runs the split sweep after its local starts), and the full
    evaluation for a definition without the split form (``split_form`` False).

    The split sweep (the default: split evaluation, natural inclusion) works O(s) a subregion with the
    cut tables and O(n) an iteration on the host or in the device loop's tables; it keeps a few numbers
    a subregion (bounds, flags, the survivors in the list's buffers), the iteration's tables and, in the
    device loop, the selected box of every iteration.  The full evaluation (or inclusion best) copies
    every coordinate into every subregion: its work and memory are those of p^s boxes of n coordinates.
    """
    from ..methods.solver.kernels import cut_capacity
    from ..methods.solver.partition import PartitionRule
    from ..methods.solver.settings import at_scale, device_loop_serves
    on_device = False
    if hasattr(settings, "variant"):   # the solver's own Settings (a plain namespace has no variant)
        settings = at_scale(settings, n, backend == "cuda", split_form)[0]
        get = lambda k, d=None: d if getattr(settings, k, None) is None else getattr(settings, k)  # noqa: E731
        # the device loop runs inclusion best in its split sweep (its own mean value form)
        on_device = device_loop_serves(settings, backend == "cuda", split_form)
    # the partition as the solver draws it (below s coordinates, more parts each)
    rule = PartitionRule(n, split_dims=int(get("split_dims", 1)), parts=int(get("parts", 2)))
    split, parts = rule.split_dims, rule.parts
    subregions = float(parts) ** split
    samples = int(get("samples", 1))
    rows = samples + 1
    samples_arg = f"--samples {samples}"
    cut = cut_capacity(split, n, parts, subregions)[0]
    full = (get("evaluation", "split") != "split" or (get("inclusion", "natural") != "natural" and not on_device)
            or not split_form)
    if full:
        per_subregion, held = n, 2 * F64 * subregions * n
    else:
        # the windows touching a cut coordinate (at most 3s + 2 special coordinates); the candidates of
        # the plain-coordinate test are interval products of per-iteration numbers, counted with them
        per_subregion, held = min(n, 3 * split + 2), subregions * (3 + 2 * 4) * F64  # out arrays, 2 list buffers
    if work:
        check_work(samples_arg if samples > subregions else dim_arg,
                   subregions * rows * per_subregion + rows * n, backend)
    # the uncut tables per row and per aggregate (a few), and the cut tables (an interval a value,
    # a few columns; kernels.cut_capacity)
    return [(dim_arg, held + 64 * F64 * n * rows), (samples_arg, 4 * F64 * rows * (n + 2 * cut))]


def check_method(dim, settings, work=True, device=True, fn=None):
    """The one check of a run before it starts: its memory on the host (and on the GPU it runs on,
    unless ``device`` is False: a parent process that must not open a CUDA context before its
    workers do), and with ``work`` the size of one uninterruptible solver iteration (a typed-in
    run; a stored experiment's settings are the paper's, bounded by their time limits)."""
    backend = getattr(settings, "backend", "cpu")
    on_gpu = backend == "cuda" or (backend == "auto" and _gpu())
    check(method_needs(dim, settings, "cuda" if on_gpu else "cpu", work=work, fn=fn), device=device and on_gpu)


def _gpu():
    from ..device.gpu import gpu_available
    return gpu_available()


def check_vectors(dim, per_coordinate, argument=None):
    """A command holding ``per_coordinate`` bytes for each of ``dim`` coordinates."""
    check([(argument or f"--dim {dim}", per_coordinate * dim)])
    return dim


__all__ = ["check", "check_method", "check_vectors", "check_work", "check_workers", "host_available",
           "device_available", "workers_cap", "cores"]
