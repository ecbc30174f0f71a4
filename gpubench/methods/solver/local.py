"""Local search for upper bounds (``local_search = True``; off by default, paper 000 has none).

Interval branch and bound takes its upper bound GUB from points where f is evaluated; every
region whose lower bound exceeds GUB is discarded, so the sooner GUB is near f*, the fewer
regions the search keeps.  The field's standard remedy is a local optimiser started from the
best point found so far, its end point's value being a valid upper bound once it is evaluated
rigorously (E. Hansen, G. W. Walster, *Global Optimization Using Interval Analysis*, 2nd ed.,
Marcel Dekker 2004, Sec. 12.5 "Using a local method"; R. B. Kearfott, *Rigorous Global Search:
Continuous Problems*, Kluwer 1996, Sec. 5.2; paper 001, Sec. 2.3, uses the same idea with a
local solver for its upper bounds).

:func:`descend` runs SciPy's L-BFGS-B (bounded to the domain, the function's own point and
gradient forms) from a point and returns its end point with an upper bound of f there: the
upper end of the interval form on the degenerate box [x, x], outward rounded.  Rigor rests on
two facts, each tested (``tests/test_local_search.py``): the end point lies in the domain (it is
clipped to it whatever the optimiser returns), and the bound is the rigorous enclosure's upper
end, never the float point value.
"""
import math

import numpy as np

# L-BFGS-B iterations per descent: a descent refines a sample near a minimiser, it does not search
LOCAL_ITERATIONS = 100


def _one_blas_thread():
    """A context in which BLAS runs one thread (threadpoolctl).

    L-BFGS-B's work per iteration is a few tiny BLAS calls; an OpenBLAS that spins up its thread
    pool for each of them took 4 ms a call on this project's shared 2-core CPU: 8 descents on
    Trid n = 6 took 4.3 s, and 0.02 s with one thread.  On a GPU host running many processes side
    by side (``--shard``) every process's pool competes for the same cores."""
    global _CONTROLLER
    if _CONTROLLER is None:
        from threadpoolctl import ThreadpoolController
        _CONTROLLER = ThreadpoolController()   # finds the loaded BLAS libraries once
    return _CONTROLLER.limit(limits=1, user_api="blas")


_CONTROLLER = None


def preload():
    """What the first descent loads: SciPy's optimize package (0.1 s of imports) and the BLAS
    controller.  Called before a run's clock starts (:func:`gpubench.methods.interval._preload`)."""
    import scipy.optimize  # noqa: F401
    _one_blas_thread()


def _bounds(lo, hi):
    return list(zip(lo.tolist(), hi.tolist()))


def _clip(x, lo, hi):
    return np.minimum(np.maximum(x, lo), hi)


def starts(lo, hi, count, fn=None, maximise=False):
    """``count`` points of the (unscrambled, so reproducible) Halton sequence over the box [lo, hi],
    its first point (the lower corner) left out: where the multistart's descents begin
    (``local_starts``): a multistart from a low-discrepancy point set, so that a descent begins in
    every part of the domain, not only where the search's samples first lowered GUB.  Given ``fn``,
    the first start is the level set's guess (:meth:`gpubench.forms.levelset.LevelSet.guess`)."""
    lo, hi = np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)
    if count <= 0:
        return np.empty((0, lo.size))
    u = halton(lo.size, count + 1)[1:]
    points = _clip(lo + u * (hi - lo), lo, hi)
    if fn is not None:   # given the function: the level set's guess first, in place of the last point
        from .contract import levelset
        g = levelset(fn, lo.size, maximise).guess(lo, hi)
        if g is not None:
            points = np.vstack([g[None, :], points[:-1]])
    return points


