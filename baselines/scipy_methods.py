"""The seven CPU methods of Tables S12/S13 of Zhang, Shan & Cagan (2026), on SciPy.

    G. Zhang, Q. Shan, J. Cagan, "Global optimization tailored for graphics
    processing units: complete and rigorous search for large-scale nonlinear
    minimization", PNAS Nexus 5(4), pgag103 (2026), Section 4 and SI Appendix E.

The paper runs basin-hopping, BFGS, differential evolution, DIRECT,
interior-point, Nelder-Mead and trust region ("implemented in ... MATLAB, and
... SciPy") on Ackley, n = 100, over [-35, 40]^100, with 1,000 / 50,000 / 100 /
1 / 50,000 / 10,000 / 50,000 runs from random starting points, and reports the
best value of all runs and the total time.  It prints no other setting.  Here
each is one SciPy method behind the interface every gpubench method shares::

    run(fn, dim, runs=..., seed=0, time_limit=None, **settings) -> OptimizeResult

One call does all ``runs`` runs and returns ONE result: the best point and value
of all runs (in the function's sense; a ``sense="max"`` function is maximised by
minimising -f), the total function and gradient evaluations (``nfev``,
``njev``, counted by this module, not taken from SciPy), the total iterations
of the local solvers (``iterations``), the wall time, ``converged`` = every
requested run was done, ``history["run_fun"]`` (each run's value) and, in
``options``, every setting used, including the defaults left untouched.

Common rules
------------
* Gradients are the analytic ones of the function library (``fn.gradient``);
  no method differentiates numerically.
* Starting points are uniform in the box; run ``k`` draws from
  ``numpy.random.default_rng([seed, k])``, so run k is the same whatever the
  number of runs (the quick setting's runs are the first runs of the full one),
  and so are the random streams of basin-hopping and differential evolution.
* ``time_limit`` (seconds, optional) stops starting new runs; the result then
  says how many were done (``history["runs_completed"]``, ``converged=False``).
* Every method is serial.  OpenBLAS is set to one thread while they run: its
  worker threads, spinning on a busy 2-core machine, made L-BFGS-B's n = 100
  products about 200 times slower (0.2 s instead of 1 ms per local solve).

How each method is set, and how it is kept in the box
-----------------------------------------------------
basinhopping
    ``scipy.optimize.basinhopping`` (Wales & Doye 1997, paper ref. 21),
    niter=100, T=1.0, stepsize=0.5, interval=50, target_accept_rate=0.5,
    stepwise_factor=0.9 (SciPy's defaults); local minimiser L-BFGS-B with the
    bounds and the analytic gradient.  A random step may leave the box, but
    L-BFGS-B projects its starting point onto the box, so every local minimum
    is in it.
bfgs
    The paper cites L-BFGS and L-BFGS-B (refs. 10-11) for "BFGS methods", so
    BFGS is ``minimize(method="L-BFGS-B")``: limited-memory BFGS confined to
    the box by projecting the steps onto the bounds (Byrd-Lu-Nocedal-Zhu).
    SciPy's defaults: maxcor=10, ftol=2.2e-9, gtol=1e-5, maxiter=15000.
differential_evolution
    ``scipy.optimize.differential_evolution`` (Storn & Price 1997, ref. 22),
    best1bin, popsize=15 (15 n individuals), mutation=(0.5, 1),
    recombination=0.7, Latin-hypercube init, maxiter=1000 generations,
    updating="immediate" (SciPy's defaults), and tol=0, atol=0, so that every
    run lasts its maxiter generations.  SciPy's tol=0.01 stops DE as soon as
    the spread of the population's values is below 1% of their mean: on the
    common Ackley (0.2 in the exponent) at n = 100 that holds after the first
    generation (3,000 evaluations, f = 20.9); on the paper's Ackley (0.02) it
    happens not to, but tol=0 makes the run length a setting, not luck.  DE
    stays in the box by construction.  SciPy's own polish
    (L-BFGS-B with a numerical gradient) is replaced by an L-BFGS-B polish
    within the bounds with the analytic gradient (``polish=True``).
direct
    ``scipy.optimize.direct`` in its locally biased form DIRECT-L (Gablonsky &
    Kelley 2001, ref. 20), eps=1e-4, maxfun=1000 n, maxiter=1000,
    len_tol=1e-6, and vol_tol=0: SciPy's vol_tol=1e-16 stops it after 599
    evaluations in 100 dimensions (with that default it returns 3.326 on
    Ackley n = 100 in under a second, the value printed in Tables S12/S13).
    DIRECT samples only inside the box.  It is deterministic: runs must be 1.
trust_constr (interior point)
    ``minimize(method="trust-constr")`` with the bounds, which SciPy solves by
    its interior-point (barrier) trust-region algorithm ``tr_interior_point``
    (Byrd-Hribar-Nocedal); Hessian by the BFGS quasi-Newton update (the
    library has no analytic Hessian); SciPy's defaults gtol=xtol=barrier_tol
    =1e-8, maxiter=1000, initial_tr_radius=1, initial_barrier_parameter=0.1.
    Bounds are kept with ``keep_feasible=True``.
nelder_mead
    ``minimize(method="Nelder-Mead")`` (Nelder & Mead 1965, ref. 17) with the
    bounds: SciPy clips every simplex vertex into the box.  SciPy's defaults:
    maxiter=maxfev=200 n, xatol=fatol=1e-4, adaptive=False, initial simplex of
    5% steps (0.00025 for zero coordinates).
trust_region
    The paper's "trust region" (refs. 8-9, Conn-Gould-Toint; Yuan) is most
    plausibly MATLAB's trust-region algorithm, a Newton method with
    finite-difference Hessians of the analytic gradient.  SciPy's
    general-objective trust-region methods are unconstrained (its bound-
    constrained trust-region methods are trust-constr, the interior point
    above, and least_squares' "trf", for sums of squares only), so this is
    ``minimize(method="trust-ncg")``, the Steihaug-Toint truncated-CG
    trust-region Newton method, with Hessian-vector products by forward
    differences of the analytic gradient (one gradient each), SciPy's
    defaults gtol=1e-5, initial_trust_radius=1, max_trust_radius=1000,
    eta=0.15, maxiter=200 n.  Bounds: the method runs unconstrained on f
    (the library's functions are defined on all of R^n); its final point is
    projected onto the box and the value reported is f there, so every
    reported point is feasible; ``history["runs_left_box"]`` counts the runs
    whose final point had to be projected.
"""
import math
import time

