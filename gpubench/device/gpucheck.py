"""Check the GPU interval operations on a real GPU against exact arithmetic.

Run on a GPU host, from the repository root::

    python -m gpubench.device.gpucheck --out results/gpu/interval_check.json

The simulator (``NUMBA_ENABLE_CUDASIM=1``) runs it too, at a small ``--size``; the tests
do that.  What it does, for each of ``iadd isub imul idiv isqrt iexp ilog isin icos`` from
``namespace("cuda")``:

1. builds ``--size`` input boxes on the host (seeded): random boxes of every width and sign
   mixed with adversarial ones (huge arguments up to 1.8e308, subnormals, zero endpoints,
   unbounded boxes, divisors containing 0 or equal to [0, 0], boxes straddling the extrema
   k*pi/2 of sin/cos for small and large k, arguments near the overflow of exp, near 1 for
   log), and one point inside each box;
2. launches one kernel that computes the interval and the plain CUDA value at the point
   (``dadd_rn`` ..., ``sqrt``, and the very libdevice ``sin cos exp log`` that the interval
   code widens);
3. checks every element: the CUDA value at the point lies in the interval (``lo <= v <= hi``);
4. checks a random subsample (``--exact`` per op) exactly, at the point and at every finite
   corner of the box(es): ``fractions.Fraction`` for + - * / (and squares for sqrt), mpmath
   at a precision that grows with the argument's exponent for exp/log/sin/cos;
5. measures the largest error, in ulps, of the raw CUDA sin/cos/exp/log at the sampled
   points against mpmath, to compare with the widening of ``rounding_gpu`` (4 ulps for
   sin/cos, 3 for exp/log; CUDA documents 2 and 1).

It writes a JSON record (environment, counts, examples of misses, ulp errors, timings)
atomically and exits with 0 when all is well, 1 when any value lies outside its interval
(a miss), and 3 when there is no miss but an exact check stayed undecided or a raw CUDA
function erred by at least the margin the interval code allows for it (2: bad arguments).
On an H100 the default run (1e6 boxes per op, 20000 checked exactly) takes about 30 s.

python-flint is not needed (the GPU host has no python-flint): mpmath decides with a
tolerance of 2**(8 - prec) relative to the value, and retries at higher precision when the
tolerance does not decide; ``tests/test_interval_ops.py`` cross-checks these decisions
against arb.
"""
import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import sys
import time
from fractions import Fraction

import numpy as np
from numba import config, cuda

from .environment import git_commit

OPS = ("iadd", "isub", "imul", "idiv", "isqrt", "iexp", "ilog", "isin", "icos")
BINARY = frozenset({"iadd", "isub", "imul", "idiv"})
TRANSCENDENTAL = {"iexp": "exp", "ilog": "log", "isin": "sin", "icos": "cos"}
# CUDA's documented maximum errors (ulps) and the widening rounding_gpu applies
DOCUMENTED_ULPS = {"sin": 2, "cos": 2, "exp": 1, "log": 1}
DBL_MAX = sys.float_info.max
TINY = 5e-324
MAX_EXAMPLES = 20


# ---------------------------------------------------------------- input boxes
def _mag(rng, n, emin, emax):
    return np.ldexp(rng.uniform(1.0, 2.0, n), rng.integers(emin, emax + 1, n))


def _signs(rng, n):
    return np.where(rng.random(n) < 0.5, -1.0, 1.0)


def _step_up(x, k):
    """x moved up by k[i] doubles, elementwise (k >= 0)."""
    out = np.array(x, dtype=np.float64)
    k = np.broadcast_to(np.asarray(k), out.shape)
    with np.errstate(over="ignore"):
        for j in range(int(k.max(initial=0))):
            out = np.where(k > j, np.nextafter(out, np.inf), out)
    return out


def _step_dn(x, k):
    return -_step_up(-np.asarray(x, dtype=np.float64), k)


def _sorted(a, b):
    return np.minimum(a, b), np.maximum(a, b)