def multistart(fn, lo, hi, count, maximise=False, polished=True, descent=None, stop=None):
    """(x, ub): the best of descents from :func:`starts` (the level set's guess first), then
    polished (:func:`polish`) when ``polished``; None where no descent gives a finite bound.
    ``descent(x0)`` replaces the one capped descent (:func:`descend`), e.g. :func:`descend_to_end`;
    ``stop()`` true: no further descent starts and the polish stops (a search's deadline)."""
    late = stop or (lambda: False)
    best = None
    for x0 in starts(lo, hi, count, fn=fn, maximise=maximise):
        if late():
            break
        r = descent(x0) if descent is not None else descend(fn, x0, lo, hi, maximise)
        if r is not None and (best is None or r[1] < best[1]):
            best = r
    if best is not None and polished and not late():
        p = polish(fn, best[0], lo, hi, maximise, stop=stop)
        if p is not None and p[1] < best[1]:
            best = p
    return best


# a descent run to its end (descend_to_end): L-BFGS-B iterations a piece, and in all at most
DESCENT_PIECE = 1000
DESCENT_ITERATIONS = 20_000


def descend_to_end(fn, x0, lo, hi, maximise=False, enough=lambda ub: 0.0, stop=None):
    """(x, ub): :func:`descend` from ``x0`` continued in pieces of DESCENT_PIECE iterations while a
    piece lowers the end point's rigorous bound by more than ``enough(ub)`` (up to
    DESCENT_ITERATIONS, and not once ``stop()`` is true); None where the first piece gives no
    finite bound.  One capped descent (LOCAL_ITERATIONS, made for refining a sample) ends in a
    curved valley: Rosenbrock's descents from the Halton starts stopped at GUB 32.4 (n = 100) and
    867 (n = 1,000) where about 450 and 4,900 iterations reach its minimum 0."""
    late = stop or (lambda: False)
    best = descend(fn, x0, lo, hi, maximise, maxiter=DESCENT_PIECE)
    done = DESCENT_PIECE
    while best is not None and done < DESCENT_ITERATIONS and not late():
        found = descend(fn, best[0], lo, hi, maximise, maxiter=DESCENT_PIECE)
        done += DESCENT_PIECE
        gain = best[1] - found[1] if found is not None else 0.0
        if gain > 0.0:
            best = found
        if not gain > enough(best[1]):
            break
    return best


def _primes(k):
    """The first ``k`` primes (a sieve, doubled until it holds them)."""
    size = 16
    while True:
        sieve = np.ones(size, dtype=bool)
        sieve[:2] = False
        for c in range(2, int(size ** 0.5) + 1):
            if sieve[c]:
                sieve[c * c::c] = False
        found = np.flatnonzero(sieve)
        if found.size >= k:
            return found[:k].tolist()
        size *= 2


def halton(d, count):
    """The first ``count`` points of the unscrambled Halton sequence in ``d`` dimensions, bit for
    bit ``scipy.stats.qmc.Halton(d, scramble=False).random(count)`` (the same digit sums in the
    same order), without importing scipy.stats (0.4 s of a second process: issue 42, item 4).
    Every coordinate's digits at once: a column whose indices have run out of digits adds 0.0,
    which leaves its sum as it is, so each column is the one-base loop's bit for bit."""
    bases = np.asarray(_primes(d), dtype=np.int64)
    out = np.zeros((count, d))
    q = np.repeat(np.arange(count, dtype=np.int64)[:, None], d, axis=1)
    scale = 1.0 / bases
    while q.any():
        out += (q % bases) * scale
        scale = scale / bases
        q //= bases
    return out


def _point_forms(fn):
    """(value, gradient) of f at a point for a descent, which asks for them hundreds of times: the
    compiled point and gradient forms called directly, the kernels ``fn.point`` and ``fn.gradient``
    call, without those methods' checks of a user's point (half of 8 descents' time at Levy n = 50).
    Where a result is not finite, ``fn``'s own method answers: the same value, or the error it
    raises on a point with a NaN, as before."""
    module = getattr(fn, "module", None)
    if module is None:
        return fn.point, fn.gradient
    forms = module()

    def point(v):
        v = np.ascontiguousarray(v, dtype=np.float64)
        f = float(forms.point(v, fn.params(v.size)))
        return f if math.isfinite(f) else fn.point(v)

    def gradient(v):
        v = np.ascontiguousarray(v, dtype=np.float64)
        g = np.empty_like(v)
        forms.gradient(v, fn.params(v.size), g, np.empty_like(v))
        return g if np.isfinite(g).all() else fn.gradient(v)
    return point, gradient