import numpy as np
from scipy import optimize

from .. import methods
from ..forms import InputError
from ..result import OptimizeResult

#: The paper's run counts (Tables S12/S13): the full setting.
PAPER_RUNS = {
    "basinhopping": 1000, "bfgs": 50000, "differential_evolution": 100, "direct": 1,
    "trust_constr": 50000, "nelder_mead": 10000, "trust_region": 50000,
}

#: The labels printed in Tables S12/S13.
PAPER_LABELS = {
    "basinhopping": "Basin-hopping", "bfgs": "BFGS", "differential_evolution": "Differential evolution",
    "direct": "DIRECT", "trust_constr": "Interior-point", "nelder_mead": "Nelder-Mead",
    "trust_region": "Trust region",
}


def _defaults(dim):
    return {
        "basinhopping": {"niter": 100, "T": 1.0, "stepsize": 0.5, "interval": 50,
                         "target_accept_rate": 0.5, "stepwise_factor": 0.9,
                         "local_method": "L-BFGS-B", "local_maxiter": 15000},
        "bfgs": {"scipy_method": "L-BFGS-B", "maxcor": 10, "ftol": 2.220446049250313e-09,
                 "gtol": 1e-05, "maxiter": 15000, "maxls": 20},
        "differential_evolution": {"strategy": "best1bin", "maxiter": 1000, "popsize": 15,
                                   "tol": 0.0, "atol": 0.0, "mutation": [0.5, 1.0],
                                   "recombination": 0.7, "init": "latinhypercube",
                                   "updating": "immediate", "polish": True},
        "direct": {"eps": 1e-4, "maxfun": 1000 * dim, "maxiter": 1000, "locally_biased": True,
                   "vol_tol": 0.0, "len_tol": 1e-6, "f_min": -math.inf, "f_min_rtol": 1e-4},
        "trust_constr": {"scipy_method": "trust-constr", "hessian": "BFGS", "gtol": 1e-8,
                         "xtol": 1e-8, "barrier_tol": 1e-8, "maxiter": 1000,
                         "initial_tr_radius": 1.0, "initial_barrier_parameter": 0.1,
                         "initial_barrier_tolerance": 0.1, "keep_feasible": True},
        "nelder_mead": {"maxiter": 200 * dim, "maxfev": 200 * dim, "xatol": 1e-4, "fatol": 1e-4,
                        "adaptive": False},
        "trust_region": {"scipy_method": "trust-ncg", "hessian": "forward differences of the gradient",
                         "gtol": 1e-5, "initial_trust_radius": 1.0, "max_trust_radius": 1000.0,
                         "eta": 0.15, "maxiter": 200 * dim},
    }