def _nearest_extrema(ks):
    """The doubles nearest to k*pi/2 (mpmath at a precision that covers k)."""
    import mpmath

    out = np.empty(len(ks))
    for i, k in enumerate(ks):
        with mpmath.workprec(128 + int(k).bit_length()):
            out[i] = float(mpmath.mpf(int(k)) * mpmath.pi / 2)
    return out


def family_boxes(rng, n, family, op=None):
    """``n`` boxes (lo, hi) of one family; see ``FAMILIES``."""
    if family == "tiny":  # widths of 0 to 4 ulps, magnitudes 2**-40 .. 2**40, both signs
        lo = _signs(rng, n) * _mag(rng, n, -40, 40)
        return lo, _step_up(lo, rng.integers(0, 5, n))
    if family == "wide":
        return _sorted(_signs(rng, n) * _mag(rng, n, -20, 30), _signs(rng, n) * _mag(rng, n, -20, 30))
    if family == "mixed":  # lo < 0 < hi
        return -_mag(rng, n, -30, 30), _mag(rng, n, -30, 30)
    if family == "huge":  # |x| from 2**900 to 2**1024 - ulp, tiny or wide
        a = _signs(rng, n) * _mag(rng, n, 900, 1023)
        a = np.where(rng.random(n) < 0.05, np.copysign(DBL_MAX, a), a)
        wide = _sorted(a, _signs(rng, n) * _mag(rng, n, 900, 1023))
        tiny = _sorted(a, np.clip(_step_up(a, rng.integers(0, 4, n)), -DBL_MAX, DBL_MAX))
        pick = rng.random(n) < 0.5
        return np.where(pick, wide[0], tiny[0]), np.where(pick, wide[1], tiny[1])
    if family == "subnormal":  # k * 2**-1074 with k < 2**52, widths of 0 to 3 units
        k = rng.integers(1, 2**52, n).astype(np.float64)
        lo = _signs(rng, n) * k * TINY
        hi = lo + rng.integers(0, 4, n) * TINY  # exact: subnormal spacing
        return lo, hi
    if family == "zero":  # an endpoint is +0 or -0
        z = np.where(rng.random(n) < 0.5, 0.0, -0.0)
        m = _mag(rng, n, -30, 30)
        left = rng.random(n) < 0.5
        return np.where(left, z, -m), np.where(left, m, z)
    if family == "unbounded":
        x = _signs(rng, n) * _mag(rng, n, -10, 10)
        r = rng.integers(0, 3, n)
        return np.where(r == 1, x, -np.inf), np.where(r == 0, x, np.inf)
    if family == "special":
        return _special_boxes(rng, n, op)
    raise ValueError(family)


