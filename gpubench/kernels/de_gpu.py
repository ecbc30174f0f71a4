"""De-gpu's CUDA kernels (Qin et al. 2012, Section 4): see :mod:`gpubench.methods.de_gpu`.

Spliced after a function's generated forms (:func:`gpubench.kernels.splice`), whose
``term_fold``, ``outer_value``, ``agg_identity``, ``agg_combine``, ``COOP_SLOTS`` and
spike constants it calls, and after :mod:`.de_random` (the draws and folds it shares with the CPU
twins); the streaming kernel (:mod:`.de_stream`) follows it.  Imported as itself (lint, PTX checks) it uses the stand-ins of
:mod:`gpubench.kernels.stand_in`.
"""
from numba import config as _dconfig
from numba import cuda as _dcuda
from numba import boolean as _dbool
from numba import float64 as _df64
from numba import int32 as _dint32
from numba import int64 as _dint64
from numba import uint32 as _duint32
from numba import uint64 as _duint64
from numba.cuda.random import xoroshiro128p_uniform_float64 as _uniform

from gpubench.kernels.unsigned import u as _u   # every variable subscript of the kernels (no negative-index wraparound)

if __name__ == "gpubench.kernels.de_gpu":  # imported as itself: stand-in forms, the shared draws
    from gpubench.kernels.stand_in import (COOP_SLOTS, HAS_SPIKE, SPIKE_VALUE, TERM_WINDOW, agg_combine,
                                           agg_identity, in_spike_at, outer_value, term_fold)
    from gpubench.kernels.de_random import _TWO_M53, _draw, _folded, _indices


@_dcuda.jit(device=True)
def _bounded(v, lo, hi, mode, states, t):
    if v < lo or v > hi:
        if mode == 2:
            v = lo + _uniform(states, t) * (hi - lo)
        else:
            v = _folded(v, lo, hi, mode)
    return v


@_dcuda.jit(device=True)
def _evaluate(sh, toff, m, T, D, p, valid):
    """f of the trial at sh[toff:toff+D], by the member's T threads; valid in lane 0.

    Every thread of the block calls this (it synchronises the block)."""
    tid = _dcuda.threadIdx.x
    slot = tid // T
    lane = tid - slot * T
    BS = m * T
    roff = m * D
    acc = _dcuda.local.array(COOP_SLOTS, _df64)
    for a in range(COOP_SLOTS):
        acc[a] = agg_identity(a)
    if valid:
        j = lane
        while j < D:
            term_fold(sh, toff, p, j, D, acc)
            j += T
    for a in range(COOP_SLOTS):
        sh[roff + a * BS + tid] = acc[a]
    _dcuda.syncthreads()
    s = 1
    while s < T:
        s *= 2
    s //= 2
    while s > 0:
        if lane < s and lane + s < T:
            for a in range(COOP_SLOTS):
                sh[roff + a * BS + tid] = agg_combine(a, sh[roff + a * BS + tid], sh[roff + a * BS + tid + s])
        _dcuda.syncthreads()
        s //= 2
    f = 0.0
    if valid and lane == 0:
        for a in range(COOP_SLOTS):
            acc[a] = sh[roff + a * BS + tid]
        f = outer_value(acc, sh[toff], sh[toff + D - 1], D)
        if HAS_SPIKE and in_spike_at(sh, toff, D):
            f = SPIKE_VALUE
    return f


