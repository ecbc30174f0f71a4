"""De-gpu's CPU twins (numba): see :mod:`gpubench.methods.de_gpu`.

Spliced after a function's generated forms (:func:`gpubench.kernels.splice`), whose
``point`` it calls, and after :mod:`.de_random` (the draws and folds it shares with the CUDA
kernels); imported as itself (lint) it uses the stand-in of
:mod:`gpubench.kernels.stand_in`.
"""
import numba as _dnb
import numpy as _dnp

if __name__ == "gpubench.kernels.de_cpu":  # imported as itself: a stand-in form, the shared draws
    from gpubench.kernels.stand_in import cpu_point as point
    from gpubench.kernels.de_random import _TWO_M53, _U11, _cu, _distinct, _folded, _indices, _member_key

_U16 = _dnp.uint64(16)
_U24 = _dnp.uint64(24)
_U37 = _dnp.uint64(37)
_U64 = _dnp.uint64(64)


@_dnb.njit(cache=True)
def _rotl(x, k):
    return (x << k) | (x >> (_U64 - k))


@_dnb.njit(cache=True)
def _uniform(s, r):
    """xoroshiro128+ (Blackman & Vigna), the generator numba-cuda uses: a double in [0, 1)."""
    s0 = s[r, 0]
    s1 = s[r, 1]
    out = s0 + s1
    s1 ^= s0
    s[r, 0] = _rotl(s0, _U24) ^ s1 ^ (s1 << _U16)
    s[r, 1] = _rotl(s1, _U37)
    return float(out >> _U11) * _TWO_M53


@_dnb.njit(cache=True)
def _replace(pops, fits, src, dst, gi, trial, f, D):
    """Synchronous replacement into generation ``dst``: the trial (value ``f``) where f <= f(target),
    else the target; whether the trial won."""
    old = fits[src, gi]
    if f <= old:
        fits[dst, gi] = f
        for j in range(D):
            pops[dst, gi, j] = trial[j]
        return True
    fits[dst, gi] = old
    for j in range(D):
        pops[dst, gi, j] = pops[src, gi, j]
    return False


@_dnb.njit(cache=True, error_model="numpy")
def _cpu_member(pops, fits, src, dst, gi, base, i, NP, D, lo, hi, p, s, r, F, CR, mode, trial, evals):
    r1, r2, r3, jr = _indices(s, r, i, NP, D)
    r1 += base
    r2 += base
    r3 += base
    for j in range(D):
        v = pops[src, gi, j]
        u = _uniform(s, r)
        if j == jr or u <= CR:  # CROSSOVER (gpubench.methods.de_gpu)
            v = pops[src, r1, j] + F * (pops[src, r2, j] - pops[src, r3, j])
            if v < lo[j] or v > hi[j]:
                if mode == 2:
                    v = lo[j] + _uniform(s, r) * (hi[j] - lo[j])
                else:
                    v = _folded(v, lo[j], hi[j], mode)
        trial[j] = v
    _replace(pops, fits, src, dst, gi, trial, point(trial, p), D)
    evals[gi] += 1


