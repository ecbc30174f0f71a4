"""The surviving subregions of a sweep contracted at GUB, all at once (issue 41): variant strong's host
loop, for a definition written out coordinate by coordinate (:mod:`gpubench.forms.levelset_batch`).

Why: the selected box's contraction (:meth:`.strong.StrongSteps._contract_selected`) empties one box an
iteration.  On Kowalik (CPU twin, 30 s) every kept region the solver reported was one that a contraction
at GUB empties, while GLB stayed 0: each sweep kept more subregions than the iterations could select.
Here a sweep's survivors (the lowest bounds first, at most MAX_BOXES) go through one batched
forward-backward walk: those it empties (no point with f <= GUB: no minimiser) are dropped, and the
others' lower bounds are raised to the walk's enclosure of f over them.  A subregion stays a subregion
of the partition (the list stores it by index), so the narrowed boxes themselves are not kept.

A cost gate (:func:`_pays`) like the coupled least-squares bound's (:func:`.lsq_floor._pays`), which
also weighs what it dropped.
"""
import math
import time

import numpy as np

from ...forms import levelset_batch
from . import gate
from .contract import levelset
from .partition import child_boxes

ENABLED = True     # off: the search as before (measurements, tests)
MAX_BOXES = 1024   # subregions contracted a chunk (4,096 of Kowalik: 0.7 s on the CPU twin; 512: 0.06 s); a further
                   # chunk of the same survivors while the last paid for itself (gate.chunk_paid)
PROBE, BUDGET = 8, 1.0


def _pays(search):
    """The first PROBE iterations, then while the seconds so far stay within BUDGET mean sweeps for each
    subregion it dropped (PROBE besides): a dropped subregion would have been selected, which costs a
    sweep, or the selected box's contraction, or both.  Where it drops none (Xor: a sigmoid network whose
    survivors hold points near GUB; Cola) it stops after the probe; where it drops dozens a call
    (Kowalik: ~30) it runs every iteration, though it then costs more than the sweep (on the CPU twin
    ~90 ms for 1,024 survivors against a 50 ms sweep of 4,096 subregions)."""
    cost = gate.spent(search, "_child_contract_cost")
    if cost[1] < PROBE:
        return True
    swept, sweeps = search.sweep_cost
    if cost[0] <= BUDGET * swept / max(sweeps, 1) * (search.contract_stats.get("children_dropped", 0) + PROBE):
        return True
    gate.skipped(search, "children_skipped")
    return False


def batched_levelset(search, sel_lo, sel_hi, sidx):
    """The level set the batched walk contracts a sweep's survivors with (shared with :mod:`.child_screen`),
    or None where there is nothing to contract: no survivors, no finite GUB, an unbounded selected box, or
    a definition the batched walk does not take."""
    if (sidx.size == 0 or not math.isfinite(search.state.gub)
            or not (np.all(np.isfinite(sel_lo)) and np.all(np.isfinite(sel_hi)))):
        return None
    ls = levelset(search.fn, search.dim, search.maximise)
    return ls if ls is not None and levelset_batch.applies(ls) else None


def contract_children(search, sel_lo, sel_hi, plan, sidx, lb):
    """``(sidx, lb)`` of the subregions left: those the batched contraction at GUB empties dropped, the
    others' bounds raised to its enclosure of f.  No subregion holding a point with f <= GUB is dropped,
    and each raised bound is a lower bound of f over its subregion, so no minimiser is lost."""
    st = search.state
    ls = batched_levelset(search, sel_lo, sel_hi, sidx) if ENABLED else None
    if ls is None or not _pays(search):
        return sidx, lb
    t0 = time.perf_counter()
    raised = lb.copy()
    keep = np.ones(sidx.size, dtype=bool)
    # MAX_BOXES at a time, the lowest bounds first, the next chunk while the last paid (gate.chunk_paid)
    for pick in gate.lowest_first(lb, MAX_BOXES):
        t1 = time.perf_counter()
        clo, chi = child_boxes(sel_lo, sel_hi, plan, sidx[pick])
        _, _, empty, floor = levelset_batch.contract(ls, clo, chi, st.gub)
        raised[pick] = np.maximum(lb[pick], np.where(np.isnan(floor), -math.inf, floor))
        keep[pick] = ~empty & (raised[pick] <= st.gub)
        if not gate.chunk_paid(search, time.perf_counter() - t1, int(np.count_nonzero(~keep[pick]))):
            break
    stats = search.contract_stats
    stats["children_dropped"] = stats.get("children_dropped", 0) + int(np.count_nonzero(~keep))
    gate.account(search, "_child_contract_cost", time.perf_counter() - t0)
    return sidx[keep], raised[keep]
