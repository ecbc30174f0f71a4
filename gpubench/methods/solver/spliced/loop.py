"""The whole iteration on the GPU (``Settings.loop = "device"``, :mod:`gpubench.methods.solver.devloop`).

One cooperative launch runs iterations until a given count, with grid syncs between its phases:
select, the selected box, the tables (:mod:`.loop_tables`), the cut tables, the split sweep
(:mod:`.subregion`), GUB, prune and append.  The block folds are :mod:`gpubench.methods.solver.reduce`'s.
``SMAX`` (the per-thread arrays' size, a power of two >= s), ``MAX_REGISTERS`` (0: no cap) and
``CARVEOUT`` are set per variant when spliced (:func:`gpubench.methods.solver.kernels.extensions`).
"""
import math

from numba import config as _config, cuda as _cuda, float64 as _float64, int32 as _int32, int64 as _int64

from gpubench.methods.solver.reduce import (
    NO_INDEX as _NO_INDEX, TPB as _TPB, _better, _block_reduce, _inclusive_scan)
from gpubench.kernels.timer import globaltimer as _globaltimer
from gpubench.kernels.unsigned import u as _u

if __name__ == "gpubench.methods.solver.spliced.loop":  # imported as itself: stand-in forms
    from gpubench.methods.solver.spliced.stand_in_cuda import (
        CUT_COLS, CUT_USES, DERIV_COLS, DERIV_USES, HAS_SPIKE, N_AGGREGATES, N_PRODUCTS, SPIKE_HI, SPIKE_LO,
        _diagonal, _part, add_rn, cut_layout, device, div_rn, evaluate_split_mv, fill_cut_tables, window_terms)
    from gpubench.methods.solver.spliced.loop_tables import (
        _BESTIDX, _BESTIT, _BUF, _DEAD, _DTOTAL, _EMPTY, _FULL, _GLB, _GUB, _GUBC, _IT, _LOWERED, _MAXW, _NEWSIZE, _NINF,
        _NJEV, _NOPEN, _NSPEC, _NCAND, _NWIN2, _SELCYC, _SELPOS, _SELSIDX, _SELSLOT, _SIZE, _STOP, _UHI, _ULO,
        _UNDEFINED, _VTOTAL, _WHOLE, _box_gradient, _chunk_tables, _fold_chunk, _fold_row, _tables, _uncut_slope)

SMAX = 16
MAX_REGISTERS = 128
CARVEOUT = -1
# 1: thread 0 of the grid adds each phase's nanoseconds to tr[phase] (devloop.TRACE_PHASES; kernels.loop_trace)
TRACE = 0
NSTAMP = 13  # the phases stamped; tr[NSTAMP] holds the last stamp
# L is compacted whole once its removed entries would be more than 1 / DEAD_SHARE of it (step 6)
DEAD_SHARE = 8
NAGG1 = N_AGGREGATES if N_AGGREGATES > 0 else 1
SCRATCH = SMAX * (N_PRODUCTS if N_PRODUCTS > 0 else 1)
TCOLS = max(CUT_COLS, DERIV_COLS)
CSLOTS = 3 * SMAX + 2  # value entries: the one- and two-coordinate windows of s cut ones, x_first, x_last
# the simulator's jit takes no max_registers; CARVEOUT (the shared memory's percent of the SM's L1 and
# shared pool; -1: the driver's choice) is a hint the occupancy query, so the cooperative grid, follows
_JIT = dict(cache=True, **({"max_registers": MAX_REGISTERS} if MAX_REGISTERS and not _config.ENABLE_CUDASIM else {}),
            **({"shared_memory_carveout": CARVEOUT} if CARVEOUT >= 0 and not _config.ENABLE_CUDASIM else {}))

@device
def _kept_entry(e, size, selpos, gub, src_sidx, src_slot, src_lb, out_lb, it):
    # element e of (the list, then this iteration's subregions): kept?, its (sidx, slot, lb)
    if e < size:
        v = src_lb[_u(e)]
        return e != selpos and v <= gub, src_sidx[_u(e)], src_slot[_u(e)], v
    r = e - size
    v = out_lb[_u(r)]
    return v <= gub and v != math.inf, r, it + 1, v


@device
def _stamp(tr, k):
    # phase k's nanoseconds since the last stamp (made after the grid sync that ends it) into tr[k]
    t = _int64(_globaltimer())
    tr[_u(k)] += t - tr[NSTAMP]
    tr[NSTAMP] = t


