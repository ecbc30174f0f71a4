"""What carries the percent imbalance of a Table 5 run (paper 003, Section 6.3): the branch work, or
stalls of the host's timing.  Read from a record's per-iteration block batch times
(``result.partition_ms``, ms, one column per block), so every figure of a Table 5 verdict's
explanation is traceable to the record it rests on (docs/verdicts.md, "Paper 003, Table 5: what
carries the imbalance"; the evidence behind the thresholds: docs/opf.md).

A block's batch is timed on the host (``time.perf_counter`` around TRON's launch and
``cuda.synchronize``, :func:`gpubench.methods.tron.solve_batch`), as the authors' processes timed
theirs (ExaTron.jl ``admm_rect_gpu_mpi``: ``CUDA.@timed`` around the branch kernel, scatter and
gather timed apart).  A *stall* is a batch more than :data:`STALL_MS` over its block's median batch
of the run.  The branch work moves a batch far less: on 2868rte's first 800 iterations (CPU twin at the
run's settings, its residuals within 1.2 % of the H200 run's; ``scripts/opf_branch_work.py``) a
stall-free batch took 0.29 ms + 0.066 ms per TRON step of its slowest branch, so 1 ms over the median is
some 15 more steps, and after iteration 10 only 3 of 4,740 block batches had such a branch, while the
H200 run had 189 stalls there, 172 of them in batches whose slowest branch took at most 2 steps
(docs/opf.md).  Whole numbers of the host scheduler's 4 ms tick (:data:`TICK_MS`, Linux at 250 Hz) in
the stalls' excesses mark a process waiting for its CPU, not the GPU computing.
"""
import math

import numpy as np

STALL_MS = 1.0     # over the block's median batch: some 15 more TRON steps of its slowest branch (module doc)
TICK_MS = 4.0      # the host scheduler's tick (Linux CONFIG_HZ=250)
_ON_TICK = 0.125   # an excess within 1/8 tick (0.5 ms) of a whole number of ticks; 1/4 of excesses by chance
_DRAWS = 20        # resampled runs behind the jitter's minimum


def nu(t):
    """Eq. (6.3) per iteration (row of ``t``): (t_max / t_mean - 1) x 100."""
    t = np.asarray(t, dtype=np.float64)
    return (t.max(axis=1) / t.mean(axis=1) - 1.0) * 100.0


def anatomy(partition_ms, stall_ms=STALL_MS, seed=0):
    """The figures of what carries a run's imbalance (a dict), or None where the batch times cannot
    tell (fewer than 2 blocks or 2 iterations, or no iteration without a stall)."""
    t = np.asarray(partition_ms, dtype=np.float64)
    if t.ndim != 2 or t.shape[0] < 2 or t.shape[1] < 2:
        return None
    v = nu(t)
    excess = t - np.median(t, axis=0)
    stalled = excess > stall_ms
    hit = stalled.any(axis=1)
    quiet = t[~hit]
    if len(quiet) < 2:
        return None
    ticks = (excess[stalled] / TICK_MS) % 1.0
    # the least imbalance the quiet batches' jitter alone gives over as many iterations as the run: each
    # block's batch drawn from its own stall-free batches, independently of the others
    rng = np.random.default_rng(seed)
    mins = [float(nu(np.stack([rng.choice(quiet[:, j], len(t)) for j in range(t.shape[1])], axis=1)).min())
            for _ in range(_DRAWS)]
    k = int(v.argmax())
    return {"iterations": len(t), "blocks": t.shape[1], "mean": float(v.mean()), "median": float(np.median(v)),
            "batch_median_ms": float(np.median(t)),
            "stalled_batches": float(stalled.mean()), "stalled_iterations": float(hit.mean()),
            "stalls_per_block": [int(n) for n in stalled.sum(axis=0)],
            "on_tick": float(np.mean((ticks <= _ON_TICK) | (ticks >= 1 - _ON_TICK))) if ticks.size else math.nan,
            "stall_share": float(v[hit].sum() / v.sum()) if v.sum() > 0 else 0.0,
            "quiet_mean": float(nu(quiet).mean()), "quiet_min": float(nu(quiet).min()),
            "jitter_mad_us": [float(1e3 * np.median(np.abs(c - np.median(c)))) for c in quiet.T],
            "jitter_min": (float(np.percentile(mins, 5)), float(np.percentile(mins, 95))),
            "max_at": k + 1, "max_stalled": bool(hit[k]), "max_batch_ms": float(t[k].max()),
            "max_block_median_ms": float(np.median(t[:, int(t[k].argmax())]))}


def explain(a, measured, published, rtol):
    """The reason of a Table 5 row that differs: a clause per figure outside ``rtol`` of the published
    (``measured``, ``published``: dicts of ``max``, ``min``, ``mean``), and whether every one is
    explained by what :func:`anatomy` found (``a``).  Returns (explained, reason).

    - mean over the tolerance: explained when the iterations without a stall have a mean within the
      tolerance or under it (the excess over the paper's is the stalls');
    - min off: explained when it lies within the 5-95 % range of the minimum the quiet batches'
      jitter gives (``jitter_min``);
    - max off: explained when its iteration holds a stall (one batch waited).
    """
    off = {k: abs(measured[k] - published[k]) > rtol * abs(published[k]) for k in ("max", "min", "mean")}
    if a is None or not any(off.values()):
        return False, ""
    clauses, ok = [], []
    if off["mean"]:
        below = "under the paper's by more than the tolerance"
        good = measured["mean"] > published["mean"] and a["quiet_mean"] <= (1 + rtol) * published["mean"]
        ok.append(good)
        clauses.append(
            f"mean {measured['mean']:.2f} vs {published['mean']:.2f}: {100 * a['stalled_batches']:.1f} % of the "
            f"{a['iterations']:,} x {a['blocks']} block batches stalled (over {STALL_MS:g} ms above their block's "
            f"median; the median batch {a['batch_median_ms']:.2f} ms), in {100 * a['stalled_iterations']:.1f} % of the "
            f"iterations, over every block ({', '.join(map(str, a['stalls_per_block']))}), "
            f"{100 * a['on_tick']:.0f} % of their excesses within {_ON_TICK * TICK_MS:g} ms of whole {TICK_MS:g} ms "
            f"scheduler ticks (25 % by chance): host waits, not branch work (the CPU twin's: docs/opf.md); those "
            f"iterations carry {100 * a['stall_share']:.0f} % of the summed nu, the others' mean is "
            f"{a['quiet_mean']:.2f} "
            f"({below if a['quiet_mean'] < (1 - rtol) * published['mean'] else 'within the tolerance'}; "
            f"the median nu of all {a['median']:.2f})")
    if off["min"]:
        lo, hi = a["jitter_min"]
        good = lo <= measured["min"] <= hi
        ok.append(good)
        clauses.append(
            f"min {measured['min']:.2f} vs {published['min']:.2f}: the stall-free batches' jitter (median absolute "
            f"deviation {min(a['jitter_mad_us']):.0f}-{max(a['jitter_mad_us']):.0f} us per block) alone gives a "
            f"least nu over {a['iterations']:,} iterations of {lo:.2f}-{hi:.2f} (5-95 %, blocks resampled apart)")
    if off["max"]:
        good = a["max_stalled"]
        ok.append(good)
        clauses.append(
            f"max {measured['max']:.2f} vs {published['max']:.2f}: iteration {a['max_at']:,}, "
            + (f"one batch stalled ({a['max_batch_ms']:.2f} ms, its block's median {a['max_block_median_ms']:.2f} ms)"
               if good else "no stall in it"))
    return all(ok), "; ".join(clauses)
