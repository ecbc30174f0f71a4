"""De-gpu's CUDA kernels (Qin et al. 2012, Section 4): see :mod:`gpubench.methods.de_gpu`.

Spliced after a function's generated forms (:func:`gpubench.kernels.splice`), whose
``term_fold``, ``outer_value``, ``agg_identity``, ``agg_combine``, ``COOP_SLOTS`` and
spike constants it calls; imported as itself (lint, PTX checks) it uses the stand-ins of
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
import numpy as _dnp

if __name__ == "gpubench.kernels.de_gpu":  # imported as itself: stand-in forms
    from gpubench.kernels.stand_in import (COOP_SLOTS, HAS_SPIKE, SPIKE_VALUE, agg_combine, agg_identity,
                                           in_spike_at, outer_value, term_fold)


@_dcuda.jit(device=True)
def _index(states, t, n):
    r = int(_uniform(states, t) * n)
    if r >= n:
        r = n - 1
    return r


@_dcuda.jit(device=True)
def _indices(states, t, i, NP, D):
    r1 = _index(states, t, NP)
    while r1 == i:
        r1 = _index(states, t, NP)
    r2 = _index(states, t, NP)
    while r2 == i or r2 == r1:
        r2 = _index(states, t, NP)
    r3 = _index(states, t, NP)
    while r3 == i or r3 == r1 or r3 == r2:
        r3 = _index(states, t, NP)
    return r1, r2, r3, _index(states, t, D)


@_dcuda.jit(device=True)
def _folded(v, lo, hi, mode):
    """A mutant element outside [lo, hi] brought back: clipped (mode 0) or reflected (mode 1);
    reinit (mode 2) needs a draw, which each kernel makes from its own generator."""
    if mode == 1:
        if v < lo:
            v = 2.0 * lo - v
        else:
            v = 2.0 * hi - v
    return min(max(v, lo), hi)


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
        if _dcuda.threadIdx.x == 0:
            halt[0] = 1
            for r in range(r0, r1):
                if stop[r] < 0 or stop[r] >= gen:
                    halt[0] = 0
        _dcuda.syncthreads()
        if halt[0] == 1:
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
_TWO_M53 = 1.0 / 9007199254740992.0
CHUNK = 4  # elements of a lane whose loads are issued together


@_dcuda.jit(device=True)
def _rng(s0, s1):
    """xoroshiro128+ as numba.cuda.random's, with the state in registers: (u in [0, 1), s0, s1)."""
    r = s0 + s1
    s1 = s1 ^ s0
    n0 = _duint64((s0 << _duint32(55)) | (s0 >> _duint32(9))) ^ s1 ^ (s1 << _duint32(14))
    n1 = _duint64((s1 << _duint32(36)) | (s1 >> _duint32(28)))
    return _df64(r >> _duint32(11)) * _TWO_M53, n0, n1


@_dcuda.jit(device=True)
def _draw(u, n):
    k = int(u * n)
    if k >= n:
        k = n - 1
    return k


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
    if _SIM:
        _dcuda.syncthreads()
        xs[tid] = v
        _dcuda.syncthreads()
        w = xs[tid - tid % T]
        _dcuda.syncthreads()
        return w
    return _dcuda.shfl_sync(_FULL, v, (tid & 31) - (tid & 31) % T)


