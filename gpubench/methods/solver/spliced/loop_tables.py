"""The device loop's per-iteration tables (``prepare_split`` on the GPU): the folds and the candidates.

The same operations in the same order as the host's serial forms (``aggregates_rest``,
``uncut_tables``, ``uncut.one_aggregate_candidates`` / ``several_aggregate_candidates``), so the same
bits; spliced before :mod:`.loop`, whose ``device_loop`` calls them.
"""
import numpy as np
from numba import cuda as _cuda, int64 as _int64

from gpubench.kernels.unsigned import u as _u

if __name__ == "gpubench.methods.solver.spliced.loop_tables":  # imported as itself: stand-in forms
    from gpubench.methods.solver.spliced.stand_in_cuda import (
        AGG_FOLD, N_AGGREGATES, _part, device, iadd, imul, interval_gradient, isub)

# the device state's entries (gpubench/methods/solver/devloop.py names the same numbers)
_IT, _SIZE, _STOP, _NOPEN, _SELPOS, _SELSLOT, _SELSIDX, _SELCYC = 0, 1, 2, 3, 4, 5, 6, 7
_BESTIT, _BESTIDX, _NJEV, _NCAND, _NSPEC, _NWIN2, _NINF, _NEWSIZE, _NEWOPEN = 8, 9, 10, 11, 12, 13, 14, 15, 16
_VTOTAL, _DTOTAL, _BUF, _DEAD, _WHOLE = 17, 18, 19, 20, 21
_GUB, _MAXW, _GLB, _ULO, _UHI, _GUBC = 0, 1, 2, 3, 4, 5
_FULL, _EMPTY, _UNDEFINED, _LOWERED = 1, 2, 3, 4
DEDUP = 8  # kept candidate columns a new one is compared with (runs of equal uncut coordinates are caught)


@device
def _insert_sorted(arr, k, v):
    # arr[:k] sorted ascending without repeats: insert v (if new), return the new length
    j = 0
    while j < k and arr[_u(j)] < v:
        j += 1
    if j < k and arr[_u(j)] == v:
        return k
    i = k
    while i > j:  # i - 1 >= j >= 0
        arr[_u(i)] = arr[_u(i - 1)]
        i -= 1
    arr[_u(j)] = v
    return k + 1


@device
def _chunk_range(c, n, nchunks):
    # coordinates of chunk c of nchunks: a fixed shape, decided by n and nchunks alone
    size = (n + nchunks - 1) // nchunks
    return c * size, min(n, (c + 1) * size)


@device
def _fold_chunk(m, c, nchunks, n, cut1, cut2, Tlo, Thi, Plo, Phi):
    """Row m's aggregates over the uncut windows of chunk c, in index order, into ``P[m, :, c]``."""
    k0, k1 = _chunk_range(c, n, nchunks)
    for a in range(N_AGGREGATES):
        code = AGG_FOLD[a]
        if code == 2:
            acc_lo = 1.0
            acc_hi = 1.0
        else:
            acc_lo = 0.0
            acc_hi = 0.0
        for k in range(k0, min(k1, n - 1) if code == 1 else k1):
            if code == 1:
                if cut2[_u(k)] != 0:
                    continue
            elif cut1[_u(k)] != 0:
                continue
            if code == 2:
                acc_lo, acc_hi = imul(acc_lo, acc_hi, Tlo[_u(m), _u(a), _u(k)], Thi[_u(m), _u(a), _u(k)])
            else:
                acc_lo, acc_hi = iadd(acc_lo, acc_hi, Tlo[_u(m), _u(a), _u(k)], Thi[_u(m), _u(a), _u(k)])
        Plo[_u(m), _u(a), _u(c)] = acc_lo
        Phi[_u(m), _u(a), _u(c)] = acc_hi


@device
def _fold_row(m, nchunks, Plo, Phi, base_lo, base_hi):
    """``aggregates_rest`` of row m: the chunks' folds (:func:`_fold_chunk`) folded in chunk order.  A
    tree of fixed shape (n alone decides it), so the same bits on every run and every grid; with one
    chunk (n <= devloop.FOLD_CHUNK) the serial form's bits, as the host's."""
    for a in range(N_AGGREGATES):
        if nchunks == 1:
            base_lo[_u(m), _u(a)] = Plo[_u(m), _u(a), 0]
            base_hi[_u(m), _u(a)] = Phi[_u(m), _u(a), 0]
            continue
        code = AGG_FOLD[a]
        if code == 2:
            acc_lo = 1.0
            acc_hi = 1.0
        else:
            acc_lo = 0.0
            acc_hi = 0.0
        for c in range(nchunks):
            if code == 2:
                acc_lo, acc_hi = imul(acc_lo, acc_hi, Plo[_u(m), _u(a), _u(c)], Phi[_u(m), _u(a), _u(c)])
            else:
                acc_lo, acc_hi = iadd(acc_lo, acc_hi, Plo[_u(m), _u(a), _u(c)], Phi[_u(m), _u(a), _u(c)])
        base_lo[_u(m), _u(a)] = acc_lo
        base_hi[_u(m), _u(a)] = acc_hi