BOUNDS_RULE = {
    "basinhopping": "local minimiser L-BFGS-B within the bounds; steps may leave the box, "
                    "L-BFGS-B projects its start onto it",
    "bfgs": "L-BFGS-B: steps projected onto the bounds",
    "differential_evolution": "population kept in the box by construction",
    "direct": "samples only inside the box",
    "trust_constr": "bounds as barrier inequalities, keep_feasible=True",
    "nelder_mead": "SciPy clips every simplex vertex into the box",
    "trust_region": "unconstrained trust-ncg on f; final point projected onto the box, "
                    "value reported there",
}


class _Objective:
    """f (or -f for a maximiser) with its analytic gradient, counting evaluations."""

    def __init__(self, fn, dim):
        self.fn = fn
        self.sign = -1.0 if fn.sense == "max" else 1.0
        self.lo, self.hi = fn.bounds(dim)
        self.nfev = 0
        self.njev = 0

    def f(self, x):
        self.nfev += 1
        return self.sign * self.fn.point(x)

    def grad(self, x):
        self.njev += 1
        return self.sign * self.fn.gradient(x)

    def fs(self, X):
        """Values at the columns of X, shape (n, S): SciPy's vectorized convention."""
        X = np.ascontiguousarray(np.asarray(X).T)
        self.nfev += X.shape[0]
        return self.sign * self.fn.points(X)

    def hessp(self, x, p):
        """Hessian-vector product by a forward difference of the analytic gradient."""
        norm = float(np.linalg.norm(p))
        if norm == 0.0:
            return np.zeros_like(x)
        h = math.sqrt(np.finfo(float).eps) * (1.0 + float(np.linalg.norm(x))) / norm
        return (self.grad(x + h * p) - self.grad(x)) / h

    def start(self, rng):
        return rng.uniform(self.lo, self.hi)

    def bounds(self, keep_feasible=False):
        return optimize.Bounds(self.lo, self.hi, keep_feasible=keep_feasible)


def _single_threaded_blas():
    """Set every loaded OpenBLAS (NumPy's and SciPy's copies) to one thread; returns how many."""
    import ctypes
    try:
        with open("/proc/self/maps") as fh:
            maps = fh.read()
    except OSError:
        return 0
    paths = sorted({line.split()[-1] for line in maps.splitlines()
                    if "openblas" in line.lower() and ".so" in line})
    done = 0
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for sym in ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads",
                    "openblas_set_num_threads64_", "openblas_set_num_threads"):
            setter = getattr(lib, sym, None)
            if setter is not None:
                setter(ctypes.c_int(1))
                done += 1
                break
    return done


# ---------------------------------------------------------------- one run of each method
def _basinhopping(obj, rng, s):
    x0 = obj.start(rng)
    res = optimize.basinhopping(
        obj.f, x0, niter=s["niter"], T=s["T"], stepsize=s["stepsize"], interval=s["interval"],
        target_accept_rate=s["target_accept_rate"], stepwise_factor=s["stepwise_factor"], rng=rng,
        minimizer_kwargs={"method": s["local_method"], "jac": obj.grad, "bounds": obj.bounds(),
                          "options": {"maxiter": s["local_maxiter"]}})
    return res.x, res.fun, int(res.nit), str(res.message[0] if isinstance(res.message, list) else res.message)


def _bfgs(obj, rng, s):
    x0 = obj.start(rng)
    res = optimize.minimize(obj.f, x0, jac=obj.grad, method="L-BFGS-B", bounds=obj.bounds(),
                            options={"maxcor": s["maxcor"], "ftol": s["ftol"], "gtol": s["gtol"],
                                     "maxiter": s["maxiter"], "maxls": s["maxls"]})
    return res.x, res.fun, int(res.nit), str(res.message)


