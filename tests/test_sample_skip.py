"""A subregion whose box bound exceeds GUB has its samples skipped (spliced/subregion.py's note): the
same search.

Each sweep (full and split, the CPU's numba driver: the GPU's kernels call the same device
functions) runs twice on random selected regions, once with GUB = inf (nothing can be skipped) and once
with a finite GUB.  Against the first, the second must: keep every sample bound it computed, skip only
subregions whose samples could not lower that GUB, rule out exactly the subregions the bound rules
out, and yield the same iteration GUB.  Skipping a sample that could lower GUB is caught (the break
``flo > -inf``: every subregion's samples skipped).
"""
import math

import numpy as np
import pytest

from gpubench import functions
from gpubench.methods.solver import sweep as sweeps
from gpubench.methods.solver import uncut
from gpubench.methods.solver.core import sample_fractions
from gpubench.methods.solver.partition import PartitionRule

SAMPLES = 3


def _regions(fn, n, rng, count):
    """Selected regions somewhere in the domain, narrow enough that the box bounds are near the
    samples' values."""
    dlo, dhi = fn.bounds(n)
    for _ in range(count):
        width = (dhi - dlo) * 10.0 ** rng.uniform(-3, -1, n)
        lo = dlo + rng.random(n) * (dhi - dlo - width)
        yield lo, lo + width


def _check(ref, got, gub):
    """``got`` (the sweep at GUB ``gub``) against ``ref`` (the same sweep at GUB = inf): returns the
    subregions skipped."""
    lb_r, ub_r, _ = ref
    lb, ub, _ = got
    computed = np.isfinite(ub)
    assert np.array_equal(ub[computed], ub_r[computed]), "a sample bound changed"
    skipped = ~computed & np.isfinite(ub_r)
    # skipped only where no sample could lower GUB: ub >= f(sample) >= the box bound > gub
    assert np.all(ub_r[skipped] > gub), "a sample that lowers GUB was skipped"
    assert np.all(lb[skipped] == math.inf), "a skipped subregion was kept"
    # every other decision is the one GUB alone makes: ruled out where the bound exceeds min(GUB, best)
    expect = np.where(lb_r > np.minimum(gub, ub_r), math.inf, lb_r)
    assert np.array_equal(lb, expect), "a subregion was decided otherwise"
    assert min(gub, ub.min()) == min(gub, ub_r.min()), "the iteration's GUB changed"
    return int(skipped.sum())


@pytest.mark.parametrize("name", ["rosenbrock", "levy"])
def test_samples_are_skipped_only_where_they_cannot_lower_gub(name):
    fn = functions.get(name)
    n = 8
    defn = fn.definition
    dlo, dhi = fn.bounds(n)
    cpu = sweeps.CpuSweep(defn, n, fn.params(n), dlo, dhi)
    terms = uncut.UncutTerms(defn, n, fn.params(n))
    shift, den = sample_fractions("inside", SAMPLES)
    rng = np.random.default_rng(sum(map(ord, name)))
    skipped = {"full": 0, "split": 0}
    for trial, (lo, hi) in enumerate(_regions(fn, n, rng, 12)):
        plan = PartitionRule(n, split_dims=3, parts=3).plan(trial % n)
        win1, win2, cut1, cut2 = terms.windows(plan.dims)
        base_lo, base_hi = terms.bases(lo, hi, cut1, cut2, SAMPLES, shift, den)
        tb = uncut.prepare_split(terms, lo, hi, plan, SAMPLES, shift, den, dlo, dhi)
        for kind in skipped:
            if kind == "full":
                run = lambda g: cpu(lo, hi, plan.dims, plan.parts, SAMPLES, shift, den, g, plan.count,  # noqa: E731
                                    win1, win2, base_lo, base_hi)
            else:
                run = lambda g: cpu.split(lo, hi, plan.dims, plan.parts, SAMPLES, shift, den, g,  # noqa: E731
                                          plan.count, tb)
            ref = run(math.inf)
            assert np.isfinite(ref[1]).any(), "with GUB = inf the samples were skipped"
            # a GUB that 30 % of the sample bounds lie below: some samples lower it, some boxes exceed it
            gub = float(np.quantile(ref[1][np.isfinite(ref[1])], 0.3))
            skipped[kind] += _check(ref, run(gub), gub)
    # the test says something: both sweeps skipped some subregions' samples
    assert skipped["full"] > 0 and skipped["split"] > 0, skipped