@device
def _special(d, n, cut1, w2):
    # whether d is a special coordinate (_tables' list): x_1, x_n, cut, or next to a cut one (w2)
    if d == 0 or d == n - 1 or cut1[_u(d)] != 0:
        return True
    return w2 != 0 and ((d >= 1 and cut1[_u(d - 1)] != 0) or (d <= n - 2 and cut1[_u(d + 1)] != 0))


@device
def _chunk_picks_serve(fast):
    # the four candidates come from the chunks where there is one aggregate, a sum (its K is per coordinate)
    return N_AGGREGATES == 1 and fast != 0 and AGG_FOLD[0] != 2


@device
def _chunk_tables(c, nchunks, n, cut1, w2, fast, DXlo, DXhi, DYlo, DYhi, Klo, Khi, free_lo, free_hi, cpicks):
    """Over the coordinates of chunk c: K of the sums (each coordinate's own terms, in
    ``uncut_tables``' order, so its bits), and with one summed aggregate the four candidates'
    picks within the chunk (the first best in index order, as the serial scan)."""
    k0, k1 = _chunk_range(c, n, nchunks)
    for k in range(k0, k1):
        for a in range(Klo.shape[0]):
            if a >= N_AGGREGATES or AGG_FOLD[a] == 2:
                if a >= N_AGGREGATES:
                    Klo[_u(a), _u(k)] = 0.0
                    Khi[_u(a), _u(k)] = 0.0
                continue
            if AGG_FOLD[a] == 0:
                k_lo, k_hi = iadd(0.0, 0.0, DXlo[_u(a), _u(k)], DXhi[_u(a), _u(k)])
            else:  # two-coordinate windows: (0 + the window before's d/dy) + this window's d/dx
                k_lo = 0.0
                k_hi = 0.0
                if k >= 1:
                    k_lo, k_hi = iadd(k_lo, k_hi, DYlo[_u(a), _u(k - 1)], DYhi[_u(a), _u(k - 1)])
                if k <= n - 2:
                    k_lo, k_hi = iadd(k_lo, k_hi, DXlo[_u(a), _u(k)], DXhi[_u(a), _u(k)])
            Klo[_u(a), _u(k)] = k_lo
            Khi[_u(a), _u(k)] = k_hi
    if not _chunk_picks_serve(fast):
        return
    for w in range(4):
        cpicks[_u(c), _u(w)] = -1
    for d in range(k0, k1):
        if _special(d, n, cut1, w2):
            continue
        klo = Klo[0, _u(d)]
        khi = Khi[0, _u(d)]
        for f in range(2):
            free = free_lo[_u(d)] if f == 0 else free_hi[_u(d)]
            if free == 0:
                continue
            # a pick is read as an index only when >= 0 (-1: none yet)
            if klo > 0.0 and (cpicks[_u(c), _u(2 * f)] < 0 or klo > Klo[0, _u(cpicks[_u(c), _u(2 * f)])]):
                cpicks[_u(c), _u(2 * f)] = d
            if khi < 0.0 and (cpicks[_u(c), _u(2 * f + 1)] < 0 or khi < Khi[0, _u(cpicks[_u(c), _u(2 * f + 1)])]):
                cpicks[_u(c), _u(2 * f + 1)] = d


@device
def _fold_tables(n, nsp, cut1, special, Tlo, Thi, DXlo, DXhi, DYlo, DYhi, Klo, Khi, Rlo, Rhi, wlo, whi):
    """``uncut_tables`` of the products from the box's window terms and derivatives (row 0): the same
    operations in the same order, so the same bits (the sums' K: :func:`_chunk_tables`)."""
    pi = 0
    for a in range(N_AGGREGATES):
        code = AGG_FOLD[a]
        if code == 2:
            # R: the product of the uncut terms but d's, from prefix (w) and suffix (run) products
            run_lo = 1.0
            run_hi = 1.0
            for k in range(n):
                wlo[_u(k)] = run_lo
                whi[_u(k)] = run_hi
                if cut1[_u(k)] == 0:
                    run_lo, run_hi = imul(run_lo, run_hi, Tlo[0, _u(a), _u(k)], Thi[0, _u(a), _u(k)])
            run_lo = 1.0
            run_hi = 1.0
            for k in range(n - 1, -1, -1):
                wlo[_u(k)], whi[_u(k)] = imul(wlo[_u(k)], whi[_u(k)], run_lo, run_hi)
                Klo[_u(a), _u(k)], Khi[_u(a), _u(k)] = imul(wlo[_u(k)], whi[_u(k)], DXlo[_u(a), _u(k)],
                                                            DXhi[_u(a), _u(k)])
                if cut1[_u(k)] == 0:
                    run_lo, run_hi = imul(run_lo, run_hi, Tlo[0, _u(a), _u(k)], Thi[0, _u(a), _u(k)])
            for qq in range(nsp):
                Rlo[_u(pi), _u(qq)] = wlo[_u(special[_u(qq)])]
                Rhi[_u(pi), _u(qq)] = whi[_u(special[_u(qq)])]
            pi += 1


