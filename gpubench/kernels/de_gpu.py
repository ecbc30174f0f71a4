"""De-gpu's CUDA kernels (Qin et al. 2012, Section 4): see :mod:`gpubench.methods.de_gpu`.

Spliced after a function's generated forms (:func:`gpubench.kernels.splice`), whose
``term_fold``, ``outer_value``, ``agg_identity``, ``agg_combine``, ``COOP_SLOTS`` and
spike constants it calls; imported as itself (lint, PTX checks) it uses the stand-ins of
:mod:`gpubench.kernels.stand_in`.
"""
from numba import cuda as _dcuda
from numba import float64 as _df64
from numba import int32 as _dint32
from numba.cuda.random import xoroshiro128p_uniform_float64 as _uniform

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
def _bounded(v, lo, hi, mode, states, t):
    if v < lo or v > hi:
        if mode == 0:
            v = min(max(v, lo), hi)
        elif mode == 1:
            if v < lo:
                v = 2.0 * lo - v
            else:
                v = 2.0 * hi - v
            v = min(max(v, lo), hi)
        else:
            v = lo + _uniform(states, t) * (hi - lo)
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


@_dcuda.jit(cache=True)
def de_fast(pops, fits, lo, hi, p, states, idx, stop, evals, g0, g1, F, CR, mode, NP, R, D, m, T,
            fstar, target, use_target):
    """Generations g0 .. g1-1 of every run in one cooperative launch (grid sync between them)."""
    sh = _dcuda.shared.array(0, _df64)
    grid = _dcuda.cg.this_grid()
    t = _dcuda.blockIdx.x * _dcuda.blockDim.x + _dcuda.threadIdx.x
    ngroups = (R * NP + m - 1) // m
    halt = _dcuda.shared.array(1, _dint32)
    for gen in range(g0, g1):
        # Leave once every run stopped in an earlier generation.  Those stops were written
        # before the last grid sync, so every block reaches the same verdict (a stop written
        # during this generation is gen, not < gen, and changes nobody's verdict).
        if _dcuda.threadIdx.x == 0:
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
            _member_step(pops, fits, src, dst, group * m, lo, hi, p, states, t, idx, False, stop, evals,
                         gen, F, CR, mode, NP, R, D, m, T, fstar, target, use_target, sh)
            group += _dcuda.gridDim.x
        grid.sync()
