"""The branch-and-bound of paper 001 (``subdomain-bnb``): certified bounds on problems with known optima.

Each problem's optimum is known independently of the method (in closed form, or by a
local solve started at the well it is in), and the certified lower bound must never
exceed it.  Deliberately wrong bounds (a point value instead of an enclosure; a
constraint test that discards subdomains that are merely not provably feasible) are
shown to be caught by the same assertions.
"""
import math

import numpy as np
import pytest
from scipy.optimize import minimize as sp_minimize

import gpubench.methods.subdomain_bnb as sb
from gpubench.forms.definition import UNKNOWN, Definition, Problem, Rational, exp, variables
from gpubench.errors import InputError
from gpubench.forms.function import ConstrainedProblem, TestFunction
from gpubench.methods import get as get_method, minimize
from gpubench.methods.solver.partition import cut

X1, X2 = variables(2)
NAN = lambda n: np.full(n, np.nan)  # noqa: E731


def _defn(name, expr, domain, sense="min", fstar=None):
    return Definition(name=name, title=name, source="tests", expr=expr, domain=domain, dim=2,
                      sense=sense, xstar=NAN, fstar=fstar or UNKNOWN)


# a narrow deep well far from the bowl's minimum: the midpoint and local solves of a coarse
# search see only the bowl (f = 0 at the origin); the global minimum is in the well
TRAP = _defn("bnb_trap", X1**2 + X2**2 - 5 * exp(-200 * ((X1 - Rational(17, 10))**2 + (X2 + Rational(4, 5))**2)),
             (-2, 2))
# active constraint: min (x1-2)^2 + (x2-2)^2 s.t. x1^2 + x2^2 <= 1; f* = (2 sqrt 2 - 1)^2
DISK = ConstrainedProblem(Problem(
    name="bnb_disk", objective=_defn("bnb_disk_f", (X1 - 2)**2 + (X2 - 2)**2, (-2, 3)),
    inequalities=[X1**2 + X2**2 - 1]))
DISK_FSTAR = (2 * math.sqrt(2) - 1) ** 2
# equality: min x1^2 + x2^2 s.t. x1 + x2 = 1; f* = 1/2 at (1/2, 1/2)
LINE = ConstrainedProblem(Problem(
    name="bnb_line", objective=_defn("bnb_line_f", X1**2 + X2**2, (-2, 2)), equalities=[X1 + X2 - 1]))
# maximisation: max 1 - (x1 - 1/2)^2 - x2^2 = 1
CAP = TestFunction(_defn("bnb_cap", 1 - (X1 - Rational(1, 2))**2 - X2**2, (-1, 1), sense="max"))


def trap_fstar():
    f = TestFunction(TRAP)
    r = sp_minimize(f.point, [1.7, -0.8], jac=f.gradient, method="BFGS", options={"gtol": 1e-12})
    assert r.fun < -1.0  # the well is deeper than the bowl's 0
    return float(r.fun)


def run(fn, **kw):
    kw.setdefault("backend", "cpu")
    kw.setdefault("cpu_parallel", False)
    kw.setdefault("subdomains", 16)
    return minimize(fn, 2, method="subdomain-bnb", **kw)


def test_declared():
    m = get_method("subdomain-bnb")
    assert m.rigorous and m.backends == ("cpu", "cuda") and m.constraints
    with pytest.raises(InputError, match="adaptive"):
        run(CAP, subdomains=0)


def test_partition_rules():
    P = sb.parts_per_dim
    assert P([1, 1], 1024, "uniform").tolist() == [32, 32]
    assert P([1, 1, 1], 1000, "uniform").tolist() == [10, 10, 10]
    assert P([1, 3], 64, "largest").tolist() == [1, 64]
    # the paper's example (Sec. 3.1.2): 5 dimensions, 2560 cores -> 5^4 * 4 = 2500
    c = P([5, 4, 3, 2, 1], 2560, "adaptive")
    assert c.tolist() == [5, 5, 5, 5, 4] and np.prod(c) == 2500
    assert P([1, 1], 1, "adaptive").tolist() == [1, 1]


