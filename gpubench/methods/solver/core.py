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
   returns (-inf, inf), so the test is skipped; at a kink of Abs, Min or Max
   it holds the generalized gradient, e.g. [-1, 1] for |u| at u = 0, for which
   the mean value theorem, and so the test, still holds).  A subregion whose
   enclosure is empty (f undefined on all of it) is kept untested and stops
   the search with an InputError (``Search._check_defined``);
5. insert the survivors into L.

A region is *open* while some coordinate is at least ``tol`` wide; the search
stops when no open region is left (converged), or at ``max_iterations`` or
``time_limit``.  The output regions are all of L; GLB is their smallest lower
bound, so GLB <= f* <= GUB.

L holds, per region, only (subregion index, iteration index, cycling index,
lower bound) plus an open flag (Section 3.2); the selected region of each
iteration is kept so that any region's bounds can be rebuilt exactly.
"""
import contextlib
import math
import time
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ...device.gpu import phase
from ...errors import InputError
from ..monitor import Deadline, stopped
from ...result import OptimizeResult
from . import checkpoint as ckpt
from . import sweep as sweeps
from .output import OutputRegions
from .partition import PartitionRule, child_box, child_max_width, diagonal_point
from .region_list import ROOT, RegionList
from .settings import FLOAT_SPACINGS, SPACINGS, Settings, gap_width, at_scale, contracts_root, host_loop_reasons, sample_fractions  # noqa: F401  (Settings, ROOT, sample_fractions: this module's API)
from .child_contract import contract_children
from .child_screen import screen_children
from .lsq_floor import raise_children
from .strong import CONTRACT_PROBE, StrongSteps  # noqa: F401  (CONTRACT_PROBE: this module's API)
from .uncut import UncutTerms, prepare_split

_NO_PHASE = contextlib.nullcontext()
_LATER = object()   # Search._sweep before the host loop's first sweep (Search.sweep makes it)


@dataclass
class State:
    """Everything needed to continue a search; what a checkpoint holds."""
    regions: RegionList
    # the selected region of iteration j, kept while L holds a child of it (or it holds the best
    # sample): memory O(segments of L * n), not O(iterations * n)
    sel_lo: dict = field(default_factory=dict)
    sel_hi: dict = field(default_factory=dict)
    sel_cyc: list = field(default_factory=list)
    gub: float = math.inf
    best_iteration: int = -1
    best_index: int = -1
    best_x: Optional[list] = None   # the local search's end point when it holds GUB (else a sample does)
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


class Search(StrongSteps):
    """One search of one function; ``run`` continues it until a stopping rule holds."""

    method_name = "interval solver"  # the registered method sets its own name on its searches

    def __init__(self, fn, dim, settings=None):
        from ...forms.function import refuse_constrained
        refuse_constrained(fn, "the interval solver of paper 000")
        self.fn = fn
        self.dim = dim
        self.settings = settings or Settings()
        self.settings.check("interval solver")
        # a maximiser searches -f; results are reported back in f's sense
        self.maximise = fn.sense == "max"
        # through the card: the generated modules without the definition (sympy) on a second process
        self.definition = (fn.lazy_definition(self.maximise) if hasattr(fn, "lazy_definition")
                           else fn.definition.negated() if self.maximise else fn.definition)
        self.dom_lo, self.dom_hi = fn.bounds(dim)
        _check_tol_resolvable(self.settings.tol, self.dom_lo, self.dom_hi)
        # variant strong above STRONG_MAX_DIM on CUDA: its local starts, then the paper's device loop
        self.asked = self.settings
        self.settings, self.scale_note = at_scale(self.settings, dim, _on_cuda(self.settings),
                                                  split=self.definition.dim is None,
                                                  chained=self._gated_chain(dim))
        self.polish_starts = self.asked.polish
        # variant strong on CUDA at n <= STRONG_MAX_DIM: the root contracted before the device loop
        self.root_contract = contracts_root(self.asked, dim, _on_cuda(self.asked), self.definition.dim is None)
        self.root_box = None   # the root's box for the device loop when contracted (else the domain)
        self.deadline = None   # run()'s Deadline: the host work inside an iteration stops at it too (_late)
        self.rule = PartitionRule(dim, self.settings.split_dims, self.settings.parts)
        self.loop, self.host_loop = self._choose_loop()
        # the sweep's and the uncut terms' generated modules are imported at their first use: a root
        # the multistart's contraction keeps whole (Levy, Rastrigin, Ackley n = 50 under variant strong)
        # is solved without either (their imports were a third of such a second process's search)
        if self.loop == "device":
            self._sweep = None  # the sweep runs inside the device loop's launch (devloop.py)
            self.backend = "cuda"
        else:
            from ...device.gpu import resolve_backend
            self._sweep = _LATER
            self.backend = resolve_backend(self.settings.backend)
        self._uncut = None
        self.state = State.initial(self.dom_lo, self.dom_hi, self.settings.tol)
        self.sweep_seconds = 0.0  # wall time in the sweep: kernel, launch and transfers
        self.host_seconds = 0.0  # per-iteration host tables (uncut aggregates, samples, K and R)
        self.contract_stats = {"narrowed": 0, "dropped": 0}  # contract = True: selected regions
        self._kept_contraction = None   # (key, (box, floor)): the root's, from the multistart (_root_proved)
        # seconds and count of the selected boxes' contractions and of the sweeps (_contraction_pays)
        self.contract_cost, self.sweep_cost = [0.0, 0], [0.0, 0]

    @property
    def sweep(self):
        """The host loop's subregion sweep (:func:`.sweep.make`), made at its first use; None in the device loop."""
        if self._sweep is _LATER:
            self._sweep = sweeps.make(self.backend, self.definition, self.dim, self.fn.params(self.dim), self.dom_lo,
                                      self.dom_hi, split_dims=self.rule.split_dims, full=not self._split())
        return self._sweep

    @property
    def uncut(self):
        """The aggregates over the uncut windows (:class:`.uncut.UncutTerms`), made at their first use."""
        if self._uncut is None:
            self._uncut = UncutTerms(self.definition, self.dim, self.fn.params(self.dim))
        return self._uncut

    # -------------------------------------------------------------- locations
    def region(self, itr, sidx):
        if itr == ROOT:
            return self.dom_lo.copy(), self.dom_hi.copy()
        st = self.state
        return child_box(st.sel_lo[itr], st.sel_hi[itr], self.rule.plan(st.sel_cyc[itr]), sidx)

    def sample_point(self, itr, sidx, m):
        lo, hi = self.region(itr, sidx)
        return diagonal_point(lo, hi, m, *sample_fractions(self.settings.spacing, self.settings.samples))

    def _gated_chain(self, dim):
        """Whether variant strong on CUDA meets a chain its two-coordinate pieces are on for
        (:func:`.settings.at_scale`'s ``chained``); False without building the level set elsewhere."""
        cfg = self.settings
        if not (cfg.variant == "strong" and cfg.loop == "auto" and self.definition.dim is None
                and _on_cuda(cfg)):
            return False
        from .contract import levelset
        return levelset(self.fn, dim, self.maximise).chain_cells() > 0

    # -------------------------------------------------------------- the loop
    def _choose_loop(self):
        """``(loop, why host)``: the loop this search runs, and why it is the host's where the device
        loop was not ruled out by the user (``loop = "auto"`` on CUDA; None otherwise)."""
        from ...device.gpu import resolve_backend
        cfg = self.settings
        if cfg.loop == "device":
            self._check_device_loop()
            return "device", None
        if cfg.loop == "host" or resolve_backend(cfg.backend) != "cuda":
            return "host", None   # asked for, or the CPU, which has only the host loop
        reasons = host_loop_reasons(cfg)
        if not reasons and self.definition.dim is not None:
            reasons = [f"{self.fn.name} has no split sweep (its definition reads fixed coordinates by name)"]
        return ("host", reasons[0]) if reasons else ("device", None)

    def _check_device_loop(self):
        """``loop = "device"`` needs a GPU and the split sweep (Settings.validate checks the settings)."""
        from ...device.gpu import resolve_backend
        if resolve_backend(self.settings.backend) != "cuda":
            raise InputError("loop = device needs a CUDA GPU (backend cuda); none is available here")
        if self.definition.dim is not None:
            raise InputError(f"loop = device runs the split sweep, which {self.fn.name} has not "
                             f"(its definition reads fixed coordinates by name): use loop = host")

    def _split(self):
        """Whether this search uses the n-independent split sweep.  A fixed-dimension definition
        (x1 .. xd read by name, outside any windowed term) has no split form: its named
        coordinates are not mapped through the cut, so it always takes the full evaluation."""
        cfg = self.settings
        return cfg.evaluation == "split" and cfg.inclusion == "natural" and self.definition.dim is None

    def run(self, progress=None, checkpoint=None, checkpoint_every=30.0, answer=True):
        """Continue the search until a stopping rule holds; returns its result, or None without
        ``answer`` (a warm-up, which only loads the kernels: the result would build the boxes of L,
        up to EAGER_REGION_BYTES of them after one iteration that keeps many of its p^s subregions)."""
        st, cfg = self.state, self.settings
        if checkpoint:
            ckpt.segment_begins(self)   # a checkpointed search records which process did which part
        deadline = Deadline.of(cfg, spent=st.seconds)   # a resumed search counts what it spent
        self.deadline = deadline   # the host work inside an iteration (descents, polish) stops at it too
        started = deadline.start
        if self.loop == "device":
            from . import devloop
            if st.iteration == 0 and cfg.local_starts:
                self._multistart()   # host work before the first launch: the device loop starts from its GUB
            root_closed = root_gap = False
            if st.iteration == 0 and self.root_contract:
                self._contract_root()
                root_closed = not st.regions.any_open()
                # the root's floor (Search._contract_selected) can close the gap with no launch
                root_gap = not root_closed and self._gap_closed()
            if root_gap:
                message, self.stop = self._gap_message(), "converged"
                self.scale_note = ("variant strong on CUDA: the root's lower bound from the level set at the "
                                   "local starts' GUB closed the gap, no device launch")
            elif not root_closed:
                message, self.stop = devloop.run(self, deadline, progress=progress, checkpoint=checkpoint,
                                                 checkpoint_every=checkpoint_every,
                                                 save=lambda: ckpt.save(checkpoint, self))
            else:   # the root kept whole (Search._contract_root): solved before any launch
                message, self.stop = "converged: every region is narrower than tol", "converged"
                self.scale_note = ("variant strong on CUDA: the root's contraction at the local starts' GUB "
                                   "kept it whole, no device launch")
            st.seconds = time.perf_counter() - started
            if checkpoint:
                ckpt.save(checkpoint, self)
            return self.result(message) if answer else None
        last_save = time.perf_counter()
        first_save = True
        message = ""
        while True:
            if not st.regions.any_open():
                message, self.stop = "converged: every region is narrower than tol", "converged"
                break
            if self._gap_closed():
                message, self.stop = self._gap_message(), "converged"
                break
            if cfg.max_iterations is not None and st.iteration >= cfg.max_iterations:
                message, self.stop = "stopped at max_iterations", "iterations"
                break
            if deadline.check():
                message = stopped(deadline.reason)
                self.stop = deadline.reason
                break
            # the first iteration holds what the first launch costs (kernel load or compile, first
            # transfers): timed apart when start-up phases are recorded
            with phase("search.first_iteration") if st.iteration == 0 else _NO_PHASE:
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
        return self.result(message) if answer else None

    def _iterate(self):
        st, cfg = self.state, self.settings
        # 1. select the open region with the smallest lower bound (first on ties)
        if st.iteration == 0 and cfg.local_starts:
            self._multistart()
        itr_j, cyc, sidx_j, sel_lb = st.regions.pop_best_open()
        sel_lo, sel_hi = self.region(itr_j, sidx_j)
        plan = self.rule.plan(cyc)
        count = plan.count
        # a lower bound of f over the selected box, so over each of its subregions: with contract (variant
        # strong) the selected region's own bound from the list (its sweep's, raised by the host bounds:
        # a lower bound over the box, hence over every subregion), so that a sweep's children never fall
        # below their parent and GLB never goes down (Thurber n = 7 on the H200 at b3a8034: GLB 2,204.8
        # after the first iteration, 196.1 after the second, whose children's host bounds the time limit
        # cut short); the paper's variant keeps its children's own bounds
        floor = sel_lb if cfg.contract and INHERIT_BOUND and sel_lb > -math.inf else -math.inf
        if cfg.contract and self._contraction_pays():
            t0 = time.perf_counter()
            box, floor = self._contract_selected(sel_lo, sel_hi, cyc, floor)   # raised from the inherited one
            self.contract_cost[0] += time.perf_counter() - t0
            self.contract_cost[1] += 1
            if box is None:   # the iteration is closed: dropped, or kept whole
                return
            sel_lo, sel_hi = box
        # 2 + 4. sample and bound every subregion
        shift, den = sample_fractions(cfg.spacing, cfg.samples)
        t0 = time.perf_counter()
        if self._split():
            tables = prepare_split(self.uncut, sel_lo, sel_hi, plan, cfg.samples, shift, den,
                                   self.dom_lo, self.dom_hi)
            self.host_seconds += time.perf_counter() - t0
            t0 = time.perf_counter()
            out = self.sweep.split(sel_lo, sel_hi, plan.dims, plan.parts, cfg.samples, shift, den,
                                   st.gub, count, tables, reduce=True)
        else:
            # the mean value form needs the whole interval gradient: the full evaluation
            win1, win2, cut1, cut2 = self.uncut.windows(plan.dims)
            base_lo, base_hi = self.uncut.bases(sel_lo, sel_hi, cut1, cut2, cfg.samples, shift, den)
            self.host_seconds += time.perf_counter() - t0
            t0 = time.perf_counter()
            out = self.sweep(sel_lo, sel_hi, plan.dims, plan.parts, cfg.samples, shift, den,
                             st.gub, count, win1, win2, base_lo, base_hi,
                             1 if cfg.inclusion == "best" else 0, reduce=True)
        self.sweep_seconds += time.perf_counter() - t0
        self.sweep_cost[0] += time.perf_counter() - t0
        self.sweep_cost[1] += 1
        st.nfev += count * (cfg.samples + 1)
        st.njev += out.njev
        it = st.iteration
        self._check_defined(sel_lo, sel_hi, plan, out.sidx, out.lb)
        if out.best_ub < st.gub:
            st.gub = out.best_ub
            st.best_iteration, st.best_index = it, out.best_index
            st.best_x = None
            self._after_lowered_gub(child_box(sel_lo, sel_hi, plan, out.best_index))
        # 3. prune L with the updated GUB
        st.regions.prune(st.gub)
        sidx, lb = self._floored(out.sidx, out.lb, floor)
        if cfg.contract and sidx.size:
            sidx, lb = self._chained(sel_lo, sel_hi, plan, sidx, lb)
            sidx, lb = contract_children(self, sel_lo, sel_hi, plan, sidx, lb)   # no aggregate (child_contract)
            sidx, lb = raise_children(self, sel_lo, sel_hi, plan, sidx, lb)   # sums of squares (lsq_floor)
            sidx, lb = screen_children(self, sel_lo, sel_hi, plan, sidx, lb)   # cut finer, contracted (child_screen)
        # 5. survivors (lb <= GUB, not ruled out by the gradient test), in subregion order so that
        # runs are deterministic
        child_open = child_max_width(sel_lo, sel_hi, plan) >= cfg.tol
        st.regions.append(it, self.rule.next_cycling_index(cyc), child_open, sidx, lb)
        self._close_iteration(it, sel_lo, sel_hi, cyc)

    def _close_iteration(self, it, sel_lo, sel_hi, cyc):
        st = self.state
        st.sel_lo[it] = sel_lo
        st.sel_hi[it] = sel_hi
        st.sel_cyc.append(cyc)
        st.iteration = it + 1
        self._retire_selected()
        if len(st.regions) == 0:
            raise RuntimeError("every region was ruled out: the interval forms or the tests are wrong")
        st.hist_glb.append(st.regions.min_lb())
        st.hist_gub.append(st.gub)
        st.hist_size.append(len(st.regions))

    def _gap_closed(self):
        """Whether GUB - GLB <= gap_tol (``Settings.gap_tol``), or float64's spacing of the values where
        that is wider (:func:`settings.gap_width`: no enclosure in doubles narrows further): GLB is the
        smallest lower bound of L, which holds every global minimiser, so the minimum's value is proved
        to that width.  (The device loop's own stop inside a launch tests gap_tol alone.)"""
        cfg, st = self.settings, self.state
        if cfg.gap_tol is None or len(st.regions) == 0 or not math.isfinite(st.gub):
            return False
        glb = st.regions.min_lb()
        return math.isfinite(glb) and st.gub - glb <= gap_width(glb, st.gub, cfg.gap_tol)

    def _gap_message(self):
        st = self.state
        opened = sum(s.lb.size for s in st.regions.segments if s.open)
        glb, tol = st.regions.min_lb(), self.settings.gap_tol
        width = gap_width(glb, st.gub, tol)
        return (f"converged: gap closed, GUB - GLB = {st.gub - glb:.3g} <= gap_tol {tol:g}"
                + (f" (float64's spacing: {FLOAT_SPACINGS} ulp of the values, {width:.3g})" if width > tol else "")
                + f" (the minimum's value is proved; {opened:,} of the "
                f"{len(st.regions):,} output regions, which hold every global minimiser, are not yet "
                f"narrower than tol)")

    def _check_defined(self, sel_lo, sel_hi, plan, sidx, lb):
        """Stop, in one line, where the function is undefined on a whole subregion.

        The kernels keep a subregion whose enclosure is NaN (empty: e.g. sqrt or
        log of negatives only) with lower bound -inf, which is sound but never
        ends: such regions are selected first and cut down to ``tol``.  So a
        subregion kept at -inf is checked on the host (a few per iteration);
        an empty enclosure there ends the search with an InputError rather than
        with a claim about a box where f has no value.  A lower bound of -inf
        with a non-empty enclosure (f unbounded below) is kept.
        """
        # every subregion kept at -inf survives (-inf <= GUB), and survivors come in index order
        for r in sidx[lb == -math.inf][:UNDEFINED_CHECKS]:
            lo, hi = child_box(sel_lo, sel_hi, plan, int(r))
            flo, fhi = self.fn.interval(lo, hi)
            if math.isnan(flo) or math.isnan(fhi):
                box = " x ".join(f"[{a:.6g}, {b:.6g}]" for a, b in zip(lo[:4], hi[:4]))
                raise InputError(f"{self.fn.name} is undefined on part of its domain (its interval "
                                 f"enclosure is empty on {box}{' x ...' if self.dim > 4 else ''}); "
                                 f"give a domain on which it is defined")

    def _retire_selected(self):
        """Forget the selected boxes no entry of L (nor the best sample) can be rebuilt from."""
        st = self.state
        if len(st.sel_lo) <= 2 * len(st.regions.segments) + 2:
            return
        live = {seg.itr for seg in st.regions.segments}
        live.add(st.best_iteration)
        for itr in [j for j in st.sel_lo if j not in live]:
            del st.sel_lo[itr], st.sel_hi[itr]

    # -------------------------------------------------------------- output
    def result(self, message=""):
        st = self.state
        count = self.state.regions.size
        # L's regions by (iteration, subregion), one iteration at a time (.output: 10^8 regions
        # took minutes to sort whole and to search box by box for the certification's judge)
        out = OutputRegions(self)
        if count * self.dim * 16 <= EAGER_REGION_BYTES:
            regions_lo, regions_hi = out.boxes(0, count)
            lazy = {}
        else:   # boxes on demand, and the distance to the nearest region without building them all
            regions_lo = regions_hi = None
            lazy = {"region_boxes": out.boxes, "region_count": count, "region_distance": out.distance}
        glb, gub = st.regions.min_lb(), st.gub
        x = fun = None
        if st.best_x is not None:
            x = np.asarray(st.best_x, dtype=np.float64)
            fun = float(self.fn.point(x))
        elif st.best_iteration >= 0:
            x, fun = self._best_sample()
        if self.maximise:  # searched -f: f* lies in [-gub, -glb]
            glb, gub = -gub, -glb
        if self.host_loop:  # the device loop is the default on CUDA: say why this search did not take it
            message = f"{message} (host loop: {self.host_loop})" if message else f"host loop: {self.host_loop}"
        if self.scale_note:  # variant strong at scale: what it left out to take the device loop
            message = f"{message} ({self.scale_note})" if message else self.scale_note
        return OptimizeResult(
            function=self.fn.name, dim=self.dim, method=self.method_name, backend=self.backend,
            x=x, fun=fun, glb=glb, gub=gub, regions_lo=regions_lo, regions_hi=regions_hi, **lazy,
            iterations=st.iteration, nfev=st.nfev, njev=st.njev, seconds=st.seconds,
            converged=not st.regions.any_open() or self._gap_closed(), message=message,
            stop=getattr(self, "stop", None),
            history={"glb": list(st.hist_glb), "gub": list(st.hist_gub), "list_size": list(st.hist_size),
                     **({"segments": segs} if (segs := ckpt.segments(self)) else {})},
            timing={"sweep_seconds": self.sweep_seconds, "host_seconds": self.host_seconds,
                    "kernel_seconds": getattr(self._sweep, "kernel_seconds", None),
                    "reduce_seconds": getattr(self._sweep, "reduce_seconds", None)},
            options={"split_dims": self.settings.split_dims, "parts": self.settings.parts,
                     "tol": self.settings.tol, "samples": self.settings.samples,
                     "spacing": self.settings.spacing, "evaluation": self.settings.evaluation,
                     **({"local_search": True} if self.settings.local_search else {}),
                     **({"polish": True} if self.settings.polish else {}),
                     **({"local_starts": self.settings.local_starts} if self.settings.local_starts else {}),
                     **({"contract": self.settings.contract or "root", "contracted": dict(self.contract_stats)}
                        if self.settings.contract or self.root_contract else {}),
                     **({"gap_tol": self.settings.gap_tol,
                         "resolved": not st.regions.any_open()} if self.settings.gap_tol is not None else {}),
                     **({"loop": "device"} if self.loop == "device" else {}),
                     # the device loop's own mean value form (devloop.centre_sample; docs/solver-scaling.md)
                     **({"inclusion": "best (device loop: split mean value form)"}
                        if self.loop == "device" and self.settings.inclusion == "best" else {}),
                     **({"variant": "strong", "at_scale": self.scale_note} if self.scale_note else {}),
                     **({"loop": "host", "host_loop": self.host_loop} if self.host_loop else {}),
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


def _on_cuda(settings):
    """Whether ``settings`` run on CUDA here (backend cuda, or auto with a GPU)."""
    from ...device.gpu import resolve_backend
    return resolve_backend(settings.backend) == "cuda"


# output regions up to this many bytes as (lo, hi) arrays are built with the result; more are built
# on demand (OptimizeResult.boxes), so a stopped search never needs 16 n bytes per open region at once
EAGER_REGION_BYTES = 256 * 2**20
# subregions with lower bound -inf checked per iteration for an empty enclosure (host evaluations)
UNDEFINED_CHECKS = 16
# with contract (variant strong) a sweep's children start from the selected region's bound in L (_iterate);
# off: their own bounds alone, as before (measurements, tests)
INHERIT_BOUND = True
# a width tolerance must exceed this many units in the last place of the domain's largest bound
TOL_ULPS = 8


def _check_tol_resolvable(tol, dom_lo, dom_hi):
    """Refuse a tol that float64 cannot resolve in the domain: the search could never end.

    Near a bound b, two doubles differ by at least spacing(b); a region a few
    spacings wide cannot be cut into narrower ones, so with tol below that it
    would stay open for ever.  Above TOL_ULPS spacings every cut strictly
    narrows a region (a child is at most width/p plus two roundings wide).
    """
    bounds = np.abs(np.concatenate([dom_lo, dom_hi]))
    bounds = bounds[np.isfinite(bounds)]
    if bounds.size == 0:
        return
    floor = TOL_ULPS * float(np.spacing(bounds.max()))
    if not tol > floor:
        raise InputError(f"tol {tol:g} is below what float64 resolves in this domain "
                         f"({TOL_ULPS} ulps of its largest bound {float(bounds.max()):g} = {floor:.3g}); "
                         f"give a larger tol")


def solve(function, dim, settings=None, *, checkpoint=None, resume=None, checkpoint_every=30.0,
          progress=None, **values):
    """Enclose the global minimum (maximum for ``sense="max"``) of ``function`` rigorously.

    ``settings`` is a :class:`Settings` (or give its fields as keywords:
    ``solve("levy", 10, backend="cpu", split_dims=5)``).  Returns an
    :class:`~gpubench.result.OptimizeResult` whose ``regions`` hold every
    global optimiser and with ``glb <= f* <= gub``.  ``resume`` continues from a
    checkpoint file written with ``checkpoint``.
    """
    from ... import functions
    from ...errors import check_dim
    fn = functions.get(function)
    dim = check_dim(dim)
    if settings is None:
        settings = Settings.build("interval solver", values)
    elif values:
        raise InputError("give the settings either as a Settings or as keywords, not both")
    return run_search(fn, dim, settings, checkpoint=checkpoint, resume=resume,
                      checkpoint_every=checkpoint_every, progress=progress)


def run_search(fn, dim, settings, checkpoint=None, resume=None, checkpoint_every=30.0, progress=None,
               method_name=None, answer=True):
    """Run (or resume) one search of a loaded function with checked settings; its result (None
    without ``answer``: :meth:`Search.run`)."""
    if checkpoint and resume and checkpoint != resume:
        raise InputError("give checkpoint or resume, not both (resume keeps writing to its file)")
    if checkpoint:
        ckpt.check_target(checkpoint)
    with phase("search.setup"):
        search = Search(fn, dim, settings=settings)
    if method_name:
        search.method_name = method_name
    if resume is not None:
        ckpt.restore(resume, search)
    with phase("search.run"):
        return search.run(progress=progress, checkpoint=checkpoint or resume,
                          checkpoint_every=checkpoint_every, answer=answer)
