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
the stalls' excesses mark a process waiting for its CPU, not the GPU computing.  On the run alone on
its host (2868rte at 1f9d28e, records at ad60140) the line is 0.223 ms + 60 us per step over the whole
run (the twin's steps stored in ``results/opf_branch_work/``), so 1 ms is some 17 more steps.

A run without stalls whose mean is under the paper's is set beside what the branch work predicts
(:func:`reading`): the fitted times of the twin's steps, and the per-batch delays that take them to
our mean and ours to the paper's.
"""
import math
import os

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


def _predicts(w, taken):
    """What the branch work (``w``: :func:`reading`) predicts of the mean, on which side (``taken``:
    :func:`side`), and where its figures come from (nu >= 0: a rounding's -0.00 is printed 0.00)."""
    return (f"the branch work predicts a mean nu of {w['mean']:.2f}, {_SIDE[taken]} (min {max(w['min'], 0.0):.2f}, "
            f"max {w['max']:.2f}; the CPU twin's TRON steps of each block's slowest branch over "
            f"{w['iterations']:,} iterations, {w['file']}, a batch timed as {w['a_ms']:.3f} ms + "
            f"{1e3 * w['b_ms']:.0f} us per step, fitted to this run's stall-free batches)")


def explain(a, measured, published, rtol, w=None):
    """The reason of a Table 5 row that differs: a clause per figure outside ``rtol`` of the published
    (``measured``, ``published``: dicts of ``max``, ``min``, ``mean``), and whether every one is
    explained by what :func:`anatomy` found (``a``) and, where given, what the branch work predicts
    (``w``: :func:`reading`).  Returns (explained, reason).

    - mean over the tolerance: explained when the iterations without a stall have a mean within the
      tolerance or under it (the excess over the paper's is the stalls');
    - mean under the tolerance: explained when the branch work's mean is off the paper's on our side
      (:func:`side` "ours"): the work itself makes less imbalance than the paper's; never by stalls;
    - min off: explained when it lies within the 5-95 % range of the minimum the quiet batches'
      jitter gives (``jitter_min``), or when the branch work's min is off the paper's on our side;
    - max off: explained when its iteration holds a stall (one batch waited).
    """
    off = {k: abs(measured[k] - published[k]) > rtol * abs(published[k]) for k in ("max", "min", "mean")}
    if a is None or not any(off.values()):
        return False, ""
    clauses, ok = [], []
    if off["mean"] and measured["mean"] > published["mean"]:
        below = "under the paper's by more than the tolerance"
        good = a["quiet_mean"] <= (1 + rtol) * published["mean"]
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
        if w is not None:
            # the independent figure: what the branch work alone (the CPU twin's steps) makes of the mean; a
            # work that itself makes ours would leave the stalls nothing to explain
            taken = side(w["mean"], measured["mean"], published["mean"], rtol)
            ok.append(taken != "ours")
            paper = w.get("work_to_paper")
            clauses.append(
                _predicts(w, taken)
                + (f"; with this run's stall-free departures from the line, resampled per block, "
                   f"{w['with_ours'][0]:.2f}-{w['with_ours'][1]:.2f}" if "with_ours" in w else "")
                + (f"; the paper's {published['mean']:.2f} needs {1e3 * paper['delay_ms']:.0f} us of per-batch delay "
                   f"over the work's times (the mean of independent exponential delays, one per block batch; at it "
                   f"min {paper['min']:.2f}, max {paper['max']:.2f})" if paper else ""))
    elif off["mean"]:
        stalls = (f"{100 * a['stalled_batches']:.1f} % of the {a['iterations']:,} x {a['blocks']} block batches "
                  f"stalled (the median batch {a['batch_median_ms']:.2f} ms)")
        if w is None:
            ok.append(False)
            clauses.append(f"mean {measured['mean']:.2f} vs {published['mean']:.2f}: under the paper's; {stalls}; "
                           f"the branch work of this case is not measured (scripts/opf_branch_work.py --save)")
        else:
            taken = side(w["mean"], measured["mean"], published["mean"], rtol)
            ok.append(taken == "ours")
            ours, paper = w.get("to_ours"), w.get("to_paper")
            clauses.append(
                f"mean {measured['mean']:.2f} vs {published['mean']:.2f}: {stalls}; {_predicts(w, taken)}; "
                f"our run measures {measured['mean']:.2f}"
                + (f": the work's times with this run's departures from the line (each block's median "
                   f"{', '.join(f'{x:+.0f}' for x in w['offsets_us'])} us), resampled per block, give "
                   f"{w['with_ours'][0]:.2f}-{w['with_ours'][1]:.2f}" if "with_ours" in w else "")
                + (f", or the work's times with {1e3 * ours['delay_ms']:.0f} us of per-batch delay" if ours else "")
                + (f"; the paper's {published['mean']:.2f} needs {1e3 * paper['delay_ms']:.0f} us of per-batch "
                   f"delay over our batches (the mean of independent exponential delays, one per block batch; "
                   f"at it min {paper['min']:.2f}, max {paper['max']:.2f})" if paper else ""))
    if off["min"]:
        lo, hi = a["jitter_min"]
        good = lo <= measured["min"] <= hi
        clause = (f"min {measured['min']:.2f} vs {published['min']:.2f}: the stall-free batches' jitter (median absolute "
                  f"deviation {min(a['jitter_mad_us']):.0f}-{max(a['jitter_mad_us']):.0f} us per block) alone gives a "
                  f"least nu over {a['iterations']:,} iterations of {lo:.2f}-{hi:.2f} (5-95 %, blocks resampled apart)")
        if w is not None:
            taken = side(w["min"], measured["min"], published["min"], rtol)
            good = good or taken == "ours"
            clause += f"; the branch work's least nu is {max(w['min'], 0.0):.2f}, {_SIDE[taken]}"  # nu >= 0: no -0.00
        ok.append(good)
        clauses.append(clause)
    if off["max"]:
        good = a["max_stalled"]
        ok.append(good)
        clauses.append(
            f"max {measured['max']:.2f} vs {published['max']:.2f}: iteration {a['max_at']:,}, "
            + (f"one batch stalled ({a['max_batch_ms']:.2f} ms, its block's median {a['max_block_median_ms']:.2f} ms)"
               if good else "no stall in it"))
    return all(ok), "; ".join(clauses)


# ---------------------------------------------------------------- what the branch work predicts
# (issue 37: a run alone on its host has no stalls and a mean under the paper's; docs/opf.md)

WORK_DIR = "opf_branch_work"   # results/<this>/<case>.json: scripts/opf_branch_work.py --save


def stored_work(results=None):
    """{case: (steps, file)} of the CPU twin's stored measurements: per ADMM iteration (row) and block
    (column) the TRON steps of the block's slowest branch, at the authors' settings
    (``scripts/opf_branch_work.py CASE ITERATIONS --save results/opf_branch_work/CASE.json``)."""
    from ..records.read import document, results_dir
    folder = os.path.join(str(results_dir(results)), WORK_DIR)
    out = {}
    if os.path.isdir(folder):
        for name in sorted(os.listdir(folder)):
            if name.endswith(".json"):
                d = document(os.path.join(folder, name))
                out[d["case"]] = (np.asarray(d["slowest_branch_steps"], dtype=np.float64),
                                  f"results/{WORK_DIR}/{name}")
    return out


def delays_for(t, target, seed=0):
    """The mean d (ms) of independent exponential delays, one added to every block batch of ``t``, that
    brings the run's mean nu to ``target`` (a host's launch and synchronisation waits: never negative,
    most short); with the min and max nu at that d.  None where ``target`` is not above ``t``'s mean
    or beyond what any delay gives (6 exponential batches alone: some 145 %)."""
    t = np.asarray(t, dtype=np.float64)
    e = np.random.default_rng(seed).exponential(1.0, t.shape)    # the same draws for every d
    f = lambda d: float(nu(t + d * e).mean())
    if not f(0.0) < target:
        return None
    lo, hi = 0.0, float(np.median(t))
    while f(hi) < target:
        lo, hi = hi, 2 * hi
        if hi > 1e4 * float(np.median(t)):
            return None
    for _ in range(50):        # bisection: the mean nu grows with d for fixed draws
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if f(mid) < target else (lo, mid)
    d = 0.5 * (lo + hi)
    v = nu(t + d * e)
    return {"delay_ms": d, "mean": float(v.mean()), "min": float(v.min()), "max": float(v.max())}


def work(partition_ms, steps, stall_ms=STALL_MS):
    """What the branch work predicts of a run's imbalance, or None where it cannot tell (fewer than 2
    iterations in common, the steps not varying).  ``steps``: the CPU twin's slowest-branch TRON steps
    per iteration and block at the run's settings (its iterates track the GPU run's: docs/opf.md).
    A block batch's time is fitted as ``a + b x steps`` over the stall-free batches of the iterations
    both hold (least squares, one line for every block); the work's nu is that line's time of every
    twin batch, no timing noise in it."""
    t = np.asarray(partition_ms, dtype=np.float64)
    S = np.asarray(steps, dtype=np.float64)
    if t.ndim != 2 or S.ndim != 2 or t.shape[1] != S.shape[1] or t.shape[1] < 2:
        return None
    k = min(len(t), len(S))
    tk, Sk = t[:k], S[:k]
    quiet = (tk - np.median(t, axis=0)) <= stall_ms
    if k < 2 or np.ptp(Sk[quiet]) == 0:
        return None
    b, a = np.polyfit(Sk[quiet], tk[quiet], 1)
    v = nu(a + b * S)
    return {"iterations": k, "a_ms": float(a), "b_ms": float(b), "mean": float(v.mean()), "min": float(v.min()),
            "max": float(v.max()), "median_steps": float(np.median(S)),
            "block_mean_steps": [float(x) for x in S.mean(axis=0)]}


def side(predicted, measured, published, rtol):
    """Which side of a figure that differs the branch work takes: "the paper" where its ``predicted``
    figure is within ``rtol`` of the paper's, relatively; "ours" where it is off the paper's on the
    side ``measured`` is; "neither" where it is off on the other side."""
    if abs(predicted - published) <= rtol * abs(published):
        return "the paper"
    return "ours" if (predicted < published) == (measured < published) else "neither"


def reading(partition_ms, steps, measured_mean, published_mean, seed=0):
    """:func:`work`'s figures with the timing noise that separates them from the measured and the
    paper's: ``to_ours``, the exponential delays per batch that take the work's times to the measured
    mean; ``to_paper``, those that take the run's own batch times to the paper's mean
    (:func:`delays_for`; None where that mean is not above); ``with_ours``, the 5-95 % range of the
    mean nu of the work's times plus this run's own residuals from the line, each block's resampled
    from its stall-free batches (20 draws); ``offsets_us``, each block's median residual."""
    w = work(partition_ms, steps)
    if w is None:
        return None
    S = np.asarray(steps, dtype=np.float64)
    w["to_ours"] = delays_for(w["a_ms"] + w["b_ms"] * S, measured_mean)
    w["to_paper"] = delays_for(partition_ms, published_mean)
    # a stalled run's own batches are over the paper's mean already: the delay the work's times need
    w["work_to_paper"] = delays_for(w["a_ms"] + w["b_ms"] * S, published_mean)
    # the work's times with this run's own departures from the line (each block's, resampled from its
    # stall-free batches): whether the work and our timing together give our mean
    t = np.asarray(partition_ms, dtype=np.float64)
    k = w["iterations"]
    fit = w["a_ms"] + w["b_ms"] * S[:k]
    res, quiet = t[:k] - fit, (t[:k] - np.median(t, axis=0)) <= STALL_MS
    rng = np.random.default_rng(seed)
    means = [float(nu(fit + np.stack([rng.choice(res[quiet[:, j], j], k) for j in range(t.shape[1])], axis=1)).mean())
             for _ in range(_DRAWS)]
    w["with_ours"] = (float(np.percentile(means, 5)), float(np.percentile(means, 95)))
    w["offsets_us"] = [float(1e3 * np.median(res[quiet[:, j], j])) for j in range(t.shape[1])]
    return w


_SIDE = {"ours": "off the paper's by more than the tolerance, on our side",
         "the paper": "within the tolerance of the paper's",
         "neither": "off the paper's on the other side from ours"}
