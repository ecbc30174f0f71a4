"""The fused single-problem L-BFGS-B (gpubench.methods.lbfgsb.fused, kernels in gpubench/kernels/lbfgsb_fused.py)
against the array-library loop of gpubench.methods.lbfgsb.core on the same problems.

Without a GPU the kernels run under numba's CUDA simulator (tests/conftest.py) on numpy arrays,
at tiny sizes; the same iterates to rounding are required, and a kernel broken on purpose must
fail the comparison.  Real PTX of every kernel is compiled in a subprocess without the simulator.
"""
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gpubench import kernels
from gpubench.methods.lbfgsb import core, fused
from gpubench.problems import minpack2

ROOT = Path(__file__).resolve().parents[1]


def _rosenbrock(x):
    r = x[1:] - x[:-1] ** 2
    f = np.sum(100 * r ** 2 + (1 - x[:-1]) ** 2)
    g = np.zeros_like(x)
    g[:-1] = -400 * x[:-1] * r - 2 * (1 - x[:-1])
    g[1:] += 200 * r
    return f, g


CASES = {
    # torsion (quadratic, many bounds active), the history wrapping at m = 3
    "torsion": lambda: (minpack2.make("torsion", 64), 3, "project"),
    # the same at the widest history, m = 8: the memory update's 16 columns in blocks of fewer threads
    # (the cooperative kernel's 8 under the simulator)
    "torsion8": lambda: (minpack2.make("torsion", 64), 8, "project"),
    # Rosenbrock in a box cutting off its minimiser: line searches of several trials, truncated steps
    "rosenbrock": lambda: (type("P", (), dict(fg_stencil=staticmethod(_rosenbrock), x0=np.linspace(-0.9, 0.5, 5),
                                              lo=np.full(5, -0.8), hi=np.full(5, 0.6)))(), 4, "truncate"),
}


def _both(case, batched=True, **kw):
    p, m, step = CASES[case]()
    args = dict(m=m, step=step, pgtol=1e-8, factr=10.0, **kw)
    ref = core.minimize(p.fg_stencil, p.x0, p.lo, p.hi, fused=False, cauchy="approximate", backend="cpu", **args)
    c0 = core.SYNC["count"]
    got = fused.minimize(p.fg_stencil, p.x0, p.lo, p.hi, backend=np, sync_every=1, **args)
    syncs = core.SYNC["count"] - c0
    if not batched:
        return ref, got, syncs, None
    # the batched driver (the default): whole iterations launched between two reads
    bat = fused.minimize(p.fg_stencil, p.x0, p.lo, p.hi, backend=np, sync_every=16, **args)
    _same(bat, got)
    return ref, got, syncs, core.SYNC["count"] - c0 - syncs


@pytest.mark.parametrize("case", ["torsion", "rosenbrock"])
def test_fused_iterates_equal_the_array_loop(case):
    ref, got, syncs, bat_syncs = _both(case)
    assert ref.iterations > 8 and ref.status == 0
    assert (got.iterations, got.nfev, got.status, got.message) == (ref.iterations, ref.nfev, ref.status, ref.message)
    np.testing.assert_allclose(got.x, ref.x, rtol=0, atol=1e-10)
    assert abs(got.fun - ref.fun) <= 1e-12 * max(1.0, abs(ref.fun))
    # one host read per evaluation, plus the start's and the last iteration's stopping test
    assert syncs == got.nfev + 1
    # batched: one read a batch (1, 2, 4, ... up to 16 iterations) and one a host-side trial
    # (torsion here: 11 against 22, Rosenbrock 6 against 17)
    assert bat_syncs <= 0.6 * syncs


def test_fused_stops_at_maxiter_like_the_array_loop():
    ref, got, _, _ = _both("torsion", maxiter=4)
    assert ref.iterations == got.iterations == 4 and got.status == ref.status == 1
    np.testing.assert_allclose(got.x, ref.x, rtol=0, atol=1e-12)


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _broken_module(tmp_path, old, new, module="lbfgsb_fused"):
    """lbfgsb_fused with (old, new) applied to it, or to the tile module it imports (``module``)."""
    text = kernels.splice("lbfgsb_fused", replace=[(old, new)] if module == "lbfgsb_fused" else [])
    if module == "lbfgsb_fused_tile":
        name = f"lbfgsb_fused_tile_broken_{abs(hash(old))}"
        (tmp_path / f"{name}.py").write_text(kernels.splice(module, replace=[(old, new)]))
        _load(tmp_path / f"{name}.py", name)
        text = text.replace("from gpubench.kernels.lbfgsb_fused_tile import", f"from {name} import")
    path = tmp_path / "lbfgsb_fused_broken.py"
    path.write_text(text.replace('if __name__ == "gpubench.kernels.lbfgsb_fused":', "if True:"))
    return _load(path, f"lbfgsb_fused_broken_{abs(hash(old))}")


