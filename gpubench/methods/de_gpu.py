"""GPU differential evolution (DE/rand/1/bin) after Qin, Raimondo, Forbes & Ong (2012).

    A. K. Qin, F. Raimondo, F. Forbes, Y. S. Ong, "An improved CUDA-based
    implementation of differential evolution on GPU", GECCO 2012, Sections 3-5
    (paper 002 in ``shared/seeds``).

The algorithm (Section 3.1, eqs. 1-2): each target vector X_i of a population of
``np`` members gets a mutant V_i = X_r1 + F (X_r2 - X_r3) with r1, r2, r3 and i
mutually distinct, then a trial U_i whose element j is v_ij when
rand_j(0, 1) <= CR or j = j_rand (one element always from the mutant), else x_ij;
U_i replaces X_i in the next generation when f(U_i) <= f(X_i).  Generations are
synchronous (every trial is built from the current population), as in the
paper's kernels.  A run ends after ``max_evaluations`` (default 10^4 D, Section
5.1), counting the initial population; only whole generations are run, so a run
does ``np * (1 + G)`` evaluations with ``G = max_evaluations // np - 1``.  It also
ends once its best error ``f_best - f*`` is <= ``target_error`` (it finishes that
generation) or, between launches, at ``time_limit`` (the shared setting, checked through
:class:`gpubench.methods.monitor.Deadline`; ``stop='time_limit'``).

Bounds.  The paper does not say how a mutant element that leaves the box is
handled.  ``bounds="reinit"`` (the default) draws it again uniformly in its
interval, the rule of Price, Storn & Lampinen (the paper's ref. [4]) and of
SciPy's ``differential_evolution``; ``"clip"`` projects it onto the bound;
``"reflect"`` mirrors it about the bound it crossed (then clips, should it
cross the other).  Initial members are uniform in the box.

The CUDA kernels (Section 4), generated together with the function's forms
(:func:`gpubench.forms.codegen.term_forms`), so every library or user function works:

* ``de_init`` (the paper's kernel(IE)): uniform initial population, evaluated;
* ``de_indices`` (kernel(P)): r1, r2, r3 and j_rand of every member, drawn by
  rejection so they are mutually distinct and differ from i;
* ``de_mcer`` (kernel(MCER)): mutation, crossover, evaluation and replacement
  in one kernel.  Each member has ``T`` threads (one per element, ``T = D`` up
  to the block limit, beyond which a thread takes elements ``lane, lane + T,
  ...``); a block holds ``m`` members; the trial vectors live in shared memory;
  each thread folds the terms of its coordinates into partial sums/products and
  a block reduction per member gives the aggregates, to which lane 0 applies the
  function's outer expression.
* ``de_block`` (fast mode when a block holds whole runs, m >= NP): one launch runs
  many generations of all runs, each block evolving its runs with only block
  synchronisation;
* ``de_fast`` (fast mode otherwise): the same member step, one cooperative launch
  for many generations, with grid-wide synchronisation between them;
* ``de_stream_init`` and ``de_stream`` (``mode="stream"``, beyond the paper, for populations
  far larger than L2, where a generation is bound by memory bandwidth): a member is a group of
  lanes striding its row (coalesced target and donor reads), its random numbers are
  counter-based (splitmix64 of seed, generation, member and counter: no random state read or
  written; r1, r2, r3 drawn distinct by skipping, not rejection), each member owns two rows and
  a slot word naming the current one, so a winning trial is written once and a losing one not
  at all; one cooperative launch for many generations.  ``mode="auto"`` (opt-in) takes it
  when the population of all runs is at least ``STREAM_MIN_BYTES`` (8 MiB), else fast mode.
  Neither is the default until a GPU run has measured stream mode beside fast mode and EvoX
  (``gpubench reproduce device_peers_de_evox --backend cuda``).
  docs/peers.md counts the bytes of a generation of each kernel.

Launch configuration (Section 4): ``m``, the members per block, is the largest
such that (1) ``m T`` threads times the kernel's registers per thread fit the
block's registers, (2) the block's shared memory (trial vectors, partial
aggregates, indices) fits, (3) ``m T`` does not exceed the threads per block;
the compiled kernel's register count and the device's limits are read at run
time and the choice is returned in ``result.options["launch"]``.

``mode="paper"`` is the paper's schedule: one MCER launch per generation, with
kernel(P) for the next generation on the other of two streams, writing the
other of two index buffers (Section 4, last item); an event orders each MCER
after the previous one.  ``mode="fast"`` (the default, beyond the paper) runs
``generations_per_launch`` generations per launch with the indices drawn inside
the member step.  Random numbers come from numba's xoroshiro128+ states, created
once per call from ``seed`` (stream mode: the counter-based streams); the same seed on the
same device gives the same result.  Statuses per run (``result.status``): 0 = reached ``target_error``,
1 = spent its evaluations, 2 = stopped by ``time_limit``.

CPU twins (numba), used for ``backend="cpu"`` and when there is no GPU:
``cpu_variant="sde"``, the paper's sequential DE (one random stream per run,
members in order), and ``"parallel"``, members of a generation in parallel
(``prange``, one random stream per member, so the result does not depend on
the thread count), and ``"stream"``, the stream kernel's twin (its counter-based random
numbers, so the same seed gives the stream kernel's populations).  All are the same
synchronous DE/rand/1/bin.

Trace (``history["trace"]``, rows ``[evaluations, seconds, best so far]`` over all
runs, :mod:`gpubench.methods.trace`): read on the host after the initial population
and after each launch (fast mode and CPU: every ``generations_per_launch``
generations; paper mode: at each host check, every 64 generations), so its
resolution is the launch; a smaller ``generations_per_launch`` gives a finer trace
at the cost of more host round trips.
"""
import time
import warnings
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..device.gpu import BACKENDS, gpu_available, resolve_backend, simulator
from ..errors import InputError
from .monitor import Deadline, stop_word
from ..result import OptimizeResult
from .base import Method, MethodSettings, setting, time_limit_setting
from .trace import Trace