@_dcuda.jit(cache=True)
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
    tv = _dcuda.local.array(CHUNK, _df64)
    d1 = _dcuda.local.array(CHUNK, _df64)
    d2 = _dcuda.local.array(CHUNK, _df64)
    d3 = _dcuda.local.array(CHUNK, _df64)
    hit = _dcuda.local.array(CHUNK, _dbool)
    for gen in range(g0, g1):
        # Leave once every run stopped in an earlier generation (stops written before the last
        # grid sync, so every block reaches the same verdict).
        if tid == 0:
            halt[0] = 1
            for r in range(R):
                if stop[r] < 0 or stop[r] >= gen:
                    halt[0] = 0
        _dcuda.syncthreads()
        if halt[0] == 1:
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
                sg = stop[run]
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
            if valid:
                was_same = same[gi] != 0
                old = fits[src, gi]  # loaded now, used after the evaluation
                # CHUNK elements a lane at a time: their crossover draws and all their loads
                # (target and donors) are issued before any is used, so they are in flight together
                e0 = 0
                while lane + e0 * T < D:
                    for c in range(CHUNK):
                        j = lane + (e0 + c) * T
                        hit[c] = False
                        if j < D:
                            u, s0, s1 = _rng(s0, s1)
                            tv[c] = pops[src, gi, j]
                            if j == jr or u <= CR:  # CROSSOVER (gpubench.methods.de_gpu)
                                hit[c] = True
                                d1[c] = pops[src, r1, j]
                                d2[c] = pops[src, r2, j]
                                d3[c] = pops[src, r3, j]
                    for c in range(CHUNK):
                        j = lane + (e0 + c) * T
                        if j < D:
                            v = tv[c]
                            if hit[c]:
                                v = d1[c] + F * (d2[c] - d3[c])
                                if v < lo[j] or v > hi[j]:
                                    if mode == 2:
                                        u, s0, s1 = _rng(s0, s1)
                                        v = lo[j] + u * (hi[j] - lo[j])
                                    else:
                                        v = _folded(v, lo[j], hi[j], mode)
                                if e0 + c < 63:
                                    crossed |= _dint64(1) << (e0 + c)
                            sh[toff + j] = v
                    e0 += CHUNK
            _group_sync(xs)
            f = _group_value(sh, toff, p, D, T, lane, valid, xs, tid)
            if valid:
                take = f <= old
                if lane == 0:
                    evals[gi] += 1
                    new = old
                    if take:
                        new = f
                    fits[dst, gi] = new
                    same[gi] = 0 if take else 1
                    if use_target and new - fstar <= target:
                        stop[run] = gen
                if take or not was_same:
                    j = lane
                    e = 0
                    while j < D:
                        c = e >= 63 or ((crossed >> e) & 1) != 0
                        if take:
                            if c or not was_same:
                                pops[dst, gi, j] = sh[toff + j]
                        elif c:
                            pops[dst, gi, j] = pops[src, gi, j]
                        else:
                            pops[dst, gi, j] = sh[toff + j]
                        j += T
                        e += 1
            _group_sync(xs)  # the group's trial read before its next member overwrites it
            group += _dcuda.gridDim.x
        grid.sync()
    states[t]["s0"] = s0
    states[t]["s1"] = s1


# ---------------------------------------------------------------- the streaming kernel (large populations)
# Built for populations far larger than L2, where a generation is bound by the bytes it moves
# (docs/peers.md, "de-gpu at large populations").  A member is a group of T lanes as in de_fast
# (the same shuffles, the same evaluation of the function's forms), but:
# * its random numbers are counter-based (splitmix64 of (seed, generation, member, counter)),
#   so no random state is read or written and every lane of a group draws the same r1, r2, r3
#   and j_rand itself (no broadcast, no rejection loop: distinct indices by skipping);
# * each member owns two rows (pops[0, gi] and pops[1, gi]); ``slots[gi]`` says which holds its
#   current vector and in which generation it last changed, so a winning trial is written once,
#   to the member's other row, and a losing one writes nothing (no copy of the target).
_M1 = _dnp.uint64(0xBF58476D1CE4E5B9)
_M2 = _dnp.uint64(0x94D049BB133111EB)
_GAMMA = _dnp.uint64(0x9E3779B97F4A7C15)
_U11 = _dnp.uint64(11)
_U27 = _dnp.uint64(27)
_U30 = _dnp.uint64(30)
_U31 = _dnp.uint64(31)
# counters of a member's stream in a generation: 0-3 its indices, 4 + j the crossover draw of
# element j, 4 + D + j that element's reinit draw
STREAM_REGISTERS = 0  # a cap on de_stream's registers a thread (0: the compiler's choice)
# (the simulator's jit takes no register cap)
_stream_jit = (_dcuda.jit(cache=True, max_registers=STREAM_REGISTERS) if STREAM_REGISTERS and not _SIM
               else _dcuda.jit(cache=True))


