"""The terms of uncut coordinates, evaluated once per iteration instead of once per subregion.

With variable cycling only s of the n coordinates are cut in an iteration; the
other n - s are the same in every subregion (for the box) and at every sample
(a sample's uncut coordinates depend only on t).  Their windows of the
definition's sums and products are therefore evaluated once on the host, with
the CPU interval forms (``aggregates_rest``), and each subregion adds only the
windows that touch a cut coordinate (``interval_partial``).  Both are outward
rounded, so the result is as rigorous as a full evaluation (the bounds may
differ from it by rounding).
"""
import numpy as np

from .. import codegen
from .partition import diagonal_point


class UncutTerms:
    def __init__(self, definition, n, params):
        self.forms = codegen.load(definition, "cpu")
        self.n = n
        self.params = np.ascontiguousarray(params)
        self.count = self.forms.N_AGGREGATES

    def windows(self, dims):
        """(win1, win2, cut1, cut2): cut coordinates, windows (k, k+1) touching one, and their masks."""
        cut1 = np.zeros(self.n, dtype=np.bool_)
        cut1[list(dims)] = True
        cut2 = cut1[:-1] | cut1[1:]
        return np.flatnonzero(cut1), np.flatnonzero(cut2), cut1, cut2

    def bases(self, sel_lo, sel_hi, cut1, cut2, samples, t_shift, t_den):
        """Aggregates over the uncut windows: row 0 for the box, row m for sample m."""
        rows = samples + 1
        base_lo = np.empty((rows, max(self.count, 1)))
        base_hi = np.empty((rows, max(self.count, 1)))
        self.forms.aggregates_rest(sel_lo, sel_hi, self.params, cut1, cut2, base_lo[0], base_hi[0])
        for m in range(1, rows):
            # a sample's uncut coordinates are those of the selected region's own sample
            x = diagonal_point(sel_lo, sel_hi, m, t_shift, t_den)
            self.forms.aggregates_rest(x, x, self.params, cut1, cut2, base_lo[m], base_hi[m])
        return base_lo, base_hi