BOUNDS = ("clip", "reflect", "reinit")
STATUS = {0: "reached target_error", 1: "spent max_evaluations", 2: "stopped at time_limit"}

# The crossover test, as source text shared by the kernels and the CPU twins:
# u is a uniform draw in [0, 1) for element j, jr is j_rand (eq. 2 of the paper).
# Tests replace it (e.g. by "True": CR ignored) to prove that they catch a broken crossover.
CROSSOVER = "j == jr or u <= CR"

# Elements of a lane whose loads de_fast issues together (its registers grow with it); None:
# the kernel module's own CHUNK.  The de-generation procedure sets it to compare choices.
CHUNK = None

# A cap on the stream kernel's registers a thread (None: the compiler's choice, 138 for shifted
# Rastrigin by ptxas 13 for sm_90); the de-generation procedure sets it to compare choices.
STREAM_REGISTERS = None

# mode="auto" takes the stream kernel when the population of all runs (8 R NP D bytes) is at least
# this: far beyond what latency, not bandwidth, bounds (docs/peers.md)
STREAM_MIN_BYTES = 8 << 20

# When true, each result carries every run's final population in history["population"]
# (shape (runs, np, D)) and its values in history["population_fun"] (runs, np); tests use them
# to check the operators from outside the kernels.
KEEP_POPULATION = False


@dataclass
class DeGpuSettings(MethodSettings):
    np: int = setting(50, "population size NP (the paper: 50, 100, 500, 1000)", minimum=4)
    F: float = setting(0.5, "scale factor F of the difference vector (paper: 0.5)", exclusive_minimum=0.0,
                       maximum=2.0)
    CR: float = setting(0.3, "crossover probability CR (paper: 0.3)", minimum=0.0, maximum=1.0)
    max_evaluations: Optional[int] = setting(None, "evaluations per run, initial population included "
                                             "(unset: 10^4 D, the paper's rule)", minimum=1)
    target_error: Optional[float] = setting(None, "stop a run once f_best - f* <= this (unset: off)", minimum=0.0)
    time_limit: Optional[float] = time_limit_setting()
    runs: int = setting(1, "independent runs, done together (the paper: 25)", minimum=1)
    seed: int = setting(0, "seed of the random streams", minimum=0)
    backend: str = setting("auto", "auto (a GPU when present), cpu or cuda", choices=BACKENDS)
    mode: str = setting("fast", "paper: one MCER launch per generation, kernel(P) on a second stream; "
                        "fast: many generations per cooperative launch; stream: the same with counter-based "
                        "random numbers and a winner written once (large populations); auto: stream when the "
                        "population (all runs) is at least STREAM_MIN_BYTES, else fast",
                        choices=("auto", "paper", "fast", "stream"))
    bounds: str = setting("reinit", "a mutant element outside the box: reinit (uniform again), clip or reflect",
                          choices=BOUNDS)
    cpu_variant: str = setting("parallel", "CPU twin: sde (sequential, the paper's sDE), parallel (prange) or "
                               "stream (prange, the stream kernel's counter-based random numbers)",
                               choices=("sde", "parallel", "stream"))
    threads_per_member: Optional[int] = setting(None, "cap on a member's threads (unset: the kernel's registers and "
                                                "the device's limits decide); below D each thread takes "
                                                "several elements", minimum=1)
    generations_per_launch: int = setting(1000, "fast mode and CPU: generations between host checks", minimum=1)
    success_error: float = setting(1e-8, "a run succeeds when f_best - f* < this (the paper: 1e-8)", minimum=0.0)


# ---------------------------------------------------------------- kernels
# The kernels (gpubench/kernels/de_gpu.py) and CPU twins (gpubench/kernels/de_cpu.py) are real
# modules, appended to the function's generated module so that numba caches them on disk.
_DEFAULT_CROSSOVER = "j == jr or u <= CR"


