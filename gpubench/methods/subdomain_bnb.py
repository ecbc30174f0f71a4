"""Spatial branch-and-bound with Subdomain Lower Bounding: paper 001.

    H. Zhang, T. Kerkenhoff, N. Kichler, M. Dahmen, A. Mitsos, U. Naumann,
    D. Bongartz, "Accelerating deterministic global optimization via
    GPU-parallel interval arithmetic", Sections 2.2 (splitting technique,
    Theorem 1), 3.1 (Subdomain Lower Bounding), 3.1.1-3.1.2 (uniform, largest
    and adaptive partitioning), 3.2 (serial CPU and single-interval baselines).

The B&B tree is searched one node at a time (best first: the open node whose
inherited lower bound is smallest).  A node's lower bound is found by cutting
it *temporarily* into N subdomains, enclosing the objective and every
constraint on each subdomain (one GPU thread, or one CPU loop iteration, per
subdomain) with the natural interval form, the mean value form, or their
intersection, and taking the smallest objective lower bound over the
subdomains that no constraint proves infeasible (the left end of the
refinement, Sec. 2.2 iii, restricted to the subdomains that can hold a
feasible point).  A node with no such subdomain is infeasible and dropped
(Sec. 3.1: lower bound of some g above 0, or 0 outside an h's enclosure).

Choices the paper leaves open, stated here:

* Tolerances: the paper states none; we use MAiNGO's documented defaults,
  epsilonA = 1e-2 (absolute gap) and epsilonR = 1e-2 (relative gap); a node is
  fathomed when LB >= UB - max(epsilonA, epsilonR |UB|), the search ends when
  UB - GLB meets either.  Feasibility tolerances of the incumbent: MAiNGO's
  deltaIneq = deltaEq = 1e-6, checked with the point forms.
* As in MAiNGO, a node is bounded when it is taken from the tree and its
  children inherit its bound; one B&B iteration = one node taken.
* Branching: bisection of the widest variable (``branching="widest"``) or of
  the widest relative to the root box (``"widest-relative"``).
* Defaults: the library's (an experiment, the Python API) are paper 001's search; a run typed in
  (``gpubench minimize ... --method subdomain-bnb``) gets ``local_starts = 8`` and
  ``constraint_propagation = none`` (on wherever the problem is unconstrained): issue 41.
* Upper bounding: before the first node, ``local_starts`` descents (L-BFGS-B in the domain,
  :meth:`SubdomainSearch.descend`, each run to its end in pieces: Rosenbrock n = 1,000 needs about
  4,900 iterations, and 100 left GUB at 867) from Halton points over the domain, the best
  end point polished (``polish``: snap to binary grids, compass search), give the first
  incumbent (unconstrained problems; MAiNGO's preprocessing runs such a multistart,
  ``PRE_maxLocalSearches``; without it the midpoint solves below stopped Levy n = 10 at a local
  minimum, GUB 3.11, for good).  Then a local solve from the midpoint of the subdomain holding
  the node's lower bound (SciPy SLSQP with constraints, L-BFGS-B without), kept
  only when the point forms show it feasible within the tolerances.  By default
  (``ubp="improving"``) it runs while there is no incumbent and then only where
  that midpoint's objective value beats the incumbent (the midpoint itself is
  always tried); ``ubp="every-node"`` solves at every node.  Every incumbent's value is
  verified: the upper end of the outward-rounded interval form on its point box
  (:meth:`SubdomainSearch.value`), never the float point value.
* The certified lower bound ``glb`` is the minimum over the open nodes and
  over every node fathomed by the bound test, so it never depends on the
  incumbent being exactly feasible.  For ``sense="max"`` the search minimises
  -f and reports ``fun``, ``glb`` and ``gub`` in f's sense (then ``gub`` is the
  certified bound and ``glb`` the incumbent).
* Constraint propagation (``constraint_propagation``; ``none``: on for an unconstrained
  problem, as in MAiNGO, off for a constrained one; ``false`` is the first column of the paper's
  Table 2, ``true`` its second, where MAiNGO propagates the objective bound f <= UB through its
  expression graph): before a node is bounded its box is narrowed to where f <= UB can hold,
  first by HC4-revise through the definition's expression (:mod:`gpubench.forms.levelset`),
  then by the mean value form of that constraint (:func:`gpubench.methods.solver.contract.contract`),
  both outward rounded, UB the incumbent's verified value; a box where it cannot hold is dropped
  (no global minimiser lies there).  Unconstrained problems only: an incumbent feasible within
  ``feas_tol`` does not bound a constrained minimum.  On Levy n = 10 the two together close
  the gap at the root (0.08 s on the CPU) where bisection alone was at GLB -800 after 20 s.
* Limits: ``max_nodes`` and ``time_limit`` (the shared setting; 3,600 s by
  default), checked through :class:`gpubench.methods.monitor.Deadline`
  before each node is taken: a search stopped there returns its incumbent and
  its current bounds with ``stop='time_limit'``.
* Resumable (``Method.resumable``): a case of ``gpubench reproduce`` keeps its checkpoint beside its
  record (the open nodes, the incumbent, the counters, the history), saved every
  ``--checkpoint-every`` seconds and at Ctrl-C or SIGTERM; the next command, on any machine, goes on
  from it with the same nodes in the same order, its time limit counting every part's seconds
  (paper 001's Table 4 rows take the paper's 11 minutes and more, longer than one command on the
  GPU host).  A search stopped during its first multistart resumes without the starts not yet made.
"""
import heapq
import math
import time
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..errors import InputError
from .monitor import Deadline, report
from .solver.contract import contract
from .base import Method, MethodSettings, setting, time_limit_setting
# the bounding half (re-exported: scripts and tests name them here)
from .subdomain_bounds import (CPU_EXTENSION, GPU_EXTENSION, PAPER_CUDA_CORES, _Bounder,  # noqa: F401
                               cuda_cores, parts_per_dim)