@_dcuda.jit(device=True)
def _member_step(pops, fits, src, dst, first, lo, hi, p, states, t, idx, use_idx, stop, evals, gen,
                 F, CR, mode, NP, R, D, m, T, fstar, target, use_target, sh):
    """One generation of the members first .. first+m-1 (one per slot of T threads)."""
    tid = _dcuda.threadIdx.x
    slot = tid // T
    lane = tid - slot * T
    gi = first + slot
    valid = slot < m and gi < R * NP
    run = 0
    i = 0
    if valid:
        run = gi // NP
        i = gi - run * NP
        sg = stop[run]
        if sg >= 0 and sg < gen:  # the run stopped in an earlier generation
            valid = False
    ioff = m * D + COOP_SLOTS * m * T
    foff = ioff + 4 * m
    if valid and lane == 0:
        if use_idx:
            r1 = idx[gi, 0]
            r2 = idx[gi, 1]
            r3 = idx[gi, 2]
            jr = idx[gi, 3]
        else:
            r1, r2, r3, jr = _indices(states, t, i, NP, D)
        sh[ioff + 4 * slot] = r1
        sh[ioff + 4 * slot + 1] = r2
        sh[ioff + 4 * slot + 2] = r3
        sh[ioff + 4 * slot + 3] = jr
    _dcuda.syncthreads()
    toff = slot * D
    if valid:
        base = run * NP
        r1 = base + int(sh[ioff + 4 * slot])
        r2 = base + int(sh[ioff + 4 * slot + 1])
        r3 = base + int(sh[ioff + 4 * slot + 2])
        jr = int(sh[ioff + 4 * slot + 3])
        j = lane
        while j < D:
            v = pops[src, gi, j]
            u = _uniform(states, t)
            if j == jr or u <= CR:  # CROSSOVER (gpubench.methods.de_gpu)
                v = pops[src, r1, j] + F * (pops[src, r2, j] - pops[src, r3, j])
                v = _bounded(v, lo[j], hi[j], mode, states, t)
            sh[toff + j] = v
            j += T
    _dcuda.syncthreads()
    f = _evaluate(sh, toff, m, T, D, p, valid)
    if valid and lane == 0:
        old = fits[src, gi]
        evals[gi] += 1
        new = old
        sh[foff + slot] = 0.0
        if f <= old:
            new = f
            sh[foff + slot] = 1.0
        fits[dst, gi] = new
        if use_target and new - fstar <= target:
            stop[run] = gen
    _dcuda.syncthreads()
    if valid:
        take = sh[foff + slot] > 0.5
        j = lane
        while j < D:
            if take:
                pops[dst, gi, j] = sh[toff + j]
            else:
                pops[dst, gi, j] = pops[src, gi, j]
            j += T


