"""MAiNGO, the deterministic global solver paper 001 extends, run through its own package.

    D. Bongartz, J. Najman, S. Sass, A. Mitsos, "MAiNGO - McCormick-based Algorithm for
    mixed-integer Nonlinear Global Optimization", Technical report, RWTH Aachen (2018);
    ``pip install maingopy`` (0.10.3, EPL-2.0).

``maingo`` is a spatial branch-and-bound whose lower bounds come from McCormick relaxations of
the function's expression graph (LPs solved by CLP in the PyPI build, which has no CPLEX), its
upper bounds from local solves.  The graph is the function's **MAiNGO form**
(:mod:`gpubench.forms.maingoform`), translated from its one symbolic definition; an operation MAiNGO
cannot express is refused in one line, naming it.  For ``sense="max"`` MAiNGO minimises -f and
the result is in f's sense.

Settings map onto MAiNGO's options: ``eps_abs``/``eps_rel`` (``epsilonA``/``epsilonR``, its
defaults 1e-2), ``time_limit`` (``maxTime`` and ``maxwTime``, CPU and wall seconds, checked
between MAiNGO's B&B iterations, not during its preprocessing (OBBT rounds, multistart local
searches), which at n = 1,000 outlasted a 600 s limit by more than 17 minutes: so with a limit the
solve runs in a forked child that is killed :func:`kill_after` seconds past it, and the run ends
unsolved saying so; MAiNGO reads whole seconds, so a fraction is rounded up; unset: MAiNGO's own
default of one day),
``max_nodes`` (``BAB_maxIterations``), the bound tightening ``constraint_propagation``
(``BAB_constraintPropagation``), ``dbbt`` (``BAB_dbbt``, duality-based), ``obbt``
(optimality-based: ``PRE_obbtMaxRounds`` = 10 rounds at the root and ``BAB_alwaysSolveObbt`` at
the nodes, or neither) and ``probing`` (``BAB_probing``), all at MAiNGO's defaults unless set;
``lbp_solver`` and ``ubp_solver`` choose its lower and upper bounding solvers (``auto``: its own
default).  ``iterations`` = B&B iterations (nodes taken), MAiNGO's count.

**Rigor** (docs/peers.md): MAiNGO's relaxations and LPs are computed in floating point without
outward rounding, so its bounds are deterministic but not interval-verified.  The result says
which bound is: the incumbent side is MAiNGO's solution point valued with gpubench's
outward-rounded interval form (the upper end of f's enclosure on the point box, the lower end
for a maximum), **verified**; the other side is MAiNGO's final lower bound, **not verified**
(``options["verified"]``).

**Consistency** (the form against the point form): before solving, MAiNGO values its own graph
(``evaluate_model_at_point``) at the box's midpoint, the stated minimiser and seeded random
points, and after solving at its solution, and each value must match gpubench's point form to
``CHECK_RTOL``; a mismatch is :class:`TranslationMismatch` (an internal error: a wrong
translation, never a wrong answer).
"""
import math
import time
from dataclasses import dataclass
from typing import Optional

import numpy as np

from gpubench.errors import InputError
from gpubench.methods.base import Method, MethodSettings, setting, time_limit_setting
from gpubench.methods.monitor import Deadline, stop_word
from gpubench.result import OptimizeResult

from ._peers import version

NAME = "maingo"
INSTALL = "pip install 'gpubench[peers]'"
SOURCE = ("Bongartz, Najman, Sass & Mitsos, MAiNGO (RWTH Aachen), run through its own package "
          "maingopy (EPL-2.0)")
LBP = {"auto": None, "clp": "LBP_SOLVER_CLP", "cplex": "LBP_SOLVER_CPLEX", "interval": "LBP_SOLVER_INTERVAL",
       "maingo": "LBP_SOLVER_MAiNGO"}
UBP = {"auto": None, "eval": "UBP_SOLVER_EVAL", "cobyla": "UBP_SOLVER_COBYLA", "bobyqa": "UBP_SOLVER_BOBYQA",
       "lbfgs": "UBP_SOLVER_LBFGS", "slsqp": "UBP_SOLVER_SLSQP", "ipopt": "UBP_SOLVER_IPOPT"}
# the translation and the point form agree to this (relative to 1 + |f|); both are double
# evaluations of one expression, in other orders
CHECK_RTOL = 1e-8
CHECK_POINTS = 3   # seeded random points, besides the midpoint and the stated minimiser


