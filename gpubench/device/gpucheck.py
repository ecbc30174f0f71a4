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
import json
import math
import os
import sys
import time

import numpy as np
from numba import config, cuda

from .check_inputs import BINARY, OPS, TRANSCENDENTAL, make_inputs
from .check_oracles import check_exact, check_points, point_mask, raw_errors
from .environment import capture


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
def _environment():
    """The machine, as every record states it (:func:`gpubench.device.environment.capture`), and what
    this check adds: whether the simulator ran it, and mpmath's version (its oracle)."""
    import mpmath

    env = capture()
    env["simulator"] = bool(config.ENABLE_CUDASIM)
    env["versions"]["mpmath"] = mpmath.__version__
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
    env = _environment()
    gpu = env["gpu"] or {}
    print(f"gpucheck on {gpu.get('name', 'no GPU')} (cc {gpu.get('compute_capability')}, driver {gpu.get('driver')}, "
          f"simulator {env['simulator']})", flush=True)
    # schema 2: the environment is capture()'s (schema 1 had a list of its own)
    record = {"tool": "gpubench.device.gpucheck", "schema": 2, "environment": env}
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