def descend(fn, x0, lo, hi, maximise=False, maxiter=LOCAL_ITERATIONS):
    """(x, ub): a local minimiser of f (of -f when ``maximise``) in the box [lo, hi] reached from
    ``x0``, and a rigorous upper bound of that objective at x; None where the descent fails or
    the bound is not finite (f undefined or unbounded there)."""
    from scipy.optimize import minimize
    sign = -1.0 if maximise else 1.0
    point, grad = _point_forms(fn)

    def value(v):
        f = sign * float(point(v))
        return f if math.isfinite(f) else 1e300

    def gradient(v):
        g = sign * np.asarray(grad(v), dtype=np.float64)
        return np.where(np.isfinite(g), g, 0.0)

    x0 = _clip(np.asarray(x0, dtype=np.float64), lo, hi)
    try:
        with np.errstate(all="ignore"), _one_blas_thread():
            r = minimize(value, x0, jac=gradient, method="L-BFGS-B", bounds=_bounds(lo, hi),
                         options={"maxiter": maxiter})
        x = _clip(np.asarray(r.x, dtype=np.float64), lo, hi)
    except (ValueError, ArithmeticError):
        return None
    flo, fhi = fn.interval(x, x)
    ub = -float(flo) if maximise else float(fhi)
    if not math.isfinite(ub):
        return None
    return x, ub


# ---------------------------------------------------------------- polish (``polish = True``)
# binary grids tried by the snap, coarse to fine: a multiple of 2^(E - k), k = 0 .. SNAP_LEVELS - 1,
# where 2^E bounds the coordinate's domain (k = 52: about one unit in the last place)
SNAP_LEVELS = 53
# the compass search's finest step: 2^(E - FINEST), or one unit in the last place where coarser
FINEST = 60
# the polish asks its ``stop`` every this many evaluations
STOP_EVERY = 16


def _upper(fn, v, maximise):
    """The rigorous upper bound of the objective (f, or -f when maximising) at the point v: the
    upper end of the interval form on the degenerate box [v, v], outward rounded (inf where f is
    undefined or unbounded there).

    The polish calls it thousands of times on points it clipped into the box itself, so a function
    with a generated module is valued by its compiled interval form directly, the same kernel
    ``fn.interval`` calls, without that method's checks of a user's box (a third of the polish's
    time at Levy n = 50: 9.4 us a call against 6.3 us)."""
    module = getattr(fn, "module", None)
    if module is None:
        flo, fhi = fn.interval(v, v)
    else:
        flo, fhi = module().interval(v, v, fn.params(v.size))
    u = -float(flo) if maximise else float(fhi)
    return u if math.isfinite(u) else math.inf


def _upper_at(fn, n, maximise):
    """``v -> _upper(fn, v, maximise)`` for points of dimension ``n``, the compiled interval form and
    the parameters looked up once: the compass search's thousands of calls (Levy n = 50: 3,000) then
    cost the kernel and little more."""
    module = getattr(fn, "module", None)
    if module is None:
        return lambda v: _upper(fn, v, maximise)
    interval, params = module().interval, fn.params(n)

    def upper(v):
        flo, fhi = interval(v, v, params)
        u = -float(flo) if maximise else float(fhi)
        return u if math.isfinite(u) else math.inf
    return upper


def _scales(lo, hi):
    """2^E per coordinate, the least power of two at least the domain's largest |bound| (1 for a
    domain within [-1, 1])."""
    m = np.maximum(np.maximum(np.abs(lo), np.abs(hi)), 1.0)
    return np.exp2(np.ceil(np.log2(m)))


