"""The generated GPU code of the new operations compiles for real (sm_90), not only under the
simulator, which runs device functions as untyped Python.

In a subprocess without ``NUMBA_ENABLE_CUDASIM`` (as ``tests/test_ptx.py``), every batched
kernel of a definition using Abs, Max, Min, sign, tanh, sigmoid, softplus and relu (point,
gradient, interval, interval gradient, mean value, intersection) and of a small network, and
the solver's sweep with the mean value option, are compiled to PTX.  The intervals use the
directed-rounding instructions.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = r'''
import json
import numpy as np
from numba import types as T
from gpubench.forms import codegen, models
from gpubench.forms.definition import (Abs, Definition, Max, Min, Sum, relu, sigmoid, sign, softplus,
                                 symbols, tanh, x, x1, y)
from gpubench.device.ptx import compile_ptx
from gpubench.methods.solver import kernels

S1, S2 = symbols("S1 S2")
NS = Definition(name="ptx_ns", title="", source="", domain=(-3, 3),
                terms={S1: Sum(Abs(x - y) + Max(x, y, 0) * tanh(x) - Min(x, 2 * y)),
                       S2: Sum(sigmoid(x) + softplus(-x) + relu(x - 1) + sign(x) * x**2)},
                expr=Max(S1, x1) + S2, xstar=lambda n: np.zeros(n), fstar=lambda n: 0.0)
rng = np.random.default_rng(0)
NET = models.network("ptx_net", [(rng.normal(size=(4, 3)), rng.normal(size=4)),
                                 (rng.normal(size=(1, 4)), rng.normal(size=1))], (-1, 1))
A, A2, I = T.float64[:], T.float64[:, :], T.int64
SIGS = {"points": (A2, A2, A), "gradients": (A2, A2, A2, A2), "intervals": (A2, A2, A2, A, A),
        "interval_gradients": (A2, A2, A2, A2, A2, A2, A2),
        "intervals_mv": (A2, A2, A2, A, A, A2, A2, A2, A2, A2),
        "intervals_best": (A2, A2, A2, A, A, A2, A2, A2, A2, A2),
        "sweep": (A, A, A, A, T.int64[:], I, I, I, I, T.float64, A2, T.int64[:], T.int64[:],
                  A2, A2, A, A, T.int8[:], I)}
out = {}
for d in (NS, NET):
    m = codegen.load(d, "cuda", kernels.extensions("cuda", 128))
    for k, sig in SIGS.items():
        ptx = compile_ptx(getattr(m, k), sig, device=False)
        out[f"{d.name}:{k}"] = {"entry": ".entry" in ptx, "add.rm": "add.rm.f64" in ptx,
                                "mul.rp": "mul.rp.f64" in ptx}
print(json.dumps(out))
'''


def test_generated_gpu_forms_compile_to_ptx():
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    r = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-4000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert len(out) == 14
    for k, v in out.items():
        assert v["entry"], k
        if not k.endswith((":points", ":gradients")):  # interval code: directed rounding
            assert v["add.rm"] and v["mul.rp"], (k, v)