def test_subdomains_cover_the_node():
    """The subdomain boxes tile the node exactly: shared edges, the node's corners."""
    b = sb._Bounder(TRAP, 2, TestFunction(TRAP).params(2), "cpu", False)
    lo, hi = np.array([-0.3, 0.1]), np.array([0.7, 1.0 / 3.0])
    counts = np.array([3, 7])
    b.bound(lo, hi, counts, 0)
    blo, bhi = b.boxes()
    for k, m in enumerate(counts):
        edges_lo = np.unique(blo[:, k])
        edges_hi = np.unique(bhi[:, k])
        assert edges_lo.size == m and edges_lo[0] == lo[k] and edges_hi[-1] == hi[k]
        assert np.array_equal(edges_lo[1:], edges_hi[:-1])
        # the solver's cut points (one _cut for both): the host rebuild matches bit for bit
        want = np.array([cut(lo[k], hi[k], j, int(m)) for j in range(int(m))])
        assert edges_lo.tobytes() == want.tobytes()


def test_power_of_two_parts_cut_as_the_host_divides():
    """Parts a power of two take the cut points by a multiplication by 1 / parts (spliced/cut.py): the
    host's division's doubles, bit for bit, on boxes of every scale (subnormal widths, huge ones)."""
    b = sb._Bounder(TRAP, 2, TestFunction(TRAP).params(2), "cpu", False)
    rng = np.random.default_rng(7)
    boxes = [(np.array([-0.3, 0.1]), np.array([0.7, 1.0 / 3.0])),
             (np.array([5e-324, -1e300]), np.array([3e-323, 1.7e308])),
             (np.array([1.0, -2.0 ** -1060]), np.array([np.nextafter(1.0, 2.0), 2.0 ** -1070]))]
    boxes += [tuple(np.sort(rng.standard_normal((2, 2)) * 10.0 ** rng.integers(-300, 300, (2, 2)), axis=0))
              for _ in range(20)]
    for lo, hi in boxes:
        for counts in (np.array([4, 8]), np.array([16, 2])):
            b.bound(lo, hi, counts, 0)
            blo, _ = b.boxes()
            for k, m in enumerate(counts):
                want = np.array([cut(lo[k], hi[k], j, int(m)) for j in range(int(m))])
                assert np.unique(blo[:, k]).tobytes() == np.unique(want).tobytes(), (lo, hi, counts)


@pytest.mark.parametrize("form", ["natural", "mean-value", "best"])
def test_trap_certified(form):
    fstar = trap_fstar()
    r = run(TestFunction(TRAP), form=form)
    assert r.converged and r.status == "converged"
    assert r.glb <= fstar and r.fun == r.gub and abs(r.fun - fstar) < 1e-9
    assert r.gub - r.glb <= max(1e-2, 1e-2 * abs(r.gub)) + 1e-12
    assert np.linalg.norm(r.x - [1.7, -0.8]) < 0.1     # found the well, not the bowl
    h = r.history
    assert np.all(np.diff(h["glb"]) >= 0) and np.all(np.diff(h["gub"]) <= 0)


def test_point_value_instead_of_enclosure_is_caught(monkeypatch):
    """A 'bound' taken at a subdomain corner (no enclosure) overshoots the optimum."""
    import gpubench.methods.subdomain_bounds as bounds
    bad = bounds.CPU_EXTENSION.replace("return interval(blo, bhi, p)", "return interval(blo, blo, p)")
    assert bad != bounds.CPU_EXTENSION
    monkeypatch.setattr(bounds, "CPU_EXTENSION", bad)
    r = run(TestFunction(TRAP), form="natural")
    assert not r.glb <= trap_fstar()


def test_active_constraint():
    r = run(DISK, form="best")
    assert r.converged and r.glb <= DISK_FSTAR <= r.fun + 1e-6
    assert r.fun - DISK_FSTAR < 2e-2
    assert np.hypot(*r.x) <= 1 + 1e-6


