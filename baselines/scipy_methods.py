"""The seven CPU methods of Tables S12/S13 of Zhang, Shan & Cagan (2026), on SciPy.

    G. Zhang, Q. Shan, J. Cagan, "Global optimization tailored for graphics
    processing units: complete and rigorous search for large-scale nonlinear
    minimization", PNAS Nexus 5(4), pgag103 (2026), Section 4 and SI Appendix E.

The paper runs basin-hopping, BFGS, differential evolution, DIRECT,
interior-point, Nelder-Mead and trust region ("implemented in ... MATLAB, and
... SciPy") on Ackley, n = 100, over [-35, 40]^100, with 1,000 / 50,000 / 100 /
1 / 50,000 / 10,000 / 50,000 runs from random starting points, and reports the
best value of all runs and the total time.  It prints no other setting.  Here
each is one SciPy method declared as a gpubench method (:class:`Method`), with
its settings dataclass below; ``runs``, ``seed`` and ``time_limit`` are settings
of every one of them.

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
* ``time_limit`` (seconds, optional; the shared setting, a
  :class:`gpubench.methods.monitor.Deadline`) bounds the wall time of the call: no run
  starts after it, and a run in progress stops at its next evaluation of f or of
  the gradient (one DE, DIRECT or interior-point run at n = 1,000 outlasts any
  per-case budget); such a run counts with the best in-box point it evaluated.
  The result then says how many runs were done (``history["runs_completed"]``,
  ``history["runs_cut"]``, ``converged=False``).
* Called interactively (``minimize`` or ``gpubench minimize``) each method
  does ``runs = 10`` runs unless told otherwise (DIRECT: 1); the experiments of
  Tables S12/S13 pin the paper's counts, which are kept as ``paper_runs``.
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
    The same method at another paper's settings is a choice of settings, not a
    copy: ``np`` fixes the population exactly (SciPy's popsize multiplies n;
    with ``np`` the initial population is np points uniform in the box, drawn
    from the run's stream and passed as SciPy's ``init`` array), and
    ``max_evaluations`` sets maxiter = max_evaluations // population - 1
    (the initial population, then one population per generation).  Qin et
    al.'s (2012) DE/rand/1/bin, for instance (experiments/qin2012_triangulate/):
    strategy="rand1bin", mutation=[0.5], recombination=0.3, np=NP,
    max_evaluations=10^4 n, updating="deferred" (synchronous generations, as
    the paper's kernels), polish=false.  A trial element outside the box is
    drawn again uniformly in its interval (SciPy's rule, de-gpu's too).
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
from dataclasses import dataclass
from typing import ClassVar, Optional

import numpy as np
from scipy import optimize

from ..errors import InputError
from ..methods.monitor import Deadline
from ..result import OptimizeResult
from ..methods.base import Method, MethodSettings, setting, time_limit_setting
from ..methods.trace import Trace

INTERACTIVE_RUNS = 10


@dataclass
class _Common(MethodSettings):
    runs: int = setting(INTERACTIVE_RUNS, "independent runs from random starts; the best is reported", minimum=1)
    seed: int = setting(0, "run k draws from numpy.random.default_rng([seed, k])", minimum=0)
    time_limit: Optional[float] = time_limit_setting()
    workers: int = setting(1, "processes sharing the runs (run k is the same whatever the split); "
                              "the trace is kept only with one worker", minimum=1)
    first_run: int = setting(0, "the runs are k = first_run ... first_run + runs - 1 (a chunk of a larger "
                                "budget: run k is the same whatever the chunking)", minimum=0)

    # what the paper prints for this method (Tables S12/S13) and how the box is kept
    paper_runs: ClassVar[int] = 0
    paper_label: ClassVar[str] = ""
    bounds_rule: ClassVar[str] = ""

    def resolved(self, dim):
        """Every setting with the dimension-dependent defaults filled in."""
        return self.as_dict()


@dataclass
class BasinhoppingSettings(_Common):
    niter: int = setting(100, "basin-hopping iterations", minimum=0)
    T: float = setting(1.0, "temperature", minimum=0.0)
    stepsize: float = setting(0.5, "initial step size", exclusive_minimum=0.0)
    interval: int = setting(50, "iterations between step-size updates", minimum=1)
    target_accept_rate: float = setting(0.5, "target acceptance rate", exclusive_minimum=0.0, maximum=1.0)
    stepwise_factor: float = setting(0.9, "step-size update factor", exclusive_minimum=0.0, maximum=1.0)
    local_method: str = setting("L-BFGS-B", "local minimiser (with the bounds)", fixed=True)
    local_maxiter: int = setting(15000, "iterations of each local minimisation", minimum=1)
    paper_runs: ClassVar[int] = 1000
    paper_label: ClassVar[str] = "Basin-hopping"
    bounds_rule: ClassVar[str] = ("local minimiser L-BFGS-B within the bounds; steps may leave the box, "
                                  "L-BFGS-B projects its start onto it")


@dataclass
class BfgsSettings(_Common):
    scipy_method: str = setting("L-BFGS-B", "SciPy method", fixed=True)
    maxcor: int = setting(10, "stored correction pairs", minimum=1)
    ftol: float = setting(2.220446049250313e-09, "relative reduction of f to stop", minimum=0.0)
    gtol: float = setting(1e-05, "projected-gradient tolerance", minimum=0.0)
    maxiter: int = setting(15000, "iterations per run", minimum=1)
    maxls: int = setting(20, "line-search steps", minimum=1)
    paper_runs: ClassVar[int] = 50000
    paper_label: ClassVar[str] = "BFGS"
    bounds_rule: ClassVar[str] = "L-BFGS-B: steps projected onto the bounds"


@dataclass
class DifferentialEvolutionSettings(_Common):
    strategy: str = setting("best1bin", "SciPy strategy name")
    maxiter: int = setting(1000, "generations", minimum=1)
    popsize: int = setting(15, "population = popsize x n", minimum=1)
    tol: float = setting(0.0, "relative spread stop (0: run every generation)", minimum=0.0)
    atol: float = setting(0.0, "absolute spread stop", minimum=0.0)
    mutation: tuple = setting((0.5, 1.0), "F, or a dithering range (lo, hi)")
    recombination: float = setting(0.7, "CR", minimum=0.0, maximum=1.0)
    init: str = setting("latinhypercube", "initial population", choices=("latinhypercube", "sobol", "halton", "random"))
    updating: str = setting("immediate", "update the best at once or per generation", choices=("immediate", "deferred"))
    polish: bool = setting(True, "polish the best with L-BFGS-B in the box (analytic gradient)")
    np: Optional[int] = setting(None, "population size exactly (unset: popsize x n); set, the initial "
                                      "population is np points uniform in the box", minimum=5)
    max_evaluations: Optional[int] = setting(None, "evaluations of a run, initial population included "
                                                   "(unset: maxiter decides); set, maxiter = "
                                                   "max_evaluations // population - 1", minimum=1)
    paper_runs: ClassVar[int] = 100
    paper_label: ClassVar[str] = "Differential evolution"
    bounds_rule: ClassVar[str] = ("population kept in the box by construction (a trial element outside "
                                  "it is drawn again uniformly in its interval)")

    def validate(self):
        if not 1 <= len(self.mutation) <= 2:
            raise InputError("differential_evolution: mutation must be F or (lo, hi)")
        if self.max_evaluations is not None and self.np is not None and self.max_evaluations < 2 * self.np:
            raise InputError(f"differential_evolution: max_evaluations ({self.max_evaluations}) is less than "
                             f"two populations (np = {self.np})")

    def resolved(self, dim):
        d = self.as_dict()
        population = self.np if self.np is not None else self.popsize * dim
        if self.max_evaluations is not None:
            # SciPy evaluates the initial population, then one population per generation (no polish)
            d["maxiter"] = max(self.max_evaluations // population - 1, 1)
        # recorded as used: the population, the evaluations a run may take, and where it starts
        d["init_array"] = self.np is not None
        d["np"] = d["population"] = population
        d["max_evaluations"] = (d["maxiter"] + 1) * population
        return d


@dataclass
class DirectSettings(_Common):
    runs: int = setting(1, "DIRECT is deterministic: one run", minimum=1, maximum=1)
    eps: float = setting(1e-4, "minimal improvement for a potentially optimal rectangle", minimum=0.0)
    maxfun: Optional[int] = setting(None, "evaluations (unset: 1000 n)", minimum=1)
    maxiter: int = setting(1000, "iterations", minimum=1)
    locally_biased: bool = setting(True, "DIRECT-L (Gablonsky-Kelley)")
    vol_tol: float = setting(0.0, "stop when the best rectangle's volume is below this", minimum=0.0)
    len_tol: float = setting(1e-6, "stop when the best rectangle's side is below this", minimum=0.0)
    f_min: float = setting(-math.inf, "known minimum (stop when reached)")
    f_min_rtol: float = setting(1e-4, "relative tolerance on f_min", minimum=0.0)
    paper_runs: ClassVar[int] = 1
    paper_label: ClassVar[str] = "DIRECT"
    bounds_rule: ClassVar[str] = "samples only inside the box"

    def resolved(self, dim):
        d = self.as_dict()
        d["maxfun"] = 1000 * dim if self.maxfun is None else self.maxfun
        return d


@dataclass
class TrustConstrSettings(_Common):
    scipy_method: str = setting("trust-constr", "SciPy method", fixed=True)
    hessian: str = setting("BFGS", "quasi-Newton Hessian update", fixed=True)
    gtol: float = setting(1e-8, "gradient tolerance", minimum=0.0)
    xtol: float = setting(1e-8, "step tolerance", minimum=0.0)
    barrier_tol: float = setting(1e-8, "barrier tolerance", minimum=0.0)
    maxiter: int = setting(1000, "iterations per run", minimum=1)
    initial_tr_radius: float = setting(1.0, "initial trust radius", exclusive_minimum=0.0)
    initial_barrier_parameter: float = setting(0.1, "initial barrier parameter", exclusive_minimum=0.0)
    initial_barrier_tolerance: float = setting(0.1, "initial barrier tolerance", exclusive_minimum=0.0)
    keep_feasible: bool = setting(True, "keep iterates strictly inside the bounds")
    paper_runs: ClassVar[int] = 50000
    paper_label: ClassVar[str] = "Interior-point"
    bounds_rule: ClassVar[str] = "bounds as barrier inequalities, keep_feasible=True"


@dataclass
class NelderMeadSettings(_Common):
    maxiter: Optional[int] = setting(None, "iterations per run (unset: 200 n)", minimum=1)
    maxfev: Optional[int] = setting(None, "evaluations per run (unset: 200 n)", minimum=1)
    xatol: float = setting(1e-4, "absolute simplex-size tolerance", minimum=0.0)
    fatol: float = setting(1e-4, "absolute value tolerance", minimum=0.0)
    adaptive: bool = setting(False, "dimension-adaptive parameters (Gao-Han)")
    paper_runs: ClassVar[int] = 10000
    paper_label: ClassVar[str] = "Nelder-Mead"
    bounds_rule: ClassVar[str] = "SciPy clips every simplex vertex into the box"

    def resolved(self, dim):
        d = self.as_dict()
        for k in ("maxiter", "maxfev"):
            d[k] = 200 * dim if d[k] is None else d[k]
        return d


@dataclass
class TrustRegionSettings(_Common):
    scipy_method: str = setting("trust-ncg", "SciPy method", fixed=True)
    hessian: str = setting("forward differences of the gradient", "Hessian-vector products", fixed=True)
    gtol: float = setting(1e-5, "gradient tolerance", minimum=0.0)
    initial_trust_radius: float = setting(1.0, "initial trust radius", exclusive_minimum=0.0)
    max_trust_radius: float = setting(1000.0, "largest trust radius", exclusive_minimum=0.0)
    eta: float = setting(0.15, "step acceptance threshold", minimum=0.0, maximum=0.25)
    maxiter: Optional[int] = setting(None, "iterations per run (unset: 200 n)", minimum=1)
    paper_runs: ClassVar[int] = 50000
    paper_label: ClassVar[str] = "Trust region"
    bounds_rule: ClassVar[str] = ("unconstrained trust-ncg on f; final point projected onto the box, "
                                  "value reported there")

    def resolved(self, dim):
        d = self.as_dict()
        d["maxiter"] = 200 * dim if d["maxiter"] is None else d["maxiter"]
        return d


class _OutOfTime(Exception):
    """Raised by the objective past the deadline: SciPy's loops have no wall-time stop of their own."""


