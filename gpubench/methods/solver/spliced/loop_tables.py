"""The device loop's per-iteration tables (``prepare_split`` on the GPU): the folds and the candidates.

The same operations in the same order as the host's serial forms (``aggregates_rest``,
``uncut_tables``, ``uncut.one_aggregate_candidates`` / ``several_aggregate_candidates``), so the same
bits; spliced before :mod:`.loop`, whose ``device_loop`` calls them.
"""
import numpy as np
from numba import cuda as _cuda, int64 as _int64

if __name__ == "gpubench.methods.solver.spliced.loop_tables":  # imported as itself: stand-in forms
    from gpubench.methods.solver.spliced.stand_in_cuda import AGG_FOLD, N_AGGREGATES, device, iadd, imul

# the device state's entries (gpubench/methods/solver/devloop.py names the same numbers)
_IT, _SIZE, _STOP, _NOPEN, _SELPOS, _SELSLOT, _SELSIDX, _SELCYC = 0, 1, 2, 3, 4, 5, 6, 7
_BESTIT, _BESTIDX, _NJEV, _NCAND, _NSPEC, _NWIN2, _NINF, _NEWSIZE, _NEWOPEN = 8, 9, 10, 11, 12, 13, 14, 15, 16
_VTOTAL, _DTOTAL = 17, 18
_GUB, _MAXW, _GLB = 0, 1, 2
_FULL, _EMPTY, _UNDEFINED = 1, 2, 3
DEDUP = 8  # kept candidate columns a new one is compared with (runs of equal uncut coordinates are caught)


@device
def _insert_sorted(arr, k, v):
    # arr[:k] sorted ascending without repeats: insert v (if new), return the new length
    j = 0
    while j < k and arr[j] < v:
        j += 1
    if j < k and arr[j] == v:
        return k
    i = k
    while i > j:
        arr[i] = arr[i - 1]
        i -= 1
    arr[j] = v
    return k + 1


@device
def _fold_row(m, n, cut1, cut2, Tlo, Thi, base_lo, base_hi):
    """``aggregates_rest`` of row m from its window terms: each aggregate folded in index order over
    the windows of uncut coordinates, as the serial form does (so the same bits)."""
    for a in range(N_AGGREGATES):
        code = AGG_FOLD[a]
        if code == 2:
            acc_lo = 1.0
            acc_hi = 1.0
        else:
            acc_lo = 0.0
            acc_hi = 0.0
        for k in range(n - 1 if code == 1 else n):
            if code == 1:
                if cut2[k] != 0:
                    continue
            elif cut1[k] != 0:
                continue
            if code == 2:
                acc_lo, acc_hi = imul(acc_lo, acc_hi, Tlo[m, a, k], Thi[m, a, k])
            else:
                acc_lo, acc_hi = iadd(acc_lo, acc_hi, Tlo[m, a, k], Thi[m, a, k])
        base_lo[m, a] = acc_lo
        base_hi[m, a] = acc_hi


@device
def _fold_tables(n, nsp, cut1, special, Tlo, Thi, DXlo, DXhi, DYlo, DYhi, Klo, Khi, Rlo, Rhi, wlo, whi):
    """``uncut_tables`` from the box's window terms and derivatives (row 0): the same operations in
    the same order, so the same bits."""
    for a in range(Klo.shape[0]):
        for k in range(n):
            Klo[a, k] = 0.0
            Khi[a, k] = 0.0
    pi = 0
    for a in range(N_AGGREGATES):
        code = AGG_FOLD[a]
        if code == 2:
            # R: the product of the uncut terms but d's, from prefix (w) and suffix (run) products
            run_lo = 1.0
            run_hi = 1.0
            for k in range(n):
                wlo[k] = run_lo
                whi[k] = run_hi
                if cut1[k] == 0:
                    run_lo, run_hi = imul(run_lo, run_hi, Tlo[0, a, k], Thi[0, a, k])
            run_lo = 1.0
            run_hi = 1.0
            for k in range(n - 1, -1, -1):
                wlo[k], whi[k] = imul(wlo[k], whi[k], run_lo, run_hi)
                Klo[a, k], Khi[a, k] = imul(wlo[k], whi[k], DXlo[a, k], DXhi[a, k])
                if cut1[k] == 0:
                    run_lo, run_hi = imul(run_lo, run_hi, Tlo[0, a, k], Thi[0, a, k])
            for qq in range(nsp):
                Rlo[pi, qq] = wlo[special[qq]]
                Rhi[pi, qq] = whi[special[qq]]
            pi += 1
        elif code == 0:
            for k in range(n):
                Klo[a, k], Khi[a, k] = iadd(Klo[a, k], Khi[a, k], DXlo[a, k], DXhi[a, k])
        else:
            for k in range(n - 1):
                Klo[a, k], Khi[a, k] = iadd(Klo[a, k], Khi[a, k], DXlo[a, k], DXhi[a, k])
                Klo[a, k + 1], Khi[a, k + 1] = iadd(Klo[a, k + 1], Khi[a, k + 1], DYlo[a, k], DYhi[a, k])


