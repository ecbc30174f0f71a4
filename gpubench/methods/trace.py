"""The convergence trace every heuristic keeps: (evaluations, seconds, best value so far).

Stored in ``OptimizeResult.history["trace"]`` as ``[[nfev, seconds, best], ...]``,
one row each time the best value improves (in the function's sense), so that
time-to-target (COCO's runtime) can be read off on both axes, evaluations and
wall-clock seconds on the same machine.  At most ``MAX_ROWS`` rows are kept:
beyond that only improvements of at least 1% of the distance covered so far
(on a log scale) are recorded, which keeps every decade of precision.
"""
import math
import time

from .monitor import report

MAX_ROWS = 2000


class Trace:
    def __init__(self, sense="min"):
        self.sign = -1.0 if sense == "max" else 1.0
        self.rows = []
        self.best = math.inf  # in minimisation terms (sign * f)
        self.t0 = time.perf_counter()

    def see(self, nfev, value):
        """Note that after ``nfev`` evaluations the value ``value`` (f's sense) was seen."""
        v = self.sign * float(value)
        if not v < self.best:
            return
        report(best=self.sign * v)  # the progress line (gpubench.methods.monitor)
        if len(self.rows) >= MAX_ROWS and not self._worth(v):
            self.best = v
            return
        self.best = v
        self.rows.append([int(nfev), time.perf_counter() - self.t0, self.sign * v])

    def _worth(self, v):
        last = self.sign * self.rows[-1][2]
        gap = abs(last - v)
        return gap >= 0.01 * max(abs(last), 1e-300)

    def close(self, nfev):
        """The last row carries the final count even when it did not improve."""
        if self.rows and self.rows[-1][0] != nfev:
            self.rows.append([int(nfev), time.perf_counter() - self.t0, self.rows[-1][2]])
        return self.rows