NAME = "subdomain-bnb"
FORMS = ("natural", "mean-value", "best")
FORM_CODE = {"natural": 0, "mean-value": 1, "best": 2}
# a multistart descent (SubdomainSearch.descend): the share of the gap tolerance a piece must lower
# the bound by for the next piece to run
GAIN_SHARE = 1e-3


@dataclass
class SubdomainBnBSettings(MethodSettings):
    backend: str = setting("auto", "auto | cpu | cuda (cuda: one GPU thread per subdomain)",
                           choices=("auto", "cpu", "cuda"))
    cpu_parallel: bool = setting(True, "CPU backend: subdomains in parallel (numba prange); false = "
                                       "the paper's serial CPU baseline")
    subdomains: int = setting(1024, "subdomains per node (N; 1 = the single-interval baseline); "
                                    "0 with partition=adaptive = the GPU's core count", minimum=0)
    partition: str = setting("uniform", "uniform: m parts per dimension (m^d <= N); largest: the "
                                        "widest dimension only; adaptive: Sec. 3.1.2",
                             choices=("uniform", "largest", "adaptive"))
    form: str = setting("mean-value", "inclusion form of objective and constraints on a subdomain",
                        choices=FORMS)
    branching: str = setting("widest", "variable bisected at a node", choices=("widest", "widest-relative"))
    eps_abs: float = setting(1e-2, "absolute gap tolerance (MAiNGO's epsilonA)", minimum=0.0)
    eps_rel: float = setting(1e-2, "relative gap tolerance (MAiNGO's epsilonR)", minimum=0.0)
    feas_tol: float = setting(1e-6, "feasibility tolerance of an incumbent, |h| and g (MAiNGO's deltaEq/Ineq)",
                              minimum=0.0)
    max_nodes: int = setting(1_000_000, "node (iteration) limit", minimum=1)
    time_limit: Optional[float] = time_limit_setting(3600.0)
    local_solve: bool = setting(True, "upper bounding by a local solve (false: midpoint value only)")
    ubp: str = setting("improving", "when to run the local solve: every node, or only while there is no "
                                    "incumbent and where the best subdomain's midpoint beats it",
                       choices=("every-node", "improving"))
    local_starts: int = setting(0, "before the first node, descend (L-BFGS-B in the domain) from this many points "
                                   "of a Halton sequence over the domain; the best end point, polished (see polish), "
                                   "valued by its outward-rounded enclosure, is the first incumbent (unconstrained "
                                   "problems; MAiNGO's preprocessing multistart, PRE_maxLocalSearches; 0, the "
                                   "library default: paper 001's midpoint solves only; 8 typed in)", minimum=0)
    polish: bool = setting(True, "polish the multistart's best end point without derivatives (snap to binary grids, "
                                 "compass search; gpubench.methods.solver.local.polish)")
    constraint_propagation: Optional[bool] = setting(False, "narrow each node to where f <= UB can hold (HC4, "
                                                            "then the mean value form; unconstrained problems); "
                                                            "none: wherever the problem is unconstrained (typed in)")
    min_width: float = setting(1e-12, "a node narrower than this (relative to the root) is not split "
                                      "further; its bound stays in glb", minimum=0.0)

    def validate(self):
        if self.subdomains == 0 and self.partition != "adaptive":
            raise InputError(f"{NAME}: subdomains=0 (the GPU's cores) needs partition=adaptive")
        if self.eps_abs == 0.0 and self.eps_rel == 0.0:
            raise InputError(f"{NAME}: eps_abs and eps_rel cannot both be 0 (the search would never end)")