class _Objective:
    """f (or -f for a maximiser) with its analytic gradient, counting evaluations.

    Past ``deadline`` (a :class:`gpubench.methods.monitor.Deadline`), or once Ctrl-C asked, every evaluation raises
    :class:`_OutOfTime`; the best in-box point evaluated since :meth:`new_run`
    is then the cut run's answer (there is one: the limit applies only after the run's
    first in-box evaluation, its start or, for DIRECT and DE, a point of the box).
    """

    def __init__(self, fn, dim, trace=True, deadline=None):
        self.fn = fn
        self.sign = -1.0 if fn.sense == "max" else 1.0
        self.lo, self.hi = fn.bounds(dim)
        self.nfev = 0
        self.njev = 0
        self.trace = Trace(fn.sense) if trace else None
        self.deadline = deadline
        self.new_run()

    def new_run(self):
        self.run_best = math.inf  # in minimisation terms
        self.run_x = None

    def _check_time(self):
        # not before the run's first in-box point (its start): every run has an answer
        if self.run_x is not None and self.deadline.check():  # time_limit, or Ctrl-C (gpubench.methods.monitor)
            raise _OutOfTime

    def _see(self, x, v):
        # trust-ncg evaluates outside the box: only a feasible point may answer for a cut run
        if self.sign * v < self.run_best and np.all(x >= self.lo) and np.all(x <= self.hi):
            self.run_best = self.sign * v
            self.run_x = np.array(x, dtype=float)

    def f(self, x):
        self._check_time()
        self.nfev += 1
        v = self.fn.point(x)
        if self.trace is not None:
            self.trace.see(self.nfev, v)
        self._see(x, v)
        return self.sign * v

    def tick(self, *args):
        """An iteration callback: trust-constr may iterate without evaluating anything."""
        self._check_time()

    def grad(self, x):
        self._check_time()
        self.njev += 1
        return self.sign * self.fn.gradient(x)

    def fs(self, X):
        """Values at the columns of X, shape (n, S): SciPy's vectorized convention."""
        self._check_time()
        X = np.ascontiguousarray(np.asarray(X).T)
        v = self.fn.points(X)
        if self.trace is not None:
            for k, vk in enumerate(v):
                self.trace.see(self.nfev + k + 1, vk)
        b = int(np.argmin(self.sign * v))
        self._see(X[b], v[b])
        self.nfev += X.shape[0]
        return self.sign * v

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
    mutation = tuple(s["mutation"])
    # a population of exactly np: SciPy's popsize multiplies n, so the initial population is
    # given as an array, np points uniform in the box from the run's own stream
    init = (rng.uniform(obj.lo, obj.hi, size=(s["np"], obj.lo.size)) if s["init_array"]
            else s["init"])
    res = optimize.differential_evolution(
        obj.fs if vectorized else obj.f, list(zip(obj.lo, obj.hi)), strategy=s["strategy"],
        maxiter=s["maxiter"], popsize=s["popsize"], tol=s["tol"], atol=s["atol"],
        mutation=mutation[0] if len(mutation) == 1 else mutation, recombination=s["recombination"],
        init=init, updating=s["updating"], vectorized=vectorized, polish=False, rng=rng)
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
        bounds=obj.bounds(keep_feasible=s["keep_feasible"]), callback=obj.tick,
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


