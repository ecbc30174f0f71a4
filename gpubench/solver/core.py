"""The complete and rigorous search of Zhang, Shan & Cagan (2026), paper 000, Section 3.

    G. Zhang, Q. Shan, J. Cagan, "Global optimization tailored for GPUs: complete
    and rigorous search for large-scale nonlinear minimization", PNAS Nexus 5(4),
    pgag103 (2026).

Each iteration (Section 3.1):

1. select the open region of L with the smallest lower bound and remove it;
2. sample: ``samples`` points evenly spaced along the diagonal of every
   subregion, evaluated as degenerate intervals; the smallest upper bound
   updates GUB, an upper bound of the global minimum.  ``spacing`` says where:
   "inside" (default) t = m/(samples+1), m = 1..samples, strictly inside;
   "lower" t = m/samples, m = 0..samples-1, from the lower corner;
   "upper" t = m/samples, m = 1..samples, up to the upper corner.  The paper
   says only "evenly spaced"; its Levy+delta counts (Table S14) need a point at
   t = 0.8, which "lower" and "upper" have and "inside" has not (see
   ``docs/reproduction.md``);
3. prune L: drop every region whose lower bound exceeds GUB;
4. partition the selected region (variable cycling, :mod:`.partition`) and drop
   a subregion when its interval lower bound exceeds GUB, or when its interval
   gradient shows DLB_i > 0 while its lower edge i is not on the domain's lower
   bound, or DUB_i < 0 while its upper edge i is not on the domain's upper bound
   (where the function is not differentiable in the box its gradient form
   returns (-inf, inf), so the test is skipped);
5. insert the survivors into L.

A region is *open* while some coordinate is at least ``tol`` wide; the search
stops when no open region is left (converged), or at ``max_iterations`` or
``time_limit``.  The output regions are all of L; GLB is their smallest lower
bound, so GLB <= f* <= GUB.

L holds, per region, only (subregion index, iteration index, cycling index,
lower bound) plus an open flag (Section 3.2); the selected region of each
iteration is kept so that any region's bounds can be rebuilt exactly.
"""
import math
import time
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ..device import BACKENDS
from ..errors import InputError
from ..methods.base import MethodSettings, setting
from ..result import OptimizeResult
from . import checkpoint as ckpt
from . import sweep as sweeps
from .partition import PartitionRule, child_box, child_max_width, diagonal_point
from .region_list import RegionList
from .uncut import UncutTerms

ROOT = -1
SPACINGS = ("inside", "lower", "upper")


def sample_fractions(spacing, samples):
    """(shift, denominator): sample m = 1..samples sits at t = (m + shift)/denominator."""
    return {"inside": (0, samples + 1), "lower": (-1, samples), "upper": (0, samples)}[spacing]


@dataclass
class Settings(MethodSettings):
    """The solver's settings, stated once: defaults are the paper's (Section 3.1, SI Appendix B)."""
    backend: str = setting("auto", "where the sweeps run", choices=BACKENDS)
    split_dims: int = setting(10, "coordinates cut per iteration, s", minimum=1)
    parts: int = setting(4, "parts per cut coordinate, p", minimum=2)
    tol: float = setting(1e-4, "a region is open while some coordinate is at least tol wide",
                         exclusive_minimum=0.0)
    samples: int = setting(10, "diagonal samples per subregion (for GUB)", minimum=1)
    spacing: str = setting("inside", "where the samples sit on the diagonal: t = m/(samples+1) (inside), "
                           "m/samples from 0 (lower) or up to 1 (upper)", choices=SPACINGS)
    max_iterations: Optional[int] = setting(None, "stop after this many iterations", minimum=0)
    time_limit: Optional[float] = setting(None, "stop after this many seconds", exclusive_minimum=0.0)
    inclusion: str = setting("natural", "lower bounds from the natural interval form (the paper's) or "
                             "from its intersection with the mean value form (best; paper 001 Sec. 2.2)",
                             choices=("natural", "best"))

    def validate(self):
        if not math.isfinite(self.tol):
            raise InputError(f"tol must be a positive number, got {self.tol!r}")
        if self.parts ** self.split_dims > 2**31:
            raise InputError(f"parts**split_dims = {self.parts ** self.split_dims} subregions per "
                             f"iteration is too many (at most 2**31)")