@pytest.mark.parametrize("module, old, new", [
    ("lbfgsb_fused", "        t = (x - hi) / g", "        t = math.inf"),         # upper bounds ignored
    ("lbfgsb_fused", "s += M[a, c] * sc * vs[m2 + gq]", "s += M[a, c] * sc * vs[2 * MMAX + gq]"),  # gram misread
    ("lbfgsb_fused", "sh2[1, M2MAX + e] = st[C_P + e]", "sh2[1, M2MAX + e] = st[C_P]"),  # W^T d misstaged (Cauchy)
    ("lbfgsb_fused_tile", "(q >= P_YSS + 2 * m and q < P_YSD)", "(q >= P_YSS - 1 + 2 * m and q < P_YSD)"),  # YS s's last
    ("lbfgsb_fused_tile", "(q >= P_YSD + 2 * m and q < P_YD)", "(q >= P_YSD + 2 * m - 1 and q < P_YD)"),  # YS d's last
    ("lbfgsb_fused", "st[C_P + slot] = st[U_YD]", "st[C_P + slot] = st[U_YSD + slot]"),  # the new pair's y.d left out
    ("lbfgsb_fused", "d = -gi if t > 0.0 else 0.0", "d = -gi"),  # the fixed set's d counted
    ("lbfgsb_fused_tile", "for _ in range(nt // gw):", "for _ in range(nt // gw - 1):"),  # a tile's element left out
])
def test_a_broken_kernel_is_caught(tmp_path, monkeypatch, module, old, new):
    bad = _broken_module(tmp_path, old, new, module)
    monkeypatch.setattr(fused, "kernels", lambda: bad)
    ref, got, _, _ = _both("torsion", batched=False, maxiter=12)
    assert got.iterations != ref.iterations or np.abs(got.x - ref.x).max() > 1e-8


@pytest.mark.parametrize("broken", [None, "vote", "late column", "ahead column"])
def test_reduced_sums_every_tile_with_a_free_coordinate(tmp_path, monkeypatch, broken):
    """lf_reduced sums a tile where the block's vote finds a free coordinate, its column loaded with the
    element where the previous tile held one, else after the vote: at n = 2500 in one block of 8 threads
    (313 tiles, free and bound ones mixed) the iterates are the array loop's, and they leave it where the
    vote counts one thread's coordinate only, or where a column loaded ahead, or one not loaded ahead, is
    wrong."""
    swap = {"vote": ("ahead = cuda.syncthreads_or(1 if free else 0) != 0",
                     "ahead = cuda.syncthreads_or(1 if free and t == 0 else 0) != 0"),
            "late column": ("                    if not loaded:\n", "                    if False:\n"),
            "ahead column": ("col[j] = YS[j, i]\n            tb = _breakpoint_at", "col[j] = 2.0 * YS[j, i]\n            tb = _breakpoint_at")}
    if broken:
        bad = _broken_module(tmp_path, *swap[broken])
        monkeypatch.setattr(fused, "kernels", lambda: bad)
    p = minpack2.make("torsion", 2500)
    args = dict(m=3, step="project", pgtol=1e-8, factr=10.0, maxiter=3)
    ref = core.minimize(p.fg_stencil, p.x0, p.lo, p.hi, fused=False, cauchy="approximate", backend="cpu", **args)
    got = fused.minimize(p.fg_stencil, p.x0, p.lo, p.hi, backend=np, sync_every=1, **args)
    assert (np.abs(got.x - ref.x).max() > 1e-8) == bool(broken)


def test_a_broken_take_is_caught(tmp_path, monkeypatch):
    """lf_take (the first trial's g into GN and g.d into st[SLOPE], both drivers' slope) with the slope summed
    against g itself instead of d: the run leaves the array loop's iterates."""
    name = "lbfgsb_fused_gate_broken"
    (tmp_path / f"{name}.py").write_text(kernels.splice("lbfgsb_fused_gate", replace=[
        ("acc += gi * VEC[D, i]", "acc += gi * VEC[GN, i]")]))
    bad = _load(tmp_path / f"{name}.py", name)
    monkeypatch.setattr(fused, "gate_kernels", lambda: bad)
    ref, got, _, _ = _both("torsion", batched=False, maxiter=12)
    assert got.iterations != ref.iterations or np.abs(got.x - ref.x).max() > 1e-8