def _runs(name, one, fn, dim, s, ks, deadline, trace):
    """Runs ``ks`` (run k draws from default_rng([seed, k])); none starts past ``deadline``, and the
    one in progress then stops at its next evaluation.  Entries: (k, x, f, nit, left box, cut)."""
    obj = _Objective(fn, dim, trace, deadline)
    _single_threaded_blas()
    out = []
    for k in ks:
        if out and deadline.check():
            break
        rng = np.random.default_rng([s["seed"], k])
        obj.new_run()
        try:
            x, f, nit, message = one(obj, rng, s)
        except _OutOfTime:
            # iterations of a cut run are not known: none counted
            out.append((k, obj.run_x, obj.sign * obj.run_best, 0, False, True))
            break
        out.append((k, np.asarray(x, dtype=float).copy(), obj.sign * float(f), nit,
                    "projected onto the box" in message, False))
    return out, obj.nfev, obj.njev, (obj.trace.close(obj.nfev) if trace else None)


_JOB = {}  # the job forked workers inherit: functions and their compiled forms do not pickle


def _chunk(ks):
    j = _JOB["job"]
    return _runs(j[0], j[1], j[2], j[3], j[4], ks, j[5], False)


def _multistart(name, one, fn, dim, settings):
    s = settings.resolved(dim)
    runs, workers = settings.runs, min(settings.workers, settings.runs)
    first = settings.first_run
    sign = -1.0 if fn.sense == "max" else 1.0
    deadline = Deadline.of(settings)
    t0 = deadline.start
    if workers == 1:
        done, nfev, njev, trace = _runs(name, one, fn, dim, s, range(first, first + runs), deadline, True)
    else:
        import concurrent.futures as cf
        import multiprocessing
        # interleaved chunks, so that a time limit cuts every worker at about the same run index
        chunks = [range(first + w, first + runs, workers) for w in range(workers)]
        _JOB["job"] = (name, one, fn, dim, s, deadline)  # forked: every worker checks the same deadline
        try:
            with cf.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as ex:
                parts = list(ex.map(_chunk, chunks))
        finally:
            _JOB.clear()
        done = sorted((d for p in parts for d in p[0]), key=lambda d: d[0])
        nfev, njev = sum(p[1] for p in parts), sum(p[2] for p in parts)
        trace = None
    seconds = time.perf_counter() - t0
    run_fun = [d[2] for d in done]
    iterations = sum(d[3] for d in done)
    cut = sum(1 for d in done if d[5])
    # a NaN run never beats a number (min() keeps whichever NaN it met first)
    k_best = min(range(len(done)), key=lambda j: math.inf if math.isnan(done[j][2]) else sign * done[j][2])
    best_x, best_f = done[k_best][1], done[k_best][2]
    history = {"run_fun": run_fun, "runs_completed": len(done) - cut, "runs_cut": cut}
    if trace is not None:
        history["trace"] = trace
    if name == "trust_region":
        history["runs_left_box"] = sum(1 for d in done if d[4])
    options = {**s,
               "bounds": settings.bounds_rule, "gradient": "analytic (function library)",
               "starts": "uniform in the box, run k from numpy.random.default_rng([seed, k])"
               if name != "direct" else "none (DIRECT needs no starting point)",
               "blas_threads": 1, "paper_runs": settings.paper_runs, "paper_label": settings.paper_label}
    return OptimizeResult(
        function=fn.name, dim=dim, method=name, backend="cpu", x=best_x, fun=best_f,
        iterations=iterations, nfev=nfev, njev=njev, seconds=seconds, converged=len(done) - cut == runs,
        message=f"best of {len(done)} of {runs} run(s)" + ("" if len(done) - cut == runs else
                                                           f" (stopped at time_limit{'; the last one cut' if cut else ''})"),
        stop=_stop(deadline, len(done) - cut < runs), history=history, options=options)