def _module(fn, backend):
    """The function's generated module on ``backend`` with the DE code appended (cached by its text)."""
    from .. import kernels
    from ..forms.cards import Derived
    replace = [(f"if {_DEFAULT_CROSSOVER}:", f"if ({CROSSOVER}):")]
    if backend == "cuda" and CHUNK is not None:
        replace.append(("\nCHUNK = 4  #", f"\nCHUNK = {int(CHUNK)}  #"))
    if backend == "cuda" and STREAM_REGISTERS:
        replace.append(("\nSTREAM_REGISTERS = 0  #", f"\nSTREAM_REGISTERS = {int(STREAM_REGISTERS)}  #"))
    ext = kernels.splice("de_gpu" if backend == "cuda" else "de_cpu", replace)
    # term_forms is derived (sympy) only when the module is not in the cache (a second process
    # finds it through the function's card, without the definition)
    extensions = [Derived("term_forms"), ext] if backend == "cuda" else [ext]
    return fn.load(backend, extensions, negate=fn.sense != "min")


# ---------------------------------------------------------------- seeds
def _cpu_states(n, seed, stream):
    """n xoroshiro128+ states drawn by numpy from (seed, stream): one per random stream."""
    rng = np.random.default_rng([seed, stream])
    s = rng.integers(0, 2**63, size=(n, 2), dtype=np.int64).astype(np.uint64)
    s[:, 0] |= np.uint64(1)  # a state must not be all zero
    return s


# ---------------------------------------------------------------- the run
class _Plan:
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


def _see(trace, plan, fits, stop, evals, done_gens):
    """Note the best value over all runs so far: a stopped run's members are in the buffer of the
    generation it stopped at, a running run's in that of the last generation done."""
    gen = np.where(stop >= 0, stop, done_gens) % 2
    block = fits.reshape(2, plan.R, plan.NP)[gen, np.arange(plan.R)]
    trace.see(int(evals.sum()), plan.sign * float(block.min()))


def _go_on(trace, plan, stop, evals, host_fits, done_gens, more, deadline):
    """The host's look between launches: note the best value so far, then whether the runs go on
    (a run is still running and, with generations left (``more``), no time limit or Ctrl-C)."""
    host_stop = stop.copy_to_host()
    _see(trace, plan, host_fits, host_stop, evals.copy_to_host(), done_gens)
    return bool((host_stop < 0).any()) and not (more and deadline.check())


def _finish(plan, backend, pops, fits, stop, evals, done_gens, seconds, deadline, options, timing, trace):
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
    if R == 1:  # "1 reached ...; 1 spent ..." reads as two runs
        msg = (f"one run: {'reached' if succ[0] else 'did not reach'} error < {plan.s.success_error:g}; "
               f"it {STATUS[int(status[0])]}")
    else:
        msg = (f"best of {R} run(s): {sum(succ)} reached error < {plan.s.success_error:g}; "
               + ", ".join(f"{int((status == c).sum())} {STATUS[c]}" for c in STATUS if (status == c).any()))
    stop = deadline.reason if (status == 2).any() else ("target" if (status == 0).all() else "evaluations")
    return OptimizeResult(
        function=plan.fn.name, dim=plan.D, method="de-gpu", backend=backend, x=xs[b], fun=run_fun[b],
        iterations=max(run_gen), nfev=int(sum(run_nfev)), seconds=seconds, converged=converged, message=msg,
        status=status, stop=stop_word(stop), history=history, timing=timing, options=options)


def _options(plan, backend, extra):
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


def _run_cpu(plan, note):
    s = plan.s
    mod = _module(plan.fn, "cpu")
    NP, R, D = plan.NP, plan.R, plan.D
    stream = s.cpu_variant == "stream"
    per_member = s.cpu_variant in ("parallel", "stream")
    states = None if stream else _cpu_states(R * NP if per_member else R, s.seed, 0)
    skey = stream_key(s.seed)
    pops = np.empty((2, R * NP, D))
    fits = np.empty((2, R * NP))
    stop = np.full(R, -1, dtype=np.int64)
    evals = np.zeros(R * NP, dtype=np.int64)
    wins = np.zeros(R * NP, dtype=np.int64)
    trials = np.empty((R * NP, D)) if per_member else None
    trace = Trace(plan.fn.sense)
    deadline = Deadline.of(s)
    t0 = deadline.start
    if stream:
        mod.cpu_stream_init(pops, fits, plan.lo, plan.hi, plan.p, skey, NP, R, D, stop, evals, plan.fstar,
                            plan.target, plan.use_target)
    else:
        mod.cpu_init(pops, fits, plan.lo, plan.hi, plan.p, states, per_member, NP, R, D, stop, evals, plan.fstar,
                     plan.target, plan.use_target)
    _see(trace, plan, fits, stop, evals, 0)
    g = 1
    while g <= plan.G and (stop < 0).any():
        if deadline.check():
            break
        g1 = min(plan.G + 1, g + s.generations_per_launch)
        args = (pops, fits, plan.lo, plan.hi, plan.p, states, stop, evals, g, g1, s.F, s.CR, plan.mode_code,
                NP, R, D, plan.fstar, plan.target, plan.use_target)
        if stream:
            mod.cpu_stream(pops, fits, plan.lo, plan.hi, plan.p, skey, stop, evals, wins, *args[8:], trials)
        elif per_member:
            mod.cpu_parallel(*args, trials)
        else:
            mod.cpu_sde(*args)
        g = g1
        _see(trace, plan, fits, stop, evals, g - 1)
    seconds = time.perf_counter() - t0
    opts = _options(plan, "cpu", {"variant": "sDE (sequential)" if not per_member else
                                  "stream (numba prange, counter-based random numbers)" if stream else
                                  "parallel (numba prange)"})
    if note:
        opts["note"] = note
    r = _finish(plan, "cpu", pops, fits, stop, evals, g - 1, seconds, deadline, opts, {"run_s": seconds}, trace)
    if stream:
        r.history["replacements"] = int(wins.sum())
    return r