def test_fused_input_errors():
    from gpubench.errors import InputError
    with pytest.raises(InputError):
        core.minimize(_rosenbrock, np.zeros(3), cauchy="exact", fused=True, backend="cpu")
    with pytest.raises(InputError):
        fused.minimize(_rosenbrock, np.zeros(3), None, None, m=20, backend=np)
    for threads in (48, 512, 0, 4):    # the tile passes fold lanes in powers of two, in >= 8 groups; shared arrays hold 256
        with pytest.raises(InputError, match="power of two"):
            fused.minimize(_rosenbrock, np.zeros(3), None, None, backend=np, threads=threads)


PTX = r'''
import json
from numba import types as T
from gpubench.kernels import lbfgsb_fused as K
from gpubench.device.ptx import compile_ptx
v, M2 = T.Array(T.float64, 1, "A"), T.Array(T.float64, 2, "A")
I, R = T.int64, T.float64
M3 = T.Array(T.float64, 3, "A")
sigs = {
    "lf_init": (v,), "lf_reset": (v,),
    "lf_pair": (M2, v, M2, I, v),
    "lf_push": (v, I, R, M3),
    "lf_move": (M2, v, M2, I, I, v),
    "lf_reduced": (M2, M2, I, v, M3),
    "lf_step": (M2, M2, I, I, v, M3),
    "lf_direction": (M2, I, I, v),
    "lf_trial": (M2, v, R, I, I, I, I, v),
}
out = {}
for name, sig in sigs.items():
    out[name] = ".entry" in compile_ptx(getattr(K, name), sig, device=False)
from gpubench.kernels import lbfgsb_fused_gate as G
for name, sig in {"lf_gate_push": (v, R, R, R, R, R, I, M3), "lf_enter": (v, R, R, R, R, R),
                   "lf_take": (M2, v, v)}.items():
    out[name] = ".entry" in compile_ptx(getattr(G, name), sig, device=False)
from gpubench.kernels import lbfgsb_fused_coop as C
out["lf_iterate"] = ".entry" in compile_ptx(C.lf_iterate, (M2, v, M2, I, v, M3, I, I, I, R, R, R, R, R, I),
                                            device=False)
print(json.dumps(out))
'''


