"""The interval solver's gap stop (``gap_tol``, issue 41) and the certification's "by the gap".

Once GUB - GLB <= gap_tol the minimum's value is proved (what a B&B solver such as MAiNGO proves)
and the search stops, its output regions, which still hold every global minimiser, coarser than
tol.  On the H200, Alpine01, Cigar, Griewank, Deb01, Deb03 and Mishra01 at n = 10 had closed the
gap and ran on to their 30 s limit (up to 1.5e8 regions); MultiModal and Mishra11 closed it in the
first iteration.  Paper 000's algorithm has no gap stop (gap_tol = None, its default).
"""
import numpy as np

from gpubench import functions as F
from gpubench.methods.solver import solve
from gpubench.methods.solver.settings import STRONG, Settings, host_loop_reasons
from gpubench.reports.certify import certified_by_gap
from gpubench.workflow.certify import by_gap, judge

# Rosenbrock n = 4 (f* = 0 at x = 1): 86 iterations to regions narrower than tol, 24 to a gap of 1e-2
BASE = dict(backend="cpu", split_dims=2, parts=4, tol=1e-6, max_iterations=400)


def test_the_gap_stop_proves_the_value_and_keeps_the_minimiser():
    full = solve("rosenbrock", 4, Settings(**BASE))
    gap = solve("rosenbrock", 4, Settings(**BASE, gap_tol=1e-2))
    assert full.converged and full.stop == "converged" and "gap_tol" not in full.options
    assert gap.converged and gap.stop == "converged" and gap.options["resolved"] is False
    assert "gap closed" in gap.message and gap.iterations < full.iterations
    assert gap.gub - gap.glb <= 1e-2 and gap.glb <= 0.0 <= gap.gub   # f* = 0 enclosed
    widths = gap.regions_hi - gap.regions_lo
    assert widths.max() >= 1e-6                                      # not resolved to tol ...
    inside = np.all((gap.regions_lo <= 1.0) & (1.0 <= gap.regions_hi), axis=1)
    assert inside.any()                                             # ... but x* = 1 is in a region
    # the judge: certified by the gap where the regions are coarse, not where they are resolved
    fn = F.get("rosenbrock")
    ones = [np.ones(4)]
    assert judge(fn, 4, 0.0, ones, gap, ftol=1e-2)[0] == "agrees"
    assert by_gap(gap, 1e-2) and not by_gap(full, 1e-2) and not by_gap(gap, 1e-9)
    # a gap tolerance of 0 stops only where the regions are resolved: the paper's run
    zero = solve("rosenbrock", 4, Settings(**BASE, gap_tol=0.0))
    assert zero.iterations == full.iterations and zero.options["resolved"] is True


def test_the_paper_variant_has_no_gap_stop_and_the_device_loop_serves_one():
    assert Settings().gap_tol is None and "gap_tol" not in STRONG
    assert Settings(variant="strong").gap_tol is None
    # the device loop stops on the gap too (tests/test_devloop.py): a gap_tol keeps it
    assert not host_loop_reasons(Settings(backend="cuda", gap_tol=1e-6))


def test_the_report_reads_by_the_gap_from_old_and_new_records():
    cert = {"verdict": "agrees", "ftol": 1e-6, "regions": True}
    stopped = {"measured": {"glb": 0.0, "gub": 1e-9, "converged": False}, "certification": cert}
    resolved = {"measured": {"glb": 0.0, "gub": 1e-9, "converged": True}, "certification": cert}
    open_gap = {"measured": {"glb": 0.0, "gub": 1.0, "converged": False}, "certification": cert}
    gap_stop = {"measured": {"glb": 0.0, "gub": 1e-9, "converged": True},
                "certification": {**cert, "by_gap": True}}
    opinion = {"measured": {"glb": 0.0, "gub": 1e-9, "converged": False},
               "certification": {**cert, "regions": False}}
    assert certified_by_gap(stopped) and certified_by_gap(gap_stop)
    assert not certified_by_gap(resolved) and not certified_by_gap(open_gap) and not certified_by_gap(opinion)


def test_a_gap_tol_below_float64_s_spacing_stops_at_that_spacing():
    """At f = 1e12 one ulp is 1.2e-4, so a gap of 1e-6 is only ever reached at 0.  The search's gap
    stop takes max(gap_tol, 1024 ulp) (settings.gap_width, the judge's rule) and its message says so;
    an infinite GLB never closes it (ulp(inf) is inf).  The search's own state, faked: no compile."""
    import math
    from types import SimpleNamespace

    from gpubench.methods.solver.core import Search
    from gpubench.methods.solver.settings import gap_width

    class L:   # the region list as the gap stop reads it
        def __init__(self, lb):
            self.lb, self.segments = lb, []

        def __len__(self):
            return 1

        def min_lb(self):
            return self.lb

    def search(glb, gub):
        return SimpleNamespace(settings=SimpleNamespace(gap_tol=1e-6), state=SimpleNamespace(gub=gub, regions=L(glb)))
    u = math.ulp(1e12)
    assert Search._gap_closed(search(1e12, 1e12 + 1024 * u))
    assert not Search._gap_closed(search(1e12, 1e12 + 1025 * u))
    assert Search._gap_closed(search(1.0, 1.0 + 1e-6)) and not Search._gap_closed(search(1.0, 1.0 + 2e-6))
    assert not Search._gap_closed(search(-math.inf, 1e12))
    assert "float64's spacing" in Search._gap_message(search(1e12, 1e12 + 8 * u))
    assert "float64's spacing" not in Search._gap_message(search(1.0, 1.0 + 1e-7))
    assert gap_width(-math.inf, 1e12, 1e-6) == 1e-6 and gap_width(1e12, math.inf, 1e-6) == 1e-6