class TranslationMismatch(RuntimeError):
    """The MAiNGO form and the point form disagree: an internal-consistency error."""


@dataclass
class MaingoSettings(MethodSettings):
    eps_abs: float = setting(1e-2, "absolute optimality gap (MAiNGO's epsilonA)", minimum=0.0)
    eps_rel: float = setting(1e-2, "relative optimality gap (MAiNGO's epsilonR)", minimum=0.0)
    time_limit: Optional[float] = time_limit_setting()   # MAiNGO's maxTime, checked between its nodes
    max_nodes: Optional[int] = setting(None, "B&B iteration limit (MAiNGO's BAB_maxIterations; unset: none)",
                                       minimum=1)
    constraint_propagation: bool = setting(True, "constraint propagation at every node "
                                                 "(BAB_constraintPropagation; MAiNGO's default: on)")
    dbbt: bool = setting(True, "duality-based bound tightening (BAB_dbbt; MAiNGO's default: on)")
    obbt: bool = setting(True, "optimality-based bound tightening: 10 rounds at the root (PRE_obbtMaxRounds) "
                               "and one at every node (BAB_alwaysSolveObbt); MAiNGO's default: on")
    probing: bool = setting(False, "probing (BAB_probing; MAiNGO's default: off)")
    lbp_solver: str = setting("auto", "lower bounding solver (auto: MAiNGO's default, CPLEX where the build "
                                      "has it, else CLP)", choices=tuple(LBP))
    ubp_solver: str = setting("auto", "local solver of the upper bounding in the B&B (auto: MAiNGO's "
                                      "default, SLSQP)", choices=tuple(UBP))

    def validate(self):
        if self.eps_abs == 0.0 and self.eps_rel == 0.0:
            raise InputError(f"{NAME}: eps_abs and eps_rel cannot both be 0 (the search would never end)")
        if self.lbp_solver == "cplex":
            try:
                import maingopy
            except ImportError:
                return   # the missing package is refused by the method itself, with its install line
            if not maingopy.cplex_use:
                raise InputError(f"{NAME}: lbp_solver=cplex, but this maingopy was built without CPLEX "
                                 f"(the PyPI wheels are); use clp, maingo or interval")


def _model(maingopy, form, lo, hi, gs=(), hs=()):
    class Model(maingopy.MAiNGOmodel):
        def __init__(self):
            maingopy.MAiNGOmodel.__init__(self)

        def get_variables(self):
            return [maingopy.OptimizationVariable(maingopy.Bounds(float(a), float(b)), maingopy.VT_CONTINUOUS,
                                                  f"x{k + 1}") for k, (a, b) in enumerate(zip(lo, hi))]

        def get_initial_point(self):
            return [float(v) for v in 0.5 * (lo + hi)]

        def evaluate(self, xs):   # called once: MAiNGO records the expression graph
            out = maingopy.EvaluationContainer()
            out.objective = form.objective(xs)
            if gs:
                out.ineq = [g.objective(xs) for g in gs]   # g(x) <= 0
            if hs:
                out.eq = [h.objective(xs) for h in hs]     # h(x) = 0
            return out
    return Model()


def _options(maingopy, s):
    opts = {"epsilonA": s.eps_abs, "epsilonR": s.eps_rel, "BAB_constraintPropagation": s.constraint_propagation,
            "BAB_dbbt": s.dbbt, "BAB_probing": s.probing, "BAB_alwaysSolveObbt": s.obbt,
            "PRE_obbtMaxRounds": 10 if s.obbt else 0,
            # quiet, and no files: a run writes nothing into the user's folder
            "loggingDestination": int(maingopy.LOGGING_NONE), "writeResultFile": False, "writeCsv": False,
            "writeJson": False, "BAB_verbosity": 0, "LBP_verbosity": 0, "UBP_verbosity": 0}
    if s.time_limit is not None:
        # CPU (maxTime) and wall (maxwTime) seconds; MAiNGO reads whole seconds (0.3 would be 0, an
        # immediate stop), so a fraction is rounded up: the run never stops before the limit
        opts["maxTime"] = opts["maxwTime"] = float(math.ceil(s.time_limit))
    if s.max_nodes is not None:
        opts["BAB_maxIterations"] = int(s.max_nodes)
    if LBP[s.lbp_solver]:
        opts["LBP_solver"] = int(getattr(maingopy, LBP[s.lbp_solver]))
    if UBP[s.ubp_solver]:
        opts["UBP_solverBab"] = int(getattr(maingopy, UBP[s.ubp_solver]))
    return opts