@_dcuda.jit(device=True)
def _mix(z):
    """splitmix64's output function (Steele, Lea & Flood 2014)."""
    z = (z ^ (z >> _U30)) * _M1
    z = (z ^ (z >> _U27)) * _M2
    return z ^ (z >> _U31)


@_dcuda.jit(device=True)
def _member_key(skey, gen, gi):
    """The key of member gi's stream in generation gen."""
    return _mix(_mix(skey + _duint64(gen) * _GAMMA) + _duint64(gi) * _GAMMA)


@_dcuda.jit(device=True)
def _cu(key, c):
    """Number c of the stream ``key``: a double in [0, 1) (53 bits)."""
    return _df64(_mix(key + _duint64(c + 1) * _GAMMA) >> _U11) * _TWO_M53


@_dcuda.jit(device=True)
def _distinct(key, i, NP, D):
    """r1, r2, r3 uniform over the ordered triples of distinct members other than i (each drawn
    among the members left and shifted past the excluded ones in ascending order), and j_rand."""
    r1 = _draw(_cu(key, 0), NP - 1)
    if r1 >= i:  # DONOR SKIPS TARGET
        r1 += 1
    a = min(i, r1)
    b = max(i, r1)
    r2 = _draw(_cu(key, 1), NP - 2)
    if r2 >= a:
        r2 += 1
    if r2 >= b:
        r2 += 1
    e1 = min(a, r2)
    e3 = max(b, r2)
    e2 = a + b + r2 - e1 - e3
    r3 = _draw(_cu(key, 2), NP - 3)
    if r3 >= e1:
        r3 += 1
    if r3 >= e2:
        r3 += 1
    if r3 >= e3:
        r3 += 1
    return r1, r2, r3, _draw(_cu(key, 3), D)


@_dcuda.jit(device=True)
def _row(slots, j, gen):
    """Which of member j's two rows holds its vector as it was when generation gen began."""
    w = slots[j]
    b = w & 1
    if (w >> 1) == gen:  # replaced during this generation: its former vector is in the other row
        b = 1 - b
    return b


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


