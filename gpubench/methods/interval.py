"""The complete and rigorous interval search of Zhang, Shan & Cagan (2026): paper 000.

    G. Zhang, Q. Shan, J. Cagan, "Global optimization tailored for GPUs: complete
    and rigorous search for large-scale nonlinear minimization", PNAS Nexus 5(4),
    pgag103 (2026), Sections 3.1-3.2.

The search itself lives in :mod:`gpubench.methods.solver`; this module declares it as a
method.  Its settings (:class:`gpubench.methods.solver.core.Settings`) hold the paper's
defaults: s = 10 coordinates cut into p = 4 parts per iteration, 10 diagonal
samples, tol = 1e-4.  On CUDA the whole iteration runs on the GPU by default, k iterations
a launch (``loop = "auto"``: :mod:`gpubench.methods.solver.devloop`), the same search as the
host loop (``loop = "host"``); settings the device loop cannot serve take the host loop and
the result says why.

``variant`` names the algorithm: "paper" (the dataclass default, what every experiment of the
papers' tables runs) is paper 000's as published; "strong" (a typed-in ``solve``/``minimize``'s
default, issue 41) adds the opt-ins that make it gpubench's strongest rigorous search
(:data:`gpubench.methods.solver.settings.STRONG`; docs/strong-search.md).
"""
from .solver.settings import CPU_SPLIT_DIMS, STRONG_MAX_DIM, Settings
from .base import Method

NAME = "interval"


def _run(fn, dim, settings, progress=None, checkpoint=None, resume=None, checkpoint_every=30.0):
    from .solver.core import run_search
    return run_search(fn, dim, settings, checkpoint=checkpoint, resume=resume,
                      checkpoint_every=checkpoint_every, progress=progress, method_name=NAME)


def _warmup(fn, dim, settings):
    """One iteration compiles (or loads) the sweep for this function, dimension and backend; no result
    is built (it would build the boxes of the first iteration's list, up to 256 MB of them)."""
    import dataclasses
    from .solver.core import run_search
    run_search(fn, dim, dataclasses.replace(settings, max_iterations=1, time_limit=None), method_name=NAME,
               answer=False)


def _preload(fn, dim, settings):
    """In place of a skipped warm-up (the kernels are cached): what the search's first iteration would
    load inside its clock, loaded before it.  At Levy n = 50, variant strong, a second process's solve
    took 0.21 s on the CPU (0.24 s on the H200) of which about 0.15 s were these loads: SciPy's optimize
    (the descents), the point, gradient and interval kernels from numba's disk cache, and the level
    set's program (contraction).  The process's wall time is the same; the solve's seconds hold the search."""
    import numpy as np
    from ..device.gpu import resolve_backend
    from .solver.settings import host_loop_reasons
    if settings.loop == "device" or (settings.loop == "auto" and resolve_backend(settings.backend) == "cuda"
                                     and not host_loop_reasons(settings)):
        # the device loop: its kernel's load from disk, its buffers and its grid's occupancy query
        # were inside the first launch, so inside the solve's clock: a second process's Levy n = 1,000
        # read 2.9-3.7 s on the H200 where a process that had warmed up read 1.97-2.53 s (a05499a,
        # a89fb72, 9941e55, c82b8bf).  One iteration, as the warm-up runs it, does them all here.
        _warmup(fn, dim, settings)
        return
    lo, hi = fn.bounds(dim)
    x = np.where(np.isfinite(lo) & np.isfinite(hi), 0.5 * (lo + hi), 0.0)
    if settings.local_starts or settings.local_search or settings.polish:
        from .solver.local import preload
        preload()
        fn.point(x)
        fn.gradient(x)
    if settings.local_starts or settings.local_search or settings.polish or settings.contract:
        fn.interval(x, x)
    if settings.contract:
        from .solver.contract import levelset
        fn.interval_gradient(x, x)
        levelset(fn, dim, fn.sense == "max")


# STRONG_MAX_DIM: above it a typed-in solve keeps the paper's variant (on CUDA its device loop, the
# published iteration counts), and variant strong asked for runs at scale (settings.at_scale)


def _interactive(dim, given):
    from ..device.gpu import resolve_backend
    from .base import Chosen
    out = {}
    if "variant" not in given and given.get("loop") != "device" and (dim or 0) <= STRONG_MAX_DIM:
        out["variant"] = Chosen("strong", (
            "a typed-in solve at n <= 100 gets gpubench's strongest rigorous search (early GUB from descents, "
            "level-set contraction, best inclusion); --variant paper for paper 000's algorithm as published"))
    if "split_dims" in given:
        return out
    if resolve_backend(given.get("backend", "auto")) == "cpu":
        out["split_dims"] = Chosen(CPU_SPLIT_DIMS, (
            f"on the CPU: 4^{CPU_SPLIT_DIMS} subregions an iteration keep a typed-in solve interactive; "
            "the paper's 10 (`gpubench methods interval`) is sized for a GPU: --split-dims 10 for it"))
    return out


METHOD = Method(
    name=NAME,
    summary="Complete and rigorous interval search: GLB <= f* <= GUB and regions holding every minimiser",
    settings=Settings,
    run=_run,
    rigorous=True,
    backends=("cpu", "cuda"),
    source="Zhang, Shan & Cagan (2026), PNAS Nexus 5(4) pgag103, Sections 3.1-3.2",
    controls=("progress", "checkpoint", "resume", "checkpoint_every"),
    warmup=_warmup,
    preload=_preload,
    interactive=_interactive,
)