def _parts(fn):
    """(objective, inequalities g <= 0, equalities h = 0) of a function or a constrained problem."""
    if getattr(fn, "constrained", False):
        return fn.objective, list(fn.inequalities), list(fn.equalities)
    return fn, [], []


def _check(fn, sign, solver, x, where):
    """MAiNGO's own values of its graph at x (objective in the sense minimised, then each g, each h)
    against the point forms."""
    obj, gs, hs = _parts(fn)
    got = [float(v) for v in solver.evaluate_model_at_point([float(v) for v in x])[0]]
    xs = np.asarray(x, dtype=float)
    want = [sign * obj.point(xs)] + [c.point(xs) for c in gs + hs]
    names = ["the objective"] + [f"inequality g{k + 1}" for k in range(len(gs))] + \
            [f"equality h{k + 1}" for k in range(len(hs))]
    for g, w, what in zip(got, want, names):
        if math.isnan(w) and math.isnan(g):
            continue
        if not abs(g - w) <= CHECK_RTOL * (1.0 + abs(w)):
            raise TranslationMismatch(f"{NAME}: the MAiNGO form of {fn.name} ({what}) gives {g!r} at {where}, the "
                                      f"point form {w!r}: the translation is wrong (an internal error)")


def _feasible(fn, x):
    """Whether x is proved feasible by the outward-rounded interval forms of the constraints (every
    g's enclosure at x <= 0; an equality is never proved at a floating-point point)."""
    _, gs, hs = _parts(fn)
    return not hs and all(g.interval(x, x)[1] <= 0.0 for g in gs)


def refuses(fn, dim):
    """Why MAiNGO cannot take ``fn`` at ``dim`` (an operation its language lacks), or None."""
    import maingopy

    from gpubench.forms.maingoform import MaingoForm, MaingoFormError
    obj, gs, hs = _parts(fn)
    try:
        for part in [obj, *gs, *hs]:
            MaingoForm(part, dim, maingopy=maingopy)
    except MaingoFormError as exc:
        return str(exc)
    return None


def _check_points(fn, dim, lo, hi):
    pts = [("the box's midpoint", 0.5 * (lo + hi))]
    try:
        xs = np.asarray(_parts(fn)[0].xstar(dim), dtype=float)
        if xs.shape == (dim,) and np.all(np.isfinite(xs)) and np.all((lo <= xs) & (xs <= hi)):
            pts.append(("the stated minimiser", xs))
    except Exception:   # a function that states no minimiser
        pass
    rng = np.random.default_rng(0)
    pts += [(f"random point {k + 1}", rng.uniform(lo, hi)) for k in range(CHECK_POINTS)]
    return pts


def run(fn, dim, s):
    import maingopy

    from gpubench.forms.maingoform import MaingoForm

    deadline = Deadline.of(s)
    maximise = fn.sense == "max"
    sign = -1.0 if maximise else 1.0
    lo, hi = (np.asarray(v, dtype=float) for v in fn.bounds(dim))
    obj, gs, hs = _parts(fn)
    form = MaingoForm(obj, dim, negate=maximise, maingopy=maingopy)
    model = _model(maingopy, form, lo, hi,   # bound to a name: MAiNGO keeps only a reference
                   [MaingoForm(g, dim, maingopy=maingopy) for g in gs], [MaingoForm(h, dim, maingopy=maingopy) for h in hs])
    solver = maingopy.MAiNGO(model)
    opts = _options(maingopy, s)
    for k, v in opts.items():
        if not solver.set_option(k, v):
            raise RuntimeError(f"{NAME}: maingopy {version('maingopy')} does not know the option {k!r}")
    for where, x in _check_points(fn, dim, lo, hi):
        _check(fn, sign, solver, x, where)
    why = deadline.check()          # the one check before MAiNGO's own (between its iterations)
    if why:
        return _unsolved(fn, dim, s, lo, hi, why, time.perf_counter() - deadline.start, opts)
    args = (fn, dim, s, maingopy, solver, obj, gs, hs, lo, hi, sign, maximise, deadline, opts)
    if s.time_limit is None:
        return _solve(*args)
    return _bounded(_solve, args, deadline, lambda why, msg: _unsolved(
        fn, dim, s, lo, hi, why, time.perf_counter() - deadline.start, opts, msg))