@device
def _block_best_and_min(sv, si, sn, tid, bv, bi, gl):
    # over the block, in every thread: the first smallest (bv, bi) (reduce._better) and the smallest gl
    sv[_u(tid)] = bv
    si[_u(tid)] = bi
    sn[_u(tid)] = 0
    _cuda.syncthreads()
    _block_reduce(sv, si, sn, tid)
    v = sv[0]
    i = si[0]
    _cuda.syncthreads()
    sv[_u(tid)] = gl
    si[_u(tid)] = 0
    _cuda.syncthreads()
    _block_reduce(sv, si, sn, tid)
    m = sv[0]
    _cuda.syncthreads()   # every thread has read sv[0] before the next writes
    return v, i, m


@_cuda.jit(**_JIT)
def device_loop(ist, fst, box_lo, box_hi, itcyc, itopen, hist_glb, hist_gub, hist_size,
                a_sidx, a_slot, a_lb, b_sidx, b_slot, b_lb, dom_lo, dom_hi, p,
                dims, slot, win1, win2, cut1, cut2, smask, samp, base_lo, base_hi, uflags, special,
                Rlo, Rhi, Klo, Khi, Kclo, Kchi, cfree, uw_lo, uw_hi, free_lo, free_hi,
                Tlo, Thi, DXlo, DXhi, DYlo, DYhi, Plo, Phi, cpicks, tab, dtab, VTlo, VThi, DTlo, DThi, out_lb,
                part_v, part_i, part_n, GXlo, GXhi, GGlo, GGhi, GWlo, GWhi, Gclo, Gchi,
                vcount, vstart, s, parts, samples, t_shift, t_den, tol, gap, mstar, descend, it_end, fast, w2, tr):
    """Iterations of the search (core.Search._iterate) until ``it_end``, no open region or a stop
    code, with no host in between: one cooperative launch, the phases separated by grid syncs.
    ``gap`` >= 0 (Settings.gap_tol) also stops it once GUB - GLB <= gap, GLB the smallest lower
    bound of the list (core.Search._gap_closed's test, on the same two doubles); < 0: no such stop.
    ``mstar`` > 0 (inclusion "best"): the sweep's lower bounds are also the mean value form's, centred
    at sample ``mstar``, from 1 + s parts gradients an iteration (``G*``: loop_tables._box_gradient).
    ``descend`` != 0 (local search or polish): the launch stops after an iteration whose sample lowered
    GUB (stop code _LOWERED), so that the host descends from it before the next iteration.
    ``tr``: the phase trace (``TRACE`` = 1: nanoseconds a phase, summed over the launch's iterations)."""
    grid = _cuda.cg.this_grid()
    n = dom_lo.shape[0]
    count = out_lb.shape[0]
    lcap = a_lb.shape[0]
    tid = _cuda.threadIdx.x
    bid = _cuda.blockIdx.x
    tpb = _cuda.blockDim.x
    nblocks = _cuda.gridDim.x
    nthreads = nblocks * tpb
    g = bid * tpb + tid
    sv = _cuda.shared.array(_TPB, _float64)
    si = _cuda.shared.array(_TPB, _int64)
    sn = _cuda.shared.array(_TPB, _int64)
    clo = _cuda.local.array(SMAX, _float64)
    chi = _cuda.local.array(SMAX, _float64)
    xs = _cuda.local.array(SMAX, _float64)
    lp = _cuda.local.array(SMAX, _int32)
    # in local memory: a shared row a thread was slower (it takes the L1's room: results/gpu/solve-7f83926)
    cc = _cuda.local.array(CSLOTS, _int32)
    tlo = _cuda.local.array(TCOLS, _float64)
    thi = _cuda.local.array(TCOLS, _float64)
    Clo = _cuda.local.array(NAGG1, _float64)
    Chi = _cuda.local.array(NAGG1, _float64)
    wsl = _cuda.local.array(SCRATCH, _float64)
    wsh = _cuda.local.array(SCRATCH, _float64)
    if TRACE and g == 0:
        tr[NSTAMP] = _int64(_globaltimer())
    while True:
        grid.sync()
        if TRACE and g == 0:
            _stamp(tr, _int64(0))
        it = ist[_IT]
        size = ist[_SIZE]
        if ist[_BUF] == 0:
            src_sidx, src_slot, src_lb, dst_sidx, dst_slot, dst_lb = a_sidx, a_slot, a_lb, b_sidx, b_slot, b_lb
        else:
            src_sidx, src_slot, src_lb, dst_sidx, dst_slot, dst_lb = b_sidx, b_slot, b_lb, a_sidx, a_slot, a_lb
        # 1. the list as the last iteration left it: its smallest lower bound (GLB, that iteration's
        # history), and the open region with the smallest lower bound, the first in list order on ties
        # (the selection).  A removed entry (NaN, step 6) is neither: every comparison with NaN is False
        bv = math.inf
        bi = _NO_INDEX
        gl = math.inf
        e = g
        while e < size:
            v = src_lb[_u(e)]
            if v < gl:
                gl = v
            if v < bv and itopen[_u(src_slot[_u(e)])] != 0:
                bv = v
                bi = e
            e += nthreads
        bv, bi, gl = _block_best_and_min(sv, si, sn, tid, bv, bi, gl)
        if tid == 0:
            part_v[_u(bid)] = bv
            part_i[_u(bid)] = bi
            part_v[_u(nblocks + bid)] = gl
        grid.sync()
        if TRACE and g == 0:
            _stamp(tr, _int64(1))
        if bid == 0:
            bv = math.inf
            bi = _NO_INDEX
            gl = math.inf
            b = tid
            while b < nblocks:
                if _better(part_v[_u(b)], part_i[_u(b)], bv, bi):
                    bv = part_v[_u(b)]
                    bi = part_i[_u(b)]
                gl = min(gl, part_v[_u(nblocks + b)])
                b += tpb
            bv, pos, gl = _block_best_and_min(sv, si, sn, tid, bv, bi, gl)
            if tid == 0:
                fst[_GLB] = gl
                if it > 0:
                    hist_glb[_u(it - 1)] = gl
                ist[_NOPEN] = 0 if pos == _NO_INDEX else 1
                if pos != _NO_INDEX and it < it_end:
                    ist[_SELPOS] = pos
                    pslot = src_slot[_u(pos)]
                    ist[_SELSLOT] = pslot
                    ist[_SELSIDX] = src_sidx[_u(pos)]
                    cyc = 0 if pslot == 0 else (itcyc[_u(pslot)] + s) % n
                    ist[_SELCYC] = cyc
                    itcyc[_u(it + 1)] = cyc
                    fst[_MAXW] = -math.inf
                    for m in range(samples + 1):
                        uflags[_u(m), 0] = 1
                        uflags[_u(m), 1] = 1
        grid.sync()
        if TRACE and g == 0:
            _stamp(tr, _int64(2))
        if ist[_STOP] != 0 or it >= it_end or ist[_NOPEN] == 0:
            return
        if gap >= 0.0 and abs(fst[_GUB]) < math.inf and fst[_GUB] - fst[_GLB] <= gap:
            return
        # 2. the selected box (rebuilt from its parent's), its samples, masks and children's widths
        pslot = ist[_SELSLOT]
        psidx = ist[_SELSIDX]
        cyc = ist[_SELCYC]
        pcyc = itcyc[_u(pslot)]
        dst = it + 1
        wrap = cyc + s - n  # cut coordinates 0 .. wrap-1 come first when the cycle wraps
        j = g
        while j < s:
            dims[_u(j)] = (cyc + j) % n
            j += nthreads
        d = g
        while d < n:
            lo = box_lo[_u(pslot), _u(d)]
            hi = box_hi[_u(pslot), _u(d)]
            if pslot != 0:
                jp = (d - pcyc) % n
                if jp < s:
                    q = psidx
                    for _ in range(jp):
                        q = q // parts
                    l = q % parts
                    lo, hi = _part(lo, hi, l, parts)
            box_lo[_u(dst), _u(d)] = lo
            box_hi[_u(dst), _u(d)] = hi
            jc = (d - cyc) % n
            if jc < s:
                cut1[_u(d)] = 1
                # >= 0: a cut d >= wrap follows cyc (the cut ones are cyc .. cyc + s - 1 mod n)
                pos = d if d < wrap else (max(wrap, 0) + d - cyc)
                slot[_u(d)] = pos
                win1[_u(pos)] = d
                w = 0.0
                for l in range(parts):
                    wa, wb = _part(lo, hi, l, parts)
                    w = max(w, add_rn(wb, -wa))
            else:
                cut1[_u(d)] = 0
                slot[_u(d)] = -1
                w = add_rn(hi, -lo)
            _cuda.atomic.max(fst, _MAXW, w)
            cut2[_u(d)] = 1 if jc < s or (d + 1 < n and (d + 1 - cyc) % n < s) else 0
            smask[_u(d)] = 0
            free_lo[_u(d)] = 1 if lo != dom_lo[_u(d)] else 0
            free_hi[_u(d)] = 1 if hi != dom_hi[_u(d)] else 0
            samp[0, _u(d)] = lo
            for m in range(1, samples + 1):
                samp[_u(m), _u(d)] = _diagonal(lo, hi, div_rn(float(m + t_shift), float(t_den)))
            if HAS_SPIKE and jc >= s:
                # uncut coordinates that leave the spike (prepare_split's uflags)
                for m in range(samples + 1):
                    xa = lo if m == 0 else samp[_u(m), _u(d)]
                    xb = hi if m == 0 else samp[_u(m), _u(d)]
                    if xb < SPIKE_LO or xa > SPIKE_HI:
                        uflags[_u(m), 0] = 0
                    if xa < SPIKE_LO or xb > SPIKE_HI:
                        uflags[_u(m), 1] = 0
            d += nthreads
        grid.sync()
        if TRACE and g == 0:
            _stamp(tr, _int64(3))
        # 3. every window's terms, on the box (with their derivatives) and at each sample: one thread
        # a (row, window); then the folds over the coordinates as a tree of fixed shape (chunks of the
        # coordinates folded in index order, one thread a (row, chunk), with the sums' K and the
        # candidates' picks of each chunk; then one thread a row folds its chunks in order) and one
        # thread for R, the products' K and the other tables
        rows = samples + 1
        ngrad = 1 + s * parts if mstar > 0 else 0
        idx = g
        while idx < rows * n + ngrad:
            if idx >= rows * n:   # inclusion best: the gradients of the mean value form
                _box_gradient(idx - rows * n, box_lo[_u(dst)], box_hi[_u(dst)], p, win1, parts, GXlo, GXhi, GGlo,
                              GGhi, GWlo, GWhi, Gclo, Gchi)
                idx += nthreads
                continue
            m = idx // n
            k = idx - m * n
            # deriv as ``m == 0``, not the literals True and False: numba would compile window_terms twice
            uk = _u(k)
            if m == 0:
                window_terms(box_lo[_u(dst)], box_hi[_u(dst)], p, k, m == 0, Tlo[0, :, uk], Thi[0, :, uk],
                             DXlo[:, uk], DXhi[:, uk], DYlo[:, uk], DYhi[:, uk])
            else:
                window_terms(samp[_u(m)], samp[_u(m)], p, k, m == 0, Tlo[_u(m), :, uk], Thi[_u(m), :, uk],
                             DXlo[:, uk], DXhi[:, uk], DYlo[:, uk], DYhi[:, uk])
            idx += nthreads
        grid.sync()
        if TRACE and g == 0:
            _stamp(tr, _int64(4))
        nchunks = Plo.shape[2]
        idx = g
        while idx < (rows + 1) * nchunks + (1 if mstar > 0 else 0):
            m = idx // nchunks
            c = idx - m * nchunks
            if idx == (rows + 1) * nchunks:
                _uncut_slope(mstar, box_lo[_u(dst)], box_hi[_u(dst)], samp, cut1, GGlo, GGhi, fst)
            elif m < rows:
                _fold_chunk(m, c, nchunks, n, cut1, cut2, Tlo, Thi, Plo, Phi)
            else:
                _chunk_tables(c, nchunks, n, cut1, w2, fast, DXlo, DXhi, DYlo, DYhi, Klo, Khi, free_lo, free_hi,
                              cpicks)
            idx += nthreads
        grid.sync()
        if TRACE and g == 0:
            _stamp(tr, _int64(5))
        roles = rows + 1
        stride = 32 if nthreads >= 32 * roles else 1
        if g % stride == 0 and g // stride < roles:
            role = g // stride
            if role == 0:
                _tables(it, cyc, s, box_lo, box_hi, p, win1, win2, special, smask, cut1, Klo, Khi, Rlo, Rhi,
                        uw_lo, uw_hi, Kclo, Kchi, cfree, free_lo, free_hi, fast, w2, ist, fst, itopen, tol,
                        Tlo, Thi, DXlo, DXhi, DYlo, DYhi, cpicks)
                vt, dt = cut_layout(n, win1, win2[:ist[_NWIN2]], special[:ist[_NSPEC]], slot, parts, count,
                                    CUT_USES, DERIV_USES, tab, dtab)
                ist[_VTOTAL] = vt
                ist[_DTOTAL] = dt
            else:
                _fold_row(role - 1, nchunks, Plo, Phi, base_lo, base_hi)
        grid.sync()
        if TRACE and g == 0:
            _stamp(tr, _int64(6))
        nc = ist[_NCAND]
        nsp = ist[_NSPEC]
        nw2 = ist[_NWIN2]
        # the cut tables (fill_cut_tables): one thread a value
        vt = ist[_VTOTAL]
        j = g
        while j < rows * vt + ist[_DTOTAL]:
            fill_cut_tables(j, box_lo[_u(dst)], box_hi[_u(dst)], samp, slot, win1, win2[:nw2], special[:nsp],
                            parts, t_shift, t_den, p, tab, vt, dtab, VTlo, VThi, DTlo, DThi)
            j += nthreads
        grid.sync()
        if TRACE and g == 0:
            _stamp(tr, _int64(7))
        # 4. the sweep, with the best sample and the gradient count folded as it goes
        gub_prev = fst[_GUB]
        u_lo = fst[_ULO]
        u_hi = fst[_UHI]
        bv = math.inf
        bi = _NO_INDEX
        nj = 0
        r = g
        while r < count:
            lb, ub, gr = evaluate_split_mv(r, box_lo[_u(dst)], box_hi[_u(dst)], samp, dom_lo, dom_hi, dims, slot, parts,
                                           samples, t_shift, t_den, gub_prev, p, win1, win2[:nw2], base_lo,
                                           base_hi, uflags, special[:nsp], Rlo, Rhi, Kclo[:, :nc], Kchi[:, :nc],
                                           cfree[:, :nc], tab, VTlo, VThi, dtab, DTlo, DThi, clo[:s], chi[:s],
                                           xs[:s], lp[:s], cc, tlo, thi, Clo, Chi, wsl, wsh, mstar, u_lo, u_hi, Gclo,
                                           Gchi)
            out_lb[_u(r)] = lb
            if ub < bv:  # False for NaN; r rises, so a thread keeps its first minimum
                bv = ub
                bi = r
            nj += gr
            r += nthreads
        sv[_u(tid)] = bv
        si[_u(tid)] = bi
        sn[_u(tid)] = nj
        _cuda.syncthreads()
        _block_reduce(sv, si, sn, tid)
        if tid == 0:
            part_v[_u(bid)] = sv[0]
            part_i[_u(bid)] = si[0]
            part_n[_u(bid)] = sn[0]
        grid.sync()
        if TRACE and g == 0:
            _stamp(tr, _int64(8))
        # 5. the iteration's GUB (reduce.best_sample's fold)
        if bid == 0:
            bv = math.inf
            bi = _NO_INDEX
            nj = 0
            b = tid
            while b < nblocks:
                if _better(part_v[_u(b)], part_i[_u(b)], bv, bi):
                    bv = part_v[_u(b)]
                    bi = part_i[_u(b)]
                nj += part_n[_u(b)]
                b += tpb
            sv[_u(tid)] = bv
            si[_u(tid)] = bi
            sn[_u(tid)] = nj
            _cuda.syncthreads()
            _block_reduce(sv, si, sn, tid)
            if tid == 0:
                best = sv[0]
                if best < fst[_GUB]:
                    fst[_GUB] = best
                    ist[_BESTIT] = it
                    ist[_BESTIDX] = 0 if si[0] == _NO_INDEX else si[0]
                ist[_NJEV] += sn[0]
                ist[_NINF] = 0
                # the whole list is compacted when GUB fell below the one it was last pruned by (this
                # iteration's sample or the host's descent between launches) or its removed entries
                # would be too many (DEAD_SHARE); else the old entries all stay (each is <= GUB already) but the
                # selected one, and step 6 appends this iteration's survivors alone
                whole = fst[_GUB] < fst[_GUBC] or DEAD_SHARE * (ist[_DEAD] + 1) > size
                if whole:
                    fst[_GUBC] = fst[_GUB]
                ist[_WHOLE] = 1 if whole else 0
        grid.sync()
        if TRACE and g == 0:
            _stamp(tr, _int64(9))
        # 6. the survivors in list order, by a stable compaction that each block runs over a contiguous
        # run of whole tiles: counted (a block's total), the totals scanned (one block), then written at
        # their ranks, tile by tile.  Whole (ist[_WHOLE]): the list pruned by GUB less the selected
        # entry, then the subregions, into the other buffer.  Else the subregions alone, appended in
        # place after the list, and the selected entry removed (its lower bound NaN: step 1 passes it
        # over, the next whole compaction drops it): O(p^s) an iteration, not O(|L|)
        gub = fst[_GUB]
        selpos = ist[_SELPOS]
        whole = ist[_WHOLE] != 0
        total = size + count
        first = 0 if whole else size
        run_len = ((total - first + nblocks - 1) // nblocks + tpb - 1) // tpb * tpb
        r0 = min(first + bid * run_len, total)
        r1 = min(r0 + run_len, total)
        k = 0
        e = r0 + tid
        while e < r1:
            keep, _a, _b, _c = _kept_entry(e, size, selpos, gub, src_sidx, src_slot, src_lb, out_lb, it)
            if keep:
                k += 1
            e += tpb
        sv[_u(tid)] = math.inf
        si[_u(tid)] = 0
        sn[_u(tid)] = k
        _cuda.syncthreads()
        _block_reduce(sv, si, sn, tid)
        if tid == 0:
            vcount[_u(bid)] = sn[0]
        grid.sync()
        if TRACE and g == 0:
            _stamp(tr, _int64(10))
        if bid == 0:
            chunk = (nblocks + tpb - 1) // tpb
            lo_t = min(tid * chunk, nblocks)
            hi_t = min(lo_t + chunk, nblocks)
            tot = 0
            for i in range(lo_t, hi_t):
                tot += vcount[_u(i)]
            si[_u(tid)] = tot
            _cuda.syncthreads()
            _inclusive_scan(si, tid)
            base = first + si[_u(tid)] - tot
            for i in range(lo_t, hi_t):
                vstart[_u(i)] = base
                base += vcount[_u(i)]
            if tid == tpb - 1:
                ist[_NEWSIZE] = first + si[_u(tid)]
        grid.sync()
        if TRACE and g == 0:
            _stamp(tr, _int64(11))
        if not whole:
            dst_sidx, dst_slot, dst_lb = src_sidx, src_slot, src_lb
        base = vstart[_u(bid)]
        t0 = r0
        while t0 < r1:   # r0, r1: the block's own, so every thread takes the same turns
            e = t0 + tid
            keep = False
            if e < r1:
                keep, es, esl, ev = _kept_entry(e, size, selpos, gub, src_sidx, src_slot, src_lb, out_lb, it)
            si[_u(tid)] = 1 if keep else 0
            _cuda.syncthreads()
            _inclusive_scan(si, tid)
            if keep:
                pos = base + si[_u(tid)] - 1  # >= base: the scan counts this one
                dst_sidx[_u(pos)] = es
                dst_slot[_u(pos)] = esl
                dst_lb[_u(pos)] = ev
                if esl == it + 1 and ev == -math.inf:
                    _cuda.atomic.add(ist, _NINF, 1)
            base += si[_u(tpb - 1)]
            _cuda.syncthreads()
            t0 += tpb
        if not whole and g == 0:
            src_lb[_u(selpos)] = math.nan   # no thread reads the list's entries in this pass
        grid.sync()
        if TRACE and g == 0:
            _stamp(tr, _int64(12))
        # 7. the iteration's history (its GLB: step 1 of the next) and the next one's stop codes
        if g == 0:
            newsize = ist[_NEWSIZE]
            ist[_SIZE] = newsize
            if whole:
                ist[_BUF] = 1 - ist[_BUF]
                ist[_DEAD] = 0
            else:
                ist[_DEAD] += 1
            live = newsize - ist[_DEAD]
            hist_gub[_u(it)] = fst[_GUB]
            hist_size[_u(it)] = live
            ist[_IT] = it + 1
            if live == 0:
                ist[_STOP] = _EMPTY
            elif ist[_NINF] > 0:
                ist[_STOP] = _UNDEFINED
            elif newsize + count > lcap:
                ist[_STOP] = _FULL
            elif descend != 0 and ist[_BESTIT] == it:
                ist[_STOP] = _LOWERED
