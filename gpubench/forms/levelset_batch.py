"""HC4-revise of f(x) <= level on many boxes at once, for a definition written out coordinate by
coordinate (no aggregate: the fixed-dimension fits, Kowalik, Thurber, Ratkowsky01, Watson ...; issue 41).

Why: the level set (:class:`gpubench.forms.levelset.LevelSet`) contracts the one box a search selects.
On Kowalik the boxes a sweep keeps are emptied by a contraction at GUB (each of the 100 of the 3,500
kept after 30 s on the CPU twin that the solver reports), but one at a time, a selected box an
iteration, while each sweep adds more: GLB stays 0.  Here the same walks (:mod:`.levelset_tree`) run
with each coordinate's interval an array, one entry a box, so that one numpy pass contracts a sweep's
survivors.

The walks are elementwise, so each box's enclosures and projections are the ones a walk of that box
alone computes.  The one difference is an empty projection: the one-box walk raises ``_Empty`` and
stops; here (``levelset_tree.LOCAL.batch`` set on this thread) it marks the boxes whose projection is empty and gives them
their unnarrowed enclosure, so that the walk goes on for the others.  A marked box holds no point where
f <= level (the one-box walk stops there with the same proof).  So does a box whose enclosure of f
exceeds the level.

``tests/test_levelset_batch.py`` checks each box's result against the one-box contraction, and that no
point with f <= level is ever removed (50-digit oracle).
"""
import numpy as np

from ..interval.arrays import INF, Undefined
from . import levelset_tree as tree
from .levelset import N_SYM

ROUNDS = 3       # forward-backward passes, as LevelSet.contract
SPLIT_MIN = 8    # a batch where f is undefined on some box is halved down to this many boxes


class _Batch:
    """The empty mask of one batched walk."""

    def __init__(self, count):
        self.empty = np.zeros(count, dtype=bool)

    def mark(self, a, lo, hi):
        bad = lo > hi
        self.empty |= np.broadcast_to(bad, self.empty.shape)
        return np.where(bad, a[0], lo), np.where(bad, a[1], hi)


def applies(ls):
    """Whether the batched walk applies to the level set ``ls``: its expression reads coordinates by
    name alone (no aggregate), and f is its expression everywhere (no spike)."""
    return bool(ls.usable and not ls.terms)


def contract(ls, lo, hi, level):
    """``(lo, hi, empty, floor)`` for the boxes [lo, hi] (arrays (B, n)): each box narrowed to one that
    holds every point of it where f <= ``level``; ``empty`` (B,) where none is; ``floor`` (B,) a lower
    bound of f over each given box (the first pass's enclosure; -inf where none).  Boxes of a batch
    where f is undefined somewhere (a NaN) are halved down to SPLIT_MIN boxes, then left as they are,
    as LevelSet.contract leaves such a box."""
    lo = np.array(lo, dtype=np.float64, ndmin=2)
    hi = np.array(hi, dtype=np.float64, ndmin=2)
    count = lo.shape[0]
    if not applies(ls) or count == 0:
        return lo, hi, np.zeros(count, dtype=bool), np.full(count, -INF)
    try:
        return _contract(ls, lo, hi, float(level))
    except Undefined:
        if count <= SPLIT_MIN:
            return lo, hi, np.zeros(count, dtype=bool), np.full(count, -INF)
    h = count // 2
    parts = [contract(ls, lo[:h], hi[:h], level), contract(ls, lo[h:], hi[h:], level)]
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(4))


def _contract(ls, lo, hi, level):
    """The passes over the boxes.  After the first, a pass walks only the boxes that the previous one
    changed (bit for bit) and did not mark empty: a box it left as it was would be walked again on the same
    intervals (the walks are elementwise: the module's docstring), giving the same narrowing and the same
    marks, and an empty box keeps its box whatever later passes give.  So every result is the one of
    walking all boxes every pass, for fewer box-passes (on Kowalik's survivors about half of the second
    and third passes' boxes).  The stop (no box narrowed) and the undefined-on-a-narrowed-box stop read
    the walked boxes, as a walk of all would: the others are unchanged and were defined on the last pass."""
    count = lo.shape[0]
    empty = np.zeros(count, dtype=bool)
    floor = None
    live = np.arange(count)      # the boxes walked in this pass
    saved = getattr(tree.LOCAL, "batch", None)
    try:
        for r in range(ROUNDS):
            wlo, whi = (lo, hi) if r == 0 else (lo[live], hi[live])
            n = live.size
            batch = _Batch(n)
            tree.LOCAL.batch = batch
            env = {s: (wlo[:, k], whi[:, k]) for s, k in ls.coords.items()}
            env[N_SYM] = (float(ls.dim), float(ls.dim))
            vals = {}
            with np.errstate(all="ignore"):
                try:
                    f = tree._forward(ls.expr, env, vals)
                except Undefined:   # on a narrowed box: what the passes so far proved stands (LevelSet's way)
                    if r == 0:
                        raise
                    break
                flo = np.broadcast_to(f[0], (n,))
                if floor is None:
                    floor = flo.copy()
                batch.empty |= flo > level
                narrowed = {}
                tree._backward(ls.expr, (-INF, level), vals, narrowed)
            new_lo, new_hi = wlo.copy(), whi.copy()
            for s, k in ls.coords.items():
                if s in narrowed:
                    new_lo[:, k] = np.maximum(new_lo[:, k], np.broadcast_to(narrowed[s][0], (n,)))
                    new_hi[:, k] = np.minimum(new_hi[:, k], np.broadcast_to(narrowed[s][1], (n,)))
            batch.empty |= np.any(new_lo > new_hi, axis=1)
            empty[live] |= batch.empty
            # a box marked empty keeps its box (the mask is its answer); the others go on narrowed
            new_lo = np.where(batch.empty[:, None], wlo, new_lo)
            new_hi = np.where(batch.empty[:, None], whi, new_hi)
            if np.array_equal(new_lo, wlo) and np.array_equal(new_hi, whi):
                break
            moved = np.any((new_lo.view(np.int64) != wlo.view(np.int64)) | (new_hi.view(np.int64) != whi.view(np.int64)),
                           axis=1)
            lo, hi = lo.copy(), hi.copy()
            lo[live], hi[live] = new_lo, new_hi
            live = live[moved]
            if live.size == 0:
                break
    finally:
        tree.LOCAL.batch = saved
    return lo, hi, empty, floor
