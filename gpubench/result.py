"""The result object every method returns (in the style of ``scipy.optimize.OptimizeResult``)."""
import zipfile
from dataclasses import dataclass, field, fields
from typing import Any, Callable, Optional

import numpy as np


@dataclass
class OptimizeResult:
    """Outcome of one run of one method on one function.

    One name per field, the same in the result, in the record the runner stores (``measured``)
    and in the reports: ``x`` and ``fun`` (the best point and value found, in the function's
    sense, as SciPy names them), ``iterations``, ``nfev``/``njev``/``nhev`` (function, gradient
    and Hessian evaluations), ``converged`` and ``message``.  ``converged`` means one thing: the
    method's own convergence test was met (its tolerance, not a budget, a time limit or Ctrl-C;
    ``stop`` says which).  Whether the run found f* is the record's ``success``, judged by
    :func:`gpubench.workflow.runner.success` against a known f* (a rigorous method by enclosure,
    another by distance).
    A rigorous method also gives ``glb <= f* <= gub`` (for the problem it
    solved) and the ``regions`` (lower and upper corners, shape ``(k, n)``) that
    are proven to hold every global minimiser.  A method that runs many
    independent runs or problems at once gives each one's outcome in
    ``status`` (an integer array, 0 = converged; see the method's docs) and
    their values in ``history``.  ``stop`` says in one word why the run stopped, from the one
    vocabulary of :data:`gpubench.methods.monitor.STOPS` (``time_limit``, ``evaluations`` ...).
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
    stop: Optional[str] = None  # why the run stopped: one of gpubench.methods.monitor.STOPS
    history: dict = field(default_factory=dict)
    timing: dict = field(default_factory=dict)
    options: dict = field(default_factory=dict)
    # A stopped search can hold millions of open regions at n = 1,000 (16 n bytes each as arrays:
    # 120 GB for Ackley's 7.5 million after 200 iterations).  Such a result keeps the compact list
    # and builds boxes on demand: ``region_boxes(start, stop)`` -> (lo, hi) of regions start..stop-1.
    region_boxes: Optional[Callable] = field(default=None, repr=False, compare=False)
    region_count: Optional[int] = None
    # ``region_distance(v)``: the largest per-coordinate distance from v to the nearest output region,
    # where the method finds it without building every box (the interval solver's OutputRegions)
    region_distance: Optional[Callable] = field(default=None, repr=False, compare=False)

    @property
    def has_regions(self):
        """Whether the method states output regions (a rigorous method does, even when none is left)."""
        return self.regions_lo is not None or self.region_count is not None

    @property
    def n_regions(self):
        if self.regions_lo is not None:
            return int(len(self.regions_lo))
        return int(self.region_count or 0)

    def boxes(self, start=0, stop=None):
        """(lo, hi) arrays of the output regions ``start`` .. ``stop - 1``."""
        stop = self.n_regions if stop is None else min(stop, self.n_regions)
        start = min(max(start, 0), stop)
        if self.regions_lo is not None:
            return self.regions_lo[start:stop], self.regions_hi[start:stop]
        if self.region_boxes is None or stop == start:
            return np.zeros((0, self.dim)), np.zeros((0, self.dim))
        return self.region_boxes(start, stop)

    def regions(self, limit=None):
        """Output regions as a list of ``{"lo": [...], "hi": [...]}`` (the first ``limit`` of them)."""
        lo, hi = self.boxes(0, limit)
        return [{"lo": a.tolist(), "hi": b.tolist()} for a, b in zip(lo, hi)]

    def save_regions(self, path, chunk=65536):
        """Write every output region to ``path`` (``.npz`` with arrays ``lo`` and ``hi``), atomically.

        Written ``chunk`` regions at a time, so memory stays bounded however many regions there are."""
        from .device.gpu import atomic_write
        k = self.n_regions

        def write(fh):
            with zipfile.ZipFile(fh, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
                for which, name in ((0, "lo.npy"), (1, "hi.npy")):
                    with zf.open(name, "w", force_zip64=True) as out:
                        np.lib.format.write_array_header_1_0(
                            out, {"descr": "<f8", "fortran_order": False, "shape": (k, self.dim)})
                        for a in range(0, k, chunk):
                            out.write(np.ascontiguousarray(self.boxes(a, a + chunk)[which], dtype="<f8").tobytes())
        atomic_write(path, write)

    def to_dict(self, max_regions=None):
        """Every field as JSON-ready values; regions as lists (at most ``max_regions``)."""
        skip = ("x", "regions_lo", "regions_hi", "region_boxes", "region_count", "region_distance")
        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in skip}
        d["x"] = None if self.x is None else np.asarray(self.x).tolist()
        d["regions"] = self.regions(max_regions)
        d["n_regions"] = self.n_regions
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
            ("n_regions", self.n_regions), ("iterations", self.iterations), ("nfev", self.nfev),
            ("seconds", round(self.seconds, 3)), ("converged", self.converged))
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
