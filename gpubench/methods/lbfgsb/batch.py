"""Many small L-BFGS-B problems at once: one start per CUDA thread, or per loop turn on the CPU.

The same scalar source runs on both backends: it is appended to the generated
module of a library function (``gpubench.forms.codegen.load(..., extensions=...)``)
and calls that module's ``point`` and ``gradient`` forms directly, so up to a cap
of iterations of every running start are one launch on the GPU (one thread per
start) and one compiled loop on the CPU; a start's state stays in the work arrays
between launches (:class:`Starts`), so a run is cut into short launches that the
host can stop between (time limit, Ctrl-C) without changing any start's iterates.  The algorithm is the one of
:mod:`gpubench.methods.lbfgsb.core` (Byrd, Lu, Nocedal & Zhu 1995, with Fei et al.'s
approximate Cauchy point as an option), written for one start at a time: the
Cauchy point is BLNZ's sequential breakpoint search (algorithm CP, section 4),
which for the small n of a multi-start run costs less than a sort; the small
2k x 2k systems are solved by Gaussian elimination with partial pivoting.

Status per start: 0 converged (pgtol or factr), 1 iteration or evaluation limit,
2 abnormal (line search failed twice, or no descent direction).
"""
import numpy as np

from ... import kernels
from ...errors import InputError

VROWS = 12      # n-vectors per start
SROWS = 6       # 2m x 2m matrices per start
WROWS = 6       # 2m vectors per start

# The kernel (gpubench/kernels/lbfgsb.py) and its drivers are real modules, appended to the
# function's generated module so that numba caches them on disk.
KERNEL_SOURCE = kernels.splice("lbfgsb")


_DRIVER = {"cpu": kernels.splice("lbfgsb_cpu"), "cuda": kernels.splice("lbfgsb_gpu")}

LANES = (1, 2, 4, 8, 16, 32)    # CUDA lanes a start: 1 a thread (lbfgsb_gpu), more a group (lbfgsb_group)


def group_driver(lanes, registers=0):
    """The source of the driver with a start per group of ``lanes`` lanes (gpubench/kernels/lbfgsb_group.py),
    its kernel capped at ``registers`` a thread (0: no cap)."""
    return kernels.splice("lbfgsb_group", replace=[("LBG_LANES = 8 ", f"LBG_LANES = {int(lanes)} "),
                                                   ("LBG_REGISTERS = 0 ", f"LBG_REGISTERS = {int(registers)} ")])


def check_lanes(lanes, who="lbfgsb batch"):
    if lanes not in LANES:
        raise InputError(f"{who}: lanes must be one of {', '.join(map(str, LANES))}, got {lanes!r}")


def module(fn, backend, lanes=1, registers=0):
    """The generated module of ``fn`` with the batch kernel appended (``backend`` 'cpu' or 'cuda';
    ``lanes`` > 1 on 'cuda': the driver with a start per group of that many lanes, ``registers`` its cap)."""
    driver = group_driver(lanes, registers) if backend == "cuda" and lanes > 1 else _DRIVER[backend]
    ext = (KERNEL_SOURCE + driver,)
    if hasattr(fn, "load"):  # through the function's card: no sympy once a process has loaded it
        return fn.load(backend, ext)
    from ...forms import codegen
    return codegen.load(fn.definition, backend, extensions=ext)


def work_arrays(nstarts, n, m, backend):
    """Zeroed work arrays in the layout the backend's driver expects."""
    mm, m2 = max(m, 1), 2 * max(m, 1)
    shapes = [(VROWS, n), (2, mm, n), (SROWS, m2, m2), (WROWS, m2)]
    if backend == "cpu":
        return [np.zeros((nstarts,) + s) for s in shapes]
    from numba import cuda
    return [cuda.to_device(np.zeros(s + (nstarts,))) for s in shapes]


RESW = 10       # per-start outcome and state scalars: RESW in gpubench/kernels/lbfgsb.py
PAUSED = 3      # status of a start stopped by a launch's iteration cap (it resumes next launch)


