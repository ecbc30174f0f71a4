"""DE's runs on a GPU (:mod:`gpubench.methods.de_gpu`): the paper's schedule and fast mode
(:func:`run_cuda`), and stream mode (:func:`_run_stream`), over the kernels of
:mod:`gpubench.kernels.de_gpu` spliced into the function's generated module."""
import time

import numpy as np

from ..device.gpu import simulator
from ..errors import InputError
from .de_launch import (_compiled, _device_limits, _shared_bytes, _threads_per_member, group_config,
                        launch_config, stream_config)
from .de_run import finish, go_on, options, see, stream_key
from .monitor import Deadline
from .trace import Trace


class CooperativeUnavailable(Exception):
    """The cooperative kernel could not be compiled, linked or launched here."""


def run_cuda(plan, mod, force_paper=False):
    """Mode paper, fast or stream on a GPU, with ``mod`` the function's generated module holding
    the kernels (:func:`gpubench.methods.de_gpu._module`)."""
    from numba import cuda
    from .de_states import create_states as create_xoroshiro128p_states   # numba-cuda's, its initialiser cached
    s = plan.s
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
    mode = "paper" if force_paper else s.mode   # "auto" is resolved before (gpubench.methods.de_auto)
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
                raise CooperativeUnavailable(f"{type(exc).__name__}: {exc}".splitlines()[0]) from exc
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
    see(trace, plan, fits.copy_to_host(), host_stop, evals.copy_to_host(), 0)
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
                if not go_on(trace, plan, stop, evals, fits.copy_to_host(), g, g < G, deadline):
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
                raise CooperativeUnavailable(f"{type(exc).__name__}: {exc}".splitlines()[0]) from exc
            cuda.synchronize()
            g = g1
            if not go_on(trace, plan, stop, evals, fits.copy_to_host(), g - 1, g <= G, deadline):
                break
    cuda.synchronize()
    seconds = time.perf_counter() - t0
    opts = options(plan, "cuda", {"launch": launch, "schedule":
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
    return finish(plan, "cuda", pops.copy_to_host(), fits.copy_to_host(), stop.copy_to_host(),
                   evals.copy_to_host(), g - 1, seconds, deadline, opts, timing, trace)


def _run_stream(plan, mod, limits):
    """Mode ``stream`` on a GPU: kernel de_stream_init, then cooperative launches of de_stream of
    up to ``generations_per_launch`` generations (gpubench.kernels.de_stream says how the two
    buffers, a member's ``last`` word and its counter-based random numbers work)."""
    from numba import cuda
    s = plan.s
    NP, R, D = plan.NP, plan.R, plan.D
    total = R * NP
    lo, hi, p = cuda.to_device(plan.lo), cuda.to_device(plan.hi), cuda.to_device(plan.p)
    pops = cuda.device_array((2, total, D))
    pf = pops.reshape(2 * total * D)   # the kernel indexes the rows by element offsets
    fits = cuda.device_array(total)
    last = cuda.to_device(np.zeros(total, dtype=np.int64))
    wins = cuda.to_device(np.zeros(total, dtype=np.int64))   # replacements, and copies << 32
    stop = cuda.to_device(np.full(R, -1, dtype=np.int64))
    evals = cuda.to_device(np.zeros(total, dtype=np.int64))
    skey = stream_key(s.seed)
    fixed = (NP, R, D)
    tgt = (plan.fstar, plan.target, plan.use_target)
    t_compile = time.perf_counter()
    try:  # grid sync needs the device runtime library (cudadevrt) at link time
        ck = _compiled(mod.de_stream, (pf, fits, last, wins, lo, hi, p, skey, stop, evals, 1, 2, s.F, s.CR,
                                       plan.mode_code, *fixed, 1, 1, *tgt))
    except Exception as exc:
        raise CooperativeUnavailable(f"{type(exc).__name__}: {exc}".splitlines()[0]) from exc
    regs = None if ck is None else int(ck.regs_per_thread)
    ck_init = _compiled(mod.de_stream_init, (pops, fits, last, lo, hi, p, skey, stop, evals, *fixed, 1, 1, *tgt))
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
    mod.de_stream_init[init_grid, block, 0, smem](pops, fits, last, lo, hi, p, skey, stop, evals, *fixed, m, T,
                                                  *tgt)

    def host_fits():
        f = fits.copy_to_host()
        return np.broadcast_to(f, (2, total))   # one value per member, whatever the generation's parity
    g = 1
    G = plan.G
    host_stop = stop.copy_to_host()
    see(trace, plan, host_fits(), host_stop, evals.copy_to_host(), 0)
    while g <= G:
        g1 = min(G + 1, g + s.generations_per_launch)
        try:
            mod.de_stream[grid, block, 0, smem](pf, fits, last, wins, lo, hi, p, skey, stop, evals, g, g1, s.F,
                                                s.CR, plan.mode_code, *fixed, m, T, *tgt)
        except Exception as exc:
            raise CooperativeUnavailable(f"{type(exc).__name__}: {exc}".splitlines()[0]) from exc
        cuda.synchronize()
        g = g1
        if not go_on(trace, plan, stop, evals, host_fits(), g - 1, g <= G, deadline):
            break
    cuda.synchronize()
    seconds = time.perf_counter() - t0
    opts = options(plan, "cuda", {"launch": launch, "schedule":
                                   f"stream: kernel de_stream_init; then launches of up to {s.generations_per_launch} "
                                   "generations, all runs together, grid-wide synchronisation between generations; "
                                   "counter-based random numbers, two buffers by parity, a winning trial written "
                                   "once to the other buffer, the next chunk's loads issued before a trial is "
                                   "evaluated"})
    if simulator():
        opts["note"] = "ran under numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1)"
    timing = {"run_s": seconds, "compile_s": compile_s, "rng_states_s": 0.0}
    # the parity layout: a run's members in the buffer of the generation it stopped at, or the last
    r = finish(plan, "cuda", pops.copy_to_host(), host_fits(), stop.copy_to_host(),
               evals.copy_to_host(), g - 1, seconds, deadline, opts, timing, trace)
    w = wins.copy_to_host()
    r.history["replacements"] = int((w & 0xFFFFFFFF).sum())
    r.history["stale_copies"] = int((w >> 32).sum())
    return r