def stream_key(seed):
    """The 64-bit key of the stream kernel's counter-based random numbers for ``seed``
    (splitmix64's output of the seed, so that neighbouring seeds give unrelated streams)."""
    z = (int(seed) + 0x9E3779B97F4A7C15) % 2**64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
    return np.uint64(z ^ (z >> 31))


def _device_limits():
    from numba import cuda
    dev = cuda.get_current_device()

    def attr(name, default):
        try:
            v = getattr(dev, name)
            return int(v) if v else default
        except Exception:
            return default
    name = getattr(dev, "name", "simulator")
    return {"name": name.decode() if isinstance(name, bytes) else str(name),
            "max_threads_per_block": attr("MAX_THREADS_PER_BLOCK", 1024),
            "max_shared_memory_per_block": attr("MAX_SHARED_MEMORY_PER_BLOCK", 49152),
            "max_registers_per_block": attr("MAX_REGISTERS_PER_BLOCK", 65536),
            "multiprocessors": attr("MULTIPROCESSOR_COUNT", 1),
            "max_threads_per_multiprocessor": attr("MAX_THREADS_PER_MULTI_PROCESSOR", 2048)}


def _compiled(kernel, args):
    """The compiled kernel for these arguments (None under the simulator)."""
    if simulator():
        return None
    import numba
    return kernel.compile(tuple(numba.typeof(a) for a in args))


def _shared_bytes(D, m, T, slots):
    """Dynamic shared memory of a block: m trial vectors, slots partial aggregates per thread, and per
    member its four indices and its replacement flag."""
    return 8 * (m * D + slots * m * T + 5 * m)


