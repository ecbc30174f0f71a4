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
  written; r1, r2, r3 drawn distinct by skipping, not rejection), two population buffers by the
  generation's parity, so a winning trial is written once and a losing one not at all (unless the
  other buffer is stale: it won the generation before), the next chunk's loads in flight while a
  trial is evaluated; one cooperative launch for many generations.  ``mode="auto"`` (opt-in) takes whichever
  of fast and stream mode a short probe on the problem's own size measured faster on this
  device (:mod:`.de_auto`; the choice cached per device, function, D and population).
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

Where it is: this module holds the settings, the tunables the tests and the de-generation procedure
set, the CPU twin's run and the method; :mod:`.de_run` the plan and the one result of every backend,
:mod:`.de_launch` the launch geometry, :mod:`.de_cuda` the GPU runs; the kernels and twins are
:mod:`gpubench.kernels.de_gpu`, ``de_stream``, ``de_cpu`` and the draws they share, ``de_random``.
"""
import time
import warnings
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..device.gpu import BACKENDS, gpu_available, resolve_backend, simulator
from .base import Method, MethodSettings, setting, time_limit_setting
from .de_cuda import CooperativeUnavailable, run_cuda
from .de_run import BOUNDS, Plan, cpu_states, finish, options, see, stream_key
from .monitor import Deadline
from .trace import Trace


# The crossover test, as source text shared by the kernels and the CPU twins:
# u is a uniform draw in [0, 1) for element j, jr is j_rand (eq. 2 of the paper).
# Tests replace it (e.g. by "True": CR ignored) to prove that they catch a broken crossover.
CROSSOVER = "j == jr or u <= CR"

# Elements of a lane whose loads the stream kernel (CHUNK) and the fast kernel (FAST_CHUNK) issue
# together (their registers grow with them); None: the kernel module's own.  The de-generation
# procedure sets them to compare choices.
CHUNK = None
FAST_CHUNK = None

# A cap on the stream kernel's registers a thread (None: the kernel module's own, 168; 0: the
# compiler's choice, 167 for shifted Rastrigin by ptxas 13 for sm_90); the de-generation procedure
# sets it to compare choices.
STREAM_REGISTERS = None
# The same for the fast (cooperative) kernel (None: the kernel module's own, 96; 0: the compiler's choice).
FAST_REGISTERS = None
# Whether the fast kernel folds a trial's terms in its crossover pass (True) or in a pass of its own
# (False), where each term reads its own coordinate only (None: the kernel module's own, True).
FAST_FOLD = None


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
                        "random numbers and a winner written once (large populations); auto: fast or stream, "
                        "whichever a short probe of this problem on this GPU measures faster (cached)",
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
# The kernels (gpubench/kernels/de_gpu.py, de_stream.py) and CPU twins (gpubench/kernels/de_cpu.py),
# with the draws and folds they share (de_random.py), are real modules, appended to the function's
# generated module so that numba caches them on disk.
_DEFAULT_CROSSOVER = "j == jr or u <= CR"


def _crossover_edit():
    return (f"if {_DEFAULT_CROSSOVER}:", f"if ({CROSSOVER}):")


def _cuda_edits():
    """The text edits of the fast (de_gpu) and stream (de_stream) kernel modules: the crossover test,
    and CHUNK, FAST_CHUNK, FAST_REGISTERS, FAST_FOLD, STREAM_REGISTERS where this module's settings name them
    (CHUNK is read by the stream kernel, but defined in de_gpu's text, the module it imports it from)."""
    fast, stream = [_crossover_edit()], [_crossover_edit()]
    if CHUNK is not None:
        fast.append(("\nCHUNK = 4  #", f"\nCHUNK = {int(CHUNK)}  #"))
    if FAST_CHUNK is not None:
        fast.append(("\nFAST_CHUNK = 2  #", f"\nFAST_CHUNK = {int(FAST_CHUNK)}  #"))
    if FAST_REGISTERS is not None:
        fast.append(("\nFAST_REGISTERS = 96  #", f"\nFAST_REGISTERS = {int(FAST_REGISTERS)}  #"))
    if FAST_FOLD is not None:
        fast.append(("\nFAST_FOLD = 1  #", f"\nFAST_FOLD = {int(bool(FAST_FOLD))}  #"))
    if STREAM_REGISTERS is not None:
        stream.append(("\nSTREAM_REGISTERS = 168  #", f"\nSTREAM_REGISTERS = {int(STREAM_REGISTERS)}  #"))
    return fast, stream


def _module(fn, backend):
    """The function's generated module on ``backend`` with the DE code appended (cached by its text)."""
    from .. import kernels
    from ..forms.cards import Derived
    if backend == "cuda":
        fast, stream = _cuda_edits()
        parts = [kernels.splice("de_random"), kernels.splice("de_gpu", fast), kernels.splice("de_stream", stream)]
    else:
        parts = [kernels.splice("de_random"), kernels.splice("de_cpu", [_crossover_edit()])]
    # the draws and folds (de_random) first, compiled by the generated module's device decorator
    ext = "\n\n".join(parts)
    # term_forms is derived (sympy) only when the module is not in the cache (a second process
    # finds it through the function's card, without the definition)
    extensions = [Derived("term_forms"), ext] if backend == "cuda" else [ext]
    return fn.load(backend, extensions, negate=fn.sense != "min")


def _run_cpu(plan, note):
    s = plan.s
    mod = _module(plan.fn, "cpu")
    NP, R, D = plan.NP, plan.R, plan.D
    stream = s.cpu_variant == "stream"
    per_member = s.cpu_variant in ("parallel", "stream")
    states = None if stream else cpu_states(R * NP if per_member else R, s.seed, 0)
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
    see(trace, plan, fits, stop, evals, 0)
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
        see(trace, plan, fits, stop, evals, g - 1)
    seconds = time.perf_counter() - t0
    opts = options(plan, "cpu", {"variant": "sDE (sequential)" if not per_member else
                                  "stream (numba prange, counter-based random numbers)" if stream else
                                  "parallel (numba prange)"})
    if note:
        opts["note"] = note
    r = finish(plan, "cpu", pops, fits, stop, evals, g - 1, seconds, deadline, opts, {"run_s": seconds}, trace)
    if stream:
        r.history["replacements"] = int(wins.sum())
    return r


def run(fn, dim, s):
    plan = Plan(fn, dim, s)
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
        auto = None
        if s.mode == "auto":
            from dataclasses import replace
            from .de_auto import chosen_mode
            mode, auto = chosen_mode(plan, _module(plan.fn, "cuda"))
            lanes = auto.get("lanes")
            plan = Plan(plan.fn, plan.D, replace(s, mode=mode,
                                                 threads_per_member=s.threads_per_member if lanes is None else lanes))
        try:
            r = run_cuda(plan, _module(plan.fn, "cuda"))
            if auto is not None:
                r.options.update(mode="auto", auto=auto)
            return r
        except CooperativeUnavailable as exc:
            # fast mode's cooperative kernel is unavailable: the paper's schedule, said so
            r = run_cuda(plan, _module(plan.fn, "cuda"), force_paper=True)
            r.options["note"] = (f"fast mode needs a cooperative launch, which failed here ({exc}); "
                                 f"ran the paper's schedule instead")
            return r
    return _run_cpu(plan, note)


def warmup(fn, dim, s):
    """Compile every kernel or twin this run will use, on a run of two generations."""
    from dataclasses import replace
    if s.mode == "auto" and resolve_backend(s.backend, supported=("cpu", "cuda")) == "cuda":
        # mode auto: the probe at the size of all runs compiles both kernels and keeps its choice
        from .de_auto import chosen_mode
        chosen_mode(Plan(fn, dim, s), _module(fn, "cuda"))
        return
    w = replace(s, max_evaluations=3 * s.np, runs=1, time_limit=None, target_error=None)
    run(fn, dim, w)


METHOD = Method(
    name="de-gpu",
    summary="Differential evolution DE/rand/1/bin on the GPU: fused MCER kernel, automatic launch "
            "configuration (Qin et al. 2012); numba CPU twins",
    settings=DeGpuSettings, run=run, rigorous=False, backends=("cpu", "cuda"), launches=True,
    source="Qin, Raimondo, Forbes & Ong, An improved CUDA-based implementation of differential evolution "
           "on GPU, GECCO 2012 (paper 002), Sections 3-4",
    warmup=warmup)
