"""How a selected region is cut into subregions (paper 000, Sections 3.1-3.2).

Variable cycling.  A region carries a cycling index c (0-based here; the paper
counts from 1).  When it is selected, the s coordinates c, c+1, ..., c+s-1
(taken modulo n) are each cut into p equal parts, giving k = p**s subregions;
its survivors get cycling index (c + s) mod n.  So for n a multiple of s this is
exactly the paper's rule (x_1..x_10, then x_11..x_20, ...), and for other n the
cycle wraps around (n = 15, s = 10: x_1..x_10, then x_11..x_15, x_1..x_5, ...).

Small n.  For n < s every coordinate is cut in each iteration, into the largest
number of parts q with q**n <= p**s, so that an iteration still has about
p**s (10^6 at the defaults) subregions: n = 10 keeps p = 4, n = 5 gives q = 16,
n = 2 gives q = 1024.

Exact coverage.  The cut points of a coordinate are computed once by
:func:`cut` (``b_0 = lo`` and ``b_p = hi`` exactly, monotone in between) and
both neighbours use the same value, so the children tile the parent with no
gap, and a child's edge equals the domain's edge exactly when it lies on it.
The same round-to-nearest operations run on the host and in the kernels
(``add_rn``/``mul_rn``/``div_rn`` are explicit on the GPU, where ``a*b + c``
would otherwise be contracted into an FMA), so a subregion index rebuilds
bit-identical bounds anywhere.
"""
from dataclasses import dataclass

import numpy as np


def parts_for_small_n(n, split_dims, parts):
    """Largest q with q**n <= parts**split_dims (integer arithmetic)."""
    budget = parts ** split_dims
    q = max(2, int(round(budget ** (1.0 / n))))
    while q ** n > budget and q > 2:
        q -= 1
    while (q + 1) ** n <= budget:
        q += 1
    return q


@dataclass(frozen=True)
class Plan:
    """The partition of one iteration: which coordinates are cut, into how many parts."""
    dims: tuple
    parts: int

    @property
    def count(self):
        return self.parts ** len(self.dims)


class PartitionRule:
    def __init__(self, n, split_dims=10, parts=4):
        if split_dims < 1:
            raise ValueError("split_dims must be at least 1")
        if parts < 2:
            raise ValueError("parts must be at least 2")
        self.n = n
        self.split_dims = min(split_dims, n)
        self.parts = parts if n >= split_dims else parts_for_small_n(n, split_dims, parts)
        self.requested = (split_dims, parts)

    def plan(self, cycling_index):
        """The cut of a region selected with ``cycling_index``; a negative index (:func:`kept_whole`)
        is an iteration that kept its selected box whole: no coordinate cut, one subregion (index 0)."""
        if cycling_index < 0:
            return Plan(dims=(), parts=self.parts)
        dims = tuple((cycling_index + j) % self.n for j in range(self.split_dims))
        return Plan(dims=dims, parts=self.parts)

    def next_cycling_index(self, cycling_index):
        return (cycling_index + self.split_dims) % self.n

    def describe(self):
        s, p = self.requested
        if self.n >= s:
            return f"{self.split_dims} of {self.n} coordinates per iteration, {self.parts} parts each"
        return (f"n = {self.n} < s = {s}: all coordinates cut into {self.parts} parts "
                f"({self.parts}^{self.n} <= {p}^{s} subregions)")


def kept_whole(cycling_index):
    """The cycling index recorded for an iteration that kept its (contracted, already narrower than tol)
    selected box whole instead of cutting it: negative, so that :meth:`PartitionRule.plan` gives the
    box itself as subregion 0."""
    return -1 - cycling_index


def cut(lo, hi, j, parts):
    """The j-th of parts+1 cut points of [lo, hi]; b_0 = lo and b_parts = hi exactly."""
    if j <= 0:
        return lo
    if j >= parts:
        return hi
    b = lo + ((hi - lo) * j) / parts
    return min(max(b, lo), hi)


def diagonal_point(lo, hi, m, t_shift, t_den):
    """Sample m of the box [lo, hi]: t = (m + t_shift)/t_den along the diagonal.

    The same round-to-nearest operations as the kernel's samples, so the host
    rebuilds the GPU's sample points bit for bit.
    """
    t = float(m + t_shift) / float(t_den)
    lo = np.asarray(lo, dtype=np.float64)
    hi = np.asarray(hi, dtype=np.float64)
    return np.minimum(np.maximum(lo + t * (hi - lo), lo), hi)


def child_box(sel_lo, sel_hi, plan, index):
    """Bounds of subregion ``index`` of the selected region (host side)."""
    lo = np.array(sel_lo, dtype=np.float64)
    hi = np.array(sel_hi, dtype=np.float64)
    q = int(index)
    for d in plan.dims:
        l = q % plan.parts
        q //= plan.parts
        lo[d] = cut(sel_lo[d], sel_hi[d], l, plan.parts)
        hi[d] = cut(sel_lo[d], sel_hi[d], l + 1, plan.parts)
    return lo, hi


def cuts(lo, hi, j, parts):
    """:func:`cut` for an array of indices ``j``: the same round-to-nearest operations, elementwise.

    numpy's float64 ``+ * /`` round to nearest like Python's, and an index below
    2**53 converts to float64 exactly, so each element equals ``cut(lo, hi, j, parts)``
    bit for bit.
    """
    j = np.asarray(j, dtype=np.int64)
    lo, hi = float(lo), float(hi)
    b = lo + ((hi - lo) * j.astype(np.float64)) / parts
    b = np.minimum(np.maximum(b, lo), hi)
    return np.where(j <= 0, lo, np.where(j >= parts, hi, b))


def child_boxes(sel_lo, sel_hi, plan, indices, out=None):
    """Bounds of many subregions of one selected region: arrays ``(len(indices), n)``.

    Row k equals ``child_box(sel_lo, sel_hi, plan, indices[k])`` bit for bit;
    the output of a stopped search (up to 10^7 regions) is rebuilt this way, one
    iteration's segment at a time, without a Python object per region.  ``out``
    (two arrays of that shape) receives the bounds in place.
    """
    sel_lo = np.asarray(sel_lo, dtype=np.float64)
    sel_hi = np.asarray(sel_hi, dtype=np.float64)
    q = np.array(indices, dtype=np.int64)
    if out is None:
        out = (np.empty((q.size, sel_lo.size)), np.empty((q.size, sel_lo.size)))
    lo, hi = out
    lo[:] = sel_lo
    hi[:] = sel_hi
    for d in plan.dims:
        part = q % plan.parts
        q //= plan.parts
        lo[:, d] = cuts(sel_lo[d], sel_hi[d], part, plan.parts)
        hi[:, d] = cuts(sel_lo[d], sel_hi[d], part + 1, plan.parts)
    return lo, hi


def child_max_width(sel_lo, sel_hi, plan):
    """The largest coordinate width of any subregion of the selected region."""
    widths = np.asarray(sel_hi, dtype=np.float64) - np.asarray(sel_lo, dtype=np.float64)
    widths = widths.copy()
    for d in plan.dims:
        b = [cut(sel_lo[d], sel_hi[d], j, plan.parts) for j in range(plan.parts + 1)]
        widths[d] = max(b[j + 1] - b[j] for j in range(plan.parts))
    return float(widths.max())
