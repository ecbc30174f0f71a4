"""The multistart's Halton points (gpubench/methods/solver/local.py: the interval solver's and
subdomain-bnb's ``local_starts``) are scipy's, bit for bit, without importing scipy.stats
(issue 42, item 4: 0.4 s of a second process)."""
import subprocess
import sys

import numpy as np
from scipy.stats import qmc

from gpubench.methods.solver.local import halton, starts


def test_halton_is_scipys_unscrambled_sequence_bit_for_bit():
    for d in (1, 2, 7, 40):
        for count in (1, 9, 300):
            assert np.array_equal(halton(d, count), qmc.Halton(d=d, scramble=False).random(count)), (d, count)


def test_starts_import_no_scipy_stats():
    code = ("import sys\nfrom gpubench.methods.solver.local import starts\n"
            "x = starts([-1.0, 0.0], [1.0, 2.0], 5)\nprint(x.shape, 'scipy.stats' in sys.modules)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.stdout.split() == ["(5,", "2)", "False"], p.stderr[-2000:]
    lo, hi = np.array([-1.0, 0.0]), np.array([1.0, 2.0])
    assert np.array_equal(starts(lo, hi, 5), lo + qmc.Halton(d=2, scramble=False).random(6)[1:] * (hi - lo))
