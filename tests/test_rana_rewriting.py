"""SciPy's Rana written p/2 sin(a + b) + q/2 sin(a - b) (functions/scipy_go/n_to_r.py; issue 41, hard41):
the rewritten definition's outward-rounded enclosure holds SciPy's own formula, valued exactly (mpmath
at 50 digits), at points of random and adversarial boxes (across the kinks y + x + 1 = 0 and
y - x + 1 = 0, on the domain's edge, tiny and degenerate), and on wide boxes it is the tighter of the
two forms (the reason for the rewriting).  A broken enclosure (the centre's value alone) is caught.
The point values against SciPy's formula: tests/test_scipy_go.py (the independent transcription)."""
import mpmath
import numpy as np

from gpubench import functions
from test_chain import _rana   # SciPy's formula, transcribed once

N = 3
HALF = 500.000001


def _scipy_rana(x):
    """SciPy's Rana (go_funcs_R.py) at 50 digits: tests/test_chain.py's transcription of SciPy's
    formula, sum (y + 1) cos(sqrt|y - x + 1|) sin(sqrt|y + x + 1|) + x cos(sqrt|y + x + 1|) sin(sqrt|y - x + 1|)."""
    with mpmath.workdps(50):
        return _rana([mpmath.mpf(float(v)) for v in x])


def _boxes(rng):
    out = []
    for w in (1000.0, 100.0, 10.0, 1.0, 1e-3, 1e-9, 0.0):
        for _ in range(3):
            c = rng.uniform(-HALF, HALF, N)
            out.append((np.maximum(c - w / 2, -HALF), np.minimum(c + w / 2, HALF)))
    # across the kinks: x_2 + x_1 + 1 = 0 and x_2 - x_1 + 1 = 0 inside the box, and a corner of the domain
    for w in (2.0, 1e-6):
        c = rng.uniform(-400, 400, N)
        c[1] = -c[0] - 1.0
        out.append((c - w / 2, c + w / 2))
        c = rng.uniform(-400, 400, N)
        c[1] = c[0] - 1.0
        out.append((c - w / 2, c + w / 2))
    out.append((np.full(N, HALF - 1.0), np.full(N, HALF)))
    out.append((np.full(N, -HALF), np.full(N, -HALF + 1e-7)))
    return out


def _points(lo, hi, rng):
    corners = [np.where(rng.random(N) < 0.5, lo, hi) for _ in range(4)]
    inside = [lo + (hi - lo) * rng.random(N) for _ in range(6)]
    kink = 0.5 * lo + 0.5 * hi
    kink[1] = min(max(-kink[0] - 1.0, lo[1]), hi[1])   # on y + x + 1 = 0 where the box meets it
    return corners + inside + [kink, 0.5 * lo + 0.5 * hi]


def _violations(enclose, rng):
    bad = []
    for lo, hi in _boxes(rng):
        flo, fhi = enclose(lo, hi)
        for p in _points(lo, hi, rng):
            v = _scipy_rana(p)
            if not (flo <= v <= fhi):
                bad.append((lo.tolist(), hi.tolist(), p.tolist(), float(v), flo, fhi))
    return bad


def test_the_rewritten_rana_encloses_scipys_formula_exactly_valued():
    fn = functions.get("scipy_go.Rana")
    assert _violations(lambda lo, hi: fn.interval(lo, hi), np.random.default_rng(41)) == []


def test_an_enclosure_of_the_centre_value_alone_is_caught():
    fn = functions.get("scipy_go.Rana")

    def centre_only(lo, hi):
        v = fn.point(0.5 * lo + 0.5 * hi)
        return v, v
    assert _violations(centre_only, np.random.default_rng(41))


def test_the_rewritten_form_is_tighter_on_wide_boxes():
    """Its width against the natural form of SciPy's own expression (each of its four oscillating
    factors enclosed alone), summed over random boxes a tenth of the domain wide."""
    from gpubench.interval.arrays import add, mul, sin_, sqrt_, abs_
    fn = functions.get("scipy_go.Rana")
    rng = np.random.default_rng(7)

    def scipy_natural(lo, hi):
        total = (0.0, 0.0)
        for k in range(N - 1):
            x, y = (lo[k], hi[k]), (lo[k + 1], hi[k + 1])
            one = (1.0, 1.0)
            u = add(add(y, (-x[1], -x[0])), one)    # y - x + 1
            v = add(add(y, x), one)                 # y + x + 1
            su, sv = sqrt_(abs_(u)), sqrt_(abs_(v))
            t1 = mul(mul(add(y, one), sin_(su, shift=1.0)), sin_(sv))
            t2 = mul(mul(x, sin_(sv, shift=1.0)), sin_(su))
            total = add(total, add(t1, t2))
        return total
    ours = theirs = 0.0
    for _ in range(20):
        c = rng.uniform(-450, 450, N)
        lo, hi = c - 50.0, c + 50.0
        a = fn.interval(lo, hi)
        b = scipy_natural(lo, hi)
        ours += a[1] - a[0]
        theirs += float(b[1] - b[0])
    assert ours < 0.85 * theirs, (ours, theirs)   # 0.76 here
