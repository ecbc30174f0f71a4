"""The exact oracles of the GPU interval check (:mod:`gpubench.device.gpucheck`): whether an
interval holds the true value of an operation, decided with ``fractions.Fraction`` for + - * /
(and squares for sqrt) and with mpmath at a precision that grows with the argument for
exp/log/sin/cos; the checks of a kernel's outputs, and the raw CUDA functions' errors in ulps."""
import math
from fractions import Fraction

import numpy as np

from .check_inputs import BINARY, DBL_MAX, DOCUMENTED_ULPS, MAX_EXAMPLES, TRANSCENDENTAL


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
