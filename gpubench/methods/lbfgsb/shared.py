"""What L-BFGS-B's two paths share: the result, the stopping messages, the host reads and the line search.

The array path (:mod:`.core`) and the fused path (:mod:`.fused`, which :func:`.core.minimize` hands
CuPy problems to) both import these from here, so that neither imports the other at load time.
"""
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import InputError

EPS = np.finfo(np.float64).eps
FTOL, GTOL = 1e-3, 0.9          # strong Wolfe constants of SciPy's L-BFGS-B
MAXLS = 20                      # evaluations per line search, SciPy's default

CONVERGED_PGTOL = "CONVERGENCE: NORM OF PROJECTED GRADIENT <= PGTOL"
CONVERGED_FACTR = "CONVERGENCE: REL_REDUCTION_OF_F <= FACTR*EPSMCH"
# Fei et al. (2014), section 5: "we run the experiment until the amount of energy decreased is less
# than 1E-64" -- an absolute decrease f_k - f_{k+1} < ftol_abs ends the run; a line search that
# finds no decrease at all meets the same rule (the decrease is 0)
CONVERGED_FDEC = "CONVERGENCE: F_K - F_K+1 < FTOL_ABS"
STOPPED_UNTIL = "STOP: THE CALLER'S UNTIL() HELD"       # e.g. a benchmark's time cap, checked between iterations
CONVERGED_FDEC_LNSRCH = "CONVERGENCE: NO DECREASE FOUND BY THE LINE SEARCH (F_K - F_K+1 < FTOL_ABS)"


def decrease_stop(fold, fnew, ftol_abs):
    """Fei et al.'s rule: the iteration's decrease of f below ``ftol_abs`` (None: the rule is off)."""
    return ftol_abs is not None and fold - fnew < ftol_abs


SYNC = {"count": 0}             # host reads of device values (``fetch`` calls), for tests and benchmarks
# launches the fused driver makes, by kind: "kernel:NAME" its numba kernels (counted as bound or
# dispatched in "path:bound" / "path:dispatcher"), "array:WHAT" its own array-library operations
# between them (each one CuPy kernel or copy), "graph:iteration" a batch's iteration replayed as one
# CUDA graph launch (the kernels inside it are not counted); the user's fun_and_grad is not counted here
LAUNCHES = {}


def launched(kind):
    LAUNCHES[kind] = LAUNCHES.get(kind, 0) + 1


def launches_since(before, iterations):
    """Launches an iteration since ``before`` (a copy of :data:`LAUNCHES`): ``kernels`` the numba
    kernels, ``bound`` those of them launched bound, ``array_ops`` the driver's own array-library
    operations between them (the user's fun_and_grad makes its own on top), ``graphs`` the CUDA graph
    launches (each a whole iteration: its kernels, objective and operations, counted in none of the others)."""
    d = {k: v - before.get(k, 0) for k, v in LAUNCHES.items()}
    it = max(int(iterations), 1)

    def part(prefix):
        return round(sum(v for k, v in d.items() if k.startswith(prefix)) / it, 3)
    return {"kernels": part("kernel:"), "bound": part("path:bound"), "array_ops": part("array:"),
            "graphs": part("graph:")}


def fetch(xp, *vals):
    """Host values of device scalars/arrays (or plain numbers), in one transfer.

    Returns a list: floats for scalars, numpy arrays otherwise.  Counted in
    ``SYNC`` as one synchronisation whatever the module (numpy stands in for CuPy).
    """
    SYNC["count"] += 1
    out = [None] * len(vals)
    dev = []
    for i, v in enumerate(vals):
        if isinstance(v, (float, int, np.ndarray, np.generic)):
            out[i] = np.asarray(v, dtype=np.float64)
        else:
            dev.append(i)
    if dev:
        flat = xp.concatenate([xp.ravel(vals[i]).astype(xp.float64) for i in dev]).get()
        pos = 0
        for i in dev:
            size = int(vals[i].size)
            out[i] = flat[pos:pos + size].reshape(vals[i].shape)
            pos += size
    return [float(o) if o.ndim == 0 else o for o in out]