def _threads_per_member(D, limit):
    """T: D when it fits under limit, else the fewest threads (whole warps where that stays under
    limit) that take ceil(D / limit) elements each, so that the strided loops are balanced."""
    limit = max(1, limit)
    if D <= limit:
        return D
    per_thread = -(-D // limit)
    T = -(-D // per_thread)
    if T > 32 and -(-T // 32) * 32 <= limit:
        T = -(-T // 32) * 32
    return T


def launch_config(D, members, slots, regs, limits, cap=None):
    """(T, m, shared bytes): threads per member, members per block, dynamic shared memory.

    Section 4 of the paper: one thread per element (T = D) unless the block or
    register limits (or ``cap``) forbid it; then each thread takes ceil(D / T)
    elements, strided, with T as small as that many elements per thread allows;
    then as many members per block as registers, shared memory and the
    threads-per-block limit allow (and no more than there are members).
    """
    max_t = limits["max_threads_per_block"]
    if regs:
        # Registers are allocated per warp in units of 256, and warps in groups of four (one per
        # SM sub-partition, each with a quarter of the register file): 88 registers give 23 warps
        # by the plain quotient but 20 in fact, which the H200's occupancy query confirmed.
        per_warp = -(-regs * 32 // 256) * 256
        warps = limits["max_registers_per_block"] // per_warp // 4 * 4
        max_t = min(max_t, max(warps, 1) * 32)
    T = _threads_per_member(D, max_t if cap is None else min(max_t, cap))
    if _shared_bytes(D, 1, T, slots) > limits["max_shared_memory_per_block"]:
        raise InputError(f"de-gpu: dimension {D} does not fit the block's shared memory "
                         f"({limits['max_shared_memory_per_block']} bytes) on this device")
    m = max_t // T
    while m > 1 and _shared_bytes(D, m, T, slots) > limits["max_shared_memory_per_block"]:
        m -= 1
    m = max(1, min(m, members))
    return T, m, _shared_bytes(D, m, T, slots)


def _group_width(D, cap=None):
    """T of the cooperative kernel: the smallest power of two >= D, at most 32 (one warp) and at
    most ``cap`` (rounded down to a power of two)."""
    limit = 32 if cap is None else max(1, min(32, cap))
    T = 1
    while T < D and T * 2 <= limit:
        T *= 2
    return T


def _block_threads(regs, max_t):
    """Threads of a cooperative block: 128 or 256 (whichever keeps more warps resident on an SM
    whose four sub-partitions each hold a quarter of the registers, in warps of 256-register
    units), at most ``max_t``."""
    if not regs:
        return min(256, max_t)
    per_warp = -(-regs * 32 // 256) * 256
    warps_sm = 4 * (16384 // per_warp)
    best = None
    for b in (256, 128):
        if b > max_t:
            continue
        w = b // 32
        resident = (warps_sm // w) * w
        if best is None or resident > best[0]:
            best = (resident, b)
    return best[1] if best else max_t


def group_config(D, members, slots, regs, limits, cap=None, block_threads=None, whole_warps=True):
    """(T, m, shared bytes) of the cooperative kernel ``de_fast``: a member is a group of T lanes
    of one warp (:func:`_group_width`), a block ``m`` members (``block_threads`` threads at most,
    by default :func:`_block_threads`,
    fewer when the registers, the threads-per-block limit or the trial vectors in shared memory
    forbid; a whole number of warps on a device, since the groups exchange values by shuffles).
    kernel(IE) runs on the same blocks, so its shared memory (:func:`_shared_bytes`) must fit too."""
    max_t = limits["max_threads_per_block"]
    if regs:
        per_warp = -(-regs * 32 // 256) * 256
        warps = limits["max_registers_per_block"] // per_warp // 4 * 4
        max_t = min(max_t, max(warps, 1) * 32)
    T = _group_width(D, cap)
    if _shared_bytes(D, 1, T, slots) > limits["max_shared_memory_per_block"]:
        raise InputError(f"de-gpu: dimension {D} does not fit the block's shared memory "
                         f"({limits['max_shared_memory_per_block']} bytes) on this device")
    if block_threads is None:
        block_threads = _block_threads(regs, max_t)
    m = max(1, min(block_threads, max_t) // T)
    while m > 1 and _shared_bytes(D, m, T, slots) > limits["max_shared_memory_per_block"]:
        m -= 1
    quantum = 32 // T if whole_warps else 1
    m = max(1, min(m, -(-members // quantum) * quantum))
    if whole_warps and m >= quantum:
        m = m // quantum * quantum
    return T, m, 8 * m * D


class _CooperativeUnavailable(Exception):
    """The cooperative kernel could not be compiled, linked or launched here."""


def _run_cuda(plan, force_paper=False):
    from numba import cuda
    from numba.cuda.random import create_xoroshiro128p_states
    s = plan.s
    mod = _module(plan.fn, "cuda")
    NP, R, D = plan.NP, plan.R, plan.D
    total = R * NP
    limits = _device_limits()
    lo, hi, p = cuda.to_device(plan.lo), cuda.to_device(plan.hi), cuda.to_device(plan.p)
    pops = cuda.device_array((2, total, D))
    fits = cuda.device_array((2, total))
    stop = cuda.to_device(np.full(R, -1, dtype=np.int64))
    evals = cuda.to_device(np.zeros(total, dtype=np.int64))
    idx = [cuda.device_array((total, 4), dtype=np.int32) for _ in range(2)]
    # de_fast: whether both population buffers hold a member (not replaced in the last generation)
    same = cuda.to_device(np.zeros(total, dtype=np.int32))
    fixed = (NP, R, D)
    tgt = (plan.fstar, plan.target, plan.use_target)
    mode = "paper" if force_paper else resolved_mode(s.mode, total, D)
    if mode == "stream":
        return _run_stream(plan, mod, limits)
    one_state = create_xoroshiro128p_states(1, s.seed)
    fast_probe = (pops, fits, lo, hi, p, one_state, idx[0], stop, evals, 1, 2, s.F, s.CR, plan.mode_code,
                  *fixed, 1, 1, *tgt)
    t_compile = time.perf_counter()
    ck_init = _compiled(mod.de_init, (pops, fits, lo, hi, p, one_state, stop, evals, *fixed, 1, 1, *tgt))
    regs_init = None if ck_init is None else int(ck_init.regs_per_thread)
    slots = int(mod.COOP_SLOTS)

    def configure(kern, probe):
        ck = _compiled(kern, probe)
        regs = None if ck is None else int(ck.regs_per_thread)
        T, m, smem = launch_config(D, total, slots, max(regs or 0, regs_init or 0) or None, limits,
                                   s.threads_per_member)
        return ck, regs, T, m, smem

    resident = None
    if mode == "paper":
        schedule = "paper"
        kern = mod.de_mcer
        ck, regs, T, m, smem = configure(kern, (pops, fits, 0, 1, lo, hi, p, one_state, idx[0], stop, evals, 1,
                                                s.F, s.CR, plan.mode_code, *fixed, 1, 1, *tgt))
    else:
        schedule = "block"
        kern = mod.de_block
        ck, regs, T, m, smem = configure(kern, fast_probe)
        if m >= NP:
            # whole runs per block: blocks are independent, no grid-wide synchronisation
            m = m // NP * NP
        else:
            schedule = "cooperative"
            kern = mod.de_fast
            try:  # grid sync needs the device runtime library (cudadevrt) at link time
                ck = _compiled(kern, (pops, fits, lo, hi, p, one_state, same, *fast_probe[7:]))
            except Exception as exc:
                raise _CooperativeUnavailable(f"{type(exc).__name__}: {exc}".splitlines()[0]) from exc
            regs = None if ck is None else int(ck.regs_per_thread)
            T, m, smem = group_config(D, total, slots, regs, limits, s.threads_per_member, whole_warps=ck is not None)
    compile_s = time.perf_counter() - t_compile

    def _smem(m, T):
        return 8 * m * D if schedule == "cooperative" else _shared_bytes(D, m, T, slots)
    if ck is not None:
        # The register arithmetic of launch_config is an estimate (allocation rules differ by
        # device): the occupancy query decides.  Members per block shrink first (by whole runs
        # when a block holds whole runs); at the fewest, a member's threads shrink by a warp at a
        # time, each thread taking more elements, so that a block always fits.
        m_min = NP if schedule == "block" else 32 // T
        step = NP if schedule == "block" else 32 // T
        resident = int(ck.max_cooperative_grid_blocks(m * T, _smem(m, T)))
        while resident < 1:
            if m - step >= m_min:
                m -= step
            elif T > 32 and schedule == "block":
                T = _threads_per_member(D, T - 32)
            else:
                raise InputError(f"de-gpu: no block of {m * T} threads and {_smem(m, T)} "
                                 f"bytes fits an SM")
            resident = int(ck.max_cooperative_grid_blocks(m * T, _smem(m, T)))
    smem = _smem(m, T)
    block = m * T
    groups = (total + m - 1) // m
    grid = groups
    if schedule == "cooperative":
        # the simulator runs cooperative grids of one block only
        grid = 1 if ck is None else min(groups, resident)
    sms = limits["multiprocessors"]
    launch = {"schedule": schedule, "threads_per_member": T, "elements_per_thread": -(-D // T),
              "members_per_block": m, "block": block, "grid": grid,
              "groups": groups, "dynamic_shared_bytes": smem, "registers_per_thread": regs,
              "registers_per_thread_init": regs_init, "resident_blocks_per_device": resident,
              "occupancy": None if resident is None else
              round(min(resident, grid) * block / (sms * limits["max_threads_per_multiprocessor"]), 3),
              "device": limits, "simulator": simulator()}
    t_states = time.perf_counter()
    # One stream per thread of the grid (kernel(IE) strides over the groups with the same grid),
    # continued from generation to generation; kernel(P)'s streams from a second seed.  Distinct
    # seeds rather than subsequence offsets: numba makes states on the host, 128 steps per jump.
    states = create_xoroshiro128p_states(grid * block, s.seed)
    p_states = (create_xoroshiro128p_states(total, (s.seed * 0x9E3779B1 + 0x7F4A7C15) % 2**63)
                if mode == "paper" else None)
    cuda.synchronize()
    states_s = time.perf_counter() - t_states

    trace = Trace(plan.fn.sense)
    deadline = Deadline.of(s)
    t0 = deadline.start
    mod.de_init[grid, block, 0, _shared_bytes(D, m, T, slots)](pops, fits, lo, hi, p, states, stop, evals, *fixed, m, T, *tgt)
    g = 1
    G = plan.G
    host_stop = stop.copy_to_host()
    _see(trace, plan, fits.copy_to_host(), host_stop, evals.copy_to_host(), 0)
    check_every = 64
    if mode == "paper":
        streams = [cuda.stream(), cuda.stream()]
        events = [cuda.event() if simulator() else cuda.event(timing=False) for _ in range(2)]
        pgrid = (total + 127) // 128
        if G >= 1:
            mod.de_indices[pgrid, 128, streams[0]](idx[0], p_states, *fixed)
        cuda.synchronize()
        while g <= G:
            k = (g - 1) % 2
            st, other = streams[k], streams[1 - k]
            if g > 1:
                events[1 - k].wait(st)  # MCER(g) reads the population MCER(g-1) wrote on the other stream
            mod.de_mcer[groups, block, st, smem](pops, fits, (g - 1) % 2, g % 2, lo, hi, p, states, idx[k], stop,
                                                  evals, g, s.F, s.CR, plan.mode_code, *fixed, m, T, *tgt)
            events[k].record(st)
            if g < G:
                # kernel(P) for generation g+1 on the other stream, into the other buffer, which
                # MCER(g-1) (on that stream, earlier) has finished reading
                mod.de_indices[pgrid, 128, other](idx[1 - k], p_states, *fixed)
            if g % check_every == 0 or g == G:
                cuda.synchronize()
                if not _go_on(trace, plan, stop, evals, fits.copy_to_host(), g, g < G, deadline):
                    g += 1
                    break
            g += 1
    else:
        while g <= G:
            g1 = min(G + 1, g + s.generations_per_launch)
            try:
                kern[grid, block, 0, smem](pops, fits, lo, hi, p, states, same if schedule == "cooperative" else idx[0],
                                           stop, evals, g, g1, s.F, s.CR,
                                           plan.mode_code, *fixed, m, T, *tgt)
            except Exception as exc:
                if schedule != "cooperative":
                    raise
                raise _CooperativeUnavailable(f"{type(exc).__name__}: {exc}".splitlines()[0]) from exc
            cuda.synchronize()
            g = g1
            if not _go_on(trace, plan, stop, evals, fits.copy_to_host(), g - 1, g <= G, deadline):
                break
    cuda.synchronize()
    seconds = time.perf_counter() - t0
    opts = _options(plan, "cuda", {"launch": launch, "schedule":
                                   "paper: kernel(IE); then per generation kernel(MCER) with kernel(P) of the next "
                                   "generation on the other of two streams and index buffers"
                                   if mode == "paper" else
                                   f"fast ({schedule}): kernel(IE); then launches of up to "
                                   f"{s.generations_per_launch} generations, all runs together"
                                   + (", each block holding whole runs" if schedule == "block" else
                                      ", grid-wide synchronisation between generations")})
    if simulator():
        opts["note"] = "ran under numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1)"
    timing = {"run_s": seconds, "compile_s": compile_s, "rng_states_s": states_s}
    return _finish(plan, "cuda", pops.copy_to_host(), fits.copy_to_host(), stop.copy_to_host(),
                   evals.copy_to_host(), g - 1, seconds, deadline, opts, timing, trace)


def resolved_mode(mode, members, D):
    """The mode a GPU run takes: ``auto`` is ``stream`` for a population (all runs) of at least
    STREAM_MIN_BYTES, else ``fast``."""
    if mode != "auto":
        return mode
    return "stream" if 8 * members * D >= STREAM_MIN_BYTES else "fast"


def stream_config(D, members, regs, limits, cap=None, block_threads=None, whole_warps=True):
    """(T, m, shared bytes) of the stream kernel: groups of T lanes as :func:`group_config` (a
    power of two up to a warp), ``block_threads`` threads a block at most (by default
    :func:`_block_threads`), as many members as the trials (8 D bytes each, the kernel's only
    shared memory) allow."""
    max_t = limits["max_threads_per_block"]
    if regs:
        per_warp = -(-regs * 32 // 256) * 256
        max_t = min(max_t, max(limits["max_registers_per_block"] // per_warp // 4 * 4, 1) * 32)
    T = _group_width(D, cap)
    if 8 * D > limits["max_shared_memory_per_block"]:
        raise InputError(f"de-gpu: dimension {D} does not fit the block's shared memory "
                         f"({limits['max_shared_memory_per_block']} bytes) on this device")
    if block_threads is None:
        block_threads = _block_threads(regs, max_t)
    m = max(1, min(block_threads, max_t) // T)
    m = min(m, max(1, limits["max_shared_memory_per_block"] // (8 * D)))
    quantum = 32 // T if whole_warps else 1
    m = max(1, min(m, -(-members // quantum) * quantum))
    if whole_warps and m >= quantum:
        m = m // quantum * quantum
    return T, m, 8 * m * D


def _run_stream(plan, mod, limits):
    """Mode ``stream`` on a GPU: kernel de_stream_init, then cooperative launches of de_stream of
    up to ``generations_per_launch`` generations (gpubench.kernels.de_gpu says how a member's
    two rows, its slot word and its counter-based random numbers work)."""
    from numba import cuda
    s = plan.s
    NP, R, D = plan.NP, plan.R, plan.D
    total = R * NP
    lo, hi, p = cuda.to_device(plan.lo), cuda.to_device(plan.hi), cuda.to_device(plan.p)
    pops = cuda.device_array((2, total, D))
    pf = pops.reshape(2 * total * D)   # the kernel indexes the rows by element offsets
    fits = cuda.device_array(total)
    slots = cuda.to_device(np.zeros(total, dtype=np.int64))
    wins = cuda.to_device(np.zeros(total, dtype=np.int64))
    stop = cuda.to_device(np.full(R, -1, dtype=np.int64))
    evals = cuda.to_device(np.zeros(total, dtype=np.int64))
    skey = stream_key(s.seed)
    fixed = (NP, R, D)
    tgt = (plan.fstar, plan.target, plan.use_target)
    t_compile = time.perf_counter()
    try:  # grid sync needs the device runtime library (cudadevrt) at link time
        ck = _compiled(mod.de_stream, (pf, fits, slots, wins, lo, hi, p, skey, stop, evals, 1, 2, s.F, s.CR,
                                       plan.mode_code, *fixed, 1, 1, *tgt))
    except Exception as exc:
        raise _CooperativeUnavailable(f"{type(exc).__name__}: {exc}".splitlines()[0]) from exc
    regs = None if ck is None else int(ck.regs_per_thread)
    ck_init = _compiled(mod.de_stream_init, (pops, fits, slots, lo, hi, p, skey, stop, evals, *fixed, 1, 1, *tgt))
    compile_s = time.perf_counter() - t_compile
    T, m, smem = stream_config(D, total, regs, limits, s.threads_per_member, whole_warps=ck is not None)
    resident = None
    if ck is not None:
        step = 32 // T
        resident = int(ck.max_cooperative_grid_blocks(m * T, smem))
        while resident < 1:
            if m - step < step:
                raise InputError(f"de-gpu: no block of {m * T} threads and {smem} bytes fits an SM")
            m -= step
            smem = 8 * m * D
            resident = int(ck.max_cooperative_grid_blocks(m * T, smem))
    block = m * T
    groups = (total + m - 1) // m
    grid = 1 if ck is None else min(groups, resident)   # the simulator runs cooperative grids of one block
    sms = limits["multiprocessors"]
    launch = {"schedule": "stream", "threads_per_member": T, "elements_per_thread": -(-D // T),
              "members_per_block": m, "block": block, "grid": grid, "groups": groups, "dynamic_shared_bytes": smem,
              "registers_per_thread": regs,
              "registers_per_thread_init": None if ck_init is None else int(ck_init.regs_per_thread),
              "resident_blocks_per_device": resident,
              "occupancy": None if resident is None else
              round(min(resident, grid) * block / (sms * limits["max_threads_per_multiprocessor"]), 3),
              "device": limits, "simulator": simulator()}
    trace = Trace(plan.fn.sense)
    deadline = Deadline.of(s)
    t0 = deadline.start
    init_grid = groups if ck is None else min(groups, 64 * sms)
    mod.de_stream_init[init_grid, block, 0, smem](pops, fits, slots, lo, hi, p, skey, stop, evals, *fixed, m, T,
                                                  *tgt)

    def host_fits():
        f = fits.copy_to_host()
        return np.broadcast_to(f, (2, total))   # one value per member, whatever the generation's parity
    g = 1
    G = plan.G
    host_stop = stop.copy_to_host()
    _see(trace, plan, host_fits(), host_stop, evals.copy_to_host(), 0)
    while g <= G:
        g1 = min(G + 1, g + s.generations_per_launch)
        try:
            mod.de_stream[grid, block, 0, smem](pf, fits, slots, wins, lo, hi, p, skey, stop, evals, g, g1, s.F,
                                                s.CR, plan.mode_code, *fixed, m, T, *tgt)
        except Exception as exc:
            raise _CooperativeUnavailable(f"{type(exc).__name__}: {exc}".splitlines()[0]) from exc
        cuda.synchronize()
        g = g1
        if not _go_on(trace, plan, stop, evals, host_fits(), g - 1, g <= G, deadline):
            break
    cuda.synchronize()
    seconds = time.perf_counter() - t0
    opts = _options(plan, "cuda", {"launch": launch, "schedule":
                                   f"stream: kernel de_stream_init; then launches of up to {s.generations_per_launch} "
                                   "generations, all runs together, grid-wide synchronisation between generations; "
                                   "counter-based random numbers, a winning trial written once to its member's "
                                   "other row"})
    if simulator():
        opts["note"] = "ran under numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1)"
    timing = {"run_s": seconds, "compile_s": compile_s, "rng_states_s": 0.0}
    # every member's vector is in the row its slot word names; handed on in the parity layout
    rows = slots.copy_to_host() & 1
    P = pops.copy_to_host()[rows, np.arange(total)]
    r = _finish(plan, "cuda", np.broadcast_to(P, (2,) + P.shape), host_fits(), stop.copy_to_host(),
                evals.copy_to_host(), g - 1, seconds, deadline, opts, timing, trace)
    r.history["replacements"] = int(wins.copy_to_host().sum())
    return r


def run(fn, dim, s):
    plan = _Plan(fn, dim, s)
    if simulator():
        # the simulator's xoroshiro128+ wraps numpy uint64 scalars, which warns on every draw (in
        # the simulator's threads, so np.errstate, which is per thread, cannot silence it)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning)
            return _run(plan, s)
    return _run(plan, s)


def _run(plan, s):
    note = None
    if s.backend == "auto" and not gpu_available():
        backend = "cpu"
        note = "no GPU: ran the CPU twin"
    else:
        backend = resolve_backend(s.backend, supported=("cpu", "cuda"))
    if backend == "cuda":
        try:
            return _run_cuda(plan)
        except _CooperativeUnavailable as exc:
            # fast mode's cooperative kernel is unavailable: the paper's schedule, said so
            r = _run_cuda(plan, force_paper=True)
            r.options["note"] = (f"fast mode needs a cooperative launch, which failed here ({exc}); "
                                 f"ran the paper's schedule instead")
            return r
    return _run_cpu(plan, note)


def warmup(fn, dim, s):
    """Compile every kernel or twin this run will use, on a run of two generations."""
    from dataclasses import replace
    # one run warms the kernels of all runs: mode auto decided by the population of all of them
    w = replace(s, max_evaluations=3 * s.np, runs=1, time_limit=None, target_error=None,
                mode=resolved_mode(s.mode, s.runs * s.np, dim))
    run(fn, dim, w)


METHOD = Method(
    name="de-gpu",
    summary="Differential evolution DE/rand/1/bin on the GPU: fused MCER kernel, automatic launch "
            "configuration (Qin et al. 2012); numba CPU twins",
    settings=DeGpuSettings, run=run, rigorous=False, backends=("cpu", "cuda"),
    source="Qin, Raimondo, Forbes & Ong, An improved CUDA-based implementation of differential evolution "
           "on GPU, GECCO 2012 (paper 002), Sections 3-4",
    warmup=warmup)
