"""Batched TRON (paper 003, ExaTron): many small bound-constrained problems at once.

    Y. Kim, F. Pacaud, K. Kim, M. Anitescu, ExaTron (seed 003), Algorithm 3.1,
    Figure 2 and Section 4; TRON: C.-J. Lin and J. J. More, SIAM J. Optim. 9 (1999).

Python API::

    from gpubench.methods import tron
    res = tron.solve_hs45(10_000, 32, backend="cuda")      # the paper's hs45-type batch
    res = tron.solve_batch(x0, lo, hi, objective="library", fn=gpubench.functions.get("rosenbrock"))

``res.status`` per problem: 0 converged, 1 iteration limit, 2 numerical failure
(non-finite value, a Cholesky that no shift repairs, a collapsed trust region).

The hs45-type problem (footnote 4 of the paper: f = 120 - prod x_i, x_i <= i):
here f(x) = -prod_i x_i / i on 0 <= x_i <= i, whose minimiser is x_i = i with
f* = -1.  Dividing by i keeps the product near 1 (32! ~ 2.6e35 otherwise), and
the constant 120 changes nothing.  Its gradient and Hessian are written out
analytically in ``core.py``.  Library functions take value and gradient from
their generated forms and the Hessian either symbolically at the batch's n
(``hessian="symbolic"``: :mod:`gpubench.methods.tron.hessian`) or from central differences
of that gradient (``hessian="differences"``).
"""
import time
from dataclasses import dataclass, field

import numpy as np

from ...errors import InputError

STATUS = {0: "converged", 1: "iteration limit", 2: "numerical failure"}
CHOLESKY = {"left": 0, "right": 1}
# the batched factorization alone (Table 1) also has "warp": a group of lanes of one warp per
# matrix for n <= 32 (gpubench.kernels.chol_gpu), and the kernels compiled per n with the factor
# in registers (gpubench.kernels.chol_small): "thread" (a thread per matrix, in registers at n <= 6), "lanes"
# (a lane per row, n <= 32; "lanes_shared" the same with its column exchanged through shared memory,
# "lanes_unrolled" the same with every loop written out: gpubench.kernels.chol_unrolled, and
# "lanes_unrolled_shared" that with its column through shared memory)
# and "auto" (chol_small.AUTO, the fastest measured); TRON's own solves use CHOLESKY
LINALG_CHOLESKY = {**CHOLESKY, "warp": 2, "thread": 3, "lanes": 4, "auto": 5, "lanes_shared": 6,
                   "lanes_unrolled": 7, "lanes_unrolled_shared": 8}
SMALL_CHOLESKY = {3: "thread", 4: "lanes", 5: "auto", 6: "lanes_shared", 7: "lanes_unrolled",
                  8: "lanes_unrolled_shared"}


def check_cholesky(variant, n):
    """An InputError naming the problem when ``variant`` is unknown or cannot factor n x n."""
    if variant not in LINALG_CHOLESKY:
        raise InputError(f"cholesky variant {variant!r}: known: {', '.join(LINALG_CHOLESKY)}")
    if LINALG_CHOLESKY[variant] in SMALL_CHOLESKY:
        from ...kernels import chol_small
        chol_small.pick(variant, n)


@dataclass
class BatchResult:
    x: np.ndarray
    f: np.ndarray
    iterations: np.ndarray
    status: np.ndarray
    nfev: np.ndarray
    pgnorm: np.ndarray
    seconds: float
    backend: str
    options: dict = field(default_factory=dict)


def hs45_problem(nprob, n, start="mid", seed=0):
    """(x0, lo, hi, par) of ``nprob`` hs45-type problems of size n.

    start "mid": x0_i = i/2 for every problem (the paper's batches are 10,000 copies
    of one instance); "random": uniform in the box from ``numpy.random.default_rng(seed)``.
    """
    idx = np.arange(1, n + 1, dtype=np.float64)
    lo = np.zeros((nprob, n))
    hi = np.tile(idx, (nprob, 1))
    if start == "mid":
        x0 = 0.5 * hi
    elif start == "random":
        x0 = np.random.default_rng(seed).uniform(0.0, 1.0, (nprob, n)) * hi
    else:
        raise InputError(f"start must be 'mid' or 'random', got {start!r}")
    par = np.tile(idx, (nprob, 1, 1))
    return x0, lo, hi, par