def g_excludes(clo, chi):
    """Subdomains an inequality g <= 0 proves infeasible: g > 0 on the whole subdomain."""
    return clo > 0.0


def h_excludes(clo, chi):
    """Subdomains an equality h = 0 proves infeasible: 0 outside h's enclosure."""
    return (clo > 0.0) | (chi < 0.0)


class SubdomainSearch:
    """The B&B of paper 001 on one (possibly constrained) problem; see the module docstring."""

    def __init__(self, fn, dim, s):
        from ..device.gpu import resolve_backend
        from ..forms.function import TestFunction
        self.s = s
        self.dim = dim
        self.constrained = bool(getattr(fn, "constrained", False))
        obj = fn.objective if self.constrained else fn
        self.name = fn.name
        self.maximise = obj.sense == "max"
        # the minimised function: f itself (its forms through its card: no sympy in a second process),
        # or -f for sense="max" (a function of the negated definition)
        self.obj = TestFunction(obj.definition.negated()) if self.maximise else obj
        self.gs = list(fn.inequalities) if self.constrained else []
        self.hs = list(fn.equalities) if self.constrained else []
        self.lo0, self.hi0 = obj.bounds(dim)
        self.backend = resolve_backend(s.backend, supported=("cpu", "cuda"))
        par = s.cpu_parallel and self.backend == "cpu"
        self.propagating = (not self.constrained) if s.constraint_propagation is None else s.constraint_propagation
        if s.constraint_propagation and self.constrained:
            raise InputError(f"{NAME}: constraint_propagation narrows boxes on the objective's level set, which "
                             f"an incumbent feasible only within feas_tol does not bound: unconstrained "
                             f"problems only")
        self.bounders = [_Bounder(f, dim, f.params(dim), self.backend, par)
                         for f in [self.obj] + self.gs + self.hs]
        self.form = FORM_CODE[s.form]
        from .solver.contract import levelset
        self.levelset = levelset(self.obj, dim)   # its program from the card (no sympy), kept on the function
        self.n_sub = cuda_cores() if s.subdomains == 0 else s.subdomains
        self.nfev = 0
        self.njev = 0
        self.lb_seconds = 0.0

    # ---------------------------------------------------------------- bounding
    def lower_bound(self, lo, hi):
        """(lower bound of the node, box of the subdomain attaining it) or (inf, None) if infeasible."""
        counts = parts_per_dim(hi - lo, self.n_sub, self.s.partition)
        t0 = time.perf_counter()
        flo, _ = self.bounders[0].bound(lo, hi, counts, self.form)
        ok = ~np.isnan(flo)
        flo = np.where(np.isnan(flo), -np.inf, flo)    # a NaN enclosure proves nothing
        ng = len(self.gs)
        for k, b in enumerate(self.bounders[1:]):
            clo, chi = b.bound(lo, hi, counts, self.form)
            ok &= ~(g_excludes(clo, chi) if k < ng else h_excludes(clo, chi))
        self.lb_seconds += time.perf_counter() - t0
        n = flo.size
        self.nfev += n * len(self.bounders)
        if self.s.form != "natural":
            self.njev += n * len(self.bounders)
        if not ok.any():
            return math.inf, None
        r = int(np.argmin(np.where(ok, flo, np.inf)))
        return float(flo[r]), self.bounders[0].boxes(r)

    # ---------------------------------------------------------------- upper bounding
    def feasible(self, x):
        tol = self.s.feas_tol
        return (all(g.point(x) <= tol for g in self.gs)
                and all(abs(h.point(x)) <= tol for h in self.hs))

    def value(self, x):
        """f at an incumbent, verified: the upper end of its outward-rounded interval form on the
        point box [x, x] (inf where f is undefined there).  The point form's float value can lie
        below the real f(x) by its rounding errors, and for a function with a jump (Floor, Trunc,
        Rint) by the whole jump (at the double x = 0.6, just below 3/5, 5x rounds to 3: floor
        gives 3 where the real value is 2); an incumbent below f* would let the bound test drop
        the node that holds the minimum."""
        v = float(self.obj.interval(x, x)[1])
        return v if not math.isnan(v) else math.inf

    def multistart(self, deadline=None):
        """(value, x): the first incumbent: descents (:meth:`descend`) from ``local_starts`` points,
        the best end point polished (:func:`gpubench.methods.solver.local.multistart`), valued by
        :meth:`value`; None when there is none (no starts, a constrained problem, or no finite
        value).  ``deadline`` (the search's): no descent starts, and the polish stops, once it has passed."""
        from .solver.local import multistart
        if self.s.local_starts <= 0 or self.constrained:
            return None
        late = (lambda: False) if deadline is None else (lambda: deadline.check() is not None)
        best = multistart(self.obj, self.lo0, self.hi0, self.s.local_starts, polished=self.s.polish,
                          descent=lambda x0: self.descend(x0, late), stop=late)
        if best is None:
            return None
        v = self.value(best[0])
        return (v, best[0]) if math.isfinite(v) else None

    def descend(self, x0, late=lambda: False):
        """(x, bound): a descent from ``x0`` run to its end (:func:`gpubench.methods.solver.local.descend_to_end`)
        while a piece lowers the bound by more than GAIN_SHARE of the gap tolerance there."""
        from .solver.local import descend_to_end
        return descend_to_end(self.obj, x0, self.lo0, self.hi0, stop=late,
                              enough=lambda ub: GAIN_SHARE * max(self.s.eps_abs, self.s.eps_rel * abs(ub)))

    def upper_bound(self, box, ub=math.inf):
        """(value, x) of a feasible local solution from the box's midpoint, or None."""
        from scipy.optimize import minimize as sp_minimize
        lo, hi = box
        x0 = np.clip(0.5 * (lo + hi), self.lo0, self.hi0)
        cands = [x0]
        solve = self.s.local_solve
        if solve and self.s.ubp == "improving" and math.isfinite(ub):
            # a local solve costs milliseconds; one per node dominated the B&B's time
            solve = self.obj.point(x0) < ub
        if solve:
            bounds = list(zip(self.lo0, self.hi0))
            f = lambda x: self.obj.point(np.clip(x, self.lo0, self.hi0))          # noqa: E731
            jac = lambda x: self.obj.gradient(np.clip(x, self.lo0, self.hi0))     # noqa: E731
            try:
                if self.gs or self.hs:
                    cons = [{"type": "ineq", "fun": (lambda x, g=g: -g.point(x)),
                             "jac": (lambda x, g=g: -g.gradient(x))} for g in self.gs]
                    cons += [{"type": "eq", "fun": (lambda x, h=h: h.point(x)),
                              "jac": (lambda x, h=h: h.gradient(x))} for h in self.hs]
                    r = sp_minimize(f, x0, jac=jac, method="SLSQP", bounds=bounds, constraints=cons,
                                    options={"maxiter": 100, "ftol": 1e-10})
                else:
                    r = sp_minimize(f, x0, jac=jac, method="L-BFGS-B", bounds=bounds,
                                    options={"maxiter": 200})
                self.nfev += int(getattr(r, "nfev", 0))
                self.njev += int(getattr(r, "njev", 0) or 0)
                if np.all(np.isfinite(r.x)):
                    cands.append(np.clip(r.x, self.lo0, self.hi0))
            except (ValueError, ArithmeticError):   # a failed local solve only loses a candidate
                pass
        best = None
        for x in cands:
            v = self.value(x)
            if np.isfinite(v) and self.feasible(x) and (best is None or v < best[0]):
                best = (v, x)
        return best

    def propagate(self, lo, hi, ub):
        """The node narrowed to where f <= ub can hold (None: nowhere): HC4-revise through the
        definition's expression (:class:`gpubench.forms.levelset.LevelSet`), then the mean value
        form of the level set (:func:`gpubench.methods.solver.contract.contract`)."""
        box = self.levelset.contract(lo, hi, ub)
        if box is None:
            return None
        return contract(self.obj, box[0], box[1], ub)

    # ---------------------------------------------------------------- search
    def branch_dim(self, lo, hi):
        w = hi - lo
        if self.s.branching == "widest-relative":
            root = self.hi0 - self.lo0
            w = np.where(root > 0, w / np.where(root > 0, root, 1.0), 0.0)
        return int(np.argmax(w))

    def state(self, heap, ub, xbest, pruned_min, serial, it, root_lb, hist, seconds):
        """The whole search state, for a checkpoint: the open nodes (keys, serials, boxes), the
        incumbent, the counters and the history; floats as they are (JSON's exact repr, arrays raw)."""
        d = self.dim
        return {"keys": np.array([h[0] for h in heap], dtype=float),
                "serials": np.array([h[1] for h in heap], dtype=np.int64),
                "lo": np.array([h[2] for h in heap], dtype=float).reshape(-1, d),
                "hi": np.array([h[3] for h in heap], dtype=float).reshape(-1, d),
                "ub": ub, "x": None if xbest is None else np.asarray(xbest, dtype=float),
                "pruned_min": pruned_min, "serial": serial, "it": it, "root_lb": root_lb,
                "hist": {k: np.asarray(v, dtype=float) for k, v in hist.items()}, "seconds": seconds,
                "nfev": self.nfev, "njev": self.njev, "lb_seconds": self.lb_seconds}

    def restore(self, st):
        """(heap, ub, xbest, pruned_min, serial, it, root_lb, hist, seconds) of a saved :meth:`state`;
        the heap is rebuilt from its items as saved (a heap's list order is a valid heap again)."""
        self.nfev, self.njev, self.lb_seconds = int(st["nfev"]), int(st["njev"]), float(st["lb_seconds"])
        heap = [(float(k), int(n), lo.copy(), hi.copy())
                for k, n, lo, hi in zip(st["keys"], st["serials"], st["lo"], st["hi"])]
        hist = {k: [int(x) if k == "iteration" else float(x) for x in v] for k, v in st["hist"].items()}
        x = None if st["x"] is None else np.asarray(st["x"], dtype=float)
        return (heap, float(st["ub"]), x, float(st["pruned_min"]), int(st["serial"]), int(st["it"]),
                None if st["root_lb"] is None else float(st["root_lb"]), hist, float(st["seconds"]))

    def run(self, checkpoint=None):
        """The search; ``checkpoint`` (a :class:`gpubench.methods.checkpoints.Checkpoint`, the runner's
        for a case of ``gpubench reproduce``) saves the state every so often and at Ctrl-C or SIGTERM
        (then raises its Interrupted), and a search that finds one saved goes on from it: the same
        nodes in the same order, its time limit counting the seconds of every part."""
        s = self.s
        st = checkpoint.state if checkpoint is not None else None
        if st is not None:
            heap, ub, xbest, pruned_min, serial, it, root_lb, hist, spent = self.restore(st)
        else:
            ub, xbest = math.inf, None
            pruned_min = math.inf             # smallest bound of a node fathomed by the bound test
            heap = [(-math.inf, 0, self.lo0.copy(), self.hi0.copy())]
            serial = 1
            it = 0
            root_lb = None
            hist = {"iteration": [], "glb": [], "gub": [], "seconds": []}
            spent = 0.0
        deadline = Deadline.of(s, spent=spent)
        t0 = deadline.start
        if checkpoint is not None:
            checkpoint.begin(it, spent)
        root_w = float(np.max(self.hi0 - self.lo0))
        status, message = "node_limit", ""
        if st is None:
            first = self.multistart(deadline)
            if first is not None:
                ub, xbest = first

        def fathom_tol(u):
            return max(s.eps_abs, s.eps_rel * abs(u)) if math.isfinite(u) else 0.0

        def record(glb):
            if self.maximise:  # the progress line, in f's sense
                report(best=-ub if math.isfinite(ub) else None, glb=-ub, gub=-glb)
            else:
                report(best=ub if math.isfinite(ub) else None, glb=glb, gub=ub)
            hist["iteration"].append(it)
            hist["glb"].append(glb)
            hist["gub"].append(ub)
            hist["seconds"].append(time.perf_counter() - t0)

        while True:
            open_min = heap[0][0] if heap else math.inf
            glb = min(open_min, pruned_min)
            if not hist["glb"] or hist["glb"][-1] != glb or hist["gub"][-1] != ub:
                record(glb)
            if not heap:
                status = "converged" if math.isfinite(ub) or math.isfinite(pruned_min) else "infeasible"
                if math.isfinite(ub) and glb < ub - fathom_tol(ub):
                    status = "min_width"   # nodes too narrow to split kept bounds below the gap
                break
            if math.isfinite(ub) and (ub - glb <= s.eps_abs or ub - glb <= s.eps_rel * abs(ub)):
                status = "converged"
                break
            if it >= s.max_nodes:
                status = "node_limit"
                break
            if checkpoint is not None:   # saved when due; at Ctrl-C or SIGTERM saved, then Interrupted
                checkpoint.tick(lambda: (self.state(heap, ub, xbest, pruned_min, serial, it, root_lb, hist,
                                                    time.perf_counter() - t0), it, time.perf_counter() - t0))
            if deadline.check():
                status = deadline.reason   # time_limit, or interrupted (Ctrl-C)
                break
            key, _, lo, hi = heapq.heappop(heap)
            it += 1
            if key >= ub - fathom_tol(ub):
                pruned_min = min(pruned_min, key)
                continue
            if self.propagating and xbest is not None:
                box = self.propagate(lo, hi, ub)
                if box is None:
                    continue                       # f > UB on the whole box: no minimiser here
                lo, hi = box
            lb, box = self.lower_bound(lo, hi)
            if box is None:
                continue                                   # provably infeasible node
            lb = max(lb, key)                              # the parent's bound holds on the child
            if self.propagating:
                # the level set's own enclosure (a term of one coordinate enclosed on pieces of it:
                # on a separable function far sharper than the subdomains' bound)
                lb = max(lb, float(self.levelset.enclose(lo, hi)[0]))
            if not math.isfinite(lb) and not self.constrained:
                # a NaN on some subdomain (a mean value form through sqrt at 0, say) proves nothing
                # there; the natural form on the whole node still bounds it (issue 41: Ackley's node
                # contracted to 1e-13 around x* kept GLB = -inf)
                nat = float(self.obj.interval(lo, hi)[0])
                lb = max(lb, nat) if not math.isnan(nat) else lb
            if root_lb is None:
                root_lb = lb
            cand = self.upper_bound(box, ub)
            if cand is not None and cand[0] < ub:
                ub, xbest = cand           # ub is f(xbest) enclosed (value): the level propagation uses
            if lb >= ub - fathom_tol(ub):
                pruned_min = min(pruned_min, lb)
                continue
            k = self.branch_dim(lo, hi)
            if hi[k] - lo[k] <= s.min_width * max(root_w, 1.0):
                pruned_min = min(pruned_min, lb)           # cannot split further: keep its bound
                continue
            mid = 0.5 * (lo[k] + hi[k])
            for a, b in ((lo[k], mid), (mid, hi[k])):
                clo, chi = lo.copy(), hi.copy()
                clo[k], chi[k] = a, b
                heapq.heappush(heap, (lb, serial, clo, chi))
                serial += 1
        if root_lb is None and status == "infeasible":
            root_lb = math.inf
        glb_min = glb
        if checkpoint is not None:
            checkpoint.end(it, time.perf_counter() - t0)
        return dict(status=status, ub=ub, x=xbest, glb=glb_min, iterations=it, root_lb=root_lb,
                    history=hist, seconds=time.perf_counter() - t0, open_nodes=len(heap))