@_dnb.njit(cache=True, error_model="numpy")
def cpu_init(pops, fits, lo, hi, p, s, per_member, NP, R, D, stop, evals, fstar, target, use_target):
    for gi in range(R * NP):
        r = gi if per_member else gi // NP
        for j in range(D):
            pops[0, gi, j] = lo[j] + _uniform(s, r) * (hi[j] - lo[j])
        fits[0, gi] = point(pops[0, gi], p)
        evals[gi] = 1
        if use_target and fits[0, gi] - fstar <= target:
            stop[gi // NP] = 0


@_dnb.njit(cache=True, error_model="numpy")
def _check_stop(fits, dst, run, NP, stop, gen, fstar, target, use_target):
    if use_target and stop[run] < 0:
        best = fits[dst, run * NP]
        for i in range(1, NP):
            best = min(best, fits[dst, run * NP + i])
        if best - fstar <= target:
            stop[run] = gen


@_dnb.njit(cache=True, error_model="numpy")
def cpu_sde(pops, fits, lo, hi, p, s, stop, evals, g0, g1, F, CR, mode, NP, R, D, fstar, target, use_target):
    """The paper's sDE: runs one after another, members in order, one random stream per run."""
    trial = _dnp.empty(D)
    for run in range(R):
        base = run * NP
        for gen in range(g0, g1):
            if stop[run] >= 0:
                break
            src = (gen - 1) % 2
            dst = gen % 2
            for i in range(NP):
                _cpu_member(pops, fits, src, dst, base + i, base, i, NP, D, lo, hi, p, s, run, F, CR, mode,
                            trial, evals)
            _check_stop(fits, dst, run, NP, stop, gen, fstar, target, use_target)


@_dnb.njit(cache=True, error_model="numpy", parallel=True)
def cpu_parallel(pops, fits, lo, hi, p, s, stop, evals, g0, g1, F, CR, mode, NP, R, D, fstar, target,
                 use_target, trials):
    """The same generations with the members of all runs in parallel, one random stream per member."""
    for gen in range(g0, g1):
        src = (gen - 1) % 2
        dst = gen % 2
        for gi in _dnb.prange(R * NP):
            run = gi // NP
            if stop[run] < 0:
                _cpu_member(pops, fits, src, dst, gi, run * NP, gi - run * NP, NP, D, lo, hi, p, s, gi, F, CR,
                            mode, trials[gi], evals)
        for run in range(R):
            _check_stop(fits, dst, run, NP, stop, gen, fstar, target, use_target)


# ---------------------------------------------------------------- the streaming kernel's twin
# The same counter-based streams as de_stream (de_random: splitmix64 of seed, generation, member,
# counter), so the same seed gives the same populations (up to the order of the function's sum).


@_dnb.njit(cache=True, error_model="numpy", parallel=True)
def cpu_stream_init(pops, fits, lo, hi, p, skey, NP, R, D, stop, evals, fstar, target, use_target):
    for gi in _dnb.prange(R * NP):
        key = _member_key(skey, 0, gi)
        for j in range(D):
            pops[0, gi, j] = lo[j] + _cu(key, 4 + j) * (hi[j] - lo[j])
        fits[0, gi] = point(pops[0, gi], p)
        evals[gi] = 1
    for gi in range(R * NP):
        if use_target and fits[0, gi] - fstar <= target:
            stop[gi // NP] = 0


@_dnb.njit(cache=True, error_model="numpy", parallel=True)
def cpu_stream(pops, fits, lo, hi, p, skey, stop, evals, wins, g0, g1, F, CR, mode, NP, R, D, fstar, target,
               use_target, trials):
    """de_stream's generations: members in parallel, each drawing from its counter-based stream."""
    for gen in range(g0, g1):
        src = (gen - 1) % 2
        dst = gen % 2
        for gi in _dnb.prange(R * NP):
            run = gi // NP
            if stop[run] >= 0:
                continue
            base = run * NP
            key = _member_key(skey, gen, gi)
            r1, r2, r3, jr = _distinct(key, gi - base, NP, D)
            r1 += base
            r2 += base
            r3 += base
            trial = trials[gi]
            for j in range(D):
                v = pops[src, gi, j]
                u = _cu(key, 4 + j)
                if j == jr or u <= CR:  # CROSSOVER (gpubench.methods.de_gpu)
                    v = pops[src, r1, j] + F * (pops[src, r2, j] - pops[src, r3, j])
                    if v < lo[j] or v > hi[j]:
                        if mode == 2:
                            v = lo[j] + _cu(key, 4 + D + j) * (hi[j] - lo[j])
                        else:
                            v = _folded(v, lo[j], hi[j], mode)
                trial[j] = v
            if _replace(pops, fits, src, dst, gi, trial, point(trial, p), D):
                wins[gi] += 1
            evals[gi] += 1
        for run in range(R):
            _check_stop(fits, dst, run, NP, stop, gen, fstar, target, use_target)
