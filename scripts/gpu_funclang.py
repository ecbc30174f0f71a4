"""GPU measurements for the non-smooth/activation interval ops and the mean value form.

Usage (repository root, on a GPU host; expected 2-3 minutes on an H200, mostly NVVM compiles;
``--big-net`` adds the 7-60-1 network, whose compile time is what it measures)::

    python scripts/gpu_funclang.py OUTDIR            # real GPU
    NUMBA_ENABLE_CUDASIM=1 python scripts/gpu_funclang.py /tmp/x --tiny   # simulator, seconds

Writes ``OUTDIR/funclang.json`` with the environment (``gpubench.environment.capture``) and:

1. ``ops``: for ``itanh isigmoid isoftplus isign istep iabs imin imax`` of
   ``namespace("gpu")``, one kernel over N seeded boxes (wide, saturating |x| in 15..800,
   kinks at 0, points, unbounded); every element's interval must contain the host
   libm value at a point inside (``point_misses``), and a subsample is checked exactly at
   both endpoints and the point (mpmath at 300+ bits, Fraction for the kink ops:
   ``exact_misses``, ``exact_undecided``).  ``raw_ulps``: the largest error of the CUDA
   ``tanh``/``log1p`` themselves against mpmath, next to the documented 2/1 ulps and the
   4/3 ulps rounding_gpu widens by.
4. ``solves``: the paper-000 solver with ``inclusion`` natural and best (levy n = 10,
   the expanded coupled quadratic n = 8; 20 s limit each): iterations, time, bounds.
3. ``networks``: the 2-10-8-1 (and with ``--big-net`` the 7-60-1) tanh networks of issue 14
   (random weights):
   source generation, GPU compile (first launch) and kernel times of the natural, interval
   gradient and mean value forms on 1e5 boxes.  Written last; the JSON is saved before it.
2. ``forms``: for a few functions at n = 10, N boxes of relative widths 1e-1 .. 1e-4,
   the batched natural, mean value and intersected forms: kernel times (warm-up excluded,
   reported separately with compile times), mean widths, how often the mean value form is
   the tighter one, and a containment check of the centre's point value.

Exit status 0 when there is no miss, 1 otherwise.
"""
import argparse
import json
import math
import os
import sys
import time
from fractions import Fraction

import numpy as np
from numba import config, cuda

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if 'gpubench' not in sys.modules:
    try:
        import gpubench.functions  # noqa: F401  (installed: use it)
    except ImportError:
        sys.path.insert(0, ROOT)

from gpubench import environment  # noqa: E402
from gpubench.device import atomic_write  # noqa: E402
from gpubench.interval import namespace  # noqa: E402

UNARY = ("itanh", "isigmoid", "isoftplus", "isign", "istep", "iabs")
BINARY = ("imin", "imax")
DOCUMENTED = {"tanh": 2, "log1p": 1}
WIDENED = {"tanh": 4, "log1p": 3}


# ---------------------------------------------------------------- inputs
def boxes(rng, n):
    mag = np.ldexp(rng.uniform(1, 2, n), rng.integers(-30, 11, n))
    sgn = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    a, b = sgn * mag, np.where(rng.random(n) < 0.5, -1.0, 1.0) * np.ldexp(rng.uniform(1, 2, n), rng.integers(-30, 11, n))
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    kind = rng.integers(0, 6, n)
    sat = sgn * rng.uniform(15, 800, n)
    lo = np.where(kind == 1, sat, lo)
    hi = np.where(kind == 1, np.nextafter(sat, np.inf), hi)
    lo = np.where(kind == 2, np.where(rng.random(n) < 0.5, 0.0, -mag), lo)  # kinks at 0
    hi = np.where(kind == 2, np.where(lo == 0.0, mag, 0.0), hi)
    lo = np.where(kind == 3, a, lo)  # points
    hi = np.where(kind == 3, a, hi)
    unb = kind == 4
    lo = np.where(unb & (rng.random(n) < 0.5), -np.inf, lo)
    hi = np.where(unb & (rng.random(n) < 0.5), np.inf, hi)
    return lo, hi


def inside(rng, lo, hi):
    lf, hf = np.maximum(lo, -1e300), np.minimum(hi, 1e300)
    u = rng.random(lo.shape)
    p = lf * (1 - u) + hf * u
    return np.clip(p, lf, hf)


