"""A sweep's survivors that the batched contraction kept, screened finer on the host (issue 41, variant
strong's host loop, after :mod:`.child_contract`): each survivor's box is cut in halves along its
(up to) CUT widest coordinates, the pieces contracted at GUB in one batched walk
(:func:`gpubench.forms.levelset_batch.contract`), the pieces not emptied cut again, LEVELS times; a
survivor all of whose pieces are emptied holds no point with f <= GUB and is dropped.

Why: at the certify experiment's shape (split_dims 10, n = 4: 32^4 subregions a sweep) Kowalik's root
keeps 261 subregions 0.3125 wide after the batched contraction and the coupled bound, and each later
iteration sweeps one of them (32^4 children, ~140 ms on the H200) only to drop all its children.  Cut
in 16 and 16 again and contracted in one batch, 178 of the 261 are emptied in 2.7 s of this CPU's
host work, 65 after one cut (docs/scipy_go.md, cert41e).

Sound: the pieces of a box cover it (a float midpoint m of [l, h] lies in [l, h], and [l, m], [m, h]
cover it), each piece is the contracted box of the level before (which holds every point of its
parent where f <= GUB), and a piece is dropped only where the contraction proves it empty or its
floor exceeds GUB.  The survivors' own bounds are left as they are: the subregion stays a subregion
of the partition (the list stores it by index).

A cost gate as the batched contraction's (:func:`_pays`, one call on trust), and chunks of survivors,
growing from FIRST, while each pays (:func:`.gate.chunk_paid`): where a sweep costs tens of ms (the
CPU twin's 4,096 subregions) it runs only while its drops pay for it.
"""
import time

import numpy as np

from ...forms import levelset_batch
from . import gate
from .child_contract import batched_levelset
from .partition import child_boxes

ENABLED = True
CUT = 4            # coordinates halved a level (the widest of each box): 16 pieces a box a level
LEVELS = 3         # cuts: at most 16^2 pieces of a survivor are contracted after the first cut's 16
FIRST, MAX_BOXES = 8, 64   # survivors screened a chunk (the lowest bounds first): 8, then twice as many
                           # while each chunk pays, up to 64; a probe of 64 cost Eckerle4 (split 3, twin)
                           # ~1 s a call against its 10 ms sweeps
MAX_PIECES = 65536  # pieces a batch; a chunk with more left stops its cutting there (its survivors kept)
PROBE, BUDGET = 1, 1.0   # one call on trust (eight, the batched contraction's, cost Eckerle4 8.6 s of a 6.5 s solve, loaded)


def _pays(search):
    """Only where a mean sweep costs at least a mean call of the batched contraction (:mod:`.child_contract`,
    whose walk the screen repeats LEVELS times on more boxes): the sweeps of 32^4 subregions on the H200
    (~140 ms, Kowalik) or of 4^10 on the CPU, not the twin's 4,096 (Kowalik: ~40 ms against ~60 ms; the
    screen's first call cost Eckerle4 0.5 s of a 3.2 s solve there and dropped nothing).  Then the first
    PROBE calls, and while the seconds so far stay within BUDGET mean sweeps for each subregion it dropped
    (PROBE besides): :func:`.child_contract._pays`'s rule."""
    swept, sweeps = search.sweep_cost
    walked, walks = gate.spent(search, "_child_contract_cost")
    if not (sweeps and walks and swept / sweeps >= walked / walks):
        return False
    cost = gate.spent(search, "_child_screen_cost")
    if cost[1] < PROBE:
        return True
    if cost[0] <= BUDGET * swept / max(sweeps, 1) * (search.contract_stats.get("screen_dropped", 0) + PROBE):
        return True
    gate.skipped(search, "screen_skipped")
    return False


def halves(lo, hi, cut=CUT):
    """``(lo, hi, parent)``: every box of (lo, hi) (arrays (B, n)) cut in halves along its ``cut`` widest
    coordinates (all where n <= cut), 2^cut pieces a box, ``parent`` the row each piece came from.  The
    pieces of a box cover it: the midpoint of [l, h] is rounded to a float in [l, h]."""
    b, n = lo.shape
    k = min(cut, n)
    axes = np.argsort(-(hi - lo), axis=1, kind="stable")[:, :k]            # (B, k)
    mid = 0.5 * lo + 0.5 * hi                                              # no overflow at +-1e308
    mid = np.minimum(np.maximum(mid, lo), hi)                              # in [l, h] whatever the rounding
    masks = (np.arange(2 ** k)[:, None] >> np.arange(k)[None, :]) & 1      # (P, k): upper half or lower
    plo = np.repeat(lo[:, None, :], 2 ** k, axis=1)                        # (B, P, n)
    phi = np.repeat(hi[:, None, :], 2 ** k, axis=1)
    rows = np.arange(b)[:, None, None]
    pidx = np.arange(2 ** k)[None, :, None]
    ax = np.broadcast_to(axes[:, None, :], (b, 2 ** k, k))
    m = np.take_along_axis(mid, axes, axis=1)[:, None, :]                  # (B, 1, k)
    up = masks[None, :, :].astype(bool)
    plo[rows, pidx, ax] = np.where(up, m, np.take_along_axis(lo, axes, axis=1)[:, None, :])
    phi[rows, pidx, ax] = np.where(up, np.take_along_axis(hi, axes, axis=1)[:, None, :], m)
    return plo.reshape(-1, n), phi.reshape(-1, n), np.repeat(np.arange(b), 2 ** k)


def emptied(ls, lo, hi, level):
    """(B,) True where the box holds no point with f <= ``level``: each box cut and contracted LEVELS
    times (the module's docstring), every piece emptied or floored above ``level``."""
    alive = np.ones(lo.shape[0], dtype=bool)
    plo, phi, parent = lo, hi, np.arange(lo.shape[0])
    for _ in range(LEVELS):
        if parent.size == 0 or parent.size * 2 ** min(CUT, lo.shape[1]) > MAX_PIECES:
            break
        plo, phi, up = halves(plo, phi)
        parent = parent[up]
        clo, chi, empty, floor = levelset_batch.contract(ls, plo, phi, level)
        keep = ~empty & ~(floor > level)
        plo, phi, parent = clo[keep], chi[keep], parent[keep]
        alive = np.zeros(lo.shape[0], dtype=bool)
        alive[parent] = True
    return ~alive


def screen_children(search, sel_lo, sel_hi, plan, sidx, lb):
    """``(sidx, lb)`` of the subregions left: those :func:`emptied` proves hold no point with f <= GUB
    dropped, the others as they were.  No subregion holding a point with f <= GUB is dropped."""
    st = search.state
    ls = batched_levelset(search, sel_lo, sel_hi, sidx) if ENABLED else None
    if ls is None or not _pays(search):
        return sidx, lb
    t0 = time.perf_counter()
    keep = np.ones(sidx.size, dtype=bool)
    for pick in gate.lowest_first(lb, MAX_BOXES, first=FIRST):
        t1 = time.perf_counter()
        clo, chi = child_boxes(sel_lo, sel_hi, plan, sidx[pick])
        keep[pick] = ~emptied(ls, clo, chi, st.gub)
        if not gate.chunk_paid(search, time.perf_counter() - t1, int(np.count_nonzero(~keep[pick]))):
            break
    stats = search.contract_stats
    stats["screen_dropped"] = stats.get("screen_dropped", 0) + int(np.count_nonzero(~keep))
    gate.account(search, "_child_screen_cost", time.perf_counter() - t0)
    return sidx[keep], lb[keep]