@_dcuda.jit(cache=True)
def de_stream_init(pops, fits, slots, lo, hi, p, skey, stop, evals, NP, R, D, m, T, fstar, target, use_target):
    """The initial population (uniform, counter-based stream of generation 0), evaluated, in row 0
    of every member; blocks stride over the groups of m members."""
    sh = _dcuda.shared.array(0, _df64)
    xs = _dcuda.shared.array(_XCHG, _df64)
    tid = _dcuda.threadIdx.x
    slot = tid // T
    lane = tid - slot * T
    toff = slot * D
    total = R * NP
    ngroups = (total + m - 1) // m
    group = _dcuda.blockIdx.x
    while group < ngroups:
        gi = group * m + slot
        valid = slot < m and gi < total
        if valid:
            key = _member_key(skey, 0, gi)
            j = lane
            while j < D:
                v = lo[j] + _cu(key, 4 + j) * (hi[j] - lo[j])
                sh[toff + j] = v
                pops[0, gi, j] = v
                j += T
        _group_sync(xs)
        f = _group_value(sh, toff, p, D, T, lane, valid, xs, tid)
        if valid and lane == 0:
            fits[gi] = f
            evals[gi] = 1
            slots[gi] = 0
            if use_target and f - fstar <= target:
                stop[gi // NP] = 0
        _group_sync(xs)
        group += _dcuda.gridDim.x


@_stream_jit
def de_stream(pf, fits, slots, wins, lo, hi, p, skey, stop, evals, g0, g1, F, CR, mode, NP, R, D, m, T,
              fstar, target, use_target):
    """Generations g0 .. g1-1 of every run in one cooperative launch (grid sync between them).

    Per member and generation: its indices from its counter-based stream; the target and the
    three donors read from the rows ``slots`` names (donor elements only where crossover takes
    them, CHUNK elements a lane in flight together); the trial in shared memory, evaluated by the
    group; a winner written once to the member's other row, with its value, its slot word and
    its count in ``wins``; a loser writes nothing.  ``fits`` holds one value per member (only
    the member itself reads it)."""
    sh = _dcuda.shared.array(0, _df64)
    xs = _dcuda.shared.array(_XCHG, _df64)
    halt = _dcuda.shared.array(1, _dint32)
    grid = _dcuda.cg.this_grid()
    tid = _dcuda.threadIdx.x
    slot = tid // T
    lane = tid - slot * T
    toff = slot * D
    total = R * NP
    ngroups = (total + m - 1) // m
    tv = _dcuda.local.array(CHUNK, _df64)
    d1 = _dcuda.local.array(CHUNK, _df64)
    d2 = _dcuda.local.array(CHUNK, _df64)
    d3 = _dcuda.local.array(CHUNK, _df64)
    hit = _dcuda.local.array(CHUNK, _dbool)
    for gen in range(g0, g1):
        if tid == 0:
            halt[0] = 1
            for r in range(R):
                if stop[r] < 0 or stop[r] >= gen:
                    halt[0] = 0
        _dcuda.syncthreads()
        if halt[0] == 1:
            break
        group = _dcuda.blockIdx.x
        while group < ngroups:
            gi = group * m + slot
            valid = slot < m and gi < total
            run = 0
            if valid:
                run = gi // NP
                sg = stop[run]
                if sg >= 0 and sg < gen:
                    valid = False
            old = 0.0
            bi = 0
            if valid:
                i = gi - run * NP
                key = _member_key(skey, gen, gi)
                k1, k2, k3, jr = _distinct(key, i, NP, D)
                base = run * NP
                r1 = base + k1
                r2 = base + k2
                r3 = base + k3
                bi = _row(slots, gi, gen)
                # element offsets of the four rows in the flat population (two rows a member)
                ot = (bi * total + gi) * D
                o1 = (_row(slots, r1, gen) * total + r1) * D
                o2 = (_row(slots, r2, gen) * total + r2) * D
                o3 = (_row(slots, r3, gen) * total + r3) * D
                old = fits[gi]
                e0 = 0
                while lane + e0 * T < D:
                    for c in range(CHUNK):
                        j = lane + (e0 + c) * T
                        hit[c] = False
                        if j < D:
                            u = _cu(key, 4 + j)
                            tv[c] = pf[ot + j]
                            if j == jr or u <= CR:  # CROSSOVER (gpubench.methods.de_gpu)
                                hit[c] = True
                                d1[c] = pf[o1 + j]
                                d2[c] = pf[o2 + j]
                                d3[c] = pf[o3 + j]
                    for c in range(CHUNK):
                        j = lane + (e0 + c) * T
                        if j < D:
                            v = tv[c]
                            if hit[c]:
                                v = d1[c] + F * (d2[c] - d3[c])
                                if v < lo[j] or v > hi[j]:
                                    if mode == 2:
                                        v = lo[j] + _cu(key, 4 + D + j) * (hi[j] - lo[j])
                                    else:
                                        v = _folded(v, lo[j], hi[j], mode)
                            sh[toff + j] = v
                    e0 += CHUNK
            _group_sync(xs)
            f = _group_value(sh, toff, p, D, T, lane, valid, xs, tid)
            if valid:
                take = f <= old
                if take:
                    ow = ((1 - bi) * total + gi) * D
                    j = lane
                    while j < D:
                        pf[ow + j] = sh[toff + j]
                        j += T
                if lane == 0:
                    evals[gi] += 1
                    new = old
                    if take:
                        new = f
                        fits[gi] = f
                        slots[gi] = (_dint64(gen) << 1) | (1 - bi)
                        wins[gi] += 1
                    if use_target and new - fstar <= target:
                        stop[run] = gen
            _group_sync(xs)  # the group's trial read before its next member overwrites it
            group += _dcuda.gridDim.x
        grid.sync()