def polish(fn, x0, lo, hi, maximise=False, evaluations=None, descent=True, stop=None):
    """(x, ub): a point of the box [lo, hi] near ``x0`` with the least rigorous upper bound found,
    and that bound; None where no candidate has a finite bound.  Steps 1-2 use no derivative, so
    they go on where a gradient descent stalls (at a kink, or where the float value and the
    outward-rounded enclosure disagree).

    1. *Snap*: ``x0`` rounded to the nearest multiple of 2^(E - k), for k = 0 .. 52 (2^E bounds
       the coordinate's domain): on a coarse binary grid the function's arithmetic is often
       exact, so the enclosure of f on the point box is as narrow as f's own value (Bukin06 at
       (-10, 1): 0 exactly, against 2e-6 at the float end point of a descent a few ulps away).
    2. *Compass search* (pattern search; Kolda, Lewis & Torczon, SIAM Review 45 (2003) 385-482,
       Sec. 3): from the best snapped point, steps +-h along each coordinate, h starting at the
       best snap's grid and halved when no step lowers the bound, until h is below one unit in
       the last place (or 2^(E - 60)) or ``evaluations`` (default 40 n + 1000) are spent.
    3. With ``descent`` (default): an L-BFGS-B descent (:func:`descend`) from the result, and a
       short polish of its end point, kept where lower.

    ``stop`` (a function of no argument): asked every STOP_EVERY evaluations and before step 3;
    when it answers True the polish returns the best point so far (the search's time limit).

    Every candidate is clipped to the box and valued by the upper end of the interval form on
    its point box (never by the float value), so the result is a rigorous upper bound of the
    objective's minimum over the box; ``tests/test_polish.py`` checks it against exact oracles.
    """
    lo, hi = np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)
    n = lo.size
    budget = 40 * n + 1000 if evaluations is None else int(evaluations)
    x = _clip(np.asarray(x0, dtype=np.float64), lo, hi)
    upper = _upper_at(fn, n, maximise)
    best, best_u = x, upper(x)
    scales = _scales(lo, hi)
    level = SNAP_LEVELS - 1
    seen = {best.tobytes()}
    with np.errstate(all="ignore"):
        for k in range(SNAP_LEVELS):
            step = scales * 2.0 ** -k
            cand = _clip(np.round(x / step) * step, lo, hi)
            if cand.tobytes() in seen:
                continue
            seen.add(cand.tobytes())
            u = upper(cand)
            if u < best_u:
                best, best_u, level = cand, u, k
        # the loop works on floats (the same IEEE operations as on numpy's scalars) and on one
        # candidate array, best with coordinate j moved, put back where the move does not help
        h = (scales * 2.0 ** -level).tolist()
        finest = np.maximum(np.spacing(np.abs(best)), scales * 2.0 ** -FINEST).tolist()
        lo_f, hi_f, at = lo.tolist(), hi.tolist(), best.tolist()
        cand = best.copy()
        spent = 0
        while spent < budget and any(hj >= fj for hj, fj in zip(h, finest)):
            for j in range(n):
                if h[j] < finest[j]:
                    continue
                moved = False
                for sign in (1.0, -1.0):
                    # best lies in the box, so the step's clip is coordinate j's alone
                    step = min(max(at[j] + sign * h[j], lo_f[j]), hi_f[j])
                    if step == at[j]:
                        continue
                    spent += 1
                    if stop is not None and spent % STOP_EVERY == 0 and stop():
                        spent = budget
                        break
                    cand[j] = step
                    u = upper(cand)
                    if u < best_u:
                        best_u, moved, at[j] = u, True, step
                        best = cand.copy()
                        break
                    cand[j] = at[j]
                # each coordinate's step halves on its own when neither step along it helps: one
                # coordinate still moving no longer holds every other at a step too long for it
                # (Deceptive n = 10: GUB -0.99936 with one step for all, the budget spent)
                if not moved:
                    h[j] = h[j] / 2
                if spent >= budget:
                    break
    if not math.isfinite(best_u):
        return None
    if descent and not (stop is not None and stop()):
        # 3. a descent from the polished point, then its end point snapped again: the compass
        # search's budget can run out with one coordinate off by a grid step (scipy_go.Rastrigin
        # n = 10: GUB 2.7e-6 with x_4 = 1.2e-4; 2e-13 after the descent)
        found = descend(fn, best, lo, hi, maximise)
        if found is not None and found[1] < best_u:
            best, best_u = found
            again = polish(fn, best, lo, hi, maximise, evaluations=4 * n, descent=False, stop=stop)
            if again is not None and again[1] < best_u:
                best, best_u = again
    return best, best_u