def _stop(deadline, short):
    """completed, or (some runs not done or cut) what the deadline said: time_limit or interrupted
    (a forked worker's check is not seen by the parent: the parent asks its deadline again)."""
    if not short:
        return "completed"
    return deadline.reason or deadline.check() or "time_limit"


def _declare(name, settings, one, summary):
    def run(fn, dim, s):
        return _multistart(name, one, fn, dim, s)
    run.__name__ = name
    return Method(name=name, summary=summary, settings=settings, run=run, backends=("cpu",),
                  source="SciPy; Zhang, Shan & Cagan (2026), PNAS Nexus 5(4) pgag103, SI Appendix E")


METHODS = [
    _declare("basinhopping", BasinhoppingSettings, _basinhopping,
             "Basin-hopping with L-BFGS-B local minimisation in the box (SciPy)"),
    _declare("bfgs", BfgsSettings, _bfgs, "BFGS confined to the box: L-BFGS-B from random starts (SciPy)"),
    _declare("differential_evolution", DifferentialEvolutionSettings, _differential_evolution,
             "Differential evolution, tol=0, atol=0 (SciPy)"),
    _declare("direct", DirectSettings, _direct, "DIRECT-L, vol_tol=0 (SciPy)"),
    _declare("trust_constr", TrustConstrSettings, _trust_constr,
             "Interior point: trust-constr's barrier trust-region method with the bounds (SciPy)"),
    _declare("nelder_mead", NelderMeadSettings, _nelder_mead,
             "Nelder-Mead with vertices clipped into the box (SciPy)"),
    _declare("trust_region", TrustRegionSettings, _trust_region,
             "Trust-region Newton-CG (trust-ncg), final point projected onto the box (SciPy)"),
]