def _special_boxes(rng, n, op):
    if op in ("isin", "icos"):
        # straddle k*pi/2: k small, and k up to 1e16 where a few ulps still span < 2*pi
        nk = max(1, min(n, 512))
        ks = np.concatenate([rng.integers(1, 2000, nk - nk // 2),
                             np.round(10.0 ** rng.uniform(5.0, 16.0, nk // 2)).astype(np.int64)])
        ks = ks * np.where(rng.random(nk) < 0.5, -1, 1)
        c = _nearest_extrema(ks)[rng.integers(0, nk, n)]
        return _step_dn(c, rng.integers(0, 4, n)), _step_up(c, rng.integers(0, 4, n))
    if op == "iexp":  # near overflow (709.78) and underflow (-745.13)
        x = _signs(rng, n) * rng.uniform(700.0, 746.0, n)
        return x, _step_up(x, rng.integers(0, 4, n))
    if op == "ilog":  # near 1
        x = _step_dn(np.ones(n), rng.integers(0, 6, n))
        return x, _step_up(x, rng.integers(0, 8, n))
    if op == "idiv":  # a divisor of [0, 0] or with 0 as an endpoint: the caller puts it in b
        z = rng.random(n)
        m = _mag(rng, n, -10, 10)
        return np.where(z < 0.3, -m, 0.0), np.where(z < 0.3, 0.0, np.where(z < 0.6, 0.0, m))
    x = _signs(rng, n) * _mag(rng, n, -10, 10)  # point boxes
    return x, x.copy()


FAMILIES = ("tiny", "wide", "mixed", "huge", "subnormal", "zero", "unbounded", "special")
WEIGHTS = (0.25, 0.15, 0.1, 0.1, 0.1, 0.1, 0.05, 0.15)


def random_boxes(rng, n, op=None):
    fam = rng.choice(len(FAMILIES), size=n, p=WEIGHTS)
    lo = np.empty(n)
    hi = np.empty(n)
    for j, name in enumerate(FAMILIES):
        sel = np.flatnonzero(fam == j)
        if sel.size:
            lo[sel], hi[sel] = family_boxes(rng, sel.size, name, op)
    return lo, hi


def point_inside(rng, lo, hi):
    """One double inside each box: interpolated, or of a random magnitude when it fits."""
    n = lo.shape[0]
    lo_f = np.maximum(lo, -DBL_MAX)
    hi_f = np.minimum(hi, DBL_MAX)
    u = rng.random(n)
    with np.errstate(all="ignore"):
        p = lo_f * (1.0 - u) + hi_f * u
    q = _signs(rng, n) * _mag(rng, n, -1074, 1023)
    p = np.where((rng.random(n) < 0.3) & (q >= lo) & (q <= hi), q, p)
    p = np.where(np.isfinite(p), p, hi_f)
    return np.minimum(np.maximum(p, lo_f), hi_f)


def make_inputs(op, n, rng):
    """The input arrays of one op: alo ahi (blo bhi) px py."""
    alo, ahi = random_boxes(rng, n, None if op == "idiv" else op)
    d = {"alo": alo, "ahi": ahi}
    if op in BINARY:
        d["blo"], d["bhi"] = random_boxes(rng, n, op)
    else:
        d["blo"], d["bhi"] = np.zeros(n), np.zeros(n)
    d["px"] = point_inside(rng, d["alo"], d["ahi"])
    d["py"] = point_inside(rng, d["blo"], d["bhi"])
    return d


# ---------------------------------------------------------------- exact oracles
def _frac_in(v, lo, hi):
    """lo <= v <= hi for an exact Fraction v and double bounds (NaN bounds contain nothing)."""
    if lo != lo or hi != hi:
        return False
    return (lo == -math.inf or Fraction(lo) <= v) and (hi == math.inf or v <= Fraction(hi))


def defined(op, x, y=0.0):
    """Is the real operation defined at the point (x, y)?"""
    if not math.isfinite(x) or not math.isfinite(y):
        return False
    if op == "idiv":
        return y != 0.0
    if op == "isqrt":
        return x >= 0.0
    if op == "ilog":
        return x > 0.0
    return True


def _sqrt_in(x, lo, hi):
    # sqrt(x) in [lo, hi]  <=>  (lo <= 0 or lo^2 <= x) and hi >= 0 and hi^2 >= x
    if lo != lo or hi != hi:
        return False
    fx = Fraction(x)
    ok_lo = lo <= 0.0 or Fraction(lo) ** 2 <= fx
    ok_hi = hi == math.inf or (hi >= 0.0 and Fraction(hi) ** 2 >= fx)
    return ok_lo and ok_hi


def precisions(x):
    """Precisions to try for f(x): the argument's exponent for huge x, twice it for tiny x."""
    e = math.frexp(x)[1] if x != 0.0 and math.isfinite(x) else 0
    base = 80 + max(e, 0)
    return (base, 4 * base, base + 2 * abs(e) + 64, 4 * (base + 2 * abs(e) + 64))


def _exact_special(fname, x):
    """f(x) when it is a double (rational arguments give transcendental values otherwise)."""
    if x == 0.0:
        return {"exp": 1.0, "sin": 0.0, "cos": 1.0}.get(fname)
    if fname == "log" and x == 1.0:
        return 0.0
    return None


def mp_value(fname, x, prec):
    """(value, tolerance) of f(x) at ``prec`` bits; |f(x) - value| <= tolerance."""
    import mpmath

    with mpmath.workprec(prec):
        v = getattr(mpmath, fname)(mpmath.mpf(x))
        return v, abs(v) * mpmath.ldexp(1, 8 - prec)


# exp(x) > DBL_MAX for x >= EXP_OVER, and 0 < exp(x) < 2**-1075 (half the least subnormal) for
# x <= EXP_UNDER: decided without evaluating exp(1e300) to 1000 digits.
EXP_OVER = 709.8
EXP_UNDER = -745.2


def mp_contains(fname, x, lo, hi):
    """True when lo <= f(x) <= hi, False when not, None when no precision decided it."""
    if lo != lo or hi != hi:
        return False
    s = _exact_special(fname, x)
    if s is not None:
        return lo <= s <= hi
    if fname == "exp" and x >= EXP_OVER:  # DBL_MAX < exp(x) < inf
        return lo < math.inf and hi == math.inf
    if fname == "exp" and x <= EXP_UNDER:  # 0 < exp(x) < the least positive double
        return lo <= 0.0 and hi > 0.0
    import mpmath

    for prec in precisions(x):
        v, tol = mp_value(fname, x, prec)
        with mpmath.workprec(prec + 16):
            lo_ok = lo == -math.inf or mpmath.mpf(lo) <= v - tol
            hi_ok = hi == math.inf or v + tol <= mpmath.mpf(hi)
            if lo_ok and hi_ok:
                return True
            if (lo != -math.inf and mpmath.mpf(lo) > v + tol) or (hi != math.inf and mpmath.mpf(hi) < v - tol):
                return False
    return None


_FRACTION_OPS = {
    "iadd": lambda x, y: x + y,
    "isub": lambda x, y: x - y,
    "imul": lambda x, y: x * y,
    "idiv": lambda x, y: x / y,
}


def exact_contains(op, lo, hi, x, y=0.0):
    """Is the exact value of ``op`` at (x, y) in [lo, hi]?  True / False / None (undecided).

    The caller makes sure ``defined(op, x, y)``.
    """
    if op in _FRACTION_OPS:
        return _frac_in(_FRACTION_OPS[op](Fraction(x), Fraction(y)), lo, hi)
    if op == "isqrt":
        return _sqrt_in(x, lo, hi)
    return mp_contains(TRANSCENDENTAL[op], x, lo, hi)


def sample_points(op, alo, ahi, blo, bhi, px, py):
    """The point and every finite corner of the box(es), where the op is defined."""
    xs = [px, alo, ahi]
    if op in BINARY:
        pts = [(px, py)] + [(a, b) for a in (alo, ahi) for b in (blo, bhi)]
    else:
        pts = [(x, 0.0) for x in xs]
    seen = set()
    out = []
    for p in pts:
        if p not in seen and defined(op, *p):
            seen.add(p)
            out.append(p)
    return out


def check_exact(op, data, olo, ohi, index):
    """Exact checks of ``op`` at the elements ``index``: dict of counts and examples."""
    checked = misses = undecided = 0
    examples = []
    for i in index:
        i = int(i)
        args = [float(data[k][i]) for k in ("alo", "ahi", "blo", "bhi", "px", "py")]
        lo, hi = float(olo[i]), float(ohi[i])
        for x, y in sample_points(op, *args):
            r = exact_contains(op, lo, hi, x, y)
            checked += 1
            if r is None:
                undecided += 1
            elif not r:
                misses += 1
                if len(examples) < MAX_EXAMPLES:
                    examples.append(_example(op, args, lo, hi, (x, y)))
    return {"exact_checked": checked, "exact_misses": misses, "exact_undecided": undecided,
            "examples": examples}


def _example(op, args, lo, hi, point):
    names = ("alo", "ahi", "blo", "bhi") if op in BINARY else ("alo", "ahi")
    ex = {k: float.hex(v) for k, v in zip(names, args)}
    ex.update(lo=float.hex(lo), hi=float.hex(hi),
              point=[float.hex(v) for v in (point if op in BINARY else point[:1])])
    return ex


def point_mask(op, data):
    """Elements whose sample point is in the domain (and for div: a nonzero divisor)."""
    m = np.isfinite(data["px"]) & np.isfinite(data["py"])
    if op == "idiv":
        m &= data["py"] != 0.0
    elif op == "isqrt":
        m &= data["px"] >= 0.0
    elif op == "ilog":
        m &= data["px"] > 0.0
    return m


def check_points(op, data, olo, ohi, pv):
    """All elements: the plain value at the point must lie in the interval."""
    m = point_mask(op, data) & ~np.isnan(pv)
    with np.errstate(invalid="ignore"):
        ok = (olo <= pv) & (pv <= ohi)
    bad = np.flatnonzero(m & ~ok)
    examples = [_example(op, [float(data[k][i]) for k in ("alo", "ahi", "blo", "bhi")],
                         float(olo[i]), float(ohi[i]),
                         (float(data["px"][i]), float(data["py"][i])))
                for i in bad[:MAX_EXAMPLES]]
    for e, i in zip(examples, bad):
        e["value"] = float.hex(float(pv[i]))
    # an interval with lo > hi, or with exactly one NaN endpoint, is malformed
    malformed = int(np.count_nonzero((olo > ohi) | (np.isnan(olo) != np.isnan(ohi))))
    return {"point_checked": int(np.count_nonzero(m)), "point_misses": int(bad.size),
            "malformed": malformed, "point_examples": examples}


def ulp_error(fname, x, value):
    """|value - f(x)| in ulps of f(x), or None where f(x) is outside the double range."""
    import mpmath

    if not math.isfinite(value) or (fname == "exp" and not EXP_UNDER < x < EXP_OVER):
        return None
    s = _exact_special(fname, x)
    prec = precisions(x)[2]
    with mpmath.workprec(prec):
        exact = mpmath.mpf(s) if s is not None else getattr(mpmath, fname)(mpmath.mpf(x))
        if abs(exact) > DBL_MAX:
            return None
        nearest = float(exact)
        return float(abs(mpmath.mpf(value) - exact) / math.ulp(nearest))


def raw_errors(fname, data, pv, index):
    errs = []
    for i in index:
        x = float(data["px"][i])
        if fname == "log" and not x > 0.0:
            continue
        e = ulp_error(fname, x, float(pv[i]))
        if e is not None:
            errs.append((e, x))
    if not errs:
        return {"samples": 0}
    e, x = max(errs)
    margin = {"sin": 4, "cos": 4, "exp": 3, "log": 3}[fname]
    return {"samples": len(errs), "max_ulps": e, "at": float.hex(x),
            "mean_ulps": sum(v for v, _ in errs) / len(errs),
            "documented_ulps": DOCUMENTED_ULPS[fname], "margin_ulps": margin,
            "within_documented": e <= DOCUMENTED_ULPS[fname], "below_margin": e < margin}


# ---------------------------------------------------------------- kernels
def kernel_functions(ns):
    """op -> Python function of its check kernel (``cuda.jit`` it; tests compile it to PTX).

    Every kernel has the signature (alo, ahi, blo, bhi, px, py, olo, ohi, pv), all float64
    arrays: it writes the interval ``op(a[, b])`` to (olo, ohi) and the plain CUDA value at
    (px[, py]) to pv.
    """
    from ..interval import rounding_gpu as rg

    dev = cuda.jit(device=True)
    add_rn, mul_rn, div_rn = rg.add_rn, rg.mul_rn, rg.div_rn
    raw_exp, raw_log, raw_sin, raw_cos = rg._exp, rg._log, rg._sin, rg._cos

    @dev
    def p_add(x, y):
        return add_rn(x, y)

    @dev
    def p_sub(x, y):
        return add_rn(x, -y)

    @dev
    def p_mul(x, y):
        return mul_rn(x, y)

    @dev
    def p_div(x, y):
        if y == 0.0:
            return math.nan
        return div_rn(x, y)

    @dev
    def p_sqrt(x, y):
        if x >= 0.0:
            return math.sqrt(x)
        return math.nan

    @dev
    def p_exp(x, y):
        return raw_exp(x)

    @dev
    def p_log(x, y):
        if x > 0.0:
            return raw_log(x)
        return math.nan

    @dev
    def p_sin(x, y):
        return raw_sin(x)

    @dev
    def p_cos(x, y):
        return raw_cos(x)

    points = {"iadd": p_add, "isub": p_sub, "imul": p_mul, "idiv": p_div, "isqrt": p_sqrt,
              "iexp": p_exp, "ilog": p_log, "isin": p_sin, "icos": p_cos}
    return {op: (_binary_kernel if op in BINARY else _unary_kernel)(ns[op], points[op]) for op in OPS}


def _binary_kernel(op, point):
    def kernel(alo, ahi, blo, bhi, px, py, olo, ohi, pv):
        i = cuda.grid(1)
        if i < alo.shape[0]:
            lo, hi = op(alo[i], ahi[i], blo[i], bhi[i])
            olo[i] = lo
            ohi[i] = hi
            pv[i] = point(px[i], py[i])
    return kernel


def _unary_kernel(op, point):
    def kernel(alo, ahi, blo, bhi, px, py, olo, ohi, pv):
        i = cuda.grid(1)
        if i < alo.shape[0]:
            lo, hi = op(alo[i], ahi[i])
            olo[i] = lo
            ohi[i] = hi
            pv[i] = point(px[i], py[i])
    return kernel


def run_kernel(kernel, data, threads):
    n = data["alo"].shape[0]
    d_in = [cuda.to_device(np.ascontiguousarray(data[k])) for k in ("alo", "ahi", "blo", "bhi", "px", "py")]
    d_out = [cuda.device_array(n, dtype=np.float64) for _ in range(3)]
    blocks = max(1, (n + threads - 1) // threads)
    times = []
    for _ in range(2):  # cold (compiles), then warm
        cuda.synchronize()
        t0 = time.perf_counter()
        kernel[blocks, threads](*d_in, *d_out)
        cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return [a.copy_to_host() for a in d_out], times


# ---------------------------------------------------------------- record
def _version(dist):
    try:
        from importlib.metadata import version

        return version(dist)
    except Exception:
        return None


def _nvidia_smi_driver():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
        lines = out.stdout.strip().splitlines()
        return lines[0].strip() if out.returncode == 0 and lines else None
    except Exception:
        return None


def environment():
    import mpmath
    import numba

    env = {
        "simulator": bool(config.ENABLE_CUDASIM),
        "gpu_name": None, "compute_capability": None,
        "driver_version": _nvidia_smi_driver(),
        "cuda_driver_api_version": None, "cuda_runtime_version": None,
        "python": platform.python_version(), "platform": platform.platform(),
        "numba": numba.__version__, "numba_cuda": _version("numba-cuda"),
        "numpy": np.__version__, "mpmath": mpmath.__version__,
        "git_commit": git_commit(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }
    try:
        dev = cuda.get_current_device()
        name = getattr(dev, "name", "numba CUDA simulator" if config.ENABLE_CUDASIM else None)
        env["gpu_name"] = name.decode() if isinstance(name, bytes) else name
        env["compute_capability"] = list(dev.compute_capability)
    except Exception as e:  # no usable device: recorded, and the kernels will fail loudly
        env["gpu_error"] = repr(e)
    if not config.ENABLE_CUDASIM:
        try:
            env["cuda_runtime_version"] = list(cuda.runtime.get_version())
        except Exception:
            pass
        try:
            from numba.cuda.cudadrv.driver import driver

            env["cuda_driver_api_version"] = list(driver.get_version())
        except Exception:
            pass
    return env


def write_json_atomic(path, record):
    from .gpu import atomic_write
    atomic_write(path, json.dumps(record, indent=1) + "\n")


def exit_status(record):
    """0 all well; 1 a miss; 3 no miss but undecided checks or a raw error at the margin."""
    t = record["totals"]
    if t["misses"] or t["malformed"]:
        return 1
    if t["undecided"] or any(not r.get("below_margin", True) for r in record["raw_ulp_error"].values()):
        return 3
    return 0


def run_checks(ns, size, exact, seed, ops=OPS, threads=None, log=print):
    """Run the checks over the ops of namespace ``ns``; returns the record (no environment)."""
    if threads is None:
        threads = 32 if config.ENABLE_CUDASIM else 256
    rng = np.random.default_rng(seed)
    funcs = kernel_functions(ns)
    per_op = {}
    raw = {}
    for op in ops:
        t0 = time.perf_counter()
        data = make_inputs(op, size, rng)
        kernel = cuda.jit(funcs[op])
        (olo, ohi, pv), (cold, warm) = run_kernel(kernel, data, threads)
        r = check_points(op, data, olo, ohi, pv)
        index = np.sort(rng.choice(size, size=min(size, exact), replace=False))
        r.update(check_exact(op, data, olo, ohi, index))
        if op in TRANSCENDENTAL:
            fname = TRANSCENDENTAL[op]
            raw[fname] = raw_errors(fname, data, pv, index[point_mask(op, data)[index]])
        r.update(elements=size, kernel_cold_s=cold, kernel_warm_s=warm, total_s=time.perf_counter() - t0)
        per_op[op] = r
        log(f"{op:6s} elements {size}  point misses {r['point_misses']}/{r['point_checked']}  "
            f"exact misses {r['exact_misses']}/{r['exact_checked']} (undecided {r['exact_undecided']})  "
            f"malformed {r['malformed']}  kernel {cold:.2f}s cold {warm * 1e3:.2f}ms warm  "
            f"total {r['total_s']:.1f}s")
    totals = {
        "checked": sum(r["point_checked"] + r["exact_checked"] for r in per_op.values()),
        "misses": sum(r["point_misses"] + r["exact_misses"] for r in per_op.values()),
        "undecided": sum(r["exact_undecided"] for r in per_op.values()),
        "malformed": sum(r["malformed"] for r in per_op.values()),
    }
    for fname, r in raw.items():
        if r.get("samples"):
            log(f"raw CUDA {fname}: max error {r['max_ulps']:.3f} ulp at {r['at']} over {r['samples']} "
                f"points (documented {r['documented_ulps']}, margin {r['margin_ulps']})")
    return {"parameters": {"size": size, "exact": exact, "seed": seed, "ops": list(ops), "threads": threads},
            "ops": per_op, "raw_ulp_error": raw, "totals": totals}


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m gpubench.device.gpucheck", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=os.path.join("results", "gpu", "interval_check.json"),
                   help="JSON record to write (atomically)")
    p.add_argument("--size", type=int, default=1_000_000, help="boxes per operation (default 1e6)")
    p.add_argument("--exact", type=int, default=20_000, help="boxes per operation checked exactly")
    p.add_argument("--seed", type=int, default=20261122)
    p.add_argument("--ops", default=",".join(OPS), help="comma-separated subset of " + " ".join(OPS))
    args = p.parse_args(argv)
    ops = tuple(o for o in args.ops.split(",") if o)
    unknown = sorted(set(ops) - set(OPS))
    if unknown or args.size < 1 or args.exact < 0:
        p.error(f"unknown ops {unknown}" if unknown else "--size must be >= 1 and --exact >= 0")

    from ..interval.backends import namespace

    t0 = time.perf_counter()
    env = environment()
    print(f"gpucheck on {env['gpu_name']} (cc {env['compute_capability']}, driver {env['driver_version']}, "
          f"simulator {env['simulator']})", flush=True)
    record = {"tool": "gpubench.device.gpucheck", "schema": 1, "environment": env}
    record.update(run_checks(namespace("cuda"), args.size, args.exact, args.seed, ops,
                             log=lambda s: print(s, flush=True)))
    record["wall_s"] = time.perf_counter() - t0
    status = exit_status(record)
    record["status"] = {0: "pass", 1: "miss", 3: "undecided-or-margin"}[status]
    write_json_atomic(args.out, record)
    t = record["totals"]
    print(f"{record['status']}: {t['checked']} checks, {t['misses']} misses, {t['undecided']} undecided, "
          f"{t['malformed']} malformed; wrote {args.out} in {record['wall_s']:.1f}s")
    return status


if __name__ == "__main__":
    sys.exit(main())
