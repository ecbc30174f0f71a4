"""What the branch work predicts of a Table 5 run's imbalance (paper 003, Section 6.3), from the CPU
twin's stored steps and a GPU record of the same case (docs/opf.md, "Table 5: what carries the
imbalance"):

    python scripts/opf_branch_nu.py results/opf_branch_work/CASE.json RECORD.json PUBLISHED_MEAN

Prints the figures a differing row's reason is computed from (gpubench.reports.admm_timing.reading:
the line a + b x steps fitted to the record's stall-free batches, the work's nu, the per-batch
exponential delays that take the work to the record's mean and the record to the published mean)
and, for the docs only, the fit's residuals per block and the work's times with the record's own
residuals resampled per block (does work + our jitter give our mean?).  Seconds; no GPU.
"""
import json
import sys

import numpy as np

from gpubench.reports import admm_timing as T

work, record, published = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), float(sys.argv[3])
S = np.asarray(work["slowest_branch_steps"], dtype=float)
t = np.asarray(record["result"]["partition_ms"], dtype=float)
measured = float(T.nu(t).mean())
w = T.reading(t, S, measured, published)
k = w["iterations"]
print(f"{work['case']}: twin {len(S):,} iterations ({work['stop']}), record {len(t):,}; fit over {k:,}: "
      f"batch ms = {w['a_ms']:.4f} + {w['b_ms']:.5f} x steps")
print(f"the work's nu: mean {w['mean']:.2f}, min {w['min']:.2f}, max {w['max']:.2f}; first 800: "
      f"mean {T.nu(w['a_ms'] + w['b_ms'] * S[:800]).mean():.2f}")
print(f"the record's nu: mean {measured:.2f}, min {T.nu(t).min():.2f}, max {T.nu(t).max():.2f}; published mean {published}")
for name, d in (("work -> record", w["to_ours"]), ("record -> published", w["to_paper"])):
    print(f"{name}: " + ("none" if d is None else f"{1e3 * d['delay_ms']:.1f} us mean exponential delay per batch "
                                                  f"(then min {d['min']:.2f}, max {d['max']:.2f})"))
quiet = (t[:k] - np.median(t, axis=0)) <= T.STALL_MS
res = t[:k] - (w["a_ms"] + w["b_ms"] * S[:k])
print("per block: median residual us", np.round(1e3 * np.median(res, axis=0), 1).tolist(),
      "| MAD us", np.round(1e3 * np.median(np.abs(res - np.median(res, axis=0)), axis=0), 1).tolist(),
      "| mean steps", np.round(S.mean(axis=0), 3).tolist())
print(f"correlation of batch ms with steps over the stall-free batches: {np.corrcoef(S[:k][quiet], t[:k][quiet])[0, 1]:.3f}")
rng = np.random.default_rng(0)
draws = []
for _ in range(20):
    fake = w["a_ms"] + w["b_ms"] * S[:k] + np.stack([rng.choice(res[:, j][quiet[:, j]], k) for j in range(6)], axis=1)
    draws.append((T.nu(fake).mean(), T.nu(fake).min()))
m, lo = np.array(draws).T
print(f"work + the record's residuals (resampled per block, 20 draws): mean nu {m.min():.2f}-{m.max():.2f}, "
      f"min {lo.min():.2f}-{lo.max():.2f}")
