"""The whole iteration on the GPU (``Settings.loop = "device"``; issue 26, docs/solver-scaling.md).

The host loop (:meth:`core.Search._iterate`) selects a region, builds the
iteration's tables (:func:`uncut.prepare_split`), launches the sweep and its
reductions, and keeps the list L; so every iteration waits for the GPU once
and crosses the bus several times.  Here L, the selected boxes, the tables,
GUB and the history live in device memory, and one cooperative launch of
``device_loop`` (:mod:`.spliced.loop`, spliced by :mod:`.kernels`) runs iterations until
a given count: selection, the selected box, the tables, the sweep with the
best sample folded in, GUB, pruning and the survivors' append, each phase
separated from the next by a grid-wide sync.  The host launches a *batch* of
iterations, reads back a small header and the batch's history, and checks the
time limit, progress and checkpoints between batches.

It decides exactly as the host loop: the same operations in the same order
(the tables: every window's terms in parallel through the generated form
``window_terms``, folded in index order as ``aggregates_rest`` and
``uncut_tables`` fold them on the host; the selection is the first smallest
open lower bound in list order; the list is kept in the host's order by a
stable compaction), so iterations, regions, GLB and GUB are identical
(tests/test_devloop.py).  One difference that decides nothing: with several
aggregates a candidate column of the plain-coordinate test is compared only
with the last 8 kept for repeats (the host drops every repeat; equal columns
with equal edge flags decide alike).

It serves more than the paper's variant (issue 42): the gap stop (``gap_tol``: the launch stops
where the host loop would), inclusion "best" (a mean value form of its own in the split sweep:
:func:`.spliced.subregion._mean_value_bound`, so a different search from the host loop's full
evaluation, both rigorous), and the local search and polish after a lowered GUB (the launch stops
after such an iteration, stop code LOWERED, and the host descends before the next: the host loop's
search).  The local starts run on the host before the first launch, and variant strong's root is
contracted there too (``Search._contract_root``: slot 0's box is then the contracted root).

Entries of L are (subregion index int32, slot int32, lower bound float64);
the slot of an entry made in iteration j is j + 1 and slot 0 is the root (the
domain).  Per slot the device keeps the selected box of that iteration, its
cycling index and whether its children are open.
"""
import math
import time

import numpy as np

from ...forms import carded  # load: through the function's card where it has one (no sympy)
from ...device.gpu import phase
from ..monitor import stopped
from . import kernels
from .region_list import ROOT
from .settings import sample_fractions
from .region_list import RegionList

# ist: the device state's integers; fst: its floats (the kernel names the same positions)
IT, SIZE, STOP, NOPEN, SELPOS, SELSLOT, SELSIDX, SELCYC = range(8)
BESTIT, BESTIDX, NJEV, NCAND, NSPEC, NWIN2, NINF, NEWSIZE, NEWOPEN, VTOTAL, DTOTAL = range(8, 19)
# BUF: which of the two list buffers holds L; DEAD: its removed entries (lower bound NaN, left in place
# until L is next compacted whole); WHOLE: whether this iteration compacts L whole (spliced.loop, step 6)
BUF, DEAD, WHOLE = range(19, 22)
NIST = 22
# GUBC: the GUB that L was last compacted (pruned) by
GUB, MAXW, GLB, ULO, UHI, GUBC = range(6)
NFST = 6
# stop codes: the list needs more room, every region was ruled out, a survivor has lower bound -inf, a
# sample lowered GUB (with local search or polish: the host descends from it before the next iteration)
FULL, EMPTY, UNDEFINED, LOWERED = 1, 2, 3, 4

# threads a block on a GPU (the simulator: SIM_GRID): a power of two <= reduce.TPB, the size of the kernel's
# block folds' shared arrays
TPB = 128
SIM_GRID = (1, 16)  # blocks and threads under numba's CUDA simulator, which runs blocks one after another (so a
# grid sync there holds for one block only: the folds across blocks are exercised on a GPU)
MIN_LIST = 1 << 20  # entries of each list buffer at first (they double when a launch finds them full)
MAX_BATCH = 4096  # iterations a launch at most
# coordinates a thread folds in index order before the chunks are folded in order, at least (the tables'
# folds over n as a tree of fixed shape: ceil(n / fold_chunk(n)) chunks, decided by n alone, so the same
# bits on every run and grid; at n <= FOLD_CHUNK the host's serial bits)
FOLD_CHUNK = 16