def test_dropped_feasibility_rule_is_caught(monkeypatch):
    """Discarding subdomains that are merely not provably feasible removes the optimum."""
    monkeypatch.setattr(sb, "g_excludes", lambda clo, chi: chi > 0.0)
    r = run(DISK, form="best")
    assert not r.glb <= DISK_FSTAR


def test_equality_constraint():
    r = run(LINE, form="best")
    assert r.converged and r.glb <= 0.5 and abs(r.fun - 0.5) < 2e-2
    assert abs(r.x.sum() - 1) <= 1e-6


def test_infeasible_problem():
    p = ConstrainedProblem(Problem(name="bnb_none", objective=_defn("bnb_none_f", X1 + X2, (-1, 1)),
                                   inequalities=[3 - X1**2 - X2**2]))
    r = run(p, form="natural")
    assert r.status == "infeasible" and r.fun is None and r.glb == math.inf


def test_maximise():
    r = run(CAP, form="mean-value")
    assert r.converged and r.glb <= 1.0 <= r.gub      # for a maximum gub is the certified bound
    assert r.fun == r.glb and abs(r.fun - 1.0) < 1e-2


def test_mean_value_needs_no_more_iterations_than_natural():
    """Paper 001, Fig. 6b (smooth problem, same subdomain count): the MV form's quadratic
    convergence prunes sooner.  On Styblinski-Tang n=2 with 16 subdomains and an absolute gap
    of 1e-2 (midpoint upper bounds only) we see 103 (mean value) vs 35,717 (natural) iterations;
    with 1e-3, 123 vs 338,661."""
    kw = dict(local_solve=False, eps_abs=1e-2, eps_rel=0.0, local_starts=0, constraint_propagation=False)  # the paper's search
    nat = run("styblinski_tang", form="natural", **kw)
    mv = run("styblinski_tang", form="mean-value", **kw)
    f = -78.33233140754282  # Styblinski-Tang n=2: 2 * (-39.16616570377142), to 1e-14
    for r in (nat, mv):
        assert r.converged and r.glb <= f - 1e-12 and r.gub - f < 1e-2
    assert mv.iterations <= nat.iterations


def test_backends_agree():
    """CPU serial, CPU parallel (prange) and the CUDA kernel (simulator here) give the same search."""
    kw = dict(form="best", subdomains=4, max_nodes=6, local_solve=False)
    ser = run(DISK, **kw)
    par = run(DISK, cpu_parallel=True, **kw)
    assert (ser.iterations, ser.glb, ser.gub) == (par.iterations, par.glb, par.gub)
    gpu = run(DISK, backend="cuda", **kw)
    assert gpu.backend == "cuda" and gpu.iterations == ser.iterations
    assert gpu.glb == pytest.approx(ser.glb, rel=1e-12, abs=1e-12)
    assert gpu.gub == pytest.approx(ser.gub, rel=1e-12, abs=1e-12)


def test_more_subdomains_tighter_root_bound():
    """Inclusion isotonicity (Sec. 3.1.1): a uniform refinement never loosens the root bound."""
    roots = [run(TestFunction(TRAP), form="natural", subdomains=n, max_nodes=1, local_solve=False)
             .timing["root_lower_bound"] for n in (1, 4, 16, 64)]
    assert all(b >= a for a, b in zip(roots, roots[1:])) and roots[-1] > roots[0]


def test_peaks_certified():
    from gpubench.functions._peaks import DEFINITION
    f = TestFunction(DEFINITION)
    r = minimize(f, 2, method="subdomain-bnb", backend="cpu", cpu_parallel=False, subdomains=16,
                 form="best")
    assert r.converged and r.glb <= f.fstar(2) and abs(r.fun - f.fstar(2)) < 1e-9
    assert np.allclose(r.x, f.xstar(2), atol=1e-5)