def _polish(obj, x):
    res = optimize.minimize(obj.f, x, jac=obj.grad, method="L-BFGS-B", bounds=obj.bounds())
    return res.x, float(res.fun), int(res.nit)


def _differential_evolution(obj, rng, s):
    vectorized = s["updating"] == "deferred"
    res = optimize.differential_evolution(
        obj.fs if vectorized else obj.f, list(zip(obj.lo, obj.hi)), strategy=s["strategy"],
        maxiter=s["maxiter"], popsize=s["popsize"], tol=s["tol"], atol=s["atol"],
        mutation=tuple(s["mutation"]), recombination=s["recombination"], init=s["init"],
        updating=s["updating"], vectorized=vectorized, polish=False, rng=rng)
    x, fun, nit = res.x, float(res.fun), int(res.nit)
    if s["polish"]:
        px, pf, pit = _polish(obj, x)
        nit += pit
        if pf <= fun:
            x, fun = px, pf
    return x, fun, nit, str(res.message)


def _direct(obj, rng, s):
    res = optimize.direct(obj.f, optimize.Bounds(obj.lo, obj.hi), eps=s["eps"], maxfun=s["maxfun"],
                          maxiter=s["maxiter"], locally_biased=s["locally_biased"], f_min=s["f_min"],
                          f_min_rtol=s["f_min_rtol"], vol_tol=s["vol_tol"], len_tol=s["len_tol"])
    return res.x, res.fun, int(res.nit), str(res.message)


def _trust_constr(obj, rng, s):
    x0 = obj.start(rng)
    res = optimize.minimize(
        obj.f, x0, jac=obj.grad, hess=optimize.BFGS(), method="trust-constr",
        bounds=obj.bounds(keep_feasible=s["keep_feasible"]),
        options={"gtol": s["gtol"], "xtol": s["xtol"], "barrier_tol": s["barrier_tol"],
                 "maxiter": s["maxiter"], "initial_tr_radius": s["initial_tr_radius"],
                 "initial_barrier_parameter": s["initial_barrier_parameter"],
                 "initial_barrier_tolerance": s["initial_barrier_tolerance"]})
    return res.x, res.fun, int(res.nit), str(res.message)


def _nelder_mead(obj, rng, s):
    x0 = obj.start(rng)
    res = optimize.minimize(obj.f, x0, method="Nelder-Mead", bounds=obj.bounds(),
                            options={"maxiter": s["maxiter"], "maxfev": s["maxfev"], "xatol": s["xatol"],
                                     "fatol": s["fatol"], "adaptive": s["adaptive"]})
    return res.x, res.fun, int(res.nit), str(res.message)


def _trust_region(obj, rng, s):
    x0 = obj.start(rng)
    res = optimize.minimize(obj.f, x0, jac=obj.grad, hessp=obj.hessp, method="trust-ncg",
                            options={"gtol": s["gtol"], "initial_trust_radius": s["initial_trust_radius"],
                                     "max_trust_radius": s["max_trust_radius"], "eta": s["eta"],
                                     "maxiter": s["maxiter"]})
    x = np.clip(res.x, obj.lo, obj.hi)
    left = bool(np.any(x != res.x))
    fun = obj.f(x) if left else float(res.fun)
    return x, fun, int(res.nit), str(res.message) + (" (final point projected onto the box)" if left else "")


_ONE_RUN = {
    "basinhopping": _basinhopping, "bfgs": _bfgs, "differential_evolution": _differential_evolution,
    "direct": _direct, "trust_constr": _trust_constr, "nelder_mead": _nelder_mead,
    "trust_region": _trust_region,
}


# ---------------------------------------------------------------- the shared driver
def _check_settings(name, given, defaults):
    unknown = sorted(set(given) - set(defaults))
    if unknown:
        raise InputError(f"method {name!r} has no setting {unknown[0]!r}; "
                         f"its settings: runs, seed, time_limit, {', '.join(sorted(defaults))}")
    out = dict(defaults)
    for k, v in given.items():
        d = defaults[k]
        if isinstance(d, bool):
            if not isinstance(v, bool):
                raise InputError(f"{name}: {k} must be true or false, got {v!r}")
        elif isinstance(d, (int, float)) and not isinstance(d, bool):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise InputError(f"{name}: {k} must be a number, got {v!r}")
            if isinstance(d, int) and not isinstance(v, int):
                raise InputError(f"{name}: {k} must be an integer, got {v!r}")
        elif isinstance(d, str) and not isinstance(v, str):
            raise InputError(f"{name}: {k} must be a string, got {v!r}")
        out[k] = v
    if name == "differential_evolution" and out["updating"] not in ("immediate", "deferred"):
        raise InputError("differential_evolution: updating must be 'immediate' or 'deferred'")
    for k in ("scipy_method", "hessian", "local_method"):
        if k in given and given[k] != defaults[k]:
            raise InputError(f"{name}: {k} is fixed to {defaults[k]!r} (it names the method)")
    return out