@dataclass
class State:
    """Everything needed to continue a search; what a checkpoint holds."""
    regions: RegionList
    sel_lo: list = field(default_factory=list)
    sel_hi: list = field(default_factory=list)
    sel_cyc: list = field(default_factory=list)
    gub: float = math.inf
    best_iteration: int = -1
    best_index: int = -1
    iteration: int = 0
    nfev: int = 0
    njev: int = 0
    seconds: float = 0.0
    hist_glb: list = field(default_factory=list)
    hist_gub: list = field(default_factory=list)
    hist_size: list = field(default_factory=list)

    @classmethod
    def initial(cls, dom_lo, dom_hi, tol):
        wide = bool(np.max(dom_hi - dom_lo) >= tol)
        regions = RegionList()
        regions.append(ROOT, 0, wide, [0], [-math.inf])
        return cls(regions=regions)


class Search:
    """One search of one function; ``run`` continues it until a stopping rule holds."""

    method_name = "interval solver"  # the registered method sets its own name on its searches

    def __init__(self, fn, dim, settings=None):
        from ..forms import refuse_constrained
        refuse_constrained(fn, "the interval solver of paper 000")
        self.fn = fn
        self.dim = dim
        self.settings = settings or Settings()
        self.settings.check("interval solver")
        # a maximiser searches -f; results are reported back in f's sense
        self.maximise = fn.sense == "max"
        self.definition = fn.definition.negated() if self.maximise else fn.definition
        self.dom_lo, self.dom_hi = fn.bounds(dim)
        self.rule = PartitionRule(dim, self.settings.split_dims, self.settings.parts)
        self.sweep = sweeps.make(self.settings.backend, self.definition, dim, fn.params(dim), self.dom_lo, self.dom_hi)
        self.backend = self.sweep.name
        self.uncut = UncutTerms(self.definition, dim, fn.params(dim))
        self.state = State.initial(self.dom_lo, self.dom_hi, self.settings.tol)
        self.sweep_seconds = 0.0  # wall time in the sweep: kernel, launch and transfers

    # -------------------------------------------------------------- locations
    def region(self, itr, sidx):
        if itr == ROOT:
            return self.dom_lo.copy(), self.dom_hi.copy()
        st = self.state
        return child_box(st.sel_lo[itr], st.sel_hi[itr], self.rule.plan(st.sel_cyc[itr]), sidx)

    def sample_point(self, itr, sidx, m):
        lo, hi = self.region(itr, sidx)
        return diagonal_point(lo, hi, m, *sample_fractions(self.settings.spacing, self.settings.samples))

    # -------------------------------------------------------------- the loop
    def run(self, progress=None, checkpoint=None, checkpoint_every=30.0):
        st, cfg = self.state, self.settings
        started = time.perf_counter() - st.seconds
        last_save = time.perf_counter()
        first_save = True
        message = ""
        while True:
            if not st.regions.any_open():
                message = "converged: every region is narrower than tol"
                break
            if cfg.max_iterations is not None and st.iteration >= cfg.max_iterations:
                message = "stopped at max_iterations"
                break
            if cfg.time_limit is not None and time.perf_counter() - started >= cfg.time_limit:
                message = "stopped at time_limit"
                break
            self._iterate()
            st.seconds = time.perf_counter() - started
            if progress is not None:
                progress(st)
            # the first save comes after the first iteration, so that a kill at any time can resume
            if checkpoint and (first_save or time.perf_counter() - last_save >= checkpoint_every):
                first_save = False
                ckpt.save(checkpoint, self)
                last_save = time.perf_counter()
        st.seconds = time.perf_counter() - started
        if checkpoint:
            ckpt.save(checkpoint, self)
        return self.result(message)

    def _iterate(self):
        st, cfg = self.state, self.settings
        # 1. select the open region with the smallest lower bound (first on ties)
        itr_j, cyc, sidx_j, _ = st.regions.pop_best_open()
        sel_lo, sel_hi = self.region(itr_j, sidx_j)
        plan = self.rule.plan(cyc)
        count = plan.count
        # 2 + 4. sample and bound every subregion
        shift, den = sample_fractions(cfg.spacing, cfg.samples)
        win1, win2, cut1, cut2 = self.uncut.windows(plan.dims)
        base_lo, base_hi = self.uncut.bases(sel_lo, sel_hi, cut1, cut2, cfg.samples, shift, den)
        t0 = time.perf_counter()
        lb, ub, grad = self.sweep(sel_lo, sel_hi, plan.dims, plan.parts, cfg.samples, shift, den,
                                  st.gub, count, win1, win2, base_lo, base_hi,
                                  1 if cfg.inclusion == "best" else 0)
        self.sweep_seconds += time.perf_counter() - t0
        st.nfev += count * (cfg.samples + 1)
        st.njev += int(grad.sum(dtype=np.int64))
        it = st.iteration
        r_best = int(np.argmin(ub))
        if ub[r_best] < st.gub:
            st.gub = float(ub[r_best])
            st.best_iteration, st.best_index = it, r_best
        # 3. prune L with the updated GUB
        st.regions.prune(st.gub)
        # 5. survivors, in subregion order so that runs are deterministic
        survivors = np.flatnonzero(lb <= st.gub)
        survivors = survivors[lb[survivors] != math.inf]  # ruled out by the gradient test
        child_open = child_max_width(sel_lo, sel_hi, plan) >= cfg.tol
        st.regions.append(it, self.rule.next_cycling_index(cyc), child_open, survivors, lb[survivors])
        st.sel_lo.append(sel_lo)
        st.sel_hi.append(sel_hi)
        st.sel_cyc.append(cyc)
        st.iteration = it + 1
        if len(st.regions) == 0:
            raise RuntimeError("every region was ruled out: the interval forms or the tests are wrong")
        st.hist_glb.append(st.regions.min_lb())
        st.hist_gub.append(st.gub)
        st.hist_size.append(len(st.regions))

    # -------------------------------------------------------------- output
    def result(self, message=""):
        st = self.state
        sidx, itr, _, lb, _ = st.regions.flat()
        order = np.lexsort((sidx, itr))
        boxes = [self.region(itr[q], sidx[q]) for q in order]
        regions_lo = np.array([b[0] for b in boxes]).reshape(len(boxes), self.dim)
        regions_hi = np.array([b[1] for b in boxes]).reshape(len(boxes), self.dim)
        glb, gub = st.regions.min_lb(), st.gub
        x = fun = None
        if st.best_iteration >= 0:
            x, fun = self._best_sample()
        if self.maximise:  # searched -f: f* lies in [-gub, -glb]
            glb, gub = -gub, -glb
        return OptimizeResult(
            function=self.fn.name, dim=self.dim, method=self.method_name, backend=self.backend,
            x=x, fun=fun, glb=glb, gub=gub, regions_lo=regions_lo, regions_hi=regions_hi,
            iterations=st.iteration, nfev=st.nfev, njev=st.njev, seconds=st.seconds,
            converged=not st.regions.any_open(), message=message,
            history={"glb": list(st.hist_glb), "gub": list(st.hist_gub), "list_size": list(st.hist_size)},
            timing={"sweep_seconds": self.sweep_seconds,
                    "kernel_seconds": getattr(self.sweep, "kernel_seconds", None)},
            options={"split_dims": self.settings.split_dims, "parts": self.settings.parts,
                     "tol": self.settings.tol, "samples": self.settings.samples,
                     "spacing": self.settings.spacing,
                     "max_iterations": self.settings.max_iterations,
                     "time_limit": self.settings.time_limit,
                     "partition": self.rule.describe()})

    def _best_sample(self):
        st = self.state
        points = [self.sample_point(st.best_iteration, st.best_index, m)
                  for m in range(1, self.settings.samples + 1)]
        values = [self.fn.point(p) for p in points]
        k = int(np.argmax(values) if self.maximise else np.argmin(values))
        return points[k], float(values[k])


