"""The result object every method returns (in the style of ``scipy.optimize.OptimizeResult``)."""
from dataclasses import asdict, dataclass, field
from typing import Any, Optional

import numpy as np


@dataclass
class OptimizeResult:
    """Outcome of one run of one method on one function.

    SciPy's names: ``x`` and ``fun`` (the best point and value found, in the
    function's sense), ``nit`` (iterations), ``nfev``/``njev``/``nhev``
    (function, gradient and Hessian evaluations), ``success`` and ``message``.
    A rigorous method also gives ``glb <= f* <= gub`` (for the problem it
    solved) and the ``regions`` (lower and upper corners, shape ``(k, n)``) that
    are proven to hold every global minimiser.  A method that runs many
    independent runs or problems at once gives each one's outcome in
    ``status`` (an integer array, 0 = converged; see the method's docs) and
    their values in ``history``.  ``stop`` says in one word why the run stopped, from the one
    vocabulary of :data:`gpubench.monitor.STOPS` (``time_limit``, ``evaluations`` ...).
    """
    function: str
    dim: int
    method: str
    backend: str = "cpu"
    x: Optional[np.ndarray] = None
    fun: Optional[float] = None
    glb: Optional[float] = None
    gub: Optional[float] = None
    regions_lo: Optional[np.ndarray] = None
    regions_hi: Optional[np.ndarray] = None
    iterations: int = 0
    nfev: int = 0
    njev: int = 0
    nhev: int = 0
    seconds: float = 0.0
    converged: bool = False
    message: str = ""
    status: Any = None
    stop: Optional[str] = None  # why the run stopped: one of gpubench.monitor.STOPS
    history: dict = field(default_factory=dict)
    timing: dict = field(default_factory=dict)
    options: dict = field(default_factory=dict)

    # scipy.optimize's names
    @property
    def nit(self):
        return self.iterations

    @property
    def success(self):
        return self.converged

    @property
    def n_regions(self):
        return 0 if self.regions_lo is None else int(len(self.regions_lo))

    def regions(self, limit=None):
        """Output regions as a list of ``{"lo": [...], "hi": [...]}`` (the first ``limit`` of them)."""
        if self.regions_lo is None:
            return []
        k = self.n_regions if limit is None else min(limit, self.n_regions)
        return [{"lo": self.regions_lo[i].tolist(), "hi": self.regions_hi[i].tolist()} for i in range(k)]

    def save_regions(self, path):
        """Write every output region to ``path`` (``.npz`` with arrays ``lo`` and ``hi``), atomically."""
        from .device import atomic_write
        lo = np.zeros((0, self.dim)) if self.regions_lo is None else self.regions_lo
        hi = np.zeros((0, self.dim)) if self.regions_hi is None else self.regions_hi
        atomic_write(path, lambda fh: np.savez(fh, lo=lo, hi=hi))

    def to_dict(self, max_regions=None):
        """Every field as JSON-ready values; regions as lists (at most ``max_regions``)."""
        d = {k: v for k, v in asdict(self).items() if k not in ("x", "regions_lo", "regions_hi")}
        d["x"] = None if self.x is None else np.asarray(self.x).tolist()
        d["regions"] = self.regions(max_regions)
        d["n_regions"] = self.n_regions
        d["nit"] = self.iterations
        d["success"] = self.converged
        return _jsonable(d)

    def to_json(self, max_regions=100):
        """What ``gpubench solve --json`` and ``gpubench minimize --json`` print: bounded in size."""
        d = self.to_dict(max_regions=max_regions)
        d["regions_shown"] = len(d["regions"])
        if isinstance(d.get("status"), list) and len(d["status"]) > 1000:
            d["status"] = _status_counts(d["status"])
        return d

    def __repr__(self):
        parts = [f"{k}={v!r}" for k, v in (
            ("function", self.function), ("dim", self.dim), ("method", self.method),
            ("backend", self.backend), ("fun", self.fun), ("glb", self.glb), ("gub", self.gub),
            ("n_regions", self.n_regions), ("nit", self.iterations), ("nfev", self.nfev),
            ("seconds", round(self.seconds, 3)), ("success", self.converged))
            if v is not None]
        return "OptimizeResult(" + ", ".join(parts) + ")"


def _status_counts(status):
    out = {}
    for s in status:
        out[str(s)] = out.get(str(s), 0) + 1
    return {"counts": out}


def _jsonable(v):
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    return v