def kill_after(time_limit):
    """Seconds past ``time_limit`` after which a MAiNGO run still going is killed: MAiNGO checks
    its limit between B&B iterations only, so it may overrun by one iteration (a tenth of the limit,
    at least 10 s, is allowed), but its preprocessing (OBBT rounds, multistart local searches) is
    never checked, and at n = 1,000 it ran for more than 17 minutes past a 600 s limit (GPU host,
    rigorous_peers, four functions): without the kill a sweep would wait on it for hours."""
    return max(10.0, 0.1 * time_limit)


def _bounded(solve, args, deadline, unsolved):
    """``solve(*args)`` in a forked child that is killed :func:`kill_after` seconds past the time
    limit (or at Ctrl-C), so that the limit holds for the command whatever MAiNGO does: the run then
    ends unsolved, saying why, with the box's midpoint as its answer.  The child holds the model
    already built and checked (fork: nothing is rebuilt); its answer, or its exception, comes back
    through a pipe."""
    import multiprocessing as mp
    import warnings

    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)

    def target():
        try:
            out = ("result", solve(*args))
        except BaseException as exc:  # noqa: BLE001 - every error goes back to the caller, re-raised there
            out = ("error", exc)
        try:
            child.send(out)
        except Exception:  # an answer that does not pickle: its text, as an error
            child.send(("error", RuntimeError(f"{type(out[1]).__name__}: {out[1]}")))

    with warnings.catch_warnings():
        # the parent may run threads (Ctrl-C's watcher, numba's pool): the child only runs MAiNGO
        warnings.filterwarnings("ignore", message=".*fork.*", category=DeprecationWarning)
        proc = ctx.Process(target=target, daemon=True)
        proc.start()
    child.close()
    hard = deadline.time_limit + kill_after(deadline.time_limit)
    why = None
    try:
        while not parent.poll(0.2):
            if not proc.is_alive():
                why = "failed"
                break
            if deadline.check() == "interrupted":
                why = "interrupted"
                break
            if deadline.elapsed() >= hard:
                why = "time_limit"
                break
        if why is None:
            try:
                kind, value = parent.recv()
            except EOFError:       # the child ended without a word: killed, or MAiNGO aborted
                kind = None
                proc.join(5)
                why = "failed"
            if kind == "error":
                raise value
            if kind == "result":
                proc.join(5)
                return value
    finally:
        if proc.is_alive():
            proc.kill()
            proc.join(5)
        parent.close()
    if why == "time_limit":
        return unsolved(why, f"MAiNGO had not returned {kill_after(deadline.time_limit):.0f} s past its time "
                             f"limit of {deadline.time_limit:g} s (its preprocessing, OBBT rounds and multistart "
                             "local searches, is not time-limited): killed, no bound of its own")
    if why == "interrupted":
        return unsolved(why, "stopped by Ctrl-C while MAiNGO ran: killed, no bound of its own")
    code = proc.exitcode
    signal_word = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
    return unsolved("failed", f"MAiNGO's process ended without an answer ({signal_word})")


