"""De-gpu's streaming kernel (large populations, ``mode="stream"``): see :mod:`gpubench.methods.de_gpu`.

Spliced after a function's generated forms, :mod:`.de_random` and :mod:`.de_gpu` (whose group
shuffles and evaluation it shares: :func:`gpubench.methods.de_gpu._module`); imported as itself
(lint, PTX checks) it takes the stand-ins of :mod:`gpubench.kernels.stand_in` and those modules.

Built for populations far larger than L2, where a generation is bound by the bytes it moves
(docs/peers.md, "de-gpu at large populations").  A member is a group of T lanes as in de_fast
(the same shuffles, the same evaluation of the function's forms), but:
* its random numbers are counter-based (splitmix64 of (seed, generation, member, counter)),
  so no random state is read or written and every lane of a group draws the same r1, r2, r3
  and j_rand itself (no broadcast, no rejection loop: distinct indices by skipping);
* each member owns two rows (pops[0, gi] and pops[1, gi]); ``slots[gi]`` says which holds its
  current vector and in which generation it last changed, so a winning trial is written once,
  to the member's other row, and a losing one writes nothing (no copy of the target).
"""
from numba import boolean as _dbool
from numba import cuda as _dcuda
from numba import float64 as _df64
from numba import int32 as _dint32
from numba import int64 as _dint64

if __name__ == "gpubench.kernels.de_stream":  # imported as itself: the shared pieces
    from gpubench.kernels.de_random import _cu, _distinct, _folded, _member_key
    from gpubench.kernels.de_gpu import CHUNK, _SIM, _XCHG, _group_sync, _group_value

STREAM_REGISTERS = 0  # a cap on de_stream's registers a thread (0: the compiler's choice)
# (the simulator's jit takes no register cap)
_stream_jit = (_dcuda.jit(cache=True, max_registers=STREAM_REGISTERS) if STREAM_REGISTERS and not _SIM
               else _dcuda.jit(cache=True))


@_dcuda.jit(device=True)
def _row(slots, j, gen):
    """Which of member j's two rows holds its vector as it was when generation gen began."""
    w = slots[j]
    b = w & 1
    if (w >> 1) == gen:  # replaced during this generation: its former vector is in the other row
        b = 1 - b
    return b


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