class Starts:
    """A multi-start run between launches: every start's state (x, g, the S/Y history, its small
    matrices and scalars) stays in the work arrays, on the device for ``backend="cuda"``.

    :meth:`advance` launches the starts still running, each for at most ``cap`` iterations, and
    the next call resumes each exactly where it stopped: however the iterations are cut into
    launches, every start's iterates are the same (the kernel's arithmetic does not depend on
    the cut).  Only the running starts are launched, packed (``live``), so on the GPU a warp
    never waits on starts that have finished.
    """

    def __init__(self, fn, X0, lo, hi, *, m=5, pgtol=1e-5, factr=1e7, maxiter=15000, maxfun=15000,
                 cauchy="exact", step="project", backend="cpu", threads=32, sign=1.0, lanes=1, registers=0):
        check_lanes(lanes)
        X0 = np.ascontiguousarray(X0, dtype=np.float64)
        if X0.ndim != 2:
            raise InputError(f"lbfgsb batch: starts must have shape (N, n), got {X0.shape}")
        N, n = X0.shape
        self.N, self.backend, self.threads = N, backend, threads
        # lanes a start on CUDA (the CPU twin runs a start a loop turn whatever lanes: the same iterates)
        self.lanes = lanes if backend != "cpu" else 1
        lo = np.ascontiguousarray(lo, dtype=np.float64)
        hi = np.ascontiguousarray(hi, dtype=np.float64)
        p = np.ascontiguousarray(fn.params(n))
        self.args = (float(sign), int(m), float(pgtol), float(factr), int(maxiter), int(maxfun),
                     cauchy == "approximate", step == "project")
        self.work = work_arrays(N, n, m, "cpu" if backend == "cpu" else "cuda")
        self.res = np.zeros((N, RESW))
        self.launches = 0
        if backend == "cpu":
            self.mod = module(fn, "cpu")
            self.data = (X0, lo, hi, p)
            self.X, self.R = np.zeros((N, n)), self.res
        else:
            from numba import cuda
            self.mod = module(fn, "cuda", self.lanes, registers)
            self.data = tuple(cuda.to_device(a) for a in (X0, lo, hi, p))
            self.X, self.R = cuda.device_array((N, n)), cuda.to_device(self.res)

    def running(self):
        """Indices of the starts not finished (not yet launched, or paused at a cap)."""
        r = self.res
        return np.flatnonzero((r[:, 8] == 0.0) | (r[:, 3] == PAUSED))

    def advance(self, cap):
        """One launch: every running start for at most ``cap`` iterations; returns how many still run."""
        live = self.running()
        if live.size == 0:
            return 0
        cap = int(cap)
        if self.backend == "cpu":
            self.mod.lbfgsb_starts(*self.data, *self.args, cap, live, *self.work, self.X, self.R)
        else:
            from numba import cuda
            if self.lanes > 1:
                # a group of lanes a start: blocks of one warp (under the simulator, which has no
                # warp barrier, of one group: gpubench/kernels/lbfgsb_group.py)
                from numba.core import config
                tpb = self.lanes if config.ENABLE_CUDASIM else max(32, self.lanes)
                blocks = (live.size * self.lanes + tpb - 1) // tpb
                shared = self.mod.LBG_GROUPS * self.mod.LBG_SLOTS * 8     # dynamic shared memory, bytes
                self.mod.lbfgsb_group_starts[blocks, tpb, 0, shared](*self.data, *self.args, cap, cuda.to_device(live),
                                                                     *self.work, self.X, self.R)
            else:
                blocks = (live.size + self.threads - 1) // self.threads
                self.mod.lbfgsb_starts[blocks, self.threads](*self.data, *self.args, cap, cuda.to_device(live),
                                                             *self.work, self.X, self.R)
            self.R.copy_to_host(self.res)     # synchronises: the launch has ended
        self.launches += 1
        return self.running().size

    def result(self):
        """(X, f, nit, nfev, status, pg) per start; a start still running counts as at a limit (1)."""
        X = self.X if self.backend == "cpu" else self.X.copy_to_host()
        R = self.res
        status = R[:, 3].astype(int)
        status[(R[:, 8] == 0.0) | (status == PAUSED)] = 1
        f = np.where(R[:, 8] != 0.0, R[:, 0], np.nan)
        return X.copy(), f, R[:, 1].astype(int), R[:, 2].astype(int), status, R[:, 4].copy()


def solve(fn, X0, lo, hi, *, m=5, pgtol=1e-5, factr=1e7, maxiter=15000, maxfun=15000,
          cauchy="exact", step="project", backend="cpu", threads=32, sign=1.0, cap=None, lanes=1, registers=0):
    """Run L-BFGS-B from every row of ``X0`` in the box; (X, f, nit, nfev, status, pg) per start.

    ``sign=-1`` maximises.  Launches of at most ``cap`` iterations per start (None: one launch
    runs every start to its end) until every start has ended; the result does not depend on ``cap``.
    """
    run = Starts(fn, X0, lo, hi, m=m, pgtol=pgtol, factr=factr, maxiter=maxiter, maxfun=maxfun,
                 cauchy=cauchy, step=step, backend=backend, threads=threads, sign=sign, lanes=lanes, registers=registers)
    while run.advance(maxiter if cap is None else cap):
        pass
    return run.result()
