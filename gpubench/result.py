"""The result object every method returns (in the style of ``scipy.optimize.OptimizeResult``)."""
from dataclasses import asdict, dataclass, field
from typing import Optional

import numpy as np


@dataclass
class OptimizeResult:
    """Outcome of one run of one method on one function.

    ``fun``/``x`` are the best value and point found (in the function's sense).
    A rigorous method also gives ``glb <= f* <= gub`` (for the minimisation
    problem it solved) and the ``regions`` (lower and upper corners, shape
    ``(k, n)``) that are proven to hold every global minimiser.
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
    seconds: float = 0.0
    converged: bool = False
    message: str = ""
    history: dict = field(default_factory=dict)
    timing: dict = field(default_factory=dict)
    options: dict = field(default_factory=dict)

    @property
    def n_regions(self):
        return 0 if self.regions_lo is None else int(len(self.regions_lo))

    def regions(self):
        """Output regions as a list of ``{"lo": [...], "hi": [...]}``."""
        if self.regions_lo is None:
            return []
        return [{"lo": lo.tolist(), "hi": hi.tolist()} for lo, hi in zip(self.regions_lo, self.regions_hi)]

    def to_dict(self):
        d = asdict(self)
        for k in ("x", "regions_lo", "regions_hi"):
            d.pop(k)
        d["x"] = None if self.x is None else np.asarray(self.x).tolist()
        d["regions"] = self.regions()
        d["n_regions"] = self.n_regions
        return _jsonable(d)

    def __repr__(self):
        parts = [f"{k}={v!r}" for k, v in (
            ("function", self.function), ("dim", self.dim), ("method", self.method),
            ("backend", self.backend), ("fun", self.fun), ("glb", self.glb), ("gub", self.gub),
            ("n_regions", self.n_regions), ("iterations", self.iterations), ("nfev", self.nfev),
            ("seconds", round(self.seconds, 3)), ("converged", self.converged))
            if v is not None]
        return "OptimizeResult(" + ", ".join(parts) + ")"


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
