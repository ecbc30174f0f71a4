"""What DE's runs share on every backend (:mod:`gpubench.methods.de_gpu`): the plan of a call (sizes,
bounds, stopping rules), the random streams' seeds, the host's look between launches, and the one
``OptimizeResult`` built from the final buffers of every run."""
import numpy as np

from ..errors import InputError
from ..result import OptimizeResult
from .monitor import stop_word, stopped

BOUNDS = ("clip", "reflect", "reinit")
STATUS = {0: "reached target_error", 1: "spent max_evaluations", 2: "stopped at time_limit"}

# When true, each result carries every run's final population in history["population"]
# (shape (runs, np, D)) and its values in history["population_fun"] (runs, np); tests use them
# to check the operators from outside the kernels.
KEEP_POPULATION = False


# ---------------------------------------------------------------- seeds
def cpu_states(n, seed, stream):
    """n xoroshiro128+ states drawn by numpy from (seed, stream): one per random stream."""
    rng = np.random.default_rng([seed, stream])
    s = rng.integers(0, 2**63, size=(n, 2), dtype=np.int64).astype(np.uint64)
    s[:, 0] |= np.uint64(1)  # a state must not be all zero
    return s


# ---------------------------------------------------------------- the run
class Plan:
    """Sizes, bounds and stopping rules shared by both backends."""

    def __init__(self, fn, dim, s):
        self.fn, self.D, self.s = fn, dim, s
        self.NP, self.R = s.np, s.runs
        self.sign = 1.0 if fn.sense == "min" else -1.0
        self.fstar = self.sign * fn.fstar(dim)
        self.max_evaluations = 10_000 * dim if s.max_evaluations is None else s.max_evaluations
        if self.max_evaluations < self.NP:
            raise InputError(f"de-gpu: max_evaluations ({self.max_evaluations}) must be at least np ({self.NP}): "
                             f"the initial population alone takes np evaluations")
        self.G = self.max_evaluations // self.NP - 1
        self.lo, self.hi = fn.bounds(dim)
        self.p = np.ascontiguousarray(fn.params(dim))
        self.mode_code = BOUNDS.index(s.bounds)
        self.use_target = s.target_error is not None
        self.target = 0.0 if s.target_error is None else float(s.target_error)


def see(trace, plan, fits, stop, evals, done_gens):
    """Note the best value over all runs so far: a stopped run's members are in the buffer of the
    generation it stopped at, a running run's in that of the last generation done."""
    gen = np.where(stop >= 0, stop, done_gens) % 2
    block = fits.reshape(2, plan.R, plan.NP)[gen, np.arange(plan.R)]
    trace.see(int(evals.sum()), plan.sign * float(block.min()))


def go_on(trace, plan, stop, evals, host_fits, done_gens, more, deadline):
    """The host's look between launches: note the best value so far, then whether the runs go on
    (a run is still running and, with generations left (``more``), no time limit or Ctrl-C)."""
    host_stop = stop.copy_to_host()
    see(trace, plan, host_fits, host_stop, evals.copy_to_host(), done_gens)
    return bool((host_stop < 0).any()) and not (more and deadline.check())


def finish(plan, backend, pops, fits, stop, evals, done_gens, seconds, deadline, options, timing, trace):
    timed_out = deadline.reason is not None  # the time limit or Ctrl-C ended the runs left
    """One OptimizeResult from the final device/host buffers of every run."""
    NP, R = plan.NP, plan.R
    run_fun, run_err, run_gen, run_nfev, status, xs = [], [], [], [], [], []
    for r in range(R):
        g = int(stop[r]) if stop[r] >= 0 else done_gens
        block = fits[g % 2, r * NP:(r + 1) * NP]
        k = int(np.argmin(block))
        best = float(block[k])
        xs.append(pops[g % 2, r * NP + k].copy())
        run_fun.append(plan.sign * best)
        run_err.append(best - plan.fstar)
        run_gen.append(g)
        run_nfev.append(int(evals[r * NP:(r + 1) * NP].sum()))
        status.append(0 if stop[r] >= 0 else (2 if timed_out else 1))
    if KEEP_POPULATION:
        final = [pops[(int(stop[r]) if stop[r] >= 0 else done_gens) % 2, r * NP:(r + 1) * NP] for r in range(R)]
        final_f = [fits[(int(stop[r]) if stop[r] >= 0 else done_gens) % 2, r * NP:(r + 1) * NP] for r in range(R)]
        history_extra = {"population": np.array(final), "population_fun": plan.sign * np.array(final_f)}
    else:
        history_extra = {}
    b = int(np.argmin(np.asarray(run_err)))
    succ = [e < plan.s.success_error for e in run_err]
    status = np.asarray(status, dtype=np.int64)
    history = {"run_fun": run_fun, "run_error": run_err, "run_generations": run_gen, "run_nfev": run_nfev,
               "run_success": succ, "success_rate": sum(succ) / R, "status_meaning": STATUS, **history_extra}
    history["trace"] = trace.close(int(evals.sum()))
    converged = bool(np.all(status < 2)) and (not plan.use_target or bool(np.all(status == 0)))
    said = {**STATUS, 2: stopped(deadline.reason or "time_limit")}  # Ctrl-C is not the time limit
    if R == 1:  # "1 reached ...; 1 spent ..." reads as two runs
        msg = (f"one run: {'reached' if succ[0] else 'did not reach'} error < {plan.s.success_error:g}; "
               f"it {said[int(status[0])]}")
    else:
        msg = (f"best of {R} run(s): {sum(succ)} reached error < {plan.s.success_error:g}; "
               + ", ".join(f"{int((status == c).sum())} {said[c]}" for c in STATUS if (status == c).any()))
    stop = deadline.reason if (status == 2).any() else ("target" if (status == 0).all() else "evaluations")
    return OptimizeResult(
        function=plan.fn.name, dim=plan.D, method="de-gpu", backend=backend, x=xs[b], fun=run_fun[b],
        iterations=max(run_gen), nfev=int(sum(run_nfev)), seconds=seconds, converged=converged, message=msg,
        status=status, stop=stop_word(stop), history=history, timing=timing, options=options)


def options(plan, backend, extra):
    s = plan.s
    d = s.as_dict()
    d.update(max_evaluations=plan.max_evaluations, generations=plan.G, backend=backend,
             strategy="DE/rand/1/bin, r1, r2, r3, i mutually distinct, j_rand forced",
             replacement="trial replaces target when f(trial) <= f(target); synchronous generations",
             bounds_rule={"reinit": "a mutant element outside the box is drawn again uniformly in its interval",
                          "clip": "a mutant element outside the box is set to the bound it crossed",
                          "reflect": "a mutant element outside the box is mirrored about the bound it crossed"}[
                              s.bounds],
             evaluations_rule="np (initial) + np per generation, whole generations only")
    d.update(extra)
    return d


def stream_key(seed):
    """The 64-bit key of the stream kernel's counter-based random numbers for ``seed``
    (splitmix64's output of the seed, so that neighbouring seeds give unrelated streams)."""
    z = (int(seed) + 0x9E3779B97F4A7C15) % 2**64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
    return np.uint64(z ^ (z >> 31))
