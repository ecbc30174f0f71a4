"""Of the k^n equal boxes of SciPy's domain, how many the per-term bound keeps at GUB and how many of those
the rigorous coupled least-squares bound keeps (docs/scipy_go.md, "lsq41"; sos41's float census is
scripts/lsq_census.py):

    python scripts/lsq_floor_census.py Watson 4 2.2877e-3
"""
import itertools
import sys
import time

import numpy as np

from gpubench import functions as F
from gpubench.forms.lsq import least_squares
from gpubench.methods.solver import lsq_floor

name, k, gub = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
fn = F.get("scipy_go." + name)
lsq = least_squares(fn)
n = lsq.n
lo0, hi0 = fn.bounds(n)
edges = [np.linspace(lo0[j], hi0[j], k + 1) for j in range(n)]
idx = np.array(list(itertools.product(range(k), repeat=n)))
lo = np.stack([edges[j][idx[:, j]] for j in range(n)], 1)
hi = np.stack([edges[j][idx[:, j] + 1] for j in range(n)], 1)
t0 = time.time()
per_term = np.zeros(len(lo))
for s in range(0, len(lo), 512):   # sum_i dist(0, r_i(X))^2, outward enclosures of the residuals
    r_lo, r_hi = lsq_floor._stack(lsq.enclose(lo[s:s + 512], hi[s:s + 512], lsq.value))
    per_term[s:s + 512] = np.sum(np.maximum(r_lo, 0) ** 2 + np.minimum(r_hi, 0) ** 2, 1)
kept = np.flatnonzero(per_term <= gub)
coupled = np.concatenate([lsq_floor.coupled_floor(lsq, lo[kept[s:s + 512]], hi[kept[s:s + 512]])
                          for s in range(0, kept.size, 512)] or [np.zeros(0)])
print(f"{name} k={k} boxes={len(lo)} per-term keeps={kept.size} coupled keeps={int(np.sum(coupled <= gub))} "
      f"({time.time() - t0:.1f} s)")
