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
* two population buffers by the generation's parity, every member's vector in the source buffer
  when a generation begins: a winning trial is written once, to the other buffer, and a losing
  one writes nothing unless the other buffer is stale (the member won in the generation before:
  ``last[gi]``, read by the member alone, says when it last won), so donors are read straight
  from the source buffer, without a per-donor look-up;
* software-pipelined: a warp issues the loads of its next chunk of elements (the next member's
  first chunk once a member's trial is built) before it evaluates the trial it has, so its loads
  are in flight while it computes (docs/peers.md, "de-gpu at large populations").
"""
from numba import boolean as _dbool
from numba import cuda as _dcuda
from numba import float64 as _df64
from numba import int32 as _dint32
from numba import int64 as _dint64

if __name__ == "gpubench.kernels.de_stream":  # imported as itself: the shared pieces
    from gpubench.kernels.de_random import _cu, _distinct, _folded, _member_key
    from gpubench.kernels.de_gpu import (CHUNK, _SIM, _XCHG, _all_stopped, _group_outer, _group_sync,
                                          _group_value, _u)
    from gpubench.kernels.stand_in import COOP_SLOTS, agg_identity, term_fold

# A cap on de_stream's registers a thread (0: the compiler's choice).  168 is the most that keeps
# 12 warps an SM (three 256-register warp units in each SM sub-partition's 16,384): a function
# whose terms need more registers spills a little rather than dropping to 8 warps.  ptxas 13 for
# sm_90 gives the pipelined kernel on shifted Rastrigin 162 registers, capped or not (before its
# unsigned indices: 167 uncapped, 156 under the cap; benchmarks/profiling/de_sass_counts.py).
STREAM_REGISTERS = 168  # (the de-generation procedure compiles others to compare)
# (the simulator's jit takes no register cap)
_stream_jit = (_dcuda.jit(cache=True, max_registers=STREAM_REGISTERS) if STREAM_REGISTERS and not _SIM
               else _dcuda.jit(cache=True))


@_dcuda.jit(cache=True)
def de_stream_init(pops, fits, last, lo, hi, p, skey, stop, evals, NP, R, D, m, T, fstar, target, use_target):
    """The initial population (uniform, counter-based stream of generation 0), evaluated, in both
    buffers (so no member's other buffer is stale); blocks stride over the groups of m members."""
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
                pops[1, gi, j] = v
                j += T
        _group_sync(xs)
        f = _group_value(sh, toff, p, D, T, lane, valid, xs, tid)
        if valid and lane == 0:
            fits[gi] = f
            evals[gi] = 1
            last[gi] = -1
            if use_target and f - fstar <= target:
                stop[gi // NP] = 0
        _group_sync(xs)
        group += _dcuda.gridDim.x


@_dcuda.jit(device=True)
def _issue(pf, ot, o1, o2, o3, key, jr, lane, e0, T, D, CR, tv, d1, d2, d3, hit):
    """The loads of one chunk of a member's elements (lane + (e0 + c) T, c < CHUNK): its crossover
    draws, the target's elements and, where crossover takes them, the three donors' (all issued
    before any is used, so they are in flight together)."""
    for c in range(CHUNK):
        j = lane + (e0 + c) * T
        hit[c] = False
        if j < D:
            u = _cu(key, 4 + j)
            tv[c] = pf[_u(ot + j)]
            if j == jr or u <= CR:  # CROSSOVER (gpubench.methods.de_gpu)
                hit[c] = True
                d1[c] = pf[_u(o1 + j)]
                d2[c] = pf[_u(o2 + j)]
                d3[c] = pf[_u(o3 + j)]


@_stream_jit
def de_stream(pf, fits, last, wins, lo, hi, p, skey, stop, evals, g0, g1, F, CR, mode, NP, R, D, m, T,
              fstar, target, use_target):
    """Generations g0 .. g1-1 of every run in one cooperative launch (grid sync between them).

    ``pf`` is the two buffers flat (element offsets): generation g reads buffer (g - 1) % 2 and
    writes buffer g % 2.  Per member: its indices from its counter-based stream; the target and,
    where crossover takes them, the three donors read from the source buffer (CHUNK elements a
    lane in flight together, the next chunk's loads issued before the current trial is
    evaluated); the trial in shared memory, evaluated by the group; a winner written once to the
    other buffer, with its value, ``last`` and its count in ``wins``; a loser writes nothing,
    unless it won in the generation before (then the other buffer holds its former vector, and
    its row is copied there, counted in the high 32 bits of ``wins``).  ``fits`` holds one value
    per member (only the member itself reads it).  A stopped run's members are read and evaluated
    (their loads and terms do not wait for the stop word) but not selected or written."""
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
    nchunks = (-(-D // T) + CHUNK - 1) // CHUNK   # chunks of CHUNK elements a lane, per member
    stride = _dcuda.gridDim.x
    # a slot's next member is step members on: its run and index in the run follow by adding the
    # quotient and remainder of step once, not by a 64-bit division a member (the same integers)
    step = stride * m
    qstep = step // NP
    rstep = step - qstep * NP
    tv = _dcuda.local.array(CHUNK, _df64)
    d1 = _dcuda.local.array(CHUNK, _df64)
    d2 = _dcuda.local.array(CHUNK, _df64)
    d3 = _dcuda.local.array(CHUNK, _df64)
    hit = _dcuda.local.array(CHUNK, _dbool)
    acc = _dcuda.local.array(COOP_SLOTS, _df64)
    for gen in range(g0, g1):
        if _all_stopped(stop, 0, R, gen, halt):
            break
        sbase = ((gen - 1) % 2) * total
        dbase = (gen % 2) * total
        # the item in flight: chunk e of the member of this slot in group `group`
        group = _dcuda.blockIdx.x
        e = 0
        gi = group * m + slot
        inside = slot < m and gi < total
        key = _member_key(skey, gen, gi)
        run = gi // NP
        i = gi - run * NP
        k1, k2, k3, jr = _distinct(key, i, NP, D)
        ot = (sbase + gi) * D
        o1 = (sbase + run * NP + k1) * D
        o2 = (sbase + run * NP + k2) * D
        o3 = (sbase + run * NP + k3) * D
        if inside:
            _issue(pf, ot, o1, o2, o3, key, jr, lane, 0, T, D, CR, tv, d1, d2, d3, hit)
        ngi, nkey, nrun, ni, n1, n2, n3, njr = gi, key, run, i, k1, k2, k3, jr
        while group < ngroups:
            if e == 0:   # the next member's key and indices, drawn while this member's loads are in flight
                ngi = gi + step   # (group + stride) m + slot
                nkey = _member_key(skey, gen, ngi)
                nrun += qstep     # ngi // NP and ngi - nrun NP, from the last member's
                ni += rstep
                if ni >= NP:
                    ni -= NP
                    nrun += 1
                n1, n2, n3, njr = _distinct(nkey, ni, NP, D)
            if inside:
                # consume chunk e: the trial's elements, into shared memory
                for c in range(CHUNK):
                    j = lane + (e * CHUNK + c) * T
                    if j < D:
                        v = tv[c]
                        if hit[c]:
                            v = d1[c] + F * (d2[c] - d3[c])
                            lj = lo[_u(j)]
                            hj = hi[_u(j)]
                            if v < lj or v > hj:
                                if mode == 2:
                                    v = lj + _cu(key, 4 + D + j) * (hj - lj)
                                else:
                                    v = _folded(v, lj, hj, mode)
                        sh[_u(toff + j)] = v
            e += 1
            if e < nchunks:   # the member's next chunk
                if inside:
                    _issue(pf, ot, o1, o2, o3, key, jr, lane, e * CHUNK, T, D, CR, tv, d1, d2, d3, hit)
                continue
            # the trial is built: issue the next member's first chunk, then evaluate and select
            cgi = gi
            crun = run
            cot = ot
            cin = inside     # evaluated (loads and terms do not wait for the run's stop word)
            valid = inside   # and selected: the run still going
            old = 0.0
            lw = _dint64(-2)
            if inside:
                sg = stop[_u(crun)]
                valid = sg < 0 or sg >= gen
                old = fits[_u(cgi)]
                lw = last[_u(cgi)]
            _group_sync(xs)
            group += stride
            e = 0
            gi = ngi
            inside = group < ngroups and slot < m and gi < total
            if inside:
                key = nkey
                run = nrun
                jr = njr
                ot = (sbase + gi) * D
                o1 = (sbase + run * NP + n1) * D
                o2 = (sbase + run * NP + n2) * D
                o3 = (sbase + run * NP + n3) * D
                _issue(pf, ot, o1, o2, o3, key, jr, lane, 0, T, D, CR, tv, d1, d2, d3, hit)
            # the trial's terms, CHUNK a lane unrolled (each lane in the order j = lane, lane + T, ...)
            for a in range(COOP_SLOTS):
                acc[a] = agg_identity(a)
            if cin:
                e0 = 0
                while lane + e0 * T < D:
                    for c in range(CHUNK):
                        j = lane + (e0 + c) * T
                        if j < D:
                            term_fold(sh, toff, p, j, D, acc)
                    e0 += CHUNK
            f = _group_outer(acc, sh, toff, D, T, lane, cin, xs, tid)
            if valid:
                take = f <= old
                stale = lw == gen - 1   # the other buffer holds the vector before last generation's win
                if take or stale:
                    ow = (dbase + cgi) * D
                    j = lane
                    while j < D:
                        pf[_u(ow + j)] = sh[_u(toff + j)] if take else pf[_u(cot + j)]
                        j += T
                if lane == 0:
                    ci = _u(cgi)
                    evals[ci] += 1
                    new = old
                    if take:
                        new = f
                        fits[ci] = f
                        last[ci] = gen
                        wins[ci] += 1
                    elif stale:
                        wins[ci] += _dint64(1) << 32   # a copy, counted in the high word
                    if use_target and new - fstar <= target:
                        stop[_u(crun)] = gen
            _group_sync(xs)  # the group's trial read before its next member overwrites it
        grid.sync()