# ---------------------------------------------------------------- oracles
def _mp(fname, x):
    import mpmath
    X = mpmath.mpf(x)
    if fname == "tanh":
        return mpmath.tanh(X)
    if fname == "sigmoid":
        return 1 / (1 + mpmath.exp(-X))
    if fname == "softplus":
        return X + mpmath.log1p(mpmath.exp(-X)) if X > 0 else mpmath.log1p(mpmath.exp(X))
    if fname == "log1p":
        return mpmath.log1p(X)
    raise ValueError(fname)


# strict ranges: a bound at the edge of the range is right without evaluating (tanh(1e300) < 1)
RANGE = {"tanh": (-1.0, 1.0), "sigmoid": (0.0, 1.0)}


def mp_contains(fname, x, lo, hi):
    import mpmath
    if lo != lo or hi != hi:
        return False
    r_lo, r_hi = RANGE.get(fname, (-math.inf, math.inf))
    lo_known = lo <= r_lo or (fname == "softplus" and lo <= max(x, 0.0))
    hi_known = hi >= r_hi
    e = abs(math.frexp(x)[1]) if x != 0.0 else 0
    for prec in (300 + e, 1200 + 4 * e):
        with mpmath.workprec(prec):
            v = _mp(fname, x)
            tol = abs(v) * mpmath.ldexp(1, 8 - prec)
            lo_ok = lo_known or lo == -math.inf or mpmath.mpf(lo) <= v - tol
            hi_ok = hi_known or hi == math.inf or v + tol <= mpmath.mpf(hi)
            if lo_ok and hi_ok:
                return True
            if (not lo_known and lo != -math.inf and mpmath.mpf(lo) > v + tol) or \
               (not hi_known and hi != math.inf and mpmath.mpf(hi) < v - tol):
                return False
    return None


def frac_contains(op, lo, hi, x, y=0.0):
    X, Y = Fraction(x), Fraction(y)
    v = {"isign": lambda: Fraction((x > 0) - (x < 0)), "istep": lambda: Fraction(1 if x >= 0 else 0),
         "iabs": lambda: abs(X), "imin": lambda: min(X, Y), "imax": lambda: max(X, Y)}[op]()
    return (lo == -math.inf or Fraction(lo) <= v) and (hi == math.inf or v <= Fraction(hi))


HOST = {"itanh": np.tanh, "isigmoid": lambda v: 1 / (1 + np.exp(-v)),
        "isoftplus": lambda v: np.logaddexp(0.0, v), "isign": np.sign,
        "istep": lambda v: (v >= 0).astype(float), "iabs": np.abs}


# ---------------------------------------------------------------- kernels
def op_kernel(f, binary):
    if binary:
        @cuda.jit
        def k(alo, ahi, blo, bhi, olo, ohi):
            i = cuda.grid(1)
            if i < alo.shape[0]:
                olo[i], ohi[i] = f(alo[i], ahi[i], blo[i], bhi[i])
    else:
        @cuda.jit
        def k(alo, ahi, blo, bhi, olo, ohi):
            i = cuda.grid(1)
            if i < alo.shape[0]:
                olo[i], ohi[i] = f(alo[i], ahi[i])
    return k


@cuda.jit
def raw_kernel(x, t, l1):
    i = cuda.grid(1)
    if i < x.shape[0]:
        t[i] = math.tanh(x[i])
        l1[i] = math.log1p(abs(x[i]))