def run(fn, dim, s, checkpoint=None):
    from ..result import OptimizeResult
    search = SubdomainSearch(fn, dim, s)
    out = search.run(checkpoint)
    sign = -1.0 if search.maximise else 1.0
    ub, glb = out["ub"], out["glb"]
    # in f's sense: for a maximum the certified bound is the upper one
    lo_b, hi_b = (glb, ub) if not search.maximise else (-ub, -glb)
    hist = out["history"]
    if search.maximise:
        hist = {**hist, "glb": [-v for v in hist["gub"]], "gub": [-v for v in hist["glb"]]}
    messages = {"converged": "gap closed within eps_abs/eps_rel",
                "infeasible": "every node is provably infeasible",
                "node_limit": f"node limit {s.max_nodes} reached",
                "min_width": "the gap stayed open on nodes narrower than min_width",
                "time_limit": f"time limit {s.time_limit} s reached", "interrupted": "stopped by Ctrl-C"}
    opts = s.as_dict()
    opts["subdomains_used"] = search.n_sub
    opts["counts_root"] = parts_per_dim(search.hi0 - search.lo0, search.n_sub, s.partition).tolist()
    if s.backend == "auto" and search.backend == "cpu":
        opts["note"] = "no GPU: ran the CPU twin"
    root = out["root_lb"]
    return OptimizeResult(
        function=search.name, dim=dim, method=NAME, backend=search.backend,
        x=None if out["x"] is None else np.asarray(out["x"]),
        fun=None if not math.isfinite(ub) else sign * ub,
        glb=_f(lo_b), gub=_f(hi_b), iterations=out["iterations"], nfev=search.nfev, njev=search.njev,
        seconds=out["seconds"], converged=out["status"] in ("converged", "infeasible"),
        message=messages[out["status"]], status=out["status"], history=hist,
        stop={"converged": "converged", "infeasible": "converged", "node_limit": "nodes", "min_width": "failed",
              "time_limit": "time_limit", "interrupted": "interrupted"}[out["status"]],
        timing={"lower_bounding_seconds": search.lb_seconds, "total_seconds": out["seconds"],
                "root_lower_bound": None if root is None else sign * root,
                "open_nodes": out["open_nodes"]},
        options=opts)


