"""The steps the paper's search (:mod:`.core`) does not take, which the settings ``local_starts``,
``local_search``, ``polish`` and ``contract`` turn on (variant strong turns on all four:
:mod:`.settings`): descents from local starts and the polish that lower GUB, and the contraction
of the selected box (and before the device loop, of the root) to where f <= GUB can hold, with the
gate that weighs a contraction's cost against a sweep's.  :class:`.core.Search` takes them from
:class:`StrongSteps`.
"""
import math
import time

import numpy as np

from ..monitor import interrupted
from .contract import contract_floor, convex_floor, levelset
from .partition import child_boxes, diagonal_point, kept_whole
from .region_list import ROOT
from .settings import sample_fractions

# selected boxes contracted before Search._contraction_pays weighs a contraction's cost against a sweep's
CONTRACT_PROBE = 8


class StrongSteps:
    """:class:`.core.Search`'s local starts, descents, polish and contractions (``self`` is the Search)."""

    def _contraction_pays(self):
        """Whether to contract the selected box: always for the first CONTRACT_PROBE boxes (the root's
        floor and contraction close many searches at once), then while a contraction costs no more than
        a sweep (mean seconds of each in this search): a contraction that drops the box saves at most
        that box's sweep.  Where the sweep is the GPU's and the contraction the host's walk of a long
        expression (scipy_go.Colville n = 4 on CUDA, whose definition has no split sweep, so the host
        loop: ~4x a sweep each), contracting every box made variant strong 4x slower an iteration
        than the paper's search and left the gap at 2.76 after 10 s where the paper's closed it; the
        device loop leaves these contractions out for the same reason (settings.at_scale)."""
        done, swept = self.contract_cost, self.sweep_cost
        if done[1] < CONTRACT_PROBE or swept[1] < CONTRACT_PROBE:
            return True
        if done[0] / done[1] <= swept[0] / swept[1]:
            return True
        self.contract_stats["skipped"] = self.contract_stats.get("skipped", 0) + 1
        return False

    def _floored(self, sidx, lb, floor):
        """The subregions' lower bounds raised to ``floor``, a lower bound of f over the selected box
        that holds them all (so over each of them: :func:`.contract.contract_floor`), and those whose
        bound then exceeds GUB left out (they hold no point with f <= GUB).  Near a minimiser the
        subregions' own forms are the sharper; over a wide selected box the level set's enclosure
        (one-coordinate terms on refined pieces) often is: Shubert03 n = 10's root children were
        bounded near -142 by their own forms, the root's floor is f* - 1e-9."""
        if not floor > -math.inf:
            return sidx, lb
        raised = np.maximum(lb, floor)
        keep = raised <= self.state.gub
        if np.any(raised != lb):
            self.contract_stats["floored"] = self.contract_stats.get("floored", 0) + 1
        return sidx[keep], raised[keep]

    def _chained(self, sel_lo, sel_hi, plan, sidx, lb):
        """The surviving subregions' lower bounds raised to their chain bounds where f is one chained
        sum (:meth:`gpubench.forms.levelset.LevelSet.children_floor`; off with the chain, which
        ``chain_cells`` says), and those then above GUB left out."""
        ls = levelset(self.fn, self.dim, self.maximise)
        if not ls.chain_cells() or not (math.isfinite(self.state.gub) and self._bounded(sel_lo, sel_hi)):
            return sidx, lb
        t0 = time.perf_counter()
        clo, chi = child_boxes(sel_lo, sel_hi, plan, sidx)
        bound = ls.children_floor(sel_lo, sel_hi, clo, chi)
        self.host_seconds += time.perf_counter() - t0
        if bound is None:
            return sidx, lb
        raised = np.maximum(lb, np.where(np.isnan(bound), -math.inf, bound))
        keep = raised <= self.state.gub
        return sidx[keep], raised[keep]

    def _contract_selected(self, sel_lo, sel_hi, cyc, inherited=-math.inf):
        """``(box, floor)``: the selected box narrowed to where f <= GUB can hold (:func:`.contract.contract`)
        and a lower bound of f over it (the level set's enclosure, and the tangent plane at the GUB
        point where f is proved convex there: :func:`.contract.contract_floor`, :func:`.contract.convex_floor`;
        -inf where none), or box None where that closed the iteration: no point of it has f <= GUB
        (no minimiser, no children), or the box left is narrower than tol and goes back into L whole
        (:meth:`_keep_whole`).  ``inherited``: a lower bound of f over the selected box known before (its
        bound in L), which the floor is raised to."""
        st = self.state
        if not (math.isfinite(st.gub) and self._bounded(sel_lo, sel_hi)):
            return (sel_lo, sel_hi), inherited
        box, floor = self._contraction(sel_lo, sel_hi)
        floor = max(floor, inherited)
        if box is None or floor > st.gub:
            self.contract_stats["dropped"] += 1
            self._close_iteration(it=st.iteration, sel_lo=sel_lo, sel_hi=sel_hi, cyc=cyc)
            return None, floor
        if np.any(box[0] != sel_lo) or np.any(box[1] != sel_hi):
            self.contract_stats["narrowed"] += 1
        if np.max(box[1] - box[0]) < self.settings.tol and self._keep_whole(box[0], box[1], cyc, floor):
            return None, floor
        return box, floor

    def _contraction(self, lo, hi):
        """``(box, floor)`` of :meth:`_contract_selected` for the box [lo, hi] at the current GUB and GUB
        point: :func:`.contract.contract_floor`, the floor raised by :func:`.contract.convex_floor`.  The
        multistart's proof of the root (:meth:`_root_proved`) leaves its answer here, and the root's
        contraction that follows at the same GUB takes it instead of computing it again."""
        st = self.state
        key = (st.gub, None if st.best_x is None else tuple(st.best_x), lo.tobytes(), hi.tobytes())
        kept, self._kept_contraction = self._kept_contraction, None
        if kept is not None and kept[0] == key:
            return kept[1]
        t0 = time.perf_counter()
        box, floor = contract_floor(self.fn, lo, hi, st.gub, self.maximise)
        if box is not None and st.best_x is not None:   # where f is proved convex on the box
            floor = max(floor, convex_floor(self.fn, *box, st.best_x, self.maximise))
        self.host_seconds += time.perf_counter() - t0
        return box, floor

    def _root_proved(self):
        """Whether the root's contraction at the current GUB (what the first iteration, or before the
        device loop :meth:`_contract_root`, does next) leaves a box narrower than tol, which then goes
        back into L whole (:meth:`_keep_whole`): every point of the domain with f <= GUB lies in it, so a
        descent from a further local start could end lower only inside it, where the polish has just
        been.  Its contraction is kept for that iteration (:meth:`_contraction`)."""
        st = self.state
        lo, hi = self.region(ROOT, 0)
        if not (math.isfinite(st.gub) and self._bounded(lo, hi)):
            return False
        box, floor = self._contraction(lo, hi)
        self._kept_contraction = ((st.gub, None if st.best_x is None else tuple(st.best_x),
                                   lo.tobytes(), hi.tobytes()), (box, floor))
        return box is not None and floor <= st.gub and bool(np.max(box[1] - box[0]) < self.settings.tol)

    def _contracts_root_next(self):
        """Whether the root is contracted right after the multistart: the host loop's first iteration
        with ``contract``, or the device loop's :meth:`_contract_root`."""
        st = self.state
        return (st.iteration == 0 and len(st.regions) == 1
                and (self.root_contract if self.loop == "device" else bool(self.settings.contract)))

    def _contract_root(self):
        """Variant strong on CUDA (settings.at_scale, n <= STRONG_MAX_DIM): the root contracted on the
        host before the device loop's first launch, as the host loop contracts it in its first
        iteration.  Where that closes the iteration (kept whole: Levy is then solved with no sweep)
        the search is done; else the root goes back into L and the device loop sweeps the narrowed box
        (``root_box``, its slot 0) in its first iteration.  Later selected boxes are not contracted."""
        st = self.state
        itr, cyc, sidx, lb = st.regions.pop_best_open()
        box, floor = self._contract_selected(*self.region(itr, sidx), cyc)
        if box is not None:   # back into L, its bound raised to the floor (the device loop's children are not)
            self.root_box = box
            st.regions.append(itr, cyc, True, [sidx], [max(lb, floor)])

    def _keep_whole(self, sel_lo, sel_hi, cyc, floor=-math.inf):
        """A contracted selected box already narrower than tol in every coordinate: its p^s subregions
        would all be closed, so it goes back into L whole (closed), its lower bound the outward-rounded
        natural enclosure of f over it, without the sweep (on the H200 a sweep of 4^10 subregions was
        most of variant strong's Levy n = 50, which contraction pins to one box in one iteration).
        It holds every minimiser of the selected region (the contraction's guarantee); with a lower
        bound above GUB it holds none and is dropped.  False (nothing done: the sweep runs) where f's
        enclosure is not a number there."""
        st = self.state
        flo, fhi = self.fn.interval(sel_lo, sel_hi)
        lb = -fhi if self.maximise else flo
        if math.isnan(flo) or math.isnan(fhi):
            return False
        lb = max(lb, floor)
        self.contract_stats["kept_whole"] = self.contract_stats.get("kept_whole", 0) + 1
        st.nfev += 1
        if lb <= st.gub:
            st.regions.append(st.iteration, cyc, False, [0], [lb])
        self._close_iteration(st.iteration, sel_lo, sel_hi, kept_whole(cyc))
        return True

    def _after_lowered_gub(self, box):
        """A sample of ``box`` (its subregion) lowered GUB: the local search and the polish from it,
        as set (the host loop in its iteration, the device loop between launches)."""
        if self.settings.local_search:
            self._descend(box)
        if self.settings.polish:
            self._polish(box)

    def _descend(self, box):
        """Local search for an upper bound (:mod:`.local`) from the best sample of ``box``."""
        from .local import descend
        st = self.state
        if self._late():
            return
        found = descend(self.fn, self._best_of(box), self.dom_lo, self.dom_hi, self.maximise)
        if found is not None and found[1] < st.gub:
            st.gub = found[1]
            st.best_x = found[0].tolist()

    def _multistart(self):
        """Descents from ``local_starts`` points of a Halton sequence over the domain (:func:`.local.starts`),
        before the first iteration: each end point's rigorous upper bound lowers GUB when lower (then
        the polish, when on, moves the best of them)."""
        from .local import descend, starts
        st = self.state
        # where the root's contraction comes next, the first start's end point is polished at once and the
        # root contracted at that GUB: a box narrower than tol ends the starts (Levy, Rastrigin, Ackley
        # n = 50: 7 of 8 descents, each to a local minimum the polish then left, were half the solve)
        probe = self.polish_starts and self._contracts_root_next()
        polished = None
        t0 = time.perf_counter()
        points = starts(self.dom_lo, self.dom_hi, self.settings.local_starts, fn=self.fn, maximise=self.maximise)
        self.host_seconds += time.perf_counter() - t0
        for i, p in enumerate(points):
            if self._late():
                break
            t0 = time.perf_counter()
            found = descend(self.fn, p, self.dom_lo, self.dom_hi, self.maximise)
            self.host_seconds += time.perf_counter() - t0
            if found is not None and found[1] < st.gub:
                st.gub = found[1]
                st.best_x = found[0].tolist()
            if i == 0 and probe and st.best_x is not None:
                self._polish(None)
                polished = st.best_x
                if self._root_proved():
                    return
        if self.polish_starts and st.best_x is not None and st.best_x is not polished:
            self._polish(None)

    def _late(self):
        """Whether the search's time limit has passed (or Ctrl-C asked it to stop): the host work
        inside an iteration (the multistart's descents, a descent or a polish after GUB is lowered)
        then stops, so that the search stops at most one sweep past its limit.  Before this the
        deadline was checked between iterations only, and the first iteration's 8 descents and
        polish ran to their end whatever the limit (seconds at n = 1,000)."""
        return self.deadline is not None and (self.deadline.expired() or interrupted())

    def _best_of(self, box):
        """The sample of ``box`` with the best float value (where a descent or a polish starts)."""
        cfg = self.settings
        points = [diagonal_point(*box, m, *sample_fractions(cfg.spacing, cfg.samples))
                  for m in range(1, cfg.samples + 1)]
        values = [self.fn.point(p) for p in points]
        return points[int(np.argmax(values) if self.maximise else np.argmin(values))]

    def _polish(self, box):
        """Derivative-free polish (:func:`.local.polish`) of the point that holds GUB: the local
        search's end point, or else the best sample of ``box`` (the subregion whose sample lowered GUB)."""
        from .local import polish
        st = self.state
        if self._late():
            return
        start = np.asarray(st.best_x, dtype=np.float64) if st.best_x is not None else self._best_of(box)
        t0 = time.perf_counter()
        found = polish(self.fn, start, self.dom_lo, self.dom_hi, self.maximise, stop=self._late)
        self.host_seconds += time.perf_counter() - t0
        if found is not None and found[1] < st.gub:
            st.gub = found[1]
            st.best_x = found[0].tolist()

    def _bounded(self, lo, hi):
        """Whether f's enclosure over the box is finite, so that contraction may narrow it.

        Contraction keeps the points where f <= GUB can hold, and the backward rules of log (and
        any rule that knows an operation's domain) drop the points where f has no value.  The
        gradient test then rules out a subregion on which f is monotone unless its descending face
        lies on the domain's boundary, which is sound only where f has values beyond that face:
        log(x) over [-1, 4] contracted to [0, 4] lost every region that way (f increases away from
        0, and 0 is inside the domain), where the search must instead stop with "undefined on part
        of its domain".  An enclosure that is NaN or unbounded (log near 0: -inf) is where that can
        happen; such a box is swept uncontracted, as the paper's variant sweeps it."""
        flo, fhi = self.fn.interval(lo, hi)
        return math.isfinite(flo) and math.isfinite(fhi)