@device
def _tables(it, cyc, s, box_lo, box_hi, p, win1, win2, special, smask, cut1, Klo, Khi, Rlo, Rhi, uw_lo, uw_hi,
            Kclo, Kchi, cfree, free_lo, free_hi, fast, w2, ist, fst, itopen, tol, Tlo, Thi, DXlo, DXhi, DYlo, DYhi,
            cpicks):
    """prepare_split's tables that are not per coordinate (one thread): the windows touching a cut
    coordinate, the special coordinates, K and R of the products (``uncut_tables``, folded from the
    window terms) and the candidates (of one summed aggregate: from the chunks' picks)."""
    n = box_lo.shape[1]
    dst = it + 1
    nw2 = 0
    for q in range(s):
        d = win1[_u(q)]
        for k in range(d - 1, d + 1):
            if k >= 0 and k <= n - 2 and (nw2 == 0 or k > win2[_u(nw2 - 1)]):
                win2[_u(nw2)] = k
                nw2 += 1
    nsp = _insert_sorted(special, np.int64(0), np.int64(0))
    nsp = _insert_sorted(special, nsp, n - 1)
    for q in range(s):
        d = win1[_u(q)]
        nsp = _insert_sorted(special, nsp, d)
        if w2 != 0:
            if d >= 1:
                nsp = _insert_sorted(special, nsp, d - 1)
            if d <= n - 2:
                nsp = _insert_sorted(special, nsp, d + 1)
    for q in range(nsp):
        smask[_u(special[_u(q)])] = 1
    _fold_tables(n, nsp, cut1, special, Tlo, Thi, DXlo, DXhi, DYlo, DYhi, Klo, Khi, Rlo, Rhi, uw_lo, uw_hi)
    nc = 0
    if N_AGGREGATES > 0 and fast != 0 and N_AGGREGATES == 1:
        # one aggregate: the four coordinates that decide the test (uncut.one_aggregate_candidates)
        picks = _cuda.local.array(4, _int64)
        for w in range(4):
            picks[_u(w)] = -1
        if _chunk_picks_serve(fast):
            # the chunks' picks in chunk order, a later one taken only when strictly better: the
            # first best in index order, the serial scan's pick
            for c in range(cpicks.shape[0]):
                for w in range(4):
                    d = cpicks[_u(c), _u(w)]
                    if d < 0:
                        continue
                    # a pick is read as an index only when >= 0 (-1: none yet)
                    if w % 2 == 0:
                        if picks[_u(w)] < 0 or Klo[0, _u(d)] > Klo[0, _u(picks[_u(w)])]:
                            picks[_u(w)] = d
                    elif picks[_u(w)] < 0 or Khi[0, _u(d)] < Khi[0, _u(picks[_u(w)])]:
                        picks[_u(w)] = d
        for d in range(0 if not _chunk_picks_serve(fast) else n, n):  # else the serial scan
            if smask[_u(d)] != 0:
                continue
            klo = Klo[0, _u(d)]
            khi = Khi[0, _u(d)]
            for f in range(2):
                free = free_lo[_u(d)] if f == 0 else free_hi[_u(d)]
                if free == 0:
                    continue
                if klo > 0.0 and (picks[_u(2 * f)] < 0 or klo > Klo[0, _u(picks[_u(2 * f)])]):
                    picks[_u(2 * f)] = d
                if khi < 0.0 and (picks[_u(2 * f + 1)] < 0 or khi < Khi[0, _u(picks[_u(2 * f + 1)])]):
                    picks[_u(2 * f + 1)] = d
        srt = _cuda.local.array(4, _int64)
        for w in range(4):
            if picks[_u(w)] >= 0:
                nc = _insert_sorted(srt, nc, picks[_u(w)])
        for c in range(nc):
            d = srt[_u(c)]
            Kclo[0, _u(c)] = Klo[0, _u(d)]
            Kchi[0, _u(c)] = Khi[0, _u(d)]
            cfree[0, _u(c)] = free_lo[_u(d)]
            cfree[1, _u(c)] = free_hi[_u(d)]
    elif N_AGGREGATES > 0:
        # several aggregates: every plain coordinate that can decide (uncut.several_aggregate_candidates);
        # a column equal to one of the last DEDUP kept, with equal edge flags, decides alike and is left
        # out (the host leaves out every repeat: the same decisions, a few more candidates here at most)
        for d in range(n):
            if smask[_u(d)] != 0 or (free_lo[_u(d)] == 0 and free_hi[_u(d)] == 0):
                continue
            straddle = True
            for a in range(N_AGGREGATES):
                if not (Klo[_u(a), _u(d)] <= 0.0 and Khi[_u(a), _u(d)] >= 0.0):
                    straddle = False
            if straddle:
                continue
            repeat = False
            for c in range(max(0, nc - DEDUP), nc):
                if cfree[0, _u(c)] == free_lo[_u(d)] and cfree[1, _u(c)] == free_hi[_u(d)]:
                    same = True
                    for a in range(N_AGGREGATES):
                        if Kclo[_u(a), _u(c)] != Klo[_u(a), _u(d)] or Kchi[_u(a), _u(c)] != Khi[_u(a), _u(d)]:
                            same = False
                    if same:
                        repeat = True
                        break
            if repeat:
                continue
            for a in range(N_AGGREGATES):
                Kclo[_u(a), _u(nc)] = Klo[_u(a), _u(d)]
                Kchi[_u(a), _u(nc)] = Khi[_u(a), _u(d)]
            cfree[0, _u(nc)] = free_lo[_u(d)]
            cfree[1, _u(nc)] = free_hi[_u(d)]
            nc += 1
    if nc == 0:
        # one inert column (K = 0, no edge free: never discards), as prepare_split
        for a in range(Kclo.shape[0]):
            Kclo[_u(a), 0] = 0.0
            Kchi[_u(a), 0] = 0.0
        cfree[0, 0] = 0
        cfree[1, 0] = 0
        nc = 1
    ist[_NCAND] = nc
    ist[_NSPEC] = nsp
    ist[_NWIN2] = nw2
    itopen[_u(dst)] = 1 if fst[_MAXW] >= tol else 0


