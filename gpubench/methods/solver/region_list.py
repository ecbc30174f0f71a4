"""The list L of regions that may hold a global minimiser (paper 000, Section 3.2).

Per region the paper keeps four numbers: subregion index, iteration index,
cycling index and lower bound.  All survivors of one iteration share the last
three but the bound, so L is kept as one *segment* per iteration: the iteration
index, cycling index and openness once, and arrays of subregion indices and
lower bounds.  Selecting, pruning by GUB and appending then cost time in the
number of segments and in the entries actually removed, not in |L| (which
reaches 10^7 in the first cycle of some functions).

The order of entries is the order of the flat list the paper describes
(older iterations first, subregions in index order), and ties in selection go
to the first entry in that order.
"""
import math

import numpy as np

ROOT = -1  # the iteration that "made" the root region: its parent is none


class Segment:
    __slots__ = ("itr", "cyc", "open", "sidx", "lb", "min_lb", "max_lb")

    def __init__(self, itr, cyc, open_, sidx, lb):
        self.itr, self.cyc, self.open = int(itr), int(cyc), bool(open_)
        self.sidx = np.asarray(sidx, dtype=np.int32)  # < 2**31 subregions per iteration (Settings.validate)
        self.lb = np.asarray(lb, dtype=np.float64)
        self._bounds()

    def _bounds(self):
        self.min_lb = float(self.lb.min())
        self.max_lb = float(self.lb.max())

    def keep(self, mask):
        self.sidx, self.lb = self.sidx[mask], self.lb[mask]
        if self.lb.size:
            self._bounds()


class RegionList:
    def __init__(self):
        self.segments = []
        self.size = 0

    def __len__(self):
        return self.size

    def append(self, itr, cyc, open_, sidx, lb):
        if len(lb):
            self.segments.append(Segment(itr, cyc, open_, sidx, lb))
            self.size += len(lb)

    def any_open(self):
        return any(s.open for s in self.segments)

    def min_lb(self):
        return min(s.min_lb for s in self.segments) if self.segments else math.inf

    def pop_best_open(self):
        """Remove and return (itr, cyc, sidx, lb) of the open region with the smallest lower bound."""
        best = None
        for s in self.segments:
            if s.open and (best is None or s.min_lb < best.min_lb):
                best = s
        j = int(np.argmin(best.lb))
        entry = (best.itr, best.cyc, int(best.sidx[j]), float(best.lb[j]))
        mask = np.ones(best.lb.size, dtype=bool)
        mask[j] = False
        self._keep(best, mask)
        return entry

    def prune(self, gub, spare=None):
        """Drop every region whose lower bound exceeds ``gub`` (but those of iteration ``spare``)."""
        for s in list(self.segments):
            if s.itr == spare:
                continue
            if s.min_lb > gub:
                self._keep(s, np.zeros(s.lb.size, dtype=bool))
            elif s.max_lb > gub:
                self._keep(s, s.lb <= gub)

    def _keep(self, segment, mask):
        before = segment.lb.size
        segment.keep(mask)
        self.size -= before - segment.lb.size
        if segment.lb.size == 0:
            self.segments.remove(segment)

    # ------------------------------------------------------------ flat form (checkpoints, output)
    def flat(self):
        """(sidx, itr, cyc, lb, open) arrays in list order."""
        segs = self.segments
        count = [s.lb.size for s in segs]
        return (np.concatenate([s.sidx for s in segs]) if segs else np.zeros(0, np.int32),
                np.repeat(np.array([s.itr for s in segs], dtype=np.int64), count),
                np.repeat(np.array([s.cyc for s in segs], dtype=np.int64), count),
                np.concatenate([s.lb for s in segs]) if segs else np.zeros(0),
                np.repeat(np.array([s.open for s in segs], dtype=bool), count))

    @classmethod
    def from_flat(cls, sidx, itr, cyc, lb, open_):
        out = cls()
        if len(lb) == 0:
            return out
        key = np.stack([itr, cyc, np.asarray(open_, dtype=np.int64)])
        starts = np.flatnonzero(np.any(key[:, 1:] != key[:, :-1], axis=0)) + 1
        for a, b in zip(np.r_[0, starts], np.r_[starts, len(lb)]):
            out.append(itr[a], cyc[a], open_[a], sidx[a:b], lb[a:b])
        return out