@_dcuda.jit(cache=True)
def de_init(pops, fits, lo, hi, p, states, stop, evals, NP, R, D, m, T, fstar, target, use_target):
    """kernel(IE): a uniform initial population, evaluated (generation 0, buffer 0).  Blocks
    stride over the groups of m members, so the grid (and the random states) may be smaller."""
    sh = _dcuda.shared.array(0, _df64)
    tid = _dcuda.threadIdx.x
    t = _dcuda.blockIdx.x * _dcuda.blockDim.x + tid
    slot = tid // T
    lane = tid - slot * T
    toff = slot * D
    ngroups = (R * NP + m - 1) // m
    group = _dcuda.blockIdx.x
    while group < ngroups:
        gi = group * m + slot
        valid = slot < m and gi < R * NP
        if valid:
            j = lane
            while j < D:
                v = lo[j] + _uniform(states, t) * (hi[j] - lo[j])
                sh[toff + j] = v
                pops[0, gi, j] = v
                j += T
        _dcuda.syncthreads()
        f = _evaluate(sh, toff, m, T, D, p, valid)
        if valid and lane == 0:
            fits[0, gi] = f
            evals[gi] = 1
            if use_target and f - fstar <= target:
                stop[gi // NP] = 0
        _dcuda.syncthreads()  # lane 0 has read this group's trial before the next group overwrites it
        group += _dcuda.gridDim.x


@_dcuda.jit(cache=True)
def de_indices(idx, states, NP, R, D):
    """kernel(P): mutually distinct r1, r2, r3 (all != i) and j_rand of every member."""
    gi = _dcuda.grid(1)
    if gi < R * NP:
        r1, r2, r3, jr = _indices(states, gi, gi % NP, NP, D)
        idx[gi, 0] = r1
        idx[gi, 1] = r2
        idx[gi, 2] = r3
        idx[gi, 3] = jr


@_dcuda.jit(cache=True)
def de_mcer(pops, fits, src, dst, lo, hi, p, states, idx, stop, evals, gen, F, CR, mode, NP, R, D, m, T,
            fstar, target, use_target):
    """kernel(MCER): one generation, m members per block, indices from kernel(P)."""
    sh = _dcuda.shared.array(0, _df64)
    t = _dcuda.blockIdx.x * _dcuda.blockDim.x + _dcuda.threadIdx.x
    _member_step(pops, fits, src, dst, _dcuda.blockIdx.x * m, lo, hi, p, states, t, idx, True, stop, evals,
                 gen, F, CR, mode, NP, R, D, m, T, fstar, target, use_target, sh)


@_dcuda.jit(device=True)
def _all_stopped(stop, r0, r1, gen, halt):
    """Whether runs r0 .. r1-1 all stopped before generation ``gen``: thread 0 reads the stop words
    (written before the last block or grid sync), and every thread returns its verdict."""
    if _dcuda.threadIdx.x == 0:
        halt[0] = 1
        for r in range(r0, r1):
            if stop[r] < 0 or stop[r] >= gen:
                halt[0] = 0
    _dcuda.syncthreads()
    return halt[0] == 1


@_dcuda.jit(cache=True)
def de_block(pops, fits, lo, hi, p, states, idx, stop, evals, g0, g1, F, CR, mode, NP, R, D, m, T,
             fstar, target, use_target):
    """Generations g0 .. g1-1, m = k NP members per block: whole runs, so a block needs only its own
    synchronisation (beyond the paper: one launch for many generations of many runs)."""
    sh = _dcuda.shared.array(0, _df64)
    halt = _dcuda.shared.array(1, _dint32)
    t = _dcuda.blockIdx.x * _dcuda.blockDim.x + _dcuda.threadIdx.x
    first = _dcuda.blockIdx.x * m
    r0 = first // NP
    r1 = min(R, (first + m) // NP)
    for gen in range(g0, g1):
        if _all_stopped(stop, r0, r1, gen, halt):
            break
        _member_step(pops, fits, (gen - 1) % 2, gen % 2, first, lo, hi, p, states, t, idx, False, stop, evals,
                     gen, F, CR, mode, NP, R, D, m, T, fstar, target, use_target, sh)
        _dcuda.syncthreads()  # this generation's members written before the next one reads them


# ---------------------------------------------------------------- the cooperative fast kernel
# A member is a group of T lanes of one warp (T a power of two, at most 32): its aggregates are
# reduced by shuffles, its trial lives in shared memory, and nothing but the group synchronises
# inside a generation.  Numba's simulator has no shuffles: there each exchange goes through a
# block-wide scratch array between barriers (the same lanes combine the same values).
_SIM = bool(_dconfig.ENABLE_CUDASIM)
_XCHG = 1024 if _SIM else 1
_FULL = 0xFFFFFFFF
CHUNK = 4  # elements of a lane whose loads de_stream issues together
# de_fast's elements a lane in flight and its cap on registers a thread (0: the compiler's choice).
# The kernel waits on its loads, so resident warps beat loads in flight: on an H200 at 8418721
# (results/device_peers_de_evox, one run beside EvoX) 2 elements under 96 registers (20 warps an SM,
# 20 bytes spilled by ptxas 13 for sm_90 on shifted Rastrigin) took 0.0045 / 0.0265 / 0.2425 / 0.2047
# ms a generation at (D, NP) = (10, 100), (100, 1e4), (100, 1e5), (1000, 1e4), where 4 elements
# uncapped (136 registers, 12 warps) took 0.0049 / 0.0327 / 0.3310 / 0.2747 and 4 under 96 took
# 0.0050 / 0.0276 / 0.2578 / 0.2252.  The de-generation procedure compiles others to compare.
FAST_CHUNK = 2  # (the de-generation procedure compiles others to compare)
FAST_REGISTERS = 96  # (the de-generation procedure compiles others to compare)
# Where de_fast folds a trial's terms when each reads its own coordinate only (TERM_WINDOW 1): 1, in the
# crossover pass as each element is made (no second pass over shared memory, no second loop's
# subscripts); 0, in a pass of its own after the trial is built (the kernel before; functions whose
# terms read x_j+1 always take it).  The same terms in the same order either way: the same bits.  On an
# H200 at e5f580f (results/gpu/solve-e5f580f, one run) 1 took 0.2301 / 0.0252 ms a generation at (D, NP) =
# (100, 1e5) / (100, 1e4) against 0.2420 / 0.0260 for 0, and 0.2102 against 0.2046 at (1000, 1e4).
FAST_FOLD = 1  # (the de-generation procedure compiles the other to compare)
# (the simulator's jit takes no register cap)
_fast_jit = (_dcuda.jit(cache=True, max_registers=FAST_REGISTERS) if FAST_REGISTERS and not _SIM
             else _dcuda.jit(cache=True))


@_dcuda.jit(device=True)
def _rng(s0, s1):
    """xoroshiro128+ as numba.cuda.random's, with the state in registers: (u in [0, 1), s0, s1)."""
    r = s0 + s1
    s1 = s1 ^ s0
    n0 = _duint64((s0 << _duint32(55)) | (s0 >> _duint32(9))) ^ s1 ^ (s1 << _duint32(14))
    n1 = _duint64((s1 << _duint32(36)) | (s1 >> _duint32(28)))
    return _df64(r >> _duint32(11)) * _TWO_M53, n0, n1


@_dcuda.jit(device=True)
def _group_sync(xs):
    if _SIM:
        _dcuda.syncthreads()
    else:
        _dcuda.syncwarp(_FULL)


@_dcuda.jit(device=True)
def _xor_swap(v, off, xs, tid):
    """The value of lane (tid xor off) of the same group (shfl_xor)."""
    if _SIM:
        _dcuda.syncthreads()
        xs[tid] = v
        _dcuda.syncthreads()
        w = xs[tid ^ off]
        _dcuda.syncthreads()
        return w
    return _dcuda.shfl_xor_sync(_FULL, v, off)


@_dcuda.jit(device=True)
def _from_lead(v, T, xs, tid):
    """Lane 0's value of this lane's group (shfl from the group's first lane)."""
    # T is a power of two dividing 32 (a group never straddles a warp), so the group's first thread
    # is tid with its low bits cleared: a mask, where a signed 64-bit remainder was a
    # __cuda_sm20_rem_s64 call; the simulator reads the same thread, so its runs test the mask
    lead = tid & -T
    if _SIM:
        _dcuda.syncthreads()
        xs[tid] = v
        _dcuda.syncthreads()
        w = xs[lead]
        _dcuda.syncthreads()
        return w
    return _dcuda.shfl_sync(_FULL, v, lead & 31)


@_dcuda.jit(device=True)
def _group_value(sh, toff, p, D, T, lane, valid, xs, tid):
    """f of the vector at sh[toff:toff+D], by the group's T lanes (the function's term_fold,
    a shuffle reduction, outer_value by lane 0), broadcast to every lane of the group."""
    acc = _dcuda.local.array(COOP_SLOTS, _df64)
    for a in range(COOP_SLOTS):
        acc[a] = agg_identity(a)
    if valid:
        j = lane
        while j < D:
            term_fold(sh, toff, p, j, D, acc)
            j += T
    return _group_outer(acc, sh, toff, D, T, lane, valid, xs, tid)


@_dcuda.jit(device=True)
def _group_outer(acc, sh, toff, D, T, lane, valid, xs, tid):
    """The group's aggregates from each lane's ``acc`` (a shuffle reduction), the function's outer
    expression by lane 0, broadcast to every lane of the group (the stream kernel folds its terms
    itself, then calls this)."""
    off = 1
    while off < T:
        for a in range(COOP_SLOTS):
            acc[a] = agg_combine(a, acc[a], _xor_swap(acc[a], off, xs, tid))
        off *= 2
    f = 0.0
    if valid and lane == 0:
        f = outer_value(acc, sh[toff], sh[toff + D - 1], D)
        if HAS_SPIKE and in_spike_at(sh, toff, D):
            f = SPIKE_VALUE
    return _from_lead(f, T, xs, tid)


@_fast_jit
def de_fast(pops, fits, lo, hi, p, states, same, stop, evals, g0, g1, F, CR, mode, NP, R, D, m, T,
            fstar, target, use_target):
    """Generations g0 .. g1-1 of every run in one cooperative launch (grid sync between them).

    A member is a group of T lanes (a power of two <= 32) taking elements lane, lane + T, ...;
    its aggregates are reduced by shuffles and lane 0's verdict is broadcast, so a generation
    has no block barrier.  Each thread keeps its xoroshiro128+ state in registers for the
    launch.  ``same[gi]`` says that both population buffers hold member gi (it was not replaced
    in the last generation): then only the elements that crossover changed are written when
    its trial wins, and nothing when it loses; otherwise the member is written whole."""
    sh = _dcuda.shared.array(0, _df64)
    xs = _dcuda.shared.array(_XCHG, _df64)
    halt = _dcuda.shared.array(1, _dint32)
    grid = _dcuda.cg.this_grid()
    tid = _dcuda.threadIdx.x
    t = _dcuda.blockIdx.x * _dcuda.blockDim.x + tid
    slot = tid // T
    lane = tid - slot * T
    toff = slot * D
    total = R * NP
    ngroups = (total + m - 1) // m
    s0 = states[t]["s0"]
    s1 = states[t]["s1"]
    acc = _dcuda.local.array(COOP_SLOTS, _df64)
    tv = _dcuda.local.array(FAST_CHUNK, _df64)
    d1 = _dcuda.local.array(FAST_CHUNK, _df64)
    d2 = _dcuda.local.array(FAST_CHUNK, _df64)
    d3 = _dcuda.local.array(FAST_CHUNK, _df64)
    hit = _dcuda.local.array(FAST_CHUNK, _dbool)
    for gen in range(g0, g1):
        # Leave once every run stopped in an earlier generation (stops written before the last
        # grid sync, so every block reaches the same verdict).
        if _all_stopped(stop, 0, R, gen, halt):
            break
        src = (gen - 1) % 2
        dst = gen % 2
        group = _dcuda.blockIdx.x
        while group < ngroups:
            gi = group * m + slot
            valid = slot < m and gi < total
            run = 0
            i = 0
            if valid:
                run = gi // NP
                i = gi - run * NP
                sg = stop[_u(run)]
                if sg >= 0 and sg < gen:  # the run stopped in an earlier generation
                    valid = False
            a1 = 0.0
            a2 = 0.0
            a3 = 0.0
            aj = 0.0
            if valid and lane == 0:
                u, s0, s1 = _rng(s0, s1)
                k1 = _draw(u, NP)
                while k1 == i:
                    u, s0, s1 = _rng(s0, s1)
                    k1 = _draw(u, NP)
                u, s0, s1 = _rng(s0, s1)
                k2 = _draw(u, NP)
                while k2 == i or k2 == k1:
                    u, s0, s1 = _rng(s0, s1)
                    k2 = _draw(u, NP)
                u, s0, s1 = _rng(s0, s1)
                k3 = _draw(u, NP)
                while k3 == i or k3 == k1 or k3 == k2:
                    u, s0, s1 = _rng(s0, s1)
                    k3 = _draw(u, NP)
                u, s0, s1 = _rng(s0, s1)
                a1 = _df64(k1)
                a2 = _df64(k2)
                a3 = _df64(k3)
                aj = _df64(_draw(u, D))
            base = run * NP
            r1 = base + int(_from_lead(a1, T, xs, tid))
            r2 = base + int(_from_lead(a2, T, xs, tid))
            r3 = base + int(_from_lead(a3, T, xs, tid))
            jr = int(_from_lead(aj, T, xs, tid))
            crossed = _dint64(0)
            was_same = False
            old = 0.0
            for a in range(COOP_SLOTS):
                acc[a] = agg_identity(a)
            if valid:
                was_same = same[_u(gi)] != 0
                old = fits[_u(src), _u(gi)]  # loaded now, used after the evaluation
                # the member's rows, once: an element's load is then one offset from a row's start
                # (a 64-bit product of three subscripts an access before)
                trow = pops[_u(src), _u(gi)]
                row1 = pops[_u(src), _u(r1)]
                row2 = pops[_u(src), _u(r2)]
                row3 = pops[_u(src), _u(r3)]
                # FAST_CHUNK elements a lane at a time: their crossover draws and all their loads
                # (target and donors) are issued before any is used, so they are in flight together
                e0 = 0
                while lane + e0 * T < D:
                    for c in range(FAST_CHUNK):
                        j = lane + (e0 + c) * T
                        hit[c] = False
                        if j < D:
                            u, s0, s1 = _rng(s0, s1)
                            tv[c] = trow[_u(j)]
                            if j == jr or u <= CR:  # CROSSOVER (gpubench.methods.de_gpu)
                                hit[c] = True
                                d1[c] = row1[_u(j)]
                                d2[c] = row2[_u(j)]
                                d3[c] = row3[_u(j)]
                    for c in range(FAST_CHUNK):
                        j = lane + (e0 + c) * T
                        if j < D:
                            v = tv[c]
                            if hit[c]:
                                v = d1[c] + F * (d2[c] - d3[c])
                                lj = lo[_u(j)]
                                hj = hi[_u(j)]
                                if v < lj or v > hj:
                                    if mode == 2:
                                        u, s0, s1 = _rng(s0, s1)
                                        v = lj + u * (hj - lj)
                                    else:
                                        v = _folded(v, lj, hj, mode)
                                if e0 + c < 63:
                                    crossed |= _dint64(1) << (e0 + c)
                            sh[_u(toff + j)] = v
                            if TERM_WINDOW == 1 and FAST_FOLD:
                                # a term of x_j alone: folded here, in the order j = lane, lane + T, ...
                                # that _group_value folds in (the same bits), with no second pass
                                term_fold(sh, toff, p, j, D, acc)
                    e0 += FAST_CHUNK
            _group_sync(xs)
            if TERM_WINDOW == 1 and FAST_FOLD:
                f = _group_outer(acc, sh, toff, D, T, lane, valid, xs, tid)
            else:  # a term of x_j and x_j+1 (or FAST_FOLD 0): after the group's whole trial is in shared memory
                f = _group_value(sh, toff, p, D, T, lane, valid, xs, tid)
            if valid:
                take = f <= old
                if lane == 0:
                    evals[_u(gi)] += 1
                    new = old
                    if take:
                        new = f
                    fits[_u(dst), _u(gi)] = new
                    same[_u(gi)] = 0 if take else 1
                    if use_target and new - fstar <= target:
                        stop[_u(run)] = gen
                if take or not was_same:
                    drow = pops[_u(dst), _u(gi)]
                    j = lane
                    e = 0
                    while j < D:
                        c = e >= 63 or ((crossed >> e) & 1) != 0
                        if take:
                            if c or not was_same:
                                drow[_u(j)] = sh[_u(toff + j)]
                        elif c:
                            drow[_u(j)] = trow[_u(j)]
                        else:
                            drow[_u(j)] = sh[_u(toff + j)]
                        j += T
                        e += 1
            _group_sync(xs)  # the group's trial read before its next member overwrites it
            group += _dcuda.gridDim.x
        grid.sync()
    states[t]["s0"] = s0
    states[t]["s1"] = s1