# the stop rules of tron_solve (core.py): ours, and ExaTron's driver (tron_kernel.jl, sc2021)
STOPS = {"relative": 0, "exatron": 1}
# the preconditioner's shift after a failed Cholesky (subproblem.preconditioner): the paper's (line 7:
# alpha_min - min diag, then doubled until the factorisation succeeds), or a jump to a shift that
# Gershgorin's theorem proves enough (max_i of row i's off-diagonal sum less A_ii, plus alpha_min), then
# doubling as the paper's
SHIFTS = {"paper": 0, "gershgorin": 1}


def config(max_iter=100, gtol=1e-8, gatol=0.0, frtol=1e-12, delta0=0.0, cgtol=0.1, stop="relative",
           max_feval=500, shift="paper"):
    return np.array([max_iter, gtol, gatol, frtol, delta0, cgtol, STOPS[stop], max_feval, SHIFTS[shift]],
                    dtype=np.float64)


def _check(x0, lo, hi, par):
    # copies, C-ordered and writable: a read-only array (a broadcast of one row passes
    # ascontiguousarray as a view) is another numba signature, so another compile of the CPU twin
    x0 = np.array(x0, dtype=np.float64, ndmin=2, copy=True)
    lo = np.array(np.broadcast_to(np.asarray(lo, dtype=np.float64), x0.shape), order="C")
    hi = np.array(np.broadcast_to(np.asarray(hi, dtype=np.float64), x0.shape), order="C")
    if x0.ndim != 2 or x0.shape[1] < 1:
        raise InputError(f"x0 must have shape (batch, n), got {x0.shape}")
    if np.any(lo > hi) or not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        raise InputError("bounds must be finite with lo <= hi")
    nb, n = x0.shape
    par = np.zeros((nb, 1, n)) if par is None else np.asarray(par, dtype=np.float64)
    if par.ndim == 2:
        par = np.broadcast_to(par, (nb,) + par.shape)
    if par.ndim != 3 or par.shape[0] != nb or par.shape[2] != n:
        raise InputError(f"par must have shape (batch, k, n) or (k, n), got {par.shape}")
    return np.ascontiguousarray(x0), lo, hi, np.array(par, order="C")


def forms_for(fn, backend):
    """The generated module of library function ``fn`` (minimised: -f for sense='max')."""
    backend = "cuda" if backend == "cuda" else "cpu"
    if hasattr(fn, "load"):  # through the function's card: no sympy once a process has loaded it
        return fn.load(backend, (), negate=fn.sense == "max")
    from ...forms import codegen
    defn = fn.definition.negated() if fn.sense == "max" else fn.definition
    return codegen.load(defn, backend)


def hessian_for(fn, n, backend):
    """The generated symbolic Hessian (:mod:`.hessian`) of ``fn`` (minimised) at ``n``: through
    the function's card where it has one, keyed by the text of hessian.py, so a second process
    neither imports sympy nor differentiates again, and a changed generator derives anew."""
    from pathlib import Path
    backend = "cuda" if backend == "cuda" else "cpu"
    negate = fn.sense == "max"

    def derive(defn):
        from . import hessian
        return hessian.load(defn, n, backend)
    if not hasattr(fn, "carded"):
        return derive(fn.definition.negated() if negate else fn.definition)
    from ...forms.cards import digest, extensions_key
    generator = digest(Path(__file__).with_name("hessian.py").read_text())
    key = extensions_key(backend, (f"tron hessian n={n} generator {generator}",), negate)
    return fn.carded(key, backend, derive, negate)


_TWIN_WARM = {}   # CPU twin -> the kinds of arguments it has been launched on (_arg_kinds)