@dataclass
class LbfgsbResult:
    """Outcome of one run.  ``status``: 0 converged, 1 iteration/evaluation limit, 2 abnormal."""
    x: Any
    fun: float
    jac: Any
    iterations: int
    nfev: int
    status: int
    message: str
    pg: float
    cauchy: list = field(default_factory=list)   # (t_c used, t* exact) per iteration when recorded
    # the fused path: fun_and_grad's evaluations (discarded ones and a CUDA graph's replays included),
    # and whether a batch's iteration ran as a CUDA graph ("replayed", or "off (why)")
    evaluations: Any = None
    graph: str = ""

    @property
    def converged(self):
        """The method's own test met (status 0): what ``converged`` means in every result."""
        return self.status == 0


def array_module(backend):
    """numpy for ``cpu``; CuPy for ``cupy`` (the single-problem GPU path needs it)."""
    if backend == "cpu":
        return np
    try:
        import cupy
    except ImportError:
        raise InputError("lbfgsb: backend cupy needs CuPy for one large problem (pip install "
                         "'gpubench[cupy]'; the multi-start method runs without it)") from None
    return cupy


def _cubic_min(a, fa, ga, b, fb, gb):
    """Minimiser of the cubic through (a, fa, ga), (b, fb, gb); None when it has none."""
    d1 = ga + gb - 3.0 * (fa - fb) / (a - b)
    disc = d1 * d1 - ga * gb
    if disc < 0:
        return None
    d2 = math.copysign(math.sqrt(disc), b - a)
    den = gb - ga + 2.0 * d2
    if den == 0:
        return None
    return b - (b - a) * (gb + d2 - d1) / den


def _line_search(phi, f0, g0, stp, stpmax):
    """A step satisfying the strong Wolfe conditions; (step, f, g, grad, ok).

    ``phi(a)`` returns (f, slope, payload) at x + a d.  Bracketing then zoom
    (Nocedal & Wright algorithms 3.5/3.6); the bracket never exceeds ``stpmax``,
    where a step with sufficient decrease is accepted, as MINPACK-2's dcsrch does.
    """
    a_prev, f_prev, g_prev = 0.0, f0, g0
    a = min(stp, stpmax)
    evals = 0

    def zoom(lo, flo, glo, plo, hi, fhi, ghi):
        nonlocal evals
        while evals < MAXLS:
            w = hi - lo
            c = _cubic_min(lo, flo, glo, hi, fhi, ghi)
            lo_s, hi_s = min(lo, hi), max(lo, hi)
            guard = 0.1 * abs(w)
            if c is None or not (lo_s + guard <= c <= hi_s - guard):
                c = 0.5 * (lo + hi)
            fc, gc, pc = phi(c)
            evals += 1
            if fc > f0 + FTOL * c * g0 or fc >= flo:
                hi, fhi, ghi = c, fc, gc
            else:
                if abs(gc) <= -GTOL * g0:
                    return c, fc, gc, pc, True
                if gc * (hi - lo) >= 0:
                    hi, fhi, ghi = lo, flo, glo
                lo, flo, glo, plo = c, fc, gc, pc
            if abs(hi - lo) <= EPS * max(1.0, abs(lo)):
                break
        # out of evaluations: a step with sufficient decrease is still progress
        if plo is not None and flo < f0 + FTOL * lo * g0:
            return lo, flo, glo, plo, True
        return lo, flo, glo, plo, False

    p_prev = None
    while evals < MAXLS:
        fa, ga, pa = phi(a)
        evals += 1
        if not math.isfinite(fa):
            # an overflow: shrink towards the last good step
            a = a_prev + 0.1 * (a - a_prev)
            continue
        if fa > f0 + FTOL * a * g0 or (a_prev > 0 and fa >= f_prev):
            return zoom(a_prev, f_prev, g_prev, p_prev, a, fa, ga)
        if abs(ga) <= -GTOL * g0:
            return a, fa, ga, pa, True
        if ga >= 0:
            return zoom(a, fa, ga, pa, a_prev, f_prev, g_prev)
        if a >= stpmax:
            return a, fa, ga, pa, True
        a_prev, f_prev, g_prev, p_prev = a, fa, ga, pa
        a = min(stpmax, 4.0 * a)
    return a_prev, f_prev, g_prev, p_prev, p_prev is not None