def fold_chunk(n):
    """Coordinates a chunk of the tables' folds: about sqrt(n / 4), at least FOLD_CHUNK.  A chunk is
    folded by one thread (phase "chunks", about 1.3 us a coordinate with the candidates' picks: 81 us
    at n = 1,000 in chunks of 64 on the H200, results/gpu/solve-4519f57) and the chunks of a row by
    one thread after them (about 0.3 us a chunk, beside the one-thread tables), so the two serial
    lengths balance near there."""
    return max(FOLD_CHUNK, math.isqrt(n // 4))
# the phases of an iteration as the trace names them (spliced.loop's stamps 0-12, each ended by a grid sync):
# "history" is the previous iteration's step 7 and the loop's first sync
TRACE_PHASES = ("history", "select", "select_fold", "box", "terms", "chunks", "tables", "cut_tables", "sweep",
                "gub", "count", "scan", "compact")
BATCH_SECONDS = 0.25  # batches grow (x2) while shorter than this: time limit and progress stay timely
FIRST_BATCH = 1  # iterations of the first launch
# entries of L copied back once (timed) when L first holds more: the final download's seconds foreseen
# from them, so that the search stops early enough for the download to end within its time limit
DOWNLOAD_SAMPLE = 1 << 22


def centre_sample(spacing, samples):
    """The sample nearest the middle of a subregion's diagonal (the first on ties): where the device
    loop centres the mean value form of inclusion best, its value already bounded by the sweep."""
    shift, den = sample_fractions(spacing, samples)
    return min(range(1, samples + 1), key=lambda m: abs(2 * (m + shift) - den))


class DeviceLoop:
    """The device state of one search and the launches that advance it."""

    def __init__(self, search):
        from numba import config, cuda
        self.cuda = cuda
        self.search = search
        cfg = search.settings
        rule = search.rule
        self.n = n = search.dim
        self.s = rule.split_dims
        self.parts = rule.parts
        self.count = rule.parts ** rule.split_dims
        self.samples = cfg.samples
        self.gap = -1.0 if cfg.gap_tol is None else float(cfg.gap_tol)  # < 0: no gap stop
        # inclusion best: the mean value form centred at this sample (0: the natural form alone)
        self.mstar = centre_sample(cfg.spacing, cfg.samples) if cfg.inclusion == "best" else 0
        # local search or polish: each launch stops after an iteration whose sample lowered GUB (_descend)
        self.descend = 1 if cfg.local_search or cfg.polish else 0
        self.shift, self.den = sample_fractions(cfg.spacing, cfg.samples)
        terms = search.uncut
        self.fast = 1 if terms.fast_path else 0
        self.w2 = 1 if terms.has_window2 else 0
        with phase("cuda.context"):
            cuda.get_current_device()
        self.module = carded.load(search.definition, "cuda",
                                   kernels.extensions("cuda", smax=kernels.smax_for(self.s), loop=True))
        self.simulated = bool(config.ENABLE_CUDASIM)
        nagg1 = max(terms.count, 1)
        nprod1 = max(terms.nprod, 1)
        dev = cuda.device_array
        rows = cfg.samples + 1
        vcap, dcap = kernels.cut_capacity(self.s, n, self.parts, self.count)
        chunks = -(-n // fold_chunk(n))
        cols, dcols = self.module.CUT_COLS, self.module.DERIV_COLS
        self.work = dict(
            dims=dev(self.s, np.int64), slot=dev(n, np.int64), win1=dev(self.s, np.int64),
            win2=dev(max(n, 1), np.int64), cut1=dev(n, np.int8), cut2=dev(n, np.int8), smask=dev(n, np.int8),
            samp=dev((rows, n), np.float64), base_lo=dev((rows, nagg1), np.float64),
            base_hi=dev((rows, nagg1), np.float64), uflags=dev((rows, 2), np.int8), special=dev(n, np.int64),
            Rlo=dev((nprod1, n), np.float64), Rhi=dev((nprod1, n), np.float64),
            Klo=dev((nagg1, n), np.float64), Khi=dev((nagg1, n), np.float64),
            Kclo=dev((nagg1, n), np.float64), Kchi=dev((nagg1, n), np.float64), cfree=dev((2, n), np.int8),
            uw_lo=dev(n, np.float64), uw_hi=dev(n, np.float64), free_lo=dev(n, np.int8), free_hi=dev(n, np.int8),
            # every window's terms (per row) and, on the box, their derivatives: 16 (rows + 2) m n bytes
            Tlo=dev((rows, nagg1, n), np.float64), Thi=dev((rows, nagg1, n), np.float64),
            DXlo=dev((nagg1, n), np.float64), DXhi=dev((nagg1, n), np.float64),
            DYlo=dev((nagg1, n), np.float64), DYhi=dev((nagg1, n), np.float64),
            # the folds' chunks: each row's aggregates over a chunk, and the candidates' picks in a chunk
            Plo=dev((rows, nagg1, chunks), np.float64), Phi=dev((rows, nagg1, chunks), np.float64),
            cpicks=dev((chunks, 4), np.int64),
            # the cut tables (kernels.CUT_LAYOUT), at the size that holds any iteration's
            tab=dev((self.s + min(2 * self.s, n) + 2, 2), np.int64),
            dtab=dev((3 * min(3 * self.s + 2, n), 2), np.int64),
            VTlo=dev((rows, vcap, cols), np.float64), VThi=dev((rows, vcap, cols), np.float64),
            DTlo=dev((dcap, dcols), np.float64), DThi=dev((dcap, dcols), np.float64),
            out_lb=dev(self.count, np.float64))
        # inclusion best: 1 + s parts boxes, their gradients and scratch (n each), and the cut
        # coordinates' gradients by part (spliced.loop_tables._box_gradient); one each elsewhere
        ngrad, gn = (1 + self.s * self.parts, n) if self.mstar else (1, 1)
        self.work.update({k: dev((ngrad, gn), np.float64) for k in ("GXlo", "GXhi", "GGlo", "GGhi", "GWlo", "GWhi")})
        self.work.update({k: dev((self.s, self.parts) if self.mstar else (1, 1), np.float64) for k in ("Gclo", "Gchi")})
        self.dom_lo = cuda.to_device(search.dom_lo)
        self.dom_hi = cuda.to_device(search.dom_hi)
        self.params = cuda.to_device(np.ascontiguousarray(search.uncut.params))
        self.trace = cuda.to_device(np.zeros(len(TRACE_PHASES) + 1, np.int64))  # + the last stamp
        self.ist = cuda.to_device(np.zeros(NIST, np.int64))
        self.fst = cuda.to_device(np.zeros(NFST, np.float64))
        self.ist_host = np.zeros(NIST, np.int64)
        self.fst_host = np.zeros(NFST, np.float64)
        self.icap = 0
        self.lcap = 0
        self.grid = None
        self.launches = 0  # cooperative launches made (one a batch)
        self.download_rate = None  # seconds an entry of L takes to come back (download_seconds)

    # ------------------------------------------------------------ capacity
    def _iterations_room(self, upto):
        """Room for the boxes and history of iterations < ``upto`` (slots 0 .. upto)."""
        if upto + 1 <= self.icap:
            return
        cap = max(upto + 1, 2 * self.icap, 64)
        cuda, n = self.cuda, self.n
        new = dict(box_lo=cuda.device_array((cap, n), np.float64), box_hi=cuda.device_array((cap, n), np.float64),
                   itcyc=cuda.to_device(np.zeros(cap, np.int64)), itopen=cuda.to_device(np.zeros(cap, np.int8)),
                   hist_glb=cuda.device_array(cap, np.float64), hist_gub=cuda.device_array(cap, np.float64),
                   hist_size=cuda.device_array(cap, np.int64))
        if self.icap:
            for k, v in new.items():
                v[:self.icap].copy_to_device(self.it_arrays[k][:self.icap])
        self.it_arrays = new
        self.icap = cap

    def _list_room(self, need):
        """Room for ``need`` entries in each of the two list buffers (kept in order)."""
        if need <= self.lcap:
            return
        cap = max(need, 2 * self.lcap, MIN_LIST)
        cuda = self.cuda
        new = [cuda.device_array(cap, t) for t in (np.int32, np.int32, np.float64) * 2]
        if self.lcap:
            size = int(self.ist_host[SIZE])
            src = self._src()
            for j in range(3):
                if size:
                    new[src + j][:size].copy_to_device(self.lists[src + j][:size])
        self.lists = new
        self.lcap = cap

    def _src(self):
        """The first of the three arrays (sidx, slot, lb) of the list buffer that holds L."""
        return 3 * int(self.ist_host[BUF])

    # ------------------------------------------------------------ host state <-> device state
    def upload(self):
        """The host state (new or restored from a checkpoint) onto the device."""
        st, n = self.search.state, self.n
        if any(c < 0 for c in st.sel_cyc):
            from ...errors import InputError
            raise InputError("this search kept contracted boxes whole (variant strong, contract): the device "
                             "loop cannot rebuild them; resume it with loop = host")
        sidx, itr, cyc, lb, open_ = st.regions.flat()
        it = st.iteration
        self._iterations_room(it + 1)
        self.ist_host[:] = 0   # BUF 0, DEAD 0
        self.ist_host[IT] = it
        self.ist_host[SIZE] = lb.size
        self.ist_host[NOPEN] = int(open_.sum())
        self.ist_host[BESTIT] = st.best_iteration
        self.ist_host[BESTIDX] = st.best_index
        self.ist_host[NJEV] = st.njev
        self._list_room(lb.size + self.count)
        src = self._src()   # 0: BUF was just cleared
        for j, a in enumerate((sidx.astype(np.int32), (itr + 1).astype(np.int32), lb.astype(np.float64))):
            if a.size:
                self.lists[src + j][:a.size].copy_to_device(a)
        box_lo = np.zeros((it + 1, n))
        box_hi = np.zeros((it + 1, n))
        # the root's box: the domain, or where variant strong contracted it first (Search._contract_root)
        box_lo[0], box_hi[0] = self.search.root_box or (self.search.dom_lo, self.search.dom_hi)
        for j, lo in st.sel_lo.items():
            box_lo[j + 1], box_hi[j + 1] = lo, st.sel_hi[j]
        itcyc = np.zeros(it + 1, np.int64)
        itcyc[1:] = st.sel_cyc[:it]
        itopen = np.zeros(it + 1, np.int8)
        for seg in st.regions.segments:
            itopen[seg.itr + 1] = seg.open
        a = self.it_arrays
        a["box_lo"][:it + 1].copy_to_device(box_lo)
        a["box_hi"][:it + 1].copy_to_device(box_hi)
        a["itcyc"][:it + 1].copy_to_device(itcyc)
        a["itopen"][:it + 1].copy_to_device(itopen)
        self.ist.copy_to_device(self.ist_host)
        # GLB: the list's smallest lower bound, what the gap stop reads before the first iteration
        # GUBC: none yet, so the first iteration compacts L whole (pruning it by GUB, as the host loop would)
        self.fst_host[:] = (st.gub, -math.inf, st.regions.min_lb() if len(st.regions) else math.inf, 0.0, 0.0,
                            math.inf)
        self.fst.copy_to_device(self.fst_host)
        self.hist_from = it

    def flat(self):
        """L as (sidx, itr, cyc, lb, open) arrays in list order, from the device."""
        size, it = int(self.ist_host[SIZE]), int(self.ist_host[IT])
        sidx, slot, lb, _ = self._read(size)
        sidx, slot = sidx.astype(np.int64), slot.astype(np.int64)
        itcyc = self.it_arrays["itcyc"][:it + 1].copy_to_host()
        itopen = self.it_arrays["itopen"][:it + 1].copy_to_host()
        cyc = np.where(slot == 0, 0, (itcyc[slot] + self.s) % self.n)
        return sidx, slot - 1, cyc, lb, itopen[slot].astype(bool)

    def _read(self, size):
        """L's entries among the first ``size`` of its buffer, copied back without the removed ones (lower
        bound NaN), and where its runs of equal slots start."""
        src = self._src()
        if size == 0:
            return np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0), np.zeros(0, np.int64)
        sidx = self.lists[src][:size].copy_to_host()
        slot = self.lists[src + 1][:size].copy_to_host()
        lb = self.lists[src + 2][:size].copy_to_host()
        if int(self.ist_host[DEAD]):
            live = ~np.isnan(lb)
            sidx, slot, lb = sidx[live], slot[live], lb[live]
        return sidx, slot, lb, np.flatnonzero(slot[1:] != slot[:-1]) + 1

    def count_at_most(self, gub, spare):
        """L's live entries whose lower bound is <= ``gub`` or that iteration ``spare`` made (L copied back)."""
        _, slot, lb, _ = self._read(int(self.ist_host[SIZE]))
        return int(np.count_nonzero((lb <= gub) | (slot == spare + 1)))

    def download_seconds(self):
        """The seconds the final :meth:`download` of L will take, foreseen from one timed copy of its
        first DOWNLOAD_SAMPLE entries (made once, when L first holds more) scaled to its size; 0 while
        L is smaller (a few ms).  At 5.4e8 entries (Rana n = 10 on the H200, 8.6 GB) the download is
        seconds, and it ran after the time limit was checked."""
        size = int(self.ist_host[SIZE])
        if size <= DOWNLOAD_SAMPLE:
            return 0.0
        if self.download_rate is None:
            t0 = time.perf_counter()
            self._read(DOWNLOAD_SAMPLE)
            self.download_rate = (time.perf_counter() - t0) / DOWNLOAD_SAMPLE
        return self.download_rate * size

    def regions(self):
        """L from the device as a :class:`RegionList` (one segment a run of equal slots, viewing the
        copied arrays: 16 bytes an entry on the host, no per-entry int64 arrays), and its slots."""
        size, it = int(self.ist_host[SIZE]), int(self.ist_host[IT])
        out = RegionList()
        sidx, slot, lb, starts = self._read(size)
        size = lb.size
        if size == 0:
            return out, []
        itcyc = self.it_arrays["itcyc"][:it + 1].copy_to_host()
        itopen = self.it_arrays["itopen"][:it + 1].copy_to_host()
        runs = list(zip(np.r_[0, starts].tolist(), np.r_[starts, size].tolist()))
        for a, b in runs:
            j = int(slot[a])
            cyc = 0 if j == 0 else (int(itcyc[j]) + self.s) % self.n
            out.append(j - 1, cyc, bool(itopen[j]), sidx[a:b], lb[a:b])
        return out, sorted({int(slot[a]) for a, _ in runs})

    def download(self):
        """The device state into the host's :class:`~.core.State` (L, the boxes it needs, the cycling
        indices): what the output, a checkpoint and the host loop read."""
        st = self.search.state
        st.regions, slots = self.regions()
        it = int(self.ist_host[IT])
        # a GUB the host's descent lowered after the last launch prunes L but the last iteration's survivors
        # (_descend); else every entry is <= GUB already
        st.regions.prune(st.gub, spare=it - 1)
        live = {int(j) - 1 for j in slots if j != ROOT + 1}
        if st.best_iteration >= 0:
            live.add(st.best_iteration)
        a = self.it_arrays
        # the boxes in one copy each (one copy a live slot was thousands of transfers after a long run)
        box_lo, box_hi = a["box_lo"][:it + 1].copy_to_host(), a["box_hi"][:it + 1].copy_to_host()
        st.sel_lo = {j: box_lo[j + 1].copy() for j in sorted(live)}
        st.sel_hi = {j: box_hi[j + 1].copy() for j in sorted(live)}
        st.sel_cyc = [int(c) for c in a["itcyc"][1:it + 1].copy_to_host()]

    # ------------------------------------------------------------ launches
    def _args(self, it_end):
        a, w = self.it_arrays, self.work
        return (self.ist, self.fst, a["box_lo"], a["box_hi"], a["itcyc"], a["itopen"], a["hist_glb"],
                a["hist_gub"], a["hist_size"], *self.lists, self.dom_lo, self.dom_hi, self.params,
                w["dims"], w["slot"], w["win1"], w["win2"], w["cut1"], w["cut2"], w["smask"], w["samp"],
                w["base_lo"], w["base_hi"], w["uflags"], w["special"], w["Rlo"], w["Rhi"], w["Klo"], w["Khi"],
                w["Kclo"], w["Kchi"], w["cfree"], w["uw_lo"], w["uw_hi"], w["free_lo"], w["free_hi"],
                w["Tlo"], w["Thi"], w["DXlo"], w["DXhi"], w["DYlo"], w["DYhi"], w["Plo"], w["Phi"], w["cpicks"], w["tab"], w["dtab"], w["VTlo"],
                w["VThi"], w["DTlo"], w["DThi"], w["out_lb"], self.part_v, self.part_i, self.part_n,
                *(w[k] for k in ("GXlo", "GXhi", "GGlo", "GGhi", "GWlo", "GWhi", "Gclo", "Gchi")), self.vcount,
                self.vstart,
                self.s, self.parts, self.samples, self.shift, self.den, self.search.settings.tol, self.gap, self.mstar,
                self.descend, it_end, self.fast, self.w2, self.trace)

    def _grid(self):
        """(blocks, threads): as many blocks as can be resident at once (a cooperative launch needs all
        of them resident), from the occupancy query of the compiled kernel."""
        if self.grid is not None:
            return self.grid
        kernel = self.module.device_loop
        if self.simulated:
            blocks, tpb = SIM_GRID
        else:
            # a launch that runs no iteration compiles the kernel so that it can be queried
            self._alloc_parts(1)
            kernel[1, TPB](*self._args(int(self.ist_host[IT])))
            self.launches += 1
            overload = next(iter(kernel.overloads.values()))
            tpb = TPB
            blocks = max(1, overload.max_cooperative_grid_blocks(tpb))
        self._alloc_parts(blocks)
        self.grid = (blocks, tpb)
        return self.grid

    def _alloc_parts(self, blocks):
        cuda = self.cuda
        self.part_v = cuda.device_array(2 * blocks, np.float64)   # and each block's smallest lower bound
        # the compaction's counts and first ranks, one a block (spliced.loop, step 6)
        self.vcount = cuda.device_array(blocks, np.int64)
        self.vstart = cuda.device_array(blocks, np.int64)
        self.part_i = cuda.device_array(blocks, np.int64)
        self.part_n = cuda.device_array(blocks, np.int64)

    def advance(self, iterations):
        """Run up to ``iterations`` more iterations on the device (fewer when none is open or a stop
        code is raised); then read back the header.  Returns the iterations done."""
        it0 = int(self.ist_host[IT])
        it_end = it0 + iterations
        self._iterations_room(it_end)
        blocks, tpb = self._grid()
        self.module.device_loop[blocks, tpb](*self._args(it_end))
        self.launches += 1
        self.ist.copy_to_host(self.ist_host)
        self.fst.copy_to_host(self.fst_host)
        return int(self.ist_host[IT]) - it0

    def history(self, start, stop):
        a = self.it_arrays
        if stop <= start:
            return [], [], []
        return (a["hist_glb"][start:stop].copy_to_host().tolist(), a["hist_gub"][start:stop].copy_to_host().tolist(),
                [int(v) for v in a["hist_size"][start:stop].copy_to_host()])

    def clear_stop(self):
        self.ist_host[STOP] = 0
        self.ist[STOP:STOP + 1].copy_to_device(np.zeros(1, np.int64))


def run(search, deadline, progress=None, checkpoint=None, checkpoint_every=30.0, save=None):
    """The search's loop with the iterations on the device; returns (message, stop)."""
    st, cfg = search.state, search.settings
    loop = DeviceLoop(search)
    search.device_loop = loop
    loop.upload()
    per_iteration_evals = loop.count * (cfg.samples + 1)
    started = deadline.start
    last_save = time.perf_counter()
    first_save = True
    batch = FIRST_BATCH
    per_iteration = None   # seconds an iteration took in the last launch that ran one (L grows: the latest)
    try:
        while True:
            if int(loop.ist_host[NOPEN]) == 0:
                return "converged: every region is narrower than tol", "converged"
            if search._gap_closed():   # the launch stopped on it too (device_loop's gap)
                loop.download()
                return search._gap_message(), "converged"
            if cfg.max_iterations is not None and st.iteration >= cfg.max_iterations:
                return "stopped at max_iterations", "iterations"
            if deadline.check():
                return (stopped(deadline.reason),
                        deadline.reason)
            left = deadline.left()
            if left is not None:
                left -= loop.download_seconds()   # the final download of L counts against the limit too
                if left <= 0:
                    deadline.reason = "time_limit"
                    return stopped(deadline.reason), deadline.reason
            want = launch_size(batch, per_iteration, left)
            if cfg.max_iterations is not None:
                want = min(want, cfg.max_iterations - st.iteration)
            if int(loop.ist_host[SIZE]) + loop.count > loop.lcap and not _grown(loop, 2 * loop.lcap):
                return _OUT_OF_MEMORY.format(int(loop.ist_host[SIZE])), "memory"
            t0 = time.perf_counter()
            with phase("search.first_iteration") if st.iteration == 0 else _null():
                done = loop.advance(want)
            took = time.perf_counter() - t0
            if done:
                per_iteration = took / done
            _take(search, loop, done, per_iteration_evals)
            stop = int(loop.ist_host[STOP])
            if stop == EMPTY:
                raise RuntimeError("every region was ruled out: the interval forms or the tests are wrong")
            if stop == UNDEFINED:
                _check_undefined(search, loop)
                loop.clear_stop()
            elif stop == FULL:
                loop.clear_stop()
                if not _grown(loop, 2 * loop.lcap):
                    return _OUT_OF_MEMORY.format(int(loop.ist_host[SIZE])), "memory"
            elif stop == LOWERED:
                loop.clear_stop()
            # the batch's last iteration lowered GUB by a sample (the launch stopped there): descend from it
            if loop.descend and done and st.best_x is None and st.best_iteration == st.iteration - 1:
                _descend(search, loop)
            if took < BATCH_SECONDS and batch < MAX_BATCH:
                batch *= 2
            st.seconds = time.perf_counter() - started
            if progress is not None:
                progress(st)
            if checkpoint and (first_save or time.perf_counter() - last_save >= checkpoint_every):
                first_save = False
                loop.download()
                save()
                last_save = time.perf_counter()
    finally:
        loop.download()
        if kernels.loop_trace():
            _write_trace(search, loop, kernels.loop_trace())


def _write_trace(search, loop, path):
    """One line of the phase trace (``GPUBENCH_LOOP_TRACE``) for this search: seconds a phase, summed
    over every launch (the time between launches, on the host, is in none of them)."""
    import json
    ns = loop.trace.copy_to_host()[:len(TRACE_PHASES)]
    line = dict(function=getattr(search.definition, "name", None), n=loop.n, s=loop.s, parts=loop.parts,
                iterations=int(search.state.iteration), launches=loop.launches,
                phases={k: float(v) * 1e-9 for k, v in zip(TRACE_PHASES, ns)}, total=float(ns.sum()) * 1e-9)
    with open(path, "a") as f:
        f.write(json.dumps(line) + "\n")


def launch_size(batch, per_iteration, left):
    """Iterations of the next launch: ``batch`` (doubled after each launch shorter than BATCH_SECONDS),
    but no more than fit in BATCH_SECONDS or in the seconds ``left`` before the time limit (None: no
    limit) at ``per_iteration``, the last launch's seconds an iteration; at least one.  The host cannot
    stop a launch, and launches cut short by a stop code (a lowered GUB, a full list) are short
    whatever their batch: before this cap the batch could double to MAX_BATCH over such launches and
    the next full one run that many iterations, slowed as L grows (Rana n = 10 on the H200: 37.8 s on
    a 30 s limit, L at 5.4e8 entries)."""
    if not per_iteration:
        return batch
    fit = batch
    if math.isfinite(BATCH_SECONDS):
        fit = min(fit, int(BATCH_SECONDS / per_iteration))
    if left is not None:
        fit = min(fit, int(left / per_iteration))
    return max(1, fit)


_OUT_OF_MEMORY = ("stopped: the GPU's memory cannot hold the region list ({:,} regions, 32 bytes each in the "
                  "device loop); loop = host keeps it in host memory (12 bytes each)")


def _grown(loop, need):
    """Whether the list buffers could grow to ``need`` entries: False when the GPU is out of memory
    (the search then stops there with what it has, as at a time limit, instead of a traceback)."""
    try:
        loop._list_room(need)
    except Exception as exc:  # numba's CudaAPIError (CUDA_ERROR_OUT_OF_MEMORY) or the allocator's
        if "OUT_OF_MEMORY" not in str(exc).upper().replace(" ", "_"):
            raise
        return False
    return True


def _take(search, loop, done, per_iteration_evals):
    """The batch's counts and history into the host state."""
    st = search.state
    h = loop.ist_host
    glb, gub, size = loop.history(st.iteration, st.iteration + done)
    st.hist_glb += glb
    st.hist_gub += gub
    st.hist_size += size
    st.iteration += done
    st.nfev += done * per_iteration_evals
    st.njev = int(h[NJEV])
    if float(loop.fst_host[GUB]) < st.gub:   # a sample beat the local starts' point: it holds GUB now
        st.best_x = None
    st.gub = float(loop.fst_host[GUB])
    st.best_iteration, st.best_index = int(h[BESTIT]), int(h[BESTIDX])
    st.regions = _Sized(int(h[SIZE]) - int(h[DEAD]), int(h[NOPEN]), glb[-1] if glb else (st.hist_glb[-1] if st.hist_glb else -math.inf))


def _descend(search, loop):
    """The host loop's local search and polish after a sample lowered GUB (core.Search._iterate), from
    the last iteration's best subregion; a GUB they lower goes to the device before the next iteration.
    The host loop prunes L with it in that iteration, all but the iteration's own survivors (pruned by its
    samples' GUB); here the next iteration's compaction does, so the iteration's list size is counted so
    (what the host loop records) and :meth:`DeviceLoop.download` prunes what it copies back so (a search
    that stops here keeps the host loop's regions)."""
    from .partition import child_box
    st = search.state
    it = st.iteration - 1
    box_lo = loop.it_arrays["box_lo"][it + 1].copy_to_host()
    box_hi = loop.it_arrays["box_hi"][it + 1].copy_to_host()
    cyc = int(loop.it_arrays["itcyc"][it + 1:it + 2].copy_to_host()[0])
    search._after_lowered_gub(child_box(box_lo, box_hi, search.rule.plan(cyc), st.best_index))
    if st.gub < float(loop.fst_host[GUB]):
        loop.fst_host[GUB] = st.gub
        loop.fst[GUB:GUB + 1].copy_to_device(np.array([st.gub]))
        st.hist_gub[-1] = st.gub   # the iteration's GUB and list size, as the host loop records them
        st.hist_size[-1] = loop.count_at_most(st.gub, st.iteration - 1)


def _check_undefined(search, loop):
    """``Search._check_defined`` on the last iteration's survivors kept at -inf."""
    it = search.state.iteration - 1
    sidx, itr, _, lb, _ = loop.flat()
    mine = itr == it
    box_lo = loop.it_arrays["box_lo"][it + 1].copy_to_host()
    box_hi = loop.it_arrays["box_hi"][it + 1].copy_to_host()
    cyc = int(loop.it_arrays["itcyc"][it + 1:it + 2].copy_to_host()[0])
    search._check_defined(box_lo, box_hi, search.rule.plan(cyc), sidx[mine], lb[mine])


class _Sized:
    """What a progress line reads of L between batches (its size), without copying L back."""

    def __init__(self, size, nopen, glb):
        self.size, self.nopen, self.glb = size, nopen, glb

    def __len__(self):
        return self.size

    def any_open(self):
        return self.nopen > 0

    def min_lb(self):
        return self.glb


def _null():
    import contextlib
    return contextlib.nullcontext()