@device
def _box_gradient(q, box_lo, box_hi, p, win1, parts, GXlo, GXhi, GGlo, GGhi, GWlo, GWhi, Gclo, Gchi):
    """Inclusion "best" (subregion._mean_value_bound): gradient q of the iteration, over the selected
    box (q = 0) or over the box with its cut coordinate at position j in part l (q = 1 + j parts + l,
    whose x_j component goes to ``Gc[j, l]``).  One thread a gradient, O(n) each."""
    n = box_lo.shape[0]
    for d in range(n):
        GXlo[_u(q), _u(d)] = box_lo[_u(d)]
        GXhi[_u(q), _u(d)] = box_hi[_u(d)]
    d = -1
    j = 0
    l = 0
    if q > 0:
        j = (q - 1) // parts
        l = q - 1 - j * parts
        d = win1[_u(j)]
        # the part as the sweep cuts it (subregion.evaluate_split_mv), so it holds the subregion
        GXlo[_u(q), _u(d)], GXhi[_u(q), _u(d)] = _part(box_lo[_u(d)], box_hi[_u(d)], l, parts)
    interval_gradient(GXlo[_u(q)], GXhi[_u(q)], p, GGlo[_u(q)], GGhi[_u(q)], GWlo[_u(q)], GWhi[_u(q)])
    if q > 0:  # j, l and d set above
        Gclo[_u(j), _u(l)] = GGlo[_u(q), _u(d)]
        Gchi[_u(j), _u(l)] = GGhi[_u(q), _u(d)]


@device
def _uncut_slope(mstar, box_lo, box_hi, samp, cut1, GGlo, GGhi, fst):
    """The uncut coordinates' part of the mean value form, the same in every subregion: the sum over
    uncut d of G_d (box) times (X_d - c_d), c_d sample ``mstar``'s coordinate, in index order."""
    u_lo = 0.0
    u_hi = 0.0
    for d in range(box_lo.shape[0]):
        if cut1[_u(d)] != 0:
            continue
        x = samp[_u(mstar), _u(d)]
        dlo, dhi = isub(box_lo[_u(d)], box_hi[_u(d)], x, x)
        tlo, thi = imul(GGlo[0, _u(d)], GGhi[0, _u(d)], dlo, dhi)
        u_lo, u_hi = iadd(u_lo, u_hi, tlo, thi)
    fst[_ULO] = u_lo
    fst[_UHI] = u_hi