def launch(k, n, *args, threads=256):
    k[(n + threads - 1) // threads, threads](*args)
    cuda.synchronize()


def ulps(v, ref):
    import mpmath
    if not math.isfinite(v):
        return 0.0
    u = math.ulp(float(ref)) if float(ref) != 0.0 else 5e-324
    return float(abs(mpmath.mpf(v) - ref) / u)


def check_ops(ns, N, M, rng, log):
    out = {}
    for op in UNARY + BINARY:
        t0 = time.perf_counter()
        alo, ahi = boxes(rng, N)
        blo, bhi = boxes(rng, N)
        px, py = inside(rng, alo, ahi), inside(rng, blo, bhi)
        olo, ohi = np.empty(N), np.empty(N)
        k = op_kernel(ns[op], op in BINARY)
        launch(k, N, alo, ahi, blo, bhi, olo, ohi)  # warm-up (compile)
        t1 = time.perf_counter()
        launch(k, N, alo, ahi, blo, bhi, olo, ohi)
        t2 = time.perf_counter()
        if op in BINARY:
            ref = np.minimum(px, py) if op == "imin" else np.maximum(px, py)
        else:
            with np.errstate(all="ignore"):
                ref = HOST[op](px)
        point_bad = ~((olo <= ref) & (ref <= ohi))
        sub = rng.choice(N, size=min(M, N), replace=False)
        exact_checked = exact_misses = undecided = 0
        examples = []
        fname = op[1:]
        for i in sub:
            pts = [(v, py[i]) for v in (alo[i], ahi[i], px[i]) if math.isfinite(v)]
            for x, y in pts:
                if op in ("itanh", "isigmoid", "isoftplus"):
                    r = mp_contains(fname, float(x), float(olo[i]), float(ohi[i]))
                else:
                    r = frac_contains(op, float(olo[i]), float(ohi[i]), float(x), float(y))
                exact_checked += 1
                if r is None:
                    undecided += 1
                elif not r:
                    exact_misses += 1
                    if len(examples) < 10:
                        examples.append({"box": [float(alo[i]), float(ahi[i])], "x": float(x),
                                         "out": [float(olo[i]), float(ohi[i])]})
        out[op] = {"elements": N, "point_misses": int(point_bad.sum()), "exact_checked": exact_checked,
                   "exact_misses": exact_misses, "exact_undecided": undecided, "examples": examples,
                   "warmup_s": t1 - t0, "kernel_s": t2 - t1}
        log(f"{op}: {out[op]['point_misses']} point misses of {N}, {exact_misses} exact misses "
            f"of {exact_checked}, kernel {1e3 * (t2 - t1):.2f} ms")
    return out


def raw_errors(N, M, rng):
    import mpmath
    x = np.concatenate([rng.uniform(-40, 40, N // 2),
                        np.where(rng.random(N - N // 2) < 0.5, -1, 1) * np.ldexp(1.0, rng.integers(-40, 6, N - N // 2))
                        * rng.uniform(1, 2, N - N // 2)])
    t, l1 = np.empty(N), np.empty(N)
    launch(raw_kernel, N, x, t, l1)
    res = {}
    sub = rng.choice(N, size=min(M, N), replace=False)
    for fname, vals, arg in (("tanh", t, x), ("log1p", l1, np.abs(x))):
        worst = 0.0
        with mpmath.workprec(200):
            for i in sub:
                worst = max(worst, ulps(float(vals[i]), _mp(fname, float(arg[i]))))
        res[fname] = {"samples": int(sub.size), "max_ulps": worst, "documented_ulps": DOCUMENTED[fname],
                      "widened_ulps": WIDENED[fname], "below_margin": worst < WIDENED[fname]}
    return res


# ---------------------------------------------------------------- the mean value form
def coupled_quadratic(expanded=False):
    """sum x_i^2 + (x_i + x_i+1)^2 / 2; ``expanded`` writes the square out (x^2 + 2xy + y^2),
    which gives the natural form its dependency problem."""
    from gpubench.definition import Definition, Rational, Sum, symbols, x, y
    S1, S2 = symbols("S1 S2")
    coupled = x**2 + 2 * x * y + y**2 if expanded else (x + y) ** 2
    return Definition(name="coupled_quadratic" + ("_expanded" if expanded else ""),
                      title="sum x_i^2 + (x_i + x_i+1)^2 / 2",
                      source="gpubench issue 14", terms={S1: Sum(x**2), S2: Sum(coupled)},
                      expr=S1 + Rational(1, 2) * S2, domain=(-10, 10),
                      xstar=lambda n: np.zeros(n), fstar=lambda n: 0.0)


def measure_forms(names, dim, N, reps, rng, log):
    import gpubench.functions as F
    from gpubench.forms import TestFunction
    out = {}
    for name in names:
        fn = TestFunction(coupled_quadratic()) if name == "coupled_quadratic" else F.get(name)
        t0 = time.perf_counter()
        m = fn.module("gpu")
        dlo, dhi = fn.bounds(dim)
        c = rng.uniform(dlo, dhi, (N, dim))
        rel = 10.0 ** -rng.integers(1, 5, N)[:, None]
        w = (dhi - dlo) * rel / 2
        LO, HI = np.clip(c - w, dlo, dhi), np.clip(c + w, dlo, dhi)
        p = np.array(fn.params(dim))
        d = {k: cuda.to_device(v) for k, v in (("LO", LO), ("HI", HI), ("p", p))}
        flo, fhi = cuda.device_array(N), cuda.device_array(N)
        scratch = [cuda.device_array((N, dim)) for _ in range(5)]
        kernels = {"natural": (m.intervals, (d["LO"], d["HI"], d["p"], flo, fhi)),
                   "mean_value": (m.intervals_mv, (d["LO"], d["HI"], d["p"], flo, fhi, *scratch)),
                   "best": (m.intervals_best, (d["LO"], d["HI"], d["p"], flo, fhi, *scratch))}
        rec = {"dim": dim, "boxes": N}
        widths = {}
        for form, (k, args) in kernels.items():
            tw = time.perf_counter()
            launch(k, N, *args, threads=128)  # warm-up: compile
            tw = time.perf_counter() - tw
            times = []
            for _ in range(reps):
                t = time.perf_counter()
                launch(k, N, *args, threads=128)
                times.append(time.perf_counter() - t)
            lo, hi = flo.copy_to_host(), fhi.copy_to_host()
            X = np.ascontiguousarray(np.clip(0.5 * LO + 0.5 * HI, LO, HI))
            v = np.empty(N)
            fn.module("cpu").points(X, p, v)
            misses = int(np.count_nonzero(~((lo <= v + 1e-12 * np.abs(v)) & (v - 1e-12 * np.abs(v) <= hi))))
            widths[form] = hi - lo
            rec[form] = {"warmup_s": tw, "kernel_s_min": min(times), "kernel_s_all": times,
                         "mean_width": float(np.mean(hi - lo)), "center_misses": misses}
        by_rel = {}
        for r in (1e-1, 1e-2, 1e-3, 1e-4):
            sel = np.isclose(rel[:, 0], r)
            by_rel[f"{r:g}"] = {
                "natural_mean_width": float(np.mean(widths["natural"][sel])),
                "mean_value_mean_width": float(np.mean(widths["mean_value"][sel])),
                "mv_tighter_fraction": float(np.mean(widths["mean_value"][sel] < widths["natural"][sel]))}
        rec["by_relative_width"] = by_rel
        rec["module_s"] = time.perf_counter() - t0
        out[name] = rec
        log(f"{name}: natural {1e3 * rec['natural']['kernel_s_min']:.2f} ms, mean value "
            f"{1e3 * rec['mean_value']['kernel_s_min']:.2f} ms, best {1e3 * rec['best']['kernel_s_min']:.2f} ms; "
            + ", ".join(f"w{k}: mv tighter {v['mv_tighter_fraction']:.2f}" for k, v in by_rel.items()))
    return out


def measure_networks(sizes_list, N, rng, log):
    """Compile (warm-up) and kernel times of a network's GPU interval forms (issue 14's sizes)."""
    from gpubench import models
    from gpubench.forms import TestFunction
    out = {}
    for sizes in sizes_list:
        layers = [(rng.normal(0, 1, (b, a)) / np.sqrt(a), rng.normal(0, 0.5, b))
                  for a, b in zip(sizes[:-1], sizes[1:])]
        name = "net_" + "_".join(map(str, sizes))
        t0 = time.perf_counter()
        fn = TestFunction(models.network(name, layers, (-1, 1)))
        m = fn.module("gpu")
        t_gen = time.perf_counter() - t0
        d = sizes[0]
        c = rng.uniform(-1, 1, (N, d))
        w = 10.0 ** rng.uniform(-4, -1, (N, 1))
        LO, HI = np.clip(c - w, -1, 1), np.clip(c + w, -1, 1)
        p = np.array(fn.params(d))
        dLO, dHI, dp = cuda.to_device(LO), cuda.to_device(HI), cuda.to_device(p)
        flo, fhi = cuda.device_array(N), cuda.device_array(N)
        sc = [cuda.device_array((N, d)) for _ in range(5)]
        rec = {"sizes": sizes, "boxes": N, "generate_s": t_gen}
        for form, k, args in (("natural", m.intervals, (dLO, dHI, dp, flo, fhi)),
                              ("interval_gradient", m.interval_gradients, (dLO, dHI, dp, *sc[:4])),
                              ("mean_value", m.intervals_mv, (dLO, dHI, dp, flo, fhi, *sc))):
            t = time.perf_counter()
            launch(k, N, *args, threads=128)
            warm = time.perf_counter() - t
            t = time.perf_counter()
            launch(k, N, *args, threads=128)
            rec[form] = {"compile_and_first_launch_s": warm, "kernel_s": time.perf_counter() - t}
        out[name] = rec
        log(f"{name}: generated in {t_gen:.1f} s; " + ", ".join(
            f"{f} compile {rec[f]['compile_and_first_launch_s']:.1f} s, kernel {1e3 * rec[f]['kernel_s']:.2f} ms"
            for f in ("natural", "interval_gradient", "mean_value")))
    return out


def measure_solves(cases, backend, limit, max_iter, log, **settings):
    """The paper-000 solver with inclusion natural and best: iterations, evaluations, time."""
    from gpubench.forms import TestFunction
    from gpubench.solver import solve
    out = {}
    for name, n in cases:
        fn = TestFunction(coupled_quadratic(expanded=True)) if name == "coupled_quadratic" else name
        for inc in ("natural", "best"):
            t = time.perf_counter()
            solve(fn, n, backend=backend, inclusion=inc, max_iterations=1, **settings)  # compile
            warm = time.perf_counter() - t
            r = solve(fn, n, backend=backend, inclusion=inc, time_limit=limit, max_iterations=max_iter,
                      **settings)
            out[f"{name}_n{n}_{inc}"] = {
                "iterations": r.iterations, "nfev": r.nfev, "njev": r.njev, "seconds": r.seconds,
                "warmup_s": warm, "glb": r.glb, "gub": r.gub, "n_regions": r.n_regions,
                "message": r.message}
            log(f"solve {name} n={n} {inc}: {r.iterations} iterations, {r.seconds:.2f} s, "
                f"[{r.glb:.6g}, {r.gub:.6g}], {r.message}")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--tiny", action="store_true", help="simulator sizes")
    ap.add_argument("--seed", type=int, default=20261122)
    ap.add_argument("--big-net", action="store_true",
                    help="also the 7-60-1 network (its GPU compile may take minutes)")
    a = ap.parse_args(argv)
    tiny = a.tiny or config.ENABLE_CUDASIM
    N, M = (64, 24) if tiny else (1_000_000, 4000)
    rng = np.random.default_rng(a.seed)
    start = time.perf_counter()

    def log(s):
        print(f"[{time.perf_counter() - start:7.1f} s] {s}", flush=True)

    rec = {"environment": environment.capture(), "tiny": tiny, "seed": a.seed}
    ns = namespace("gpu")
    rec["ops"] = check_ops(ns, N, M, rng, log)
    rec["raw_ulps"] = raw_errors(N, M, rng)
    log(f"raw ulps: {rec['raw_ulps']}")
    names = ("coupled_quadratic", "rosenbrock", "levy")
    rec["forms"] = measure_forms(names, 3 if tiny else 10, 16 if tiny else 100_000, 1 if tiny else 3, rng, log)
    os.makedirs(a.outdir, exist_ok=True)
    path = os.path.join(a.outdir, "funclang.json")
    atomic_write(path, json.dumps(rec, indent=1, default=str))  # kept if the networks run long
    cases = [("coupled_quadratic", 2)] if tiny else [("levy", 10), ("coupled_quadratic", 8)]
    small = {"split_dims": 2, "parts": 2, "samples": 2} if tiny else {}
    rec["solves"] = measure_solves(cases, "cuda", 20.0, 2 if tiny else None, log, **small)
    atomic_write(path, json.dumps(rec, indent=1, default=str))
    nets = [[2, 3, 1]] if tiny else [[2, 10, 8, 1]] + ([[7, 60, 1]] if a.big_net else [])
    rec["networks"] = measure_networks(nets, 8 if tiny else 100_000, rng, log)
    misses = sum(r["point_misses"] + r["exact_misses"] for r in rec["ops"].values())
    misses += sum(r[f]["center_misses"] for r in rec["forms"].values() for f in ("natural", "mean_value", "best"))
    rec["total_misses"] = misses
    rec["total_s"] = time.perf_counter() - start
    atomic_write(path, json.dumps(rec, indent=1, default=str))
    log(f"done: {misses} misses; {path}")
    return 0 if misses == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