def solve(function, dim, settings=None, *, checkpoint=None, resume=None, checkpoint_every=30.0,
          progress=None, **values):
    """Enclose the global minimum (maximum for ``sense="max"``) of ``function`` rigorously.

    ``settings`` is a :class:`Settings` (or give its fields as keywords:
    ``solve("levy", 10, backend="cpu", split_dims=5)``).  Returns an
    :class:`~gpubench.result.OptimizeResult` whose ``regions`` hold every
    global optimiser and with ``glb <= f* <= gub``.  ``resume`` continues from a
    checkpoint file written with ``checkpoint``.
    """
    from .. import functions
    from ..errors import check_dim
    fn = functions.get(function)
    dim = check_dim(dim)
    if settings is None:
        settings = Settings.build("interval solver", values)
    elif values:
        raise InputError("give the settings either as a Settings or as keywords, not both")
    return run_search(fn, dim, settings, checkpoint=checkpoint, resume=resume,
                      checkpoint_every=checkpoint_every, progress=progress)


def run_search(fn, dim, settings, checkpoint=None, resume=None, checkpoint_every=30.0, progress=None,
               method_name=None):
    """Run (or resume) one search of a loaded function with checked settings."""
    if checkpoint and resume and checkpoint != resume:
        raise InputError("give checkpoint or resume, not both (resume keeps writing to its file)")
    search = Search(fn, dim, settings=settings)
    if method_name:
        search.method_name = method_name
    if resume is not None:
        ckpt.restore(resume, search)
    return search.run(progress=progress, checkpoint=checkpoint or resume,
                      checkpoint_every=checkpoint_every)