def _solve(fn, dim, s, maingopy, solver, obj, gs, hs, lo, hi, sign, maximise, deadline, opts):
    """MAiNGO's solve and its answer in the one result vocabulary (verified and unverified sides)."""
    t0 = time.perf_counter()
    try:
        rc = solver.solve()
    except maingopy.MAiNGOException as exc:
        # MAiNGO's own limit, not a wrong translation: e.g. a McCormick relaxation of 1/u with 0 in u's range
        # (Keane's denominator).  The run ends unsolved, saying why; the midpoint is its answer.
        first = " ".join(str(exc).split())[:200]
        return _unsolved(fn, dim, s, lo, hi, "failed", time.perf_counter() - deadline.start, opts,
                         f"MAiNGO stopped with an error ({first})", "MAiNGOException")
    seconds = time.perf_counter() - t0
    status = rc.name if hasattr(rc, "name") else str(rc)
    iterations = int(solver.get_iterations())
    lbd = float(solver.get_final_LBD())          # in the sense minimised; not verified
    if lbd <= -1e300:                            # -DBL_MAX: no lower bound solved yet
        lbd = -math.inf
    x = fun = None
    verified_ub = math.inf
    feasible = False
    reported = None
    if rc in (maingopy.GLOBALLY_OPTIMAL, maingopy.FEASIBLE_POINT):
        x = np.clip(np.asarray(solver.get_solution_point(), dtype=float), lo, hi)
        reported = float(solver.get_objective_value())
        _check(fn, sign, solver, x, "its solution point")
        fun = obj.point(x)
        elo, ehi = obj.interval(x, x)            # outward rounded: holds f(x) whatever the rounding
        verified_ub = ehi if not maximise else -elo
        # a constrained problem's point bounds its minimum only where it is feasible; MAiNGO's is
        # feasible within its tolerances (deltaIneq, deltaEq), which the interval forms may not prove
        feasible = _feasible(fn, x)
    converged = rc in (maingopy.GLOBALLY_OPTIMAL, maingopy.INFEASIBLE)
    if converged:
        why = "converged"
    elif s.max_nodes is not None and iterations >= s.max_nodes:
        why = "nodes"
    elif deadline.expired():
        why = "time_limit"
    else:
        why = "failed"
    # in f's sense: for a minimum the upper bound is the verified side, for a maximum the lower one
    glb, gub = (lbd, verified_ub) if not maximise else (-verified_ub, -lbd)
    point_side = not (gs or hs) or (x is not None and feasible)
    verified = {"glb": maximise and point_side, "gub": not maximise and point_side}
    bound_word = {True: "verified", False: "not verified: MAiNGO's point is feasible within its tolerances "
                                           "(deltaIneq, deltaEq), not proved feasible by the constraints' interval forms"}
    options = {**s.as_dict(), "library": f"maingopy {version('maingopy')}",
               "lbp_solver_used": s.lbp_solver if s.lbp_solver != "auto" else
               ("cplex" if maingopy.cplex_use else "clp"),
               "maingo_options": opts, "verified": verified,
               "bounds": (f"gub: MAiNGO's point valued with the outward-rounded interval form ({bound_word[point_side]}); "
                          "glb: MAiNGO's lower bound (not verified: floating-point McCormick relaxations)") if not maximise
               else (f"glb: MAiNGO's point valued with the outward-rounded interval form ({bound_word[point_side]}); "
                     "gub: MAiNGO's upper bound (not verified: floating-point McCormick relaxations)")}
    history = {"retcode": status, "maingo_objective": None if reported is None else sign * reported,
               "maingo_lbd": sign * lbd, "abs_gap": float(solver.get_final_abs_gap()),
               "rel_gap": float(solver.get_final_rel_gap()), "lbp_count": int(solver.get_LBP_count()),
               "ubp_count": int(solver.get_UBP_count()), "cpu_seconds": float(solver.get_cpu_solution_time()),
               "wallclock_seconds": float(solver.get_wallclock_solution_time())}
    unverified = "glb" if not maximise else "gub"
    point_word = ("verified (interval form at its point)" if point_side else
                  "not verified (its point is not proved feasible)")
    return OptimizeResult(
        function=fn.name, dim=dim, method=NAME, backend="cpu", x=x, fun=None if fun is None else float(fun),
        glb=float(glb), gub=float(gub), iterations=iterations, seconds=seconds, converged=converged,
        message=f"MAiNGO {status}, {iterations} B&B iteration(s); {unverified} not verified (floating-point "
                f"relaxations), {'gub' if not maximise else 'glb'} {point_word}",
        status=status, stop=stop_word(why), history=history, options=options)


def _unsolved(fn, dim, s, lo, hi, why, seconds, opts, message=None, status="NOT_SOLVED_YET"):
    """The answer of a run stopped before MAiNGO started (time limit, Ctrl-C) or that MAiNGO ended with
    an error of its own: the box's midpoint."""
    x = 0.5 * (lo + hi)
    obj = _parts(fn)[0]
    elo, ehi = obj.interval(x, x)
    maximise = fn.sense == "max"
    if not _feasible(fn, x):             # a bound only where the point is feasible
        elo, ehi = -math.inf, math.inf
    return OptimizeResult(
        function=fn.name, dim=dim, method=NAME, backend="cpu", x=x, fun=float(obj.point(x)),
        glb=float(elo) if maximise else -math.inf, gub=math.inf if maximise else float(ehi), seconds=seconds,
        message=(message or f"stopped before MAiNGO started ({why})") + "; the box's midpoint", status=status,
        stop=stop_word(why), options={**s.as_dict(), "library": f"maingopy {version('maingopy')}",
                                      "maingo_options": opts, "verified": {"glb": maximise, "gub": not maximise}})


METHOD = Method(
    name=NAME,
    summary="MAiNGO's McCormick-relaxation B&B (maingopy): deterministic global, bounds not interval-verified "
            "(its point's value is)",
    settings=MaingoSettings, run=run, rigorous=False, backends=("cpu",), source=SOURCE,
    requires=("maingopy",), install=INSTALL, constraints=True, refuses=refuses)