def _check_runs(name, runs, seed, time_limit):
    if isinstance(runs, bool) or not isinstance(runs, (int, np.integer)) or runs < 1:
        raise InputError(f"{name}: runs must be a positive integer, got {runs!r}")
    if name == "direct" and runs != 1:
        raise InputError("direct is deterministic and takes no starting point: runs must be 1")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(f"{name}: seed must be a non-negative integer, got {seed!r}")
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
                                   or not time_limit > 0):
        raise InputError(f"{name}: time_limit must be a positive number of seconds")


def _multistart(name, fn, dim, runs=None, seed=0, time_limit=None, **settings):
    runs = PAPER_RUNS[name] if runs is None else runs
    _check_runs(name, runs, seed, time_limit)
    s = _check_settings(name, settings, _defaults(dim)[name])
    obj = _Objective(fn, dim)
    one = _ONE_RUN[name]
    _single_threaded_blas()
    best_x, best_f = None, math.inf
    run_fun, iterations, left_box, done = [], 0, 0, 0
    t0 = time.perf_counter()
    for k in range(runs):
        if time_limit is not None and k > 0 and time.perf_counter() - t0 >= time_limit:
            break
        rng = np.random.default_rng([seed, k])
        x, f, nit, message = one(obj, rng, s)
        f = float(f)
        left_box += "projected onto the box" in message
        iterations += nit
        run_fun.append(obj.sign * f)
        done += 1
        if f < best_f or best_x is None:
            best_x, best_f = np.asarray(x, dtype=float).copy(), f
    seconds = time.perf_counter() - t0
    history = {"run_fun": run_fun, "runs_completed": done}
    if name == "trust_region":
        history["runs_left_box"] = left_box
    options = {"runs": runs, "seed": seed, "time_limit": time_limit, **s,
               "bounds": BOUNDS_RULE[name], "gradient": "analytic (function library)",
               "starts": "uniform in the box, run k from numpy.random.default_rng([seed, k])"
               if name != "direct" else "none (DIRECT needs no starting point)",
               "blas_threads": 1, "paper_runs": PAPER_RUNS[name], "paper_label": PAPER_LABELS[name]}
    return OptimizeResult(
        function=fn.name, dim=dim, method=name, backend="cpu", x=best_x, fun=obj.sign * best_f,
        iterations=iterations, nfev=obj.nfev, njev=obj.njev, seconds=seconds, converged=done == runs,
        message=f"best of {done} of {runs} run(s)" + ("" if done == runs else " (stopped at time_limit)"),
        history=history, options=options)


def _make(name, doc):
    def run(fn, dim, **options):
        return _multistart(name, fn, dim, **options)
    run.__name__ = name
    run.__doc__ = doc
    run.defaults = lambda dim: dict(_defaults(dim)[name])
    return run


_DOCS = {
    "basinhopping": "Basin-hopping with L-BFGS-B local minimisation in the box (SciPy).",
    "bfgs": "BFGS confined to the box: L-BFGS-B from random starts (SciPy).",
    "differential_evolution": "Differential evolution, tol=0, atol=0 (SciPy).",
    "direct": "DIRECT-L, vol_tol=0 (SciPy).",
    "trust_constr": "Interior point: trust-constr's barrier trust-region method with the bounds (SciPy).",
    "nelder_mead": "Nelder-Mead with vertices clipped into the box (SciPy).",
    "trust_region": "Trust-region Newton-CG (trust-ncg), final point projected onto the box (SciPy).",
}

for _name, _doc in _DOCS.items():
    methods.register(_name, _make(_name, _doc), _doc)

__all__ = ["PAPER_RUNS", "PAPER_LABELS", "BOUNDS_RULE"]