def test_paper001_problems_build():
    """Problems (1)-(4) from the committed weights: the surrogate is close to the function it
    was trained on, and Table 1's constraint sets have the right kinds and signs."""
    import gpubench.functions._paper001 as P
    from gpubench.functions import _peaks as peaks
    ann = TestFunction(P.ann("peaks_ann", -3, 3))
    X = np.random.default_rng(0).uniform(-3, 3, (200, 2))
    exact = TestFunction(peaks.DEFINITION).points(X)
    assert np.sqrt(np.mean((ann.points(X) - exact) ** 2)) < 0.1
    kinds = [(len(P.get(f"P4_{k}").inequalities), len(P.get(f"P4_{k}").equalities)) for k in range(1, 7)]
    assert kinds == [(1, 0), (0, 1), (1, 0), (0, 1), (1, 0), (3, 0)] == [
        (row[0].count("<=") + row[0].count(">="), row[0].count(" = ")) for row in P.TABLE1]
    g = ConstrainedProblem(P.get("P4_6")).inequalities
    x = np.array([7.4, 7.4])        # inside the disk, x1 + x2 = 14.8 >= 12, Alpine02 = 5.98 >= 4
    assert all(gi.point(x) <= 0 for gi in g)
    assert ConstrainedProblem(P.get("P4_3")).inequalities[0].point(np.array([5.0, 5.0])) > 0


PTX_SCRIPT = r'''
import json, re
from numba import float64, int64
from gpubench.device.ptx import compile_ptx
from gpubench.forms import codegen
from gpubench import functions
from gpubench.methods import subdomain_bnb as sb
f = functions.get("styblinski_tang")
mod = codegen.load(f.definition, "cuda", extensions=(sb.GPU_EXTENSION,))
A1, A2 = float64[:], float64[:, :]
sig = (A1, A1, int64[:], A2, int64, A1, A1, A2, A2, A2, A2, A2, A2, A2)
ptx = compile_ptx(mod.sub_bounds_kernel.py_func, sig, cc=(9, 0), device=False)
print(json.dumps({"entry": ".entry" in ptx, "rm": len(re.findall(r"\.rm\.f64", ptx)),
                  "rp": len(re.findall(r"\.rp\.f64", ptx))}))
'''