def test_every_fused_kernel_compiles_to_ptx(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["GPUBENCH_CACHE"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-c", PTX], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert all(got.values()) and len(got) == 13


def test_fused_takes_the_energy_decrease_rule_like_the_array_loop():
    p, m, step = CASES["torsion"]()
    args = dict(m=m, step=step, pgtol=0.0, factr=0.0, ftol_abs=1e-64, cauchy="approximate", backend="cpu")
    ref = core.minimize(p.fg_stencil, p.x0, p.lo, p.hi, fused=False, **args)
    got = core.minimize(p.fg_stencil, p.x0, p.lo, p.hi, fused=True, **args)      # batched (the default)
    args.pop("cauchy"), args.pop("backend")
    _same(got, fused.minimize(p.fg_stencil, p.x0, p.lo, p.hi, backend=np, sync_every=1, **args))
    # at the end the decreases are rounding noise: the two paths may meet the rule one iteration
    # apart, or the one by a line search that finds no decrease
    for r in (ref, got):
        assert r.status == 0 and "FTOL_ABS" in r.message
    assert abs(got.iterations - ref.iterations) <= 1 and abs(got.fun - ref.fun) <= 1e-12 * abs(ref.fun)


def _same(a, b):
    """Bit for bit: the batched driver takes the per-evaluation one's decisions on the same doubles."""
    assert (a.iterations, a.nfev, a.status, a.message, a.fun, a.pg) == (b.iterations, b.nfev, b.status, b.message,
                                                                        b.fun, b.pg)
    assert np.array_equal(a.x, b.x) and np.array_equal(a.jac, b.jac)


def test_batched_driver_meets_the_evaluation_limit_like_the_per_evaluation_driver():
    """Rosenbrock: zooms and extrapolations handed to the host, then the evaluation limit met."""
    p, m, step = CASES["rosenbrock"]()
    args = dict(m=m, step=step, pgtol=1e-8, factr=10.0, backend=np, maxfun=9)
    ref = fused.minimize(p.fg_stencil, p.x0, p.lo, p.hi, sync_every=1, **args)
    assert ref.status == 1 and ref.nfev == 9
    _same(fused.minimize(p.fg_stencil, p.x0, p.lo, p.hi, sync_every=16, **args), ref)


def test_until_stops_both_paths_between_iterations():
    """``until()`` (a benchmark's time cap) is asked before each iteration, by the fused path before
    each batch (of 1, 2, 4, ... iterations), without a device read; True stops the run, status 1."""
    p, m, step = CASES["torsion"]()
    for kw in (dict(fused=False), dict(fused=True)):
        asked = []
        r = core.minimize(p.fg_stencil, p.x0, p.lo, p.hi, m=m, step=step, pgtol=1e-8, cauchy="approximate",
                          backend="cpu", until=lambda: asked.append(1) or len(asked) >= 3, **kw)
        assert (r.status, r.message) == (1, core.STOPPED_UNTIL)
        # the array loop: asked at 0, 1, 2 iterations; the fused: batches of 1 (its first iteration's
        # search handed to the host, which starts the doubling again) and 1
        assert r.iterations == 2 and len(asked) == 3


def test_a_batched_iteration_is_seven_bound_launches(monkeypatch):
    """Issue 43: a batch's iteration launches lf_reduced, lf_step, lf_direction, lf_trial, lf_pair,
    lf_gate_push and lf_move (the gate and the memory update's one-thread part in one launch), each
    through a launch bound once for the run (gpu.bound_launch: its arguments never change), and the
    driver's own array operations are the trial's f, g.d and g copied into ``st`` and ``VEC``.
    Under the simulator bound_launch gives numba's ordinary launch; a stand-in marks it bound here."""
    from gpubench.device import gpu
    from gpubench.methods.lbfgsb import shared

    def bound(kernel, griddim, blockdim, args, stream=0, sharedmem=0, bind=True):
        def go():
            kernel[griddim, blockdim](*args)
        go.path = "bound" if bind else "dispatcher"
        return go
    monkeypatch.setattr(gpu, "bound_launch", bound)
    p, m, step = CASES["torsion"]()
    before = dict(shared.LAUNCHES)
    r = fused.minimize(p.fg_stencil, p.x0, p.lo, p.hi, m=m, step=step, pgtol=1e-8, factr=10.0, maxiter=6,
                       backend=np, sync_every=16)
    n = {k: v - before.get(k, 0) for k, v in shared.LAUNCHES.items() if v > before.get(k, 0)}
    passes = n["kernel:lf_gate_push"]
    assert r.iterations == 6 and passes >= 5 and "kernel:lf_gate" not in n
    # every pass of a batch: the seven kernels, all bound; the host's own steps (start, hand-overs) dispatched
    assert n["path:bound"] == 7 * passes
    for k in ("lf_reduced", "lf_step", "lf_direction"):
        assert n["kernel:" + k] == passes
    assert n["kernel:lf_trial"] >= passes                             # and the host's later trials
    assert n["kernel:lf_pair"] == n["kernel:lf_push"] + passes       # lf_push: the host's updates only
    assert n["array:set FA"] == passes and n["kernel:lf_take"] >= passes   # g into GN and g.d: one pass
    # the seven passes and lf_take an iteration, and the host's own steps now and then
    assert shared.launches_since(before, r.iterations)["kernels"] <= 10


@pytest.mark.parametrize("case, kw", [("torsion8", dict(maxiter=12)), ("rosenbrock", dict(maxfun=7))])
def test_the_cooperative_iteration_takes_the_same_steps(monkeypatch, case, kw):
    """fused.COOPERATIVE: a batch's iteration is one cooperative launch (lf_iterate: the seven
    kernels' device functions with grid syncs between them, the next first trial computed with the
    update); iterates, counts and stop bit for bit those of the seven launches, hand-overs to the
    host (Rosenbrock's zooms) and limits included."""
    from gpubench.methods.lbfgsb import shared
    p, m, step = CASES[case]()
    args = dict(m=m, step=step, pgtol=1e-8, factr=10.0, backend=np, sync_every=16, **kw)
    ref = fused.minimize(p.fg_stencil, p.x0, p.lo, p.hi, **args)
    monkeypatch.setattr(fused, "COOPERATIVE", True)
    before = dict(shared.LAUNCHES)
    got = fused.minimize(p.fg_stencil, p.x0, p.lo, p.hi, **args)
    _same(got, ref)
    n = {k: v - before.get(k, 0) for k, v in shared.LAUNCHES.items() if v > before.get(k, 0)}
    # a batch's passes: lf_iterate alone (the seven separate kernels only for the host's own steps)
    assert n["kernel:lf_iterate"] > got.iterations >= 3 and "kernel:lf_gate_push" not in n
    assert n.get("kernel:lf_reduced", 0) == 0


def _replaying(calls):
    """A stand-in for gpu.capture_graph under the simulator: each replay runs the captured body's
    launches again (a real replay runs the same device work with no Python), the gradient it wrote
    where the real graph keeps it (``keep[-1]``)."""
    def capture(body):
        calls.append("capture")

        def replay():
            replay.keep[-1] = body(0)
        replay.keep = [None]
        return replay
    return capture


@pytest.mark.parametrize("case, kw", [("torsion", dict(maxiter=12)), ("rosenbrock", dict(maxfun=9))])
def test_a_graph_replay_takes_the_same_steps(monkeypatch, case, kw):
    """Issue 43: a batch's iteration captured once as a CUDA graph (after the first batch) and replayed,
    one launch an iteration: iterates, counts, evaluations and stop bit for bit those of the launches it
    replaces, hand-overs to the host after a replay (Rosenbrock's zooms: the host's line search takes
    the gradient the last replay wrote) and limits included."""
    from gpubench.device import gpu
    from gpubench.methods.lbfgsb import shared
    p, m, step = CASES[case]()
    args = dict(m=m, step=step, pgtol=1e-8, factr=10.0, backend=np, sync_every=16, **kw)
    ref = fused.minimize(p.fg_stencil, p.x0, p.lo, p.hi, **args)
    assert ref.graph == "off (numba's CUDA simulator)"
    captured = []
    monkeypatch.setattr(gpu, "capture_graph", _replaying(captured))
    monkeypatch.setattr(fused, "_graph_refusal", lambda *a: "")
    before = dict(shared.LAUNCHES)
    got = fused.minimize(p.fg_stencil, p.x0, p.lo, p.hi, **args)
    _same(got, ref)
    assert got.evaluations == ref.evaluations >= got.nfev and got.graph == "replayed" and captured == ["capture"]
    assert shared.LAUNCHES.get("graph:iteration", 0) - before.get("graph:iteration", 0) >= 3


def test_a_capture_that_fails_leaves_the_launches():
    """A capture that raises (an objective that reads the device back, say) is not retried: the run
    goes on with the launches it would have replaced, the same steps, and the result says why."""
    from gpubench.device import gpu
    p, m, step = CASES["torsion"]()
    args = dict(m=m, step=step, pgtol=1e-8, factr=10.0, backend=np, sync_every=16, maxiter=4)
    ref = fused.minimize(p.fg_stencil, p.x0, p.lo, p.hi, **args)
    tried = []

    def refuse(body):
        tried.append(1)
        raise RuntimeError("operation not permitted when stream is capturing")
    mp = pytest.MonkeyPatch()
    mp.setattr(gpu, "capture_graph", refuse)
    mp.setattr(fused, "_graph_refusal", lambda *a: "")
    try:
        got = fused.minimize(p.fg_stencil, p.x0, p.lo, p.hi, **args)
    finally:
        mp.undo()
    _same(got, ref)
    assert tried == [1] and got.graph.startswith("off (the capture failed: RuntimeError: operation not permitted")


def test_only_an_objective_marked_capturable_is_captured():
    """A replay runs no Python: an objective is captured only where it says so (torsion's stencil does),
    on a GPU, in batches, not cooperative, and not with fused.GRAPH off."""
    p = minpack2.make("torsion", 64)
    assert p.fg_stencil.capturable and not getattr(p.fg, "capturable", False)
    assert fused._graph_refusal(p.fg_stencil, 16, False, False) == ""
    assert "not marked capturable" in fused._graph_refusal(p.fg, 16, False, False)
    assert "simulator" in fused._graph_refusal(p.fg_stencil, 16, False, True)
    assert "sync_every=1" in fused._graph_refusal(p.fg_stencil, 1, False, False)
    assert "cooperative" in fused._graph_refusal(p.fg_stencil, 16, True, False)

