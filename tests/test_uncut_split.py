"""interval_partial + aggregates_rest (the solver's uncut-coordinate split) equal the full form."""
import numpy as np
import pytest

from gpubench import functions
from gpubench.methods.solver.partition import PartitionRule
from gpubench.methods.solver.uncut import UncutTerms


@pytest.mark.parametrize("name", functions.names())
def test_split_evaluation_matches_the_full_interval_form(name):
    fn = functions.get(name)
    n = 7
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    terms = UncutTerms(fn.definition.negated() if fn.sense == "max" else fn.definition, n, fn.params(n))
    forms, p = terms.forms, fn.params(n)
    dlo, dhi = fn.bounds(n)
    for trial in range(40):
        a, b = np.sort(rng.uniform(dlo, dhi, (2, n)), axis=0)
        if trial % 4 == 0:
            b = a.copy()  # a point, as the samples are
        dims = PartitionRule(n, split_dims=int(rng.integers(1, n)), parts=4).plan(int(rng.integers(0, n))).dims
        win1, win2, cut1, cut2 = terms.windows(dims)
        base_lo = np.empty(max(terms.count, 1))
        base_hi = np.empty(max(terms.count, 1))
        forms.aggregates_rest(a, b, p, cut1, cut2, base_lo, base_hi)
        plo, phi = forms.interval_partial(a, b, p, win1, win2, base_lo, base_hi)
        flo, fhi = forms.interval(a, b, p)
        scale = 1.0 + max(abs(flo), abs(fhi))
        assert abs(plo - flo) <= 1e-12 * scale and abs(phi - fhi) <= 1e-12 * scale, (dims, plo, flo, phi, fhi)
        x = a + rng.random(n) * (b - a)
        v = forms.point(x, p)
        assert plo <= v + 1e-12 * scale and v - 1e-12 * scale <= phi
