"""The PTX of the GPU interval code uses directed rounding and no FMA contraction.

The CUDA simulator runs the device functions as Python, so it cannot show what the GPU will
execute.  Here the real numba-cuda compiler (NVVM; no GPU and no driver needed) compiles
small device functions that call the interval ops of ``namespace("cuda")`` to PTX for
compute capability 9.0, in a subprocess without ``NUMBA_ENABLE_CUDASIM``.  The PTX must
contain the directed-rounding instructions (``add.rm.f64``, ``mul.rp.f64``, ``div.rm.f64``,
``sqrt.rp.f64`` ...) and no ``fma``: numba-cuda contracts a plain ``a*b + c`` into
``fma.rn.f64`` even without fastmath (checked below), which would silently replace "round
outward" by "round the fused result to nearest".

libdevice's own sin/cos/exp/log are polynomial evaluations full of ``fma.rn.f64``; their
error is what the 4/3-ulp widening covers.  To check the interval logic around them, the
transcendental ops are compiled a second time with the libdevice calls replaced by plain
one-ulp steps ("logic" variants): that PTX must be free of FMA and of unrounded arithmetic.
"""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = r'''
import json, re, sys
from collections import Counter

from numba import cuda, float64, int64
from numba.cuda import libdevice

from gpubench.device import gpucheck
from gpubench.interval import rounding_gpu as rg
from gpubench.interval.backends import build_namespace, namespace
from gpubench.device.ptx import compile_ptx  # numba.cuda.compile_ptx(..., cc=(9, 0)) without a driver

CC = (9, 0)
F = float64
ns = namespace("cuda")
iadd, isub, imul, idiv, irecip = ns["iadd"], ns["isub"], ns["imul"], ns["idiv"], ns["irecip"]
isqrt, ipow, isqr, _hits = ns["isqrt"], ns["ipow"], ns["isqr"], ns["_hits"]
isin, icos, iexp, ilog = ns["isin"], ns["icos"], ns["iexp"], ns["ilog"]
next_dn, next_up = rg.next_dn, rg.next_up


@cuda.jit(device=True)
def _stub_enc(a):
    return next_dn(a), next_up(a)


# the same ops with the libdevice transcendentals replaced by one-ulp steps
logic = build_namespace(dict(rg.PRIMITIVES, exp_dn=next_dn, exp_up=next_up, log_dn=next_dn,
                             log_up=next_up, sin_enc=_stub_enc, cos_enc=_stub_enc,
                             tanh_enc=_stub_enc, log1p_dn=next_dn, log1p_up=next_up),
                        cuda.jit(device=True))
l_isin, l_icos, l_iexp, l_ilog = logic["isin"], logic["icos"], logic["iexp"], logic["ilog"]
itanh, isigmoid, isoftplus = ns["itanh"], ns["isigmoid"], ns["isoftplus"]
l_itanh, l_isigmoid, l_isoftplus = logic["itanh"], logic["isigmoid"], logic["isoftplus"]
isign, istep, iabs, imax = ns["isign"], ns["istep"], ns["iabs"], ns["imax"]


def f_iadd(a, b, c, d): return iadd(a, b, c, d)
def f_isub(a, b, c, d): return isub(a, b, c, d)
def f_imul(a, b, c, d): return imul(a, b, c, d)
def f_idiv(a, b, c, d): return idiv(a, b, c, d)
def f_irecip(a, b): return irecip(a, b)
def f_isqrt(a, b): return isqrt(a, b)
def f_ipow(a, b, k): return ipow(a, b, k)
def f_isqr(a, b): return isqr(a, b)
def f_hits(a, b, c, d): return _hits(a, b, c, d)
def f_isin(a, b): return isin(a, b)
def f_icos(a, b): return icos(a, b)
def f_iexp(a, b): return iexp(a, b)
def f_ilog(a, b): return ilog(a, b)
def f_isin_logic(a, b): return l_isin(a, b)
def f_icos_logic(a, b): return l_icos(a, b)
def f_iexp_logic(a, b): return l_iexp(a, b)
def f_ilog_logic(a, b): return l_ilog(a, b)


def f_itanh(a, b): return itanh(a, b)
def f_isigmoid(a, b): return isigmoid(a, b)
def f_isoftplus(a, b): return isoftplus(a, b)
def f_itanh_logic(a, b): return l_itanh(a, b)
def f_isigmoid_logic(a, b): return l_isigmoid(a, b)
def f_isoftplus_logic(a, b): return l_isoftplus(a, b)


def f_kinks(a, b, c, d):
    # |a| * sign(b) + step(a) * max(a, b): comparisons and directed products only
    slo, shi = isign(c, d)
    alo, ahi = iabs(a, b)
    plo, phi = imul(alo, ahi, slo, shi)
    tlo, thi = istep(a, b)
    mlo, mhi = imax(a, b, c, d)
    qlo, qhi = imul(tlo, thi, mlo, mhi)
    return iadd(plo, phi, qlo, qhi)


def f_muladd(alo, ahi, blo, bhi, clo, chi):
    # [a]*[b] + [c]: the pattern that plain operators would contract into an FMA
    lo, hi = imul(alo, ahi, blo, bhi)
    return iadd(lo, hi, clo, chi)


def mixed(ns):
    imul, iadd, isqrt, idiv, isin, iexp = (ns[k] for k in "imul iadd isqrt idiv isin iexp".split())

    def f(alo, ahi, blo, bhi):
        # a small expression over several ops: exp(sin(sqrt(a*b + b) / a))
        plo, phi = imul(alo, ahi, blo, bhi)
        slo, shi = iadd(plo, phi, blo, bhi)
        rlo, rhi = isqrt(slo, shi)
        qlo, qhi = idiv(rlo, rhi, alo, ahi)
        sl, sh = isin(qlo, qhi)
        return iexp(sl, sh)
    return f


def f_plain_fma(a, b, c):
    return a * b + c


def f_naive_lo(a, b, c):
    # "round to nearest, then step down" written with plain operators
    return next_dn(a * b + c)


def f_libdevice_sin(a):
    return libdevice.sin(a)


FUNCS = {
    "iadd": (f_iadd, (F,) * 4), "isub": (f_isub, (F,) * 4), "imul": (f_imul, (F,) * 4),
    "idiv": (f_idiv, (F,) * 4), "irecip": (f_irecip, (F, F)), "isqrt": (f_isqrt, (F, F)),
    "ipow": (f_ipow, (F, F, int64)), "isqr": (f_isqr, (F, F)), "_hits": (f_hits, (F,) * 4),
    "muladd": (f_muladd, (F,) * 6), "mixed": (mixed(ns), (F,) * 4),
    "mixed_logic": (mixed(logic), (F,) * 4),
    "isin": (f_isin, (F, F)), "icos": (f_icos, (F, F)), "iexp": (f_iexp, (F, F)), "ilog": (f_ilog, (F, F)),
    "isin_logic": (f_isin_logic, (F, F)), "icos_logic": (f_icos_logic, (F, F)),
    "iexp_logic": (f_iexp_logic, (F, F)), "ilog_logic": (f_ilog_logic, (F, F)),
    "plain_fma": (f_plain_fma, (F,) * 3), "naive_lo": (f_naive_lo, (F,) * 3),
    "libdevice_sin": (f_libdevice_sin, (F,)),
    "itanh": (f_itanh, (F, F)), "isigmoid": (f_isigmoid, (F, F)), "isoftplus": (f_isoftplus, (F, F)),
    "itanh_logic": (f_itanh_logic, (F, F)), "isigmoid_logic": (f_isigmoid_logic, (F, F)),
    "isoftplus_logic": (f_isoftplus_logic, (F, F)), "kinks": (f_kinks, (F,) * 4),
}

INSTR = re.compile(r"^\s*(?:@!?%p\d+\s+)?([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+)\s", re.M)


def opcodes(ptx):
    return dict(Counter(op for op in INSTR.findall(ptx) if ".f64" in op))


out = {}
for name, (f, sig) in FUNCS.items():
    ptx = compile_ptx(f, sig, cc=CC, device=True)
    out[name] = {"ops": opcodes(ptx), "target": re.search(r"\.target\s+(\S+)", ptx).group(1)}

A = float64[:]
for op, k in gpucheck.kernel_functions(ns).items():
    ptx = compile_ptx(k, (A,) * 9, cc=CC, device=False)
    out["kernel_" + op] = {"ops": opcodes(ptx), "target": re.search(r"\.target\s+(\S+)", ptx).group(1),
                           "entry": ".entry" in ptx}
json.dump(out, sys.stdout)
'''


