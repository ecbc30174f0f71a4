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

from ...forms import carded  # load: through the function's card where it has one (no sympy)
from .kernels import CUT_LAYOUT
from .partition import diagonal_point


# Appended to the CPU module of the forms: the rows of ``base`` (the box and each sample) are
# independent, so they run on all cores; each row is the same serial ``aggregates_rest`` as
# ``UncutTerms.bases``, so the numbers are bit-identical.  With it, the cut tables' layout
# (kernels.CUT_LAYOUT), which the host draws for either backend.
HOST_BASES = CUT_LAYOUT + '''
from numba import njit as _njit, prange as _prange


@_njit(parallel=True, cache=True, error_model="numpy")
def host_bases(sel_lo, sel_hi, samp, p, skip1, skip2, base_lo, base_hi):
    for m in _prange(samp.shape[0]):
        if m == 0:
            aggregates_rest(sel_lo, sel_hi, p, skip1, skip2, base_lo[0], base_hi[0])
        else:
            aggregates_rest(samp[m], samp[m], p, skip1, skip2, base_lo[m], base_hi[m])
'''


class UncutTerms:
    def __init__(self, definition, n, params):
        self.forms = carded.load(definition, "cpu", (HOST_BASES,))
        self.n = n
        self.params = np.ascontiguousarray(params)
        self.count = self.forms.N_AGGREGATES
        self.nprod = self.forms.N_PRODUCTS
        self.has_window2 = carded.fact(definition, "has_window2",
                                        lambda d: any(d.window(a) == 2 for a in d.terms))
        self.fast_path = True  # one aggregate: four candidates decide the uncut test (tests may turn it off)

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


class SplitTables:
    """Everything the n-independent sweep reads besides the selected box, for one iteration."""
    __slots__ = ("slot", "win1", "win2", "base_lo", "base_hi", "samp", "uflags", "special",
                 "Rlo", "Rhi", "Kclo", "Kchi", "cfree", "fast", "tab", "dtab", "vtotal", "dtotal")


def prepare_split(terms, sel_lo, sel_hi, plan, samples, t_shift, t_den, dom_lo, dom_hi):
    """Per-iteration tables of the split sweep (docs/solver-scaling.md) for the partition ``plan``;
    O(n) host work.

    - ``slot[d]``: position of d among the sorted cut coordinates, or -1;
    - ``samp[m]``: the selected region's own sample m (the uncut coordinates of
      every subregion's sample m);
    - ``uflags[m]``: whether the uncut coordinates of the box (m = 0) or of
      sample m meet / lie in the spike, for the functions that have one;
    - ``special``: cut coordinates, their neighbours in two-coordinate windows,
      and the first and last coordinates: their derivative is evaluated per
      subregion; ``R[.., q]`` the uncut product of each product aggregate but
      the term of ``special[q]``;
    - ``Kc[a, c]``, ``cfree[., c]``: dg/dA_a factors and edge flags of the
      candidate coordinates c whose test g_d = sum_a C_a K_{a,d} runs per subregion.
      With one aggregate only four candidates are kept (``fast``); otherwise all
      non-special coordinates;
    - ``tab``, ``dtab``, ``vtotal``, ``dtotal``: the layout of the cut tables (kernels.CUT_LAYOUT),
      which the sweep fills on its backend before it runs.
    """
    forms, n = terms.forms, terms.n
    t = SplitTables()
    win1, win2, cut1, cut2 = terms.windows(plan.dims)
    t.win1, t.win2 = win1, win2
    slot = np.full(n, -1, dtype=np.int64)
    slot[win1] = np.arange(win1.size)
    t.slot = slot
    samp = np.empty((samples + 1, n))
    samp[0] = sel_lo
    for m in range(1, samples + 1):
        samp[m] = diagonal_point(sel_lo, sel_hi, m, t_shift, t_den)
    t.samp = samp
    t.base_lo = np.empty((samples + 1, max(terms.count, 1)))
    t.base_hi = np.empty((samples + 1, max(terms.count, 1)))
    forms.host_bases(np.ascontiguousarray(sel_lo), np.ascontiguousarray(sel_hi), samp, terms.params,
                     cut1, cut2, t.base_lo, t.base_hi)
    t.uflags = np.zeros((samples + 1, 2), dtype=np.int8)
    if forms.HAS_SPIKE:
        keep = ~cut1
        s_lo, s_hi = forms.SPIKE_LO, forms.SPIKE_HI
        rows = [(sel_lo, sel_hi)] + [(samp[m], samp[m]) for m in range(1, samples + 1)]
        for m, (a, b) in enumerate(rows):
            a, b = a[keep], b[keep]
            t.uflags[m, 0] = not np.any((b < s_lo) | (a > s_hi))
            t.uflags[m, 1] = not np.any((a < s_lo) | (b > s_hi))
    special = cut1.copy()
    if terms.has_window2:
        special[1:] |= cut1[:-1]
        special[:-1] |= cut1[1:]
    special[0] = special[n - 1] = True
    t.special = np.flatnonzero(special)
    t.tab = np.empty((win1.size + win2.size + 2, 2), dtype=np.int64)
    t.dtab = np.empty((3 * t.special.size, 2), dtype=np.int64)
    t.vtotal, t.dtotal = forms.cut_layout(n, win1, win2, t.special, slot, plan.parts, plan.count, forms.CUT_USES,
                                          forms.DERIV_USES, t.tab, t.dtab)
    nagg = terms.count
    Klo = np.empty((max(nagg, 1), n))
    Khi = np.empty((max(nagg, 1), n))
    t.Rlo = np.empty((max(terms.nprod, 1), t.special.size))
    t.Rhi = np.empty((max(terms.nprod, 1), t.special.size))
    wlo, whi = np.empty(n), np.empty(n)
    forms.uncut_tables(sel_lo, sel_hi, terms.params, cut1, t.special, Klo, Khi, t.Rlo, t.Rhi, wlo, whi)
    other = ~special
    free_lo = np.asarray(sel_lo) != np.asarray(dom_lo)
    free_hi = np.asarray(sel_hi) != np.asarray(dom_hi)
    t.fast = nagg == 1 and terms.fast_path
    if nagg == 0:
        cand = np.zeros(0, dtype=np.int64)
    elif t.fast:
        cand = one_aggregate_candidates(Klo[0], Khi[0], other, free_lo, free_hi)
    else:
        cand = several_aggregate_candidates(Klo, Khi, other, free_lo, free_hi)
    if cand.size == 0:
        # one inert column (K = 0, no edge free: never discards) rather than a zero-size device array
        t.Kclo = np.zeros((Klo.shape[0], 1))
        t.Kchi = np.zeros((Klo.shape[0], 1))
        t.cfree = np.zeros((2, 1), dtype=np.int8)
        return t
    t.Kclo = np.ascontiguousarray(Klo[:, cand])
    t.Kchi = np.ascontiguousarray(Khi[:, cand])
    t.cfree = np.ascontiguousarray(np.stack([free_lo[cand], free_hi[cand]]).astype(np.int8))
    return t