def _arg_kinds(args):
    """What numba's type of each argument depends on (an array's dtype, rank, layout flags,
    writability; else the Python type), without numba's ``typeof`` (0.15 ms a call)."""
    return tuple((a.dtype.str, a.ndim, a.flags.c_contiguous, a.flags.f_contiguous, a.flags.writeable,
                  a.flags.aligned) if isinstance(a, np.ndarray) else type(a) for a in args)


def solve_batch(x0, lo, hi, par=None, *, objective="hs45", fn=None, backend="cpu",
                hessian="differences", cholesky="left", backsolve="explicit", layout="1d",
                memory="shared", threads=0, max_iter=100, gtol=1e-8, gatol=0.0, frtol=1e-12, delta0=0.0,
                cgtol=0.1, stop="relative", max_feval=500, timer=None, registers=0, specialize=False,
                shift="paper"):
    """Solve a batch of bound-constrained problems with TRON; see the module docstring.

    ``x0, lo, hi``: (batch, n); ``par``: (batch, k, n) per-problem parameters (for hs45
    the divisors c_i; for a library function its parameter rows, e.g. shifts).
    Stopping rule ``stop="relative"``: ||pg(x)|| <= gtol ||pg(x0)|| (pg: the projected gradient,
    g_i at free x_i, only its inward part at a bound), or ||pg(x)|| <= gatol,
    or actual and predicted reductions both <= frtol |f|; at most ``max_iter`` steps.
    ``stop="exatron"``: the driver of ExaTron.jl's ``tron_kernel`` (branch ``sc2021``, the code of
    the paper's ADMM runs): ||pg(x)||_inf <= gatol after an accepted step (absolute; gtol unused),
    at most ``max_iter`` gradient evaluations and ``max_feval`` function evaluations, the first
    trust radius ||g(x0)||_2, the frtol test after rejected steps too (core.py).
    ``registers`` (GPU): 0, the compiler's allocation, or at most that many registers a thread
    (the rest spilled to local memory), for more problems resident on an SM; ``specialize`` (GPU):
    the kernel compiled for this call's cholesky, backsolve, layout and memory only (fewer
    registers, W addressed as shared memory where it is; compiled per process, not cached on disk).
    ``shift``: after a failed Cholesky of the preconditioner, ``"paper"`` doubles the shift from
    alpha_min - min diag (ExaTron's line 7, the tables' setting); ``"gershgorin"`` jumps to the shift
    Gershgorin's theorem proves enough (every row's off-diagonal sum less its diagonal, the largest,
    plus alpha_min), then doubles: one factorisation where hs45's zero diagonal took 13 (not in paper 003).
    """
    if stop not in STOPS:
        raise InputError(f"stop must be one of {', '.join(STOPS)}, got {stop!r}")
    if shift not in SHIFTS:
        raise InputError(f"shift must be one of {', '.join(SHIFTS)}, got {shift!r}")
    if not (isinstance(registers, (int, np.integer)) and (registers == 0 or 16 <= registers <= 255)):
        raise InputError(f"registers must be 0 (the compiler's choice) or 16..255 a thread, got {registers!r}")
    if objective == "library":
        if fn is None:
            raise InputError("objective 'library' needs fn")
        if hessian not in ("differences", "symbolic"):
            raise InputError(f"hessian must be 'differences' or 'symbolic', got {hessian!r}")
    x0, lo, hi, par = _check(x0, lo, hi, par)
    # a function without parameters gets one dummy row (arrays of extent 0 do not reach the kernels)
    if objective == "library" and par.shape[1] != max(fn.params(x0.shape[1]).shape[0], 1):
        raise InputError(f"{fn.name} has {fn.params(x0.shape[1]).shape[0]} parameter rows")
    if cholesky not in CHOLESKY or backsolve not in ("explicit", "implicit") \
            or layout not in ("1d", "2d") or memory not in ("shared", "global"):
        raise InputError("cholesky: left|right, backsolve: explicit|implicit, layout: 1d|2d, "
                         "memory: shared|global")
    nb, n = x0.shape
    cfg = config(max_iter, gtol, gatol, frtol, delta0, cgtol, stop, max_feval, shift)
    forms = forms_for(fn, backend) if objective == "library" else None
    hess, kind = None, objective
    if objective == "library" and hessian == "symbolic":
        hess = hessian_for(fn, n, backend)
        kind = "symbolic"
    ws = 2 * n * n + 16 * n
    out = np.zeros((nb, 5))
    opts = dict(objective=objective, hessian=hessian if objective == "library" else "analytic",
                cholesky=cholesky, backsolve=backsolve, layout=layout,
                memory=memory, max_iter=max_iter, gtol=gtol, gatol=gatol, frtol=frtol,
                delta0=delta0, cgtol=cgtol, stop=stop, max_feval=max_feval, registers=int(registers),
                specialize=bool(specialize), shift=shift)
    if backend == "cpu":
        from .cpu import tron_twin
        kern = tron_twin(kind, forms, hess)
        WS = np.zeros((nb, ws))
        SCR = np.zeros((nb, 5 * n if objective == "library" else 1))
        RED = np.zeros((nb, 8))
        X = x0.copy()
        ex = 1 if backsolve == "explicit" else 0
        t0 = time.perf_counter()
        # an empty batch compiles (or loads) the twin, so `seconds` is the solve alone; skipped once
        # the twin has run on arguments of these kinds (an empty launch of its parallel loop still wakes the
        # thread pool: 4-9 ms on a loaded 2-core host, once per ADMM block and iteration)
        kinds = _arg_kinds((X, lo, hi, par, WS, SCR, RED, out, cfg, n, CHOLESKY[cholesky], ex))
        if kinds not in _TWIN_WARM.setdefault(kern, set()):
            kern(X[:0], lo[:0], hi[:0], par[:0], WS[:0], SCR[:0], RED[:0], out[:0], cfg, n,
                 CHOLESKY[cholesky], ex)
            _TWIN_WARM[kern].add(kinds)
        opts["compile_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        kern(X, lo, hi, par, WS, SCR, RED, out, cfg, n, CHOLESKY[cholesky], ex)
        secs = time.perf_counter() - t0
    else:
        from numba import cuda
        from ...device.gpu import simulator
        from . import kernels
        block = kernels.block_shape(n, layout, threads)
        nt = block[0] * block[1]
        smem = kernels.dynamic_shared_bytes(n, nt, memory)
        if smem > kernels.MAX_SHARED_BYTES:
            raise InputError(f"n = {n} does not fit in 48 KB of shared memory "
                             f"({smem} bytes); use memory=global")
        flags = (CHOLESKY[cholesky], 1 if backsolve == "explicit" else 0, 1 if layout == "2d" else 0,
                 1 if memory == "shared" else 0) if specialize else None
        kern = kernels.tron_kernel(kind, forms, hess, registers, flags)
        dX = cuda.to_device(x0)
        dlo, dhi, dpar = cuda.to_device(lo), cuda.to_device(hi), cuda.to_device(par)
        dWS = cuda.device_array((nb if memory == "global" else 1, ws))
        dSCR = cuda.device_array((nb, n + 4 * n * nt) if objective == "library" else (nb, 1))
        dOUT = cuda.to_device(out)
        dcfg = cuda.to_device(cfg)
        args = (dX, dlo, dhi, dpar, dWS, dSCR, dOUT, dcfg, n, CHOLESKY[cholesky],
                1 if backsolve == "explicit" else 0, 1 if layout == "2d" else 0,
                1 if memory == "shared" else 0, kernels.padded(nt))
        t0 = time.perf_counter()
        if not simulator():
            from numba import typeof
            try:
                kern.compile(tuple(typeof(a) for a in args))  # outside the timing
            except Exception as e:  # then the first launch compiles, inside the timing
                opts["compile_note"] = f"ahead-of-launch compile failed: {e}"[:200]
        opts["compile_s"] = time.perf_counter() - t0
        while True:
            cuda.synchronize()
            t0 = time.perf_counter()
            try:
                kern[nb, block, 0, smem](*args)
                cuda.synchronize()
                break
            except Exception as e:
                # a block of many threads can exceed the SM's registers for this big kernel
                # (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: a 2-D tile of n x n threads, or 1,024
                # threads in 1-D at n = 1,000): shrink the block and say so.  Every loop of the
                # kernel strides over the block's threads, so fewer threads give the same result.
                if "resources" not in str(e).lower():
                    raise
                if layout == "2d" and block[0] > 1:
                    side = block[0] - 1
                    block = (side, side)
                    opts["note"] = f"2-D tile reduced to {side} x {side}: registers"
                elif layout != "2d" and block[0] > 32:
                    block = (max(32, block[0] // 2 // 32 * 32), 1)
                    opts["note"] = f"block reduced to {block[0]} threads: registers"
                else:
                    raise
                nt = block[0] * block[1]
                smem = kernels.dynamic_shared_bytes(n, nt, memory)
                args = args[:-1] + (kernels.padded(nt),)
        secs = time.perf_counter() - t0
        X = dX.copy_to_host()
        out = dOUT.copy_to_host()
        opts.update(block=list(block), shared_bytes=smem)
    return BatchResult(x=X, f=out[:, 0], iterations=out[:, 1].astype(np.int64),
                       status=out[:, 2].astype(np.int64), nfev=out[:, 3].astype(np.int64),
                       pgnorm=out[:, 4], seconds=secs, backend=backend, options=opts)


def solve_hs45(nprob, n, start="mid", seed=0, **kw):
    """The hs45-type batch (see the module docstring) solved by :func:`solve_batch`."""
    x0, lo, hi, par = hs45_problem(nprob, n, start, seed)
    return solve_batch(x0, lo, hi, par, objective="hs45", **kw)


# ------------------------------------------------------------------ linear algebra alone
def cholesky_batch(A, variant="left", backend="cpu", layout="1d", threads=0, shared=True):
    """Lower Cholesky factors of a batch of SPD matrices (batch, n, n); and an ok flag each.
    ``variant``: left, right, or warp, thread, lanes, lanes_shared, lanes_unrolled,
    lanes_unrolled_shared, auto (n <= 32; on the CPU the twin of these seven is the right-looking one)."""
    A = np.asarray(A, dtype=np.float64)
    nb, n, _ = A.shape
    check_cholesky(variant, n)
    flat = np.array(A.transpose(0, 2, 1).reshape(nb, n * n), order="C", copy=True)  # column-major
    if backend == "cpu":
        from .cpu import linalg_twins
        ok = np.zeros(nb, dtype=np.int32)
        linalg_twins()[0](flat, n, LINALG_CHOLESKY[variant], ok)
    else:
        from numba import cuda
        from . import kernels
        d = cuda.to_device(flat)
        ok = kernels.launch_linalg("cholesky", d, n, variant=LINALG_CHOLESKY[variant], layout=layout,
                                   threads=threads, shared=shared).copy_to_host()
        flat = d.copy_to_host()
    L = np.tril(flat.reshape(nb, n, n).transpose(0, 2, 1))
    return L, ok.astype(bool)


def triangular_batch(L, B, transpose=True, explicit=True, backend="cpu", layout="1d", threads=0):
    """Solve L^T X = B (``transpose``) or L X = B for every matrix; B is (batch, nrhs, n)."""
    L = np.asarray(L, dtype=np.float64)
    nb, n, _ = L.shape
    flat = np.array(np.tril(L).transpose(0, 2, 1).reshape(nb, n * n), order="C", copy=True)
    rhs = np.array(np.asarray(B, dtype=np.float64).reshape(nb, -1), order="C", copy=True)
    if backend == "cpu":
        from .cpu import linalg_twins
        _, back, fwd = linalg_twins()
        if transpose:
            back(flat, rhs, n, 1 if explicit else 0)
        else:
            fwd(flat, rhs, n)
    else:
        from numba import cuda
        from . import kernels
        dL, dB = cuda.to_device(flat), cuda.to_device(rhs)
        kernels.launch_linalg("backsolve" if transpose else "forward", dL, n, B=dB,
                              explicit=1 if explicit else 0, layout=layout, threads=threads)
        rhs = dB.copy_to_host()
    return rhs.reshape(np.asarray(B).shape)