def _compile_all():
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    r = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=900)
    if r.returncode != 0:
        return {"error": f"PTX compilation failed (rc {r.returncode}):\n{r.stderr[-6000:]}"}
    return json.loads(r.stdout)


@pytest.fixture(scope="module")
def ptx(tmp_path_factory):
    """op name -> {"ops": {f64 opcode: count}}: compiled once per test session, also under
    pytest-xdist (the first worker compiles, the others wait for its file)."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # shared by the workers of this session
    result = root / "ptx_report.json"
    try:
        os.mkdir(root / "ptx_report.lock")
        owner = True
    except FileExistsError:
        owner = False
    if owner:
        tmp = root / "ptx_report.json.tmp"
        tmp.write_text(json.dumps(_compile_all()))
        os.replace(tmp, result)
    else:
        deadline = time.monotonic() + 900
        while not result.exists():
            if time.monotonic() > deadline:
                pytest.fail("timed out waiting for another worker's PTX report")
            time.sleep(0.2)
    data = json.loads(result.read_text())
    if "error" in data:
        pytest.fail(data["error"])
    return data


DIRECTED = {
    "iadd": {"add.rm.f64", "add.rp.f64"},
    "isub": {"add.rm.f64", "add.rp.f64"},
    "imul": {"mul.rm.f64", "mul.rp.f64"},
    "idiv": {"div.rm.f64", "div.rp.f64"},
    "irecip": {"div.rm.f64", "div.rp.f64"},
    "isqrt": {"sqrt.rm.f64", "sqrt.rp.f64"},
    "ipow": {"mul.rm.f64", "mul.rp.f64"},
    "isqr": {"mul.rm.f64", "mul.rp.f64"},
    "_hits": {"add.rm.f64", "add.rp.f64", "mul.rm.f64", "mul.rp.f64"},
    "muladd": {"mul.rm.f64", "mul.rp.f64", "add.rm.f64", "add.rp.f64"},
    "mixed": {"mul.rm.f64", "mul.rp.f64", "add.rm.f64", "add.rp.f64", "div.rm.f64", "div.rp.f64",
              "sqrt.rm.f64", "sqrt.rp.f64"},
    "mixed_logic": {"mul.rm.f64", "mul.rp.f64", "add.rm.f64", "add.rp.f64", "div.rm.f64",
                    "div.rp.f64", "sqrt.rm.f64", "sqrt.rp.f64"},
    # sin/cos: the width test and the extremum test (x - offset) * 1/(2 pi), rounded outward
    "isin": {"add.rm.f64", "add.rp.f64", "mul.rm.f64", "mul.rp.f64"},
    "icos": {"add.rm.f64", "add.rp.f64", "mul.rm.f64", "mul.rp.f64"},
    "isin_logic": {"add.rm.f64", "add.rp.f64", "mul.rm.f64", "mul.rp.f64"},
    "icos_logic": {"add.rm.f64", "add.rp.f64", "mul.rm.f64", "mul.rp.f64"},
    # 1/(1 + e^-x) and x + log1p(e^-x), rounded outward around the (stubbed) transcendentals
    "isigmoid": {"add.rm.f64", "add.rp.f64", "div.rm.f64", "div.rp.f64"},
    "isigmoid_logic": {"add.rm.f64", "add.rp.f64", "div.rm.f64", "div.rp.f64"},
    "isoftplus": {"add.rm.f64", "add.rp.f64"},
    "isoftplus_logic": {"add.rm.f64", "add.rp.f64"},
    "kinks": {"add.rm.f64", "add.rp.f64", "mul.rm.f64", "mul.rp.f64"},
}

# functions with no libdevice transcendental inside: all their arithmetic must be directed
PURE = ["iadd", "isub", "imul", "idiv", "irecip", "isqrt", "ipow", "isqr", "_hits", "muladd",
        "isin_logic", "icos_logic", "iexp_logic", "ilog_logic", "mixed_logic", "itanh_logic",
        "isigmoid_logic", "isoftplus_logic", "kinks"]
ARITH = ("add.", "sub.", "mul.", "div.", "sqrt.", "fma.", "rcp.", "mad.")
# ``thi - tlo >= 1.0`` in the extremum test: a round-to-nearest difference only compared
# with 1 (monotone, so conservative) and fed by directed products, so never contracted
ALLOWED_PLAIN = {name: {"sub.f64"} for name in ("_hits", "isin_logic", "icos_logic", "mixed_logic")}


@pytest.mark.parametrize("name", sorted(DIRECTED))
def test_directed_rounding_instructions(ptx, name):
    ops = ptx[name]["ops"]
    assert ptx[name]["target"] == "sm_90"
    missing = DIRECTED[name] - set(ops)
    assert not missing, f"{name}: no {sorted(missing)} in the PTX; f64 opcodes: {ops}"


@pytest.mark.parametrize("name", PURE)
def test_no_fma_and_no_unrounded_arithmetic(ptx, name):
    ops = ptx[name]["ops"]
    assert not [o for o in ops if o.startswith(("fma", "mad"))], f"{name}: {ops}"
    plain = {o for o in ops if o.startswith(ARITH) and ".rm." not in o and ".rp." not in o}
    assert plain <= ALLOWED_PLAIN.get(name, set()), f"{name}: unrounded arithmetic {plain}; {ops}"


def test_plain_multiply_add_is_contracted(ptx):
    """Why the ops use the intrinsics: numba-cuda fuses plain a*b + c (no fastmath) into one
    fma.rn, and so it would a "round to nearest, then step" written with plain operators.
    The test above would catch a regression of the ops to plain operators."""
    assert ptx["plain_fma"]["ops"].get("fma.rn.f64", 0) >= 1, ptx["plain_fma"]["ops"]
    assert ptx["naive_lo"]["ops"].get("fma.rn.f64", 0) >= 1, ptx["naive_lo"]["ops"]
    assert "mul.rn.f64" not in ptx["plain_fma"]["ops"]


def test_transcendentals_use_libdevice(ptx):
    """The real ops compile with libdevice inside (its polynomials are fma.rn); the logic
    variants, compiled from the same ops.py source, have none."""
    assert ptx["libdevice_sin"]["ops"].get("fma.rn.f64", 0) > 0
    for name in ("isin", "icos", "iexp", "ilog", "mixed", "itanh", "isigmoid", "isoftplus"):
        assert ptx[name]["ops"].get("fma.rn.f64", 0) > 0, (name, ptx[name]["ops"])
        assert ptx[name + "_logic"]["ops"].get("fma.rn.f64", 0) == 0


KERNEL_POINT_OP = {"iadd": "add.rn.f64", "isub": "add.rn.f64", "imul": "mul.rn.f64",
                   "idiv": "div.rn.f64", "isqrt": "sqrt.rn.f64"}


@pytest.mark.parametrize("op", ["iadd", "isub", "imul", "idiv", "isqrt", "iexp", "ilog", "isin", "icos"])
def test_gpucheck_kernels_compile(ptx, op):
    """gpubench.device.gpucheck's kernels compile for sm_90 (it cannot run here) and contain the
    op's directed rounding and the round-to-nearest point value."""
    k = ptx["kernel_" + op]
    assert k["entry"] and k["target"] == "sm_90"
    ops = set(k["ops"])
    assert DIRECTED.get(op, set()) <= ops, (op, k["ops"])
    if op in KERNEL_POINT_OP:
        assert KERNEL_POINT_OP[op] in ops, (op, k["ops"])
    if op in ("iadd", "isub", "imul", "idiv", "isqrt"):
        assert not [o for o in ops if o.startswith(("fma", "mad"))], (op, k["ops"])
