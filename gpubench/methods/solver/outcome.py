"""What an iteration keeps of its sweep, on the host (:func:`reduce_host`); the GPU's twin is
:class:`gpubench.methods.solver.reduce.DeviceReduction`.  Apart from it so that the CPU backend
imports no numba.cuda (issue 42, item 4)."""
import math
from dataclasses import dataclass

import numpy as np


@dataclass
class Outcome:
    best_ub: float  # smallest sampled upper bound of the iteration (inf when no sample bounds f)
    best_index: int  # its subregion (0 when best_ub is inf, as np.argmin of all-inf)
    njev: int  # subregions whose interval gradient was evaluated
    sidx: np.ndarray  # survivors (int64, increasing)
    lb: np.ndarray  # their lower bounds


def reduce_host(lb, ub, grad, gub):
    """The outcome of one sweep from host arrays; ``gub`` is GUB before this iteration."""
    # a sample where f is undefined (NaN) bounds nothing; np.argmin would pick it
    ub = np.where(np.isnan(ub), math.inf, ub)
    r = int(np.argmin(ub))
    best = float(ub[r])
    g = best if best < gub else gub
    keep = lb <= g
    keep &= lb != math.inf  # ruled out by the bound or the gradient test
    sidx = np.flatnonzero(keep)
    return Outcome(best, r, int(grad.sum(dtype=np.int64)), sidx, lb[sidx])