def test_kernel_compiles_to_ptx():
    """The simulator does not type the kernel as NVVM does: compile real PTX (cc 9.0, no driver
    needed) and check it keeps directed rounding."""
    import json
    import os
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    r = subprocess.run([sys.executable, "-c", PTX_SCRIPT], env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["entry"] and out["rm"] > 0 and out["rp"] > 0


def test_constraint_propagation_keeps_the_minimum():
    """Paper 001's Table 2, second column: nodes narrowed to where f <= the incumbent's verified
    value can hold (gpubench.methods.solver.contract) before they are bounded."""
    fstar = trap_fstar()
    plain = run(TestFunction(TRAP), form="mean-value")
    r = run(TestFunction(TRAP), form="mean-value", constraint_propagation=True)
    assert r.converged and r.glb <= fstar and abs(r.fun - fstar) < 1e-9
    assert r.iterations <= plain.iterations
    m = run(CAP, form="mean-value", constraint_propagation=True)
    assert m.converged and m.glb <= 1.0 <= m.gub


def test_constraint_propagation_to_a_level_below_the_incumbent_is_caught(monkeypatch):
    """Narrowing to f <= UB - 1 (a level the minimum does not meet) drops the node holding it."""
    real = sb.contract
    monkeypatch.setattr(sb, "contract", lambda fn, lo, hi, gub: real(fn, lo, hi, gub - 1.0))
    r = run(TestFunction(TRAP), form="mean-value", constraint_propagation=True)
    assert not r.glb <= trap_fstar()


def test_constraint_propagation_is_refused_on_a_constrained_problem():
    with pytest.raises(InputError, match="unconstrained problems only"):
        run(DISK, constraint_propagation=True)


def test_levy_closes_with_the_multistart_incumbent_and_propagation():
    """Issue 41: typed in on Levy, the midpoint solves alone stop at a local minimum (n = 10: GUB
    3.11 after 20 s); the multistart's verified incumbent and HC4 propagation prove it at once."""
    r = minimize("levy", 5, method="subdomain-bnb", backend="cpu", cpu_parallel=False, subdomains=32,
                 local_starts=8, constraint_propagation=None, time_limit=30.0)   # a typed-in run's
    assert r.converged and r.glb <= 0.0 <= r.gub and r.gub < 1e-6
    assert r.iterations <= 3
    old = minimize("levy", 5, method="subdomain-bnb", backend="cpu", cpu_parallel=False, subdomains=32,
                   local_starts=0, constraint_propagation=False, max_nodes=r.iterations + 50)
    assert not old.converged


def test_hc4_propagation_to_a_level_below_the_incumbent_is_caught(monkeypatch):
    """HC4 narrowing to f <= UB - 1 (a level the minimum does not meet) drops the node holding it."""
    from gpubench.forms.levelset import LevelSet
    real = LevelSet.contract
    monkeypatch.setattr(LevelSet, "contract", lambda self, lo, hi, level: real(self, lo, hi, level - 1.0))
    r = run(TestFunction(TRAP), form="mean-value", constraint_propagation=True)
    assert not r.glb <= trap_fstar()


def test_multistart_incumbent_is_verified():
    """The first incumbent is the upper end of the point box's enclosure, never below f there."""
    s = sb.SubdomainSearch(TestFunction(TRAP), 2, sb.SubdomainBnBSettings(backend="cpu", subdomains=16,
                                                                             local_starts=8))
    v, x = s.multistart()
    lo, hi = TestFunction(TRAP).interval(x, x)
    assert v == hi and v >= TestFunction(TRAP).point(x)


def test_a_nan_subdomain_bound_leaves_a_finite_glb_and_an_honest_status():
    """Ackley n = 2 (the mean value form through sqrt at 0 is NaN on the node holding x*): the
    natural form bounds that node, so the run converges with a finite GLB <= f* (it once ended
    "converged" with GLB = -inf); a gap left open is never called converged."""
    for cp in (False, True):
        r = minimize("ackley", 2, method="subdomain-bnb", backend="cpu", cpu_parallel=False, subdomains=16,
                     eps_abs=1e-4, eps_rel=0.0, constraint_propagation=cp, time_limit=30.0)
        assert r.converged and math.isfinite(r.glb) and r.glb <= 0.0 <= r.gub and r.gub - r.glb <= 1e-4


def test_multistart_descents_run_to_their_end_on_rosenbrock():
    """Rosenbrock n = 100 from the Halton starts: 100 L-BFGS-B iterations (the shared descent's cap)
    left every descent in the curved valley, GUB 32.4, and the gap never closed (600 s on the H200);
    run to their end (about 450 iterations) they reach f* = 0, so the first incumbent is within the
    gap tolerance of it, its value the verified upper end of the point box's enclosure."""
    from gpubench import functions
    fn = functions.get("rosenbrock")
    s = sb.SubdomainSearch(fn, 100, sb.SubdomainBnBSettings(backend="cpu", subdomains=1, local_starts=8,
                                                            eps_abs=1e-4, eps_rel=0.0))
    v, x = s.multistart()
    assert 0.0 <= v < 1e-6 and v == fn.interval(x, x)[1]


def test_multistart_stops_at_the_deadline():
    """A search whose time limit has passed starts no descent (the multistart at n = 1,000 takes
    seconds: it no longer runs past a short limit)."""
    from gpubench.methods.monitor import Deadline
    s = sb.SubdomainSearch(TestFunction(TRAP), 2, sb.SubdomainBnBSettings(backend="cpu", subdomains=16,
                                                                             local_starts=8))
    assert s.multistart(Deadline(0.0)) is None
    assert s.multistart(Deadline(60.0)) is not None


def test_warmup_runs_one_local_start(monkeypatch):
    """The warm-up loads what the multistart uses with one start, unpolished: the whole multistart
    (8 descents run to their end and the polish) took as long as the timed run at n = 1,000."""
    calls = []
    real = sb.SubdomainSearch.descend
    monkeypatch.setattr(sb.SubdomainSearch, "descend", lambda self, *a, **k: calls.append(1) or real(self, *a, **k))
    import gpubench.methods.solver.local as local
    monkeypatch.setattr(local, "polish", lambda *a, **k: calls.append("polish"))
    sb._warmup(TestFunction(TRAP), 2, sb.SubdomainBnBSettings(backend="cpu", cpu_parallel=False, subdomains=16,
                                                                 local_starts=8))
    assert calls == [1]


def test_a_search_stopped_and_resumed_from_its_checkpoint_ends_as_one_never_stopped(tmp_path):
    """Method.resumable (a case of gpubench reproduce, hours long: paper 001's Table 4 rows): the
    search saved at a Ctrl-C mid-way and resumed from the file visits the same nodes and ends with
    the same bounds, point, node count and history as a search never stopped."""
    from gpubench.methods.checkpoints import Checkpoint, Interrupted
    method = get_method("subdomain-bnb")
    assert method.resumable
    s = method.make_settings({"backend": "cpu", "cpu_parallel": False, "subdomains": 16, "form": "mean-value"})
    fn = TestFunction(TRAP)
    whole = method.run(fn, 2, s)
    assert whole.converged and whole.iterations > 6

    class StopAt(Checkpoint):
        """Saves at every tick; at the ``stop``-th it raises Interrupted as a Ctrl-C would."""
        def __init__(self, path, stop):
            super().__init__(path, {"case": "t"}, every=0.0)
            self.stop, self.ticks = stop, 0

        def tick(self, take):
            self.ticks += 1
            self.save(*take())
            if self.ticks == self.stop:
                raise Interrupted(self.path)
    path = tmp_path / "case.checkpoint.npz"
    with pytest.raises(Interrupted):
        method.run(fn, 2, s, checkpoint=StopAt(path, whole.iterations // 2))
    ck = Checkpoint(path, {"case": "t"}, every=1e9)
    assert ck.state is not None and 0 < int(ck.state["it"]) < whole.iterations
    again = method.run(fn, 2, s, checkpoint=ck)
    assert (again.iterations, again.glb, again.gub, again.status) == (whole.iterations, whole.glb, whole.gub, whole.status)
    assert np.array_equal(again.x, whole.x)
    assert again.history["iteration"] == whole.history["iteration"] and again.history["glb"] == whole.history["glb"]
    assert len(ck.finished) == 2 and ck.finished[-1]["iterations"][1] == whole.iterations


def test_the_runner_resumes_a_subdomain_case_from_the_checkpoint_beside_its_record(tmp_path):
    """gpubench reproduce: a subdomain-bnb case whose checkpoint lies beside where its record goes
    (results/EXPERIMENT/CASE.checkpoint.npz, named by the case) goes on from it; the record lists both
    parts and ends as the straight run ends."""
    from gpubench.methods.checkpoints import Checkpoint, Interrupted
    from gpubench.problems import catalog
    from gpubench.workflow import experiments_loader as loader
    from gpubench.workflow import resume, runner
    toml = tmp_path / "t.toml"
    toml.write_text('''id = "t"
title = "one subdomain case"
source = "a test"
layout = "bnb"

[methods.sub]
method = "subdomain-bnb"
backend = "cpu"
cpu_parallel = false
subdomains = 16

[[problems]]
problem = "styblinski_tang"
n = 2

[quick]
note = "the same"
''')
    case, = runner.plan(loader.load(str(toml)))
    folder = tmp_path / "res"
    folder.mkdir()
    straight = runner.run_case(case)
    method, settings = runner.case_settings(case)
    ck = Checkpoint(resume.checkpoint_path(folder, case.case_id), {"case": case.case_id}, every=0.0)
    real, seen = ck.tick, {"k": 0}

    def tick(take):
        seen["k"] += 1
        real(take)
        if seen["k"] == 3:
            raise Interrupted(ck.path)
    ck.tick = tick
    with pytest.raises(Interrupted):
        method.run(catalog.function_of(case.function), case.dim, settings, checkpoint=ck)
    rec = runner.run_case(case, folder)
    m, s = rec["measured"], straight["measured"]
    assert m["resumed"] and len(m["segments"]) == 2 and m["segments"][0]["iterations"][1] == 2
    assert (m["iterations"], m["glb"], m["gub"]) == (s["iterations"], s["glb"], s["gub"])
