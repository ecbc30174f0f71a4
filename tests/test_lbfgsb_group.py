"""A start per group of lanes (lbfgsb-gpu ``lanes``, gpubench/kernels/lbfgsb_group.py) against one
thread per start, which tests/test_lbfgsb.py holds to the CPU twin: the same bits of x, f, iteration
and evaluation counts.

Under the simulator (no GPU) a block is one group and the group's barrier is ``syncthreads``; the
PTX test compiles the real kernel (``syncwarp``) for sm_90 without the simulator.  The runs are
short (n = 3 or 4, a few starts, a few iterations): every step the group shares (middle matrix and
its LU, the subspace system, its Gram matrix and product with M) runs many times in them.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

try:
    from gpubench import functions
except ImportError:   # a source tree where functions/ is not installed as gpubench.functions
    import functions
from gpubench import kernels
from gpubench.errors import InputError
from gpubench.methods import get as get_method
from gpubench.methods.lbfgsb import batch

ROOT = Path(__file__).resolve().parent.parent

# (function, n, box (None: the function's own), seed, settings): starts that end on bounds
# (Rosenbrock and Styblinski-Tang cut by the box) and inside (Levy), both Cauchy points and steps
CASES = {
    "rosenbrock-cut": ("rosenbrock", 3, (-0.5, 0.6), 3, dict(m=3, maxiter=18)),
    "rosenbrock-inside": ("rosenbrock", 3, (-2.0, 2.0), 1, dict(m=4, maxiter=7)),
    "rosenbrock-approx-truncate": ("rosenbrock", 3, (-0.5, 0.6), 5,
                                   dict(m=3, maxiter=8, cauchy="approximate", step="truncate")),
}
# (one function throughout: the CPU twin compiles once, about 15 s a function on 2 cores)

def _problem(case):
    name, n, box, seed, kw = CASES[case]
    fn = functions.get(name)
    lo, hi = fn.bounds(n) if box is None else (np.full(n, box[0]), np.full(n, box[1]))
    X0 = lo + (hi - lo) * np.random.default_rng(seed).random((2, n))
    X0[1, 0] = hi[0]                                   # a start on a bound
    return fn, lo, hi, X0, kw


def _same(a, b):
    for u, v in zip(a, b):
        assert np.array_equal(u, v), (u, v)


@pytest.mark.parametrize("case", list(CASES))
def test_groups_give_the_bits_of_one_thread(case):
    fn, lo, hi, X0, kw = _problem(case)
    lanes = 4 if case != "rosenbrock-inside" else 8    # more rows (2m) than lanes, and a row a lane
    one = batch.solve(fn, X0, lo, hi, pgtol=1e-12, backend="cuda", threads=2, **kw)
    grp = batch.solve(fn, X0, lo, hi, pgtol=1e-12, backend="cuda", lanes=lanes, **kw)
    _same(grp, one)
    # (one thread a start against the CPU twin, bit for bit: tests/test_lbfgsb.py, whose compile this
    # file does not repeat)
    assert (grp[2] >= 3).all()                         # iterations with a history: the group's steps ran
    if case == "rosenbrock-cut":
        assert ((grp[0] == lo) | (grp[0] == hi)).any()   # bounds active


def test_groups_resume_across_capped_launches():
    fn, lo, hi, X0, kw = _problem("rosenbrock-cut")
    one = batch.solve(fn, X0, lo, hi, pgtol=1e-12, backend="cuda", threads=2, **kw)
    cut = batch.solve(fn, X0, lo, hi, pgtol=1e-12, backend="cuda", lanes=2, cap=4, **kw)
    _same(cut, one)


# a sum in another order (the subspace system's back substitution; the Cauchy point's u^T M v), and
# lanes that skip their entries of A = I - M GR / theta: the bit-for-bit comparison catches each
BREAKS = {
    "order": ("    if lane == 0:\n        _lb_back(A, k2, rhs)\n    return True",
              "    if lane == 0:\n        for c in range(k2 - 1, -1, -1):\n            s = rhs[c]\n"
              "            for q in range(k2 - 1, c, -1):\n                s -= A[c, q] * rhs[q]\n"
              "            rhs[c] = s / A[c, c]\n    return True"),
    "quad-order": ("    for a in range(k2):\n        s += u[_lb_u(a)] * t[_lb_u(a)]",
                   "    for a in range(k2 - 1, -1, -1):\n        s += u[_lb_u(a)] * t[_lb_u(a)]"),
    "idle-lanes": ("            _lbg_mgr_entries(SM[2], SM[4], k, theta, SM[3], lane)",
                   "            pass"),
}


@pytest.mark.parametrize("broken", list(BREAKS))
def test_a_broken_group_is_caught(monkeypatch, broken):
    fn, lo, hi, X0, kw = _problem("rosenbrock-cut")
    kw = dict(kw, maxiter=6)   # a broken sum can wander for all 18 iterations: six show it
    real = batch.group_driver
    monkeypatch.setattr(batch, "group_driver", lambda lanes, registers=0: kernels.splice(
        "lbfgsb_group", replace=[BREAKS[broken]]).replace("LBG_LANES = 8 ", f"LBG_LANES = {lanes} "))
    assert batch.group_driver(2) != real(2)
    # against one thread a start (simulated too: no CPU twin to compile here)
    one = batch.solve(fn, X0, lo, hi, pgtol=1e-12, backend="cuda", threads=2, **kw)
    bad = batch.solve(fn, X0, lo, hi, pgtol=1e-12, backend="cuda", lanes=2, **kw)
    assert not all(np.array_equal(u, v) for u, v in zip(bad, one))


def test_lanes_setting():
    M = get_method("lbfgsb-gpu")
    assert M.settings().lanes == 0                     # the default: the width chosen by the starts (auto_lanes)
    fn = functions.get("rosenbrock")
    for bad in (3, -1, 64):
        with pytest.raises(InputError) as e:
            M(fn, 3, starts=2, lanes=bad)
        assert "lanes" in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(InputError):
        batch.Starts(fn, np.zeros((1, 3)), -np.ones(3), np.ones(3), lanes=5)
    with pytest.raises(InputError) as e:
        M(fn, 3, starts=2, lanes=8, registers=-1)
    assert "registers" in str(e.value) and "\n" not in str(e.value)
    # the CPU runs a start a loop turn whatever lanes: its own driver, not the group's
    run = batch.Starts(fn, np.zeros((2, 3)), -np.ones(3), np.ones(3), backend="cpu", lanes=8)
    assert run.lanes == 1 and not hasattr(run.mod, "lbfgsb_group_starts")


def test_auto_lanes_keeps_a_rounds_starts_resident(monkeypatch):
    """lanes = 0: 8 lanes a start while a round's starts fit the resident warps (an H200's 132 SMs x 8
    one-warp blocks: 33,792 lanes), then 4, then 2 however many; the CPU and a width set keep theirs."""
    import dataclasses
    from gpubench.methods import lbfgsb_gpu as L
    assert [L.auto_lanes(k, 132) for k in (1, 1000, 4224, 4225, 8448, 8449, 10**4, 10**6)] == [8, 8, 8, 4, 4, 2, 2, 2]
    monkeypatch.setattr(L, "device_limits", lambda: {"multiprocessors": 132})
    s = get_method("lbfgsb-gpu").settings()
    assert L._lanes(dataclasses.replace(s, starts=10**4), "cuda") == 2
    assert L._lanes(dataclasses.replace(s, starts=10**4, rounds=10), "cuda") == 8    # a round's 1,000
    assert L._lanes(dataclasses.replace(s, starts=10**4), "cpu") == 1
    assert L._lanes(dataclasses.replace(s, starts=10**4, lanes=16), "cuda") == 16


PTX = r'''
import json, re
from numba import types as T
from gpubench import functions
from gpubench.device.ptx import compile_ptx
from gpubench.methods.lbfgsb import batch
A1, A2, A3, A4 = (T.Array(T.float64, d, "C") for d in (1, 2, 3, 4))
F, I, B = T.float64, T.int64, T.boolean
sig = (A2, A1, A1, A1, F, I, F, F, I, I, B, B, I, T.Array(T.int64, 1, "C"), A3, A4, A4, A3, A2, A2)
out = {}
for lanes in (8,):
    ptx = compile_ptx(batch.module(functions.get("levy"), "cuda", lanes).lbfgsb_group_starts, sig, device=False)
    out[lanes] = {"entry": ".entry" in ptx, "target": re.search(r"\.target\s+(\S+)", ptx).group(1),
                  "warp_barriers": ptx.count("bar.warp.sync"), "block_barriers": ptx.count("bar.sync")}
capped = batch.module(functions.get("levy"), "cuda", 8, 96).lbfgsb_group_starts
out["cap"] = capped.targetoptions.get("max_registers")     # ptxas's, not in the PTX text
print(json.dumps(out))
'''


def test_group_kernel_compiles_to_ptx():
    """The real kernel (warp barriers, dynamic shared memory), not the simulator's, for sm_90."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    r = subprocess.run([sys.executable, "-c", PTX], cwd=ROOT, env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-4000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out.pop("cap") == 96
    for lanes, v in out.items():
        assert v["entry"] and v["target"] == "sm_90", (lanes, v)
        assert v["warp_barriers"] > 0 and v["block_barriers"] == 0, (lanes, v)