def _f(v):
    return float(v)


def _warmup(fn, dim, s):
    """One node compiles every kernel of this problem for the backend, and the point forms and
    gradients the local solve and the feasibility test use (their compile would land in the
    first timed run otherwise).  One local start, unpolished, loads what the multistart uses (the
    level set's guess, the point form, its gradient, the interval form): the whole multistart,
    run to its end, took as long as the timed run again at n = 1,000 (Rosenbrock 13.8 s, Levy 19 s
    on the 2-core VM)."""
    import dataclasses
    run(fn, dim, dataclasses.replace(s, max_nodes=1, local_starts=min(s.local_starts, 1), polish=False))


def _interactive(dim, given):
    """A typed-in run's strongest search (issue 41); the library's defaults stay paper 001's."""
    from .base import Chosen
    out = {}
    if "local_starts" not in given:
        out["local_starts"] = Chosen(8, "a typed-in run starts from the best of 8 descents (0: paper 001's "
                                        "midpoint solves only)")
    if "constraint_propagation" not in given:
        out["constraint_propagation"] = Chosen(None, "a typed-in run propagates f <= UB on an unconstrained "
                                                     "problem (false: paper 001's first column)")
    return out


METHOD = Method(
    name=NAME,
    summary="Spatial B&B, each node bounded on N temporary subdomains (natural / mean value form)",
    settings=SubdomainBnBSettings,
    run=run,
    rigorous=True,
    backends=("cpu", "cuda"),
    launches=True,
    source="Zhang, Kerkenhoff, Kichler, Dahmen, Mitsos, Naumann & Bongartz, "
           "GPU-parallel interval arithmetic for deterministic global optimization, Sections 3.1-3.2",
    warmup=_warmup,
    interactive=_interactive,
    constraints=True,
    resumable=True,
)