def one_aggregate_candidates(klo, khi, other, free_lo, free_hi):
    """The coordinates that decide the test when g_d = C K_d (one aggregate).

    lower(C K_d) > 0 needs C and K_d of one strict sign; then it is
    rd(c_lo k_lo) (both > 0) or rd(c_hi k_hi) (both < 0), monotone in K_d's
    endpoint.  So among the coordinates free at their lower edge, the one with
    the largest k_lo > 0 (resp. the smallest k_hi < 0) reaches lower(g) > 0
    whenever any does; likewise upper(C K_d) < 0 is ru(c_hi k_lo) (C < 0 < K)
    or ru(c_lo k_hi) (K < 0 < C) among those free at their upper edge.  The
    kernel still evaluates C K_d for these candidates with outward rounding and
    discards only on that enclosure.
    """
    picks = []
    pos = other & (klo > 0.0)
    neg = other & (khi < 0.0)
    for free in (free_lo, free_hi):
        for mask, vals, best in ((pos & free, klo, np.argmax), (neg & free, khi, np.argmin)):
            idx = np.flatnonzero(mask)
            if idx.size:
                picks.append(int(idx[best(vals[idx])]))
    return np.unique(np.array(picks, dtype=np.int64))


def several_aggregate_candidates(Klo, Khi, other, free_lo, free_hi):
    """The plain coordinates that can rule a subregion out when g_d = sum_a C_a K_{a,d}.

    Left out, without changing any decision: a coordinate free at neither edge; one whose
    every K_{a,d} contains 0 (then every C_a K_{a,d}, rounded outward, contains 0, and so does
    their sum, whatever C is); and all but one of the coordinates with the same K column and
    edge flags (they decide alike).
    """
    straddle = np.all((Klo <= 0.0) & (Khi >= 0.0), axis=0)
    idx = np.flatnonzero(other & (free_lo | free_hi) & ~straddle)
    if idx.size > 1:
        key = np.concatenate([Klo[:, idx], Khi[:, idx], free_lo[idx][None], free_hi[idx][None]])
        _, first = np.unique(key, axis=1, return_index=True)
        idx = idx[np.sort(first)]
    return idx