@device
def _tables(it, cyc, s, box_lo, box_hi, p, win1, win2, special, smask, cut1, Klo, Khi, Rlo, Rhi, uw_lo, uw_hi,
            Kclo, Kchi, cfree, free_lo, free_hi, fast, w2, ist, fst, itopen, tol, Tlo, Thi, DXlo, DXhi, DYlo, DYhi):
    """prepare_split's O(n) tables that are not per coordinate (one thread): the windows touching
    a cut coordinate, the special coordinates, K and R (``uncut_tables``, folded from the window
    terms) and the candidates."""
    n = box_lo.shape[1]
    dst = it + 1
    nw2 = 0
    for q in range(s):
        d = win1[q]
        for k in range(d - 1, d + 1):
            if k >= 0 and k <= n - 2 and (nw2 == 0 or k > win2[nw2 - 1]):
                win2[nw2] = k
                nw2 += 1
    nsp = _insert_sorted(special, np.int64(0), np.int64(0))
    nsp = _insert_sorted(special, nsp, n - 1)
    for q in range(s):
        d = win1[q]
        nsp = _insert_sorted(special, nsp, d)
        if w2 != 0:
            if d >= 1:
                nsp = _insert_sorted(special, nsp, d - 1)
            if d <= n - 2:
                nsp = _insert_sorted(special, nsp, d + 1)
    for q in range(nsp):
        smask[special[q]] = 1
    _fold_tables(n, nsp, cut1, special, Tlo, Thi, DXlo, DXhi, DYlo, DYhi, Klo, Khi, Rlo, Rhi, uw_lo, uw_hi)
    nc = 0
    if N_AGGREGATES > 0 and fast != 0 and N_AGGREGATES == 1:
        # one aggregate: the four coordinates that decide the test (uncut.one_aggregate_candidates)
        picks = _cuda.local.array(4, _int64)
        for w in range(4):
            picks[w] = -1
        for d in range(n):
            if smask[d] != 0:
                continue
            klo = Klo[0, d]
            khi = Khi[0, d]
            for f in range(2):
                free = free_lo[d] if f == 0 else free_hi[d]
                if free == 0:
                    continue
                if klo > 0.0 and (picks[2 * f] < 0 or klo > Klo[0, picks[2 * f]]):
                    picks[2 * f] = d
                if khi < 0.0 and (picks[2 * f + 1] < 0 or khi < Khi[0, picks[2 * f + 1]]):
                    picks[2 * f + 1] = d
        srt = _cuda.local.array(4, _int64)
        for w in range(4):
            if picks[w] >= 0:
                nc = _insert_sorted(srt, nc, picks[w])
        for c in range(nc):
            d = srt[c]
            Kclo[0, c] = Klo[0, d]
            Kchi[0, c] = Khi[0, d]
            cfree[0, c] = free_lo[d]
            cfree[1, c] = free_hi[d]
    elif N_AGGREGATES > 0:
        # several aggregates: every plain coordinate that can decide (uncut.several_aggregate_candidates);
        # a column equal to one of the last DEDUP kept, with equal edge flags, decides alike and is left
        # out (the host leaves out every repeat: the same decisions, a few more candidates here at most)
        for d in range(n):
            if smask[d] != 0 or (free_lo[d] == 0 and free_hi[d] == 0):
                continue
            straddle = True
            for a in range(N_AGGREGATES):
                if not (Klo[a, d] <= 0.0 and Khi[a, d] >= 0.0):
                    straddle = False
            if straddle:
                continue
            repeat = False
            for c in range(max(0, nc - DEDUP), nc):
                if cfree[0, c] == free_lo[d] and cfree[1, c] == free_hi[d]:
                    same = True
                    for a in range(N_AGGREGATES):
                        if Kclo[a, c] != Klo[a, d] or Kchi[a, c] != Khi[a, d]:
                            same = False
                    if same:
                        repeat = True
                        break
            if repeat:
                continue
            for a in range(N_AGGREGATES):
                Kclo[a, nc] = Klo[a, d]
                Kchi[a, nc] = Khi[a, d]
            cfree[0, nc] = free_lo[d]
            cfree[1, nc] = free_hi[d]
            nc += 1
    if nc == 0:
        # one inert column (K = 0, no edge free: never discards), as prepare_split
        for a in range(Kclo.shape[0]):
            Kclo[a, 0] = 0.0
            Kchi[a, 0] = 0.0
        cfree[0, 0] = 0
        cfree[1, 0] = 0
        nc = 1
    ist[_NCAND] = nc
    ist[_NSPEC] = nsp
    ist[_NWIN2] = nw2
    itopen[dst] = 1 if fst[_MAXW] >= tol else 0
