"""What the peers share: their settings vocabulary, their device, their loop and their result.

The peers (EvoX on PyTorch, evosax and jaxopt on JAX) are run through their own packages as
competitors, never copied.  Each module here declares its methods with :func:`declare`, so a
peer whose package is missing is registered all the same and listed as unavailable with
:data:`INSTALL`.  The objective is the function's array form (:mod:`gpubench.forms.arrayform`),
evaluated by the peer's own library on its own device, from the same definition every other
form comes from.

Settings every population peer has, named as de-gpu names them (the method it is compared
with): ``np`` (population size), ``max_evaluations`` (unset: 10^4 n, de-gpu's rule; only
whole generations are run), ``target_error`` (stop once f_best - f* <= it), ``time_limit``,
``seed``, ``backend`` (auto/cpu/cuda), ``dtype`` and ``check_every`` (generations between
host checks: the trace, the time limit, the target and Ctrl-C are read there, so its
resolution is that many generations; a check copies one number from the device).
"""
import time
from dataclasses import dataclass
from typing import Optional

import numpy as np

from gpubench.device.gpu import BACKENDS
from gpubench.errors import InputError
from gpubench.methods.base import Method, MethodSettings, setting, time_limit_setting
from gpubench.methods.trace import Trace
from gpubench.methods.monitor import Deadline, stop_word
from gpubench.result import OptimizeResult

INSTALL = "pip install 'gpubench[peers]'"
# compiled programs (jax.jit), per function, dimension, device and the settings they depend on:
# a repetition with another seed, and the timed run after the runner's warm-up, reuse them
COMPILED = {}
DTYPES = ("float64", "float32")


@dataclass
class PeerSettings(MethodSettings):
    """The settings of every peer (population peers add theirs)."""
    seed: int = setting(0, "seed of the peer's random streams (the same seed on the same device gives "
                           "the same result)", minimum=0)
    time_limit: Optional[float] = time_limit_setting()   # checked between host checks
    backend: str = setting("auto", "auto (a GPU when the peer's library sees one), cpu or cuda", choices=BACKENDS)
    dtype: str = setting("float64", "floating-point type of the population and of f", choices=DTYPES)


@dataclass
class PopulationSettings(PeerSettings):
    np: int = setting(100, "population size NP", minimum=4)
    max_evaluations: Optional[int] = setting(None, "evaluations, initial population included (unset: 10^4 n, "
                                                   "de-gpu's rule); whole generations only", minimum=1)
    target_error: Optional[float] = setting(None, "stop once f_best - f* <= this (unset: off)", minimum=0.0)
    check_every: int = setting(10, "generations between host checks (trace, time_limit, target_error, Ctrl-C)",
                               minimum=1)

    def validate(self):
        if self.max_evaluations is not None and self.max_evaluations < self.np:
            raise InputError(f"max_evaluations ({self.max_evaluations}) is less than one population "
                             f"(np = {self.np})")


def declare(name, summary, settings, run, requires, source, warmup=None):
    return Method(name=name, summary=summary, settings=settings, run=run, backends=("cpu", "cuda"),
                  source=source, requires=tuple(requires), install=INSTALL, warmup=warmup)


def version(dist):
    """The installed version of the distribution ``dist`` (recorded in the result's options)."""
    from importlib.metadata import PackageNotFoundError, version as _v
    try:
        return _v(dist)
    except PackageNotFoundError:
        return "?"


# ---------------------------------------------------------------- devices
def torch_device(backend):
    import torch
    if backend == "cuda" and not torch.cuda.is_available():
        raise InputError("backend cuda: PyTorch sees no CUDA device here (torch.cuda.is_available() is False)")
    use = backend == "cuda" or (backend == "auto" and torch.cuda.is_available())
    return torch.device("cuda" if use else "cpu")


def jax_device(backend, dtype):
    """The JAX device for ``backend``; float64 needs JAX's x64 mode, switched on here."""
    import jax
    if dtype == "float64" and not jax.config.read("jax_enable_x64"):
        jax.config.update("jax_enable_x64", True)
    try:
        gpus = jax.devices("gpu")
    except RuntimeError:
        gpus = []
    if backend == "cuda" and not gpus:
        raise InputError("backend cuda: JAX sees no GPU here (jax.devices('gpu') is empty; "
                         "a CPU-only jaxlib is installed?)")
    use = backend == "cuda" or (backend == "auto" and gpus)
    return gpus[0] if use else jax.devices("cpu")[0]


def device_name(dev):
    kind = getattr(dev, "type", None) or getattr(dev, "platform", "cpu")
    return "cuda" if kind in ("cuda", "gpu") else "cpu"


# ---------------------------------------------------------------- the generation loop
class Plan:
    """Budget, target, sign and box of one population run."""

    def __init__(self, fn, dim, s):
        self.fn, self.dim, self.s = fn, dim, s
        self.sign = -1.0 if fn.sense == "max" else 1.0
        self.lo, self.hi = fn.bounds(dim)
        self.max_evaluations = s.max_evaluations if s.max_evaluations is not None else 10_000 * dim
        # the initial population, then whole generations of NP
        self.generations = max(self.max_evaluations // s.np - 1, 0)
        try:
            self.fstar = fn.fstar(dim)
        except Exception:  # a user's function may not know its optimum
            self.fstar = float("nan")
        if s.target_error is not None and not np.isfinite(self.fstar):
            raise InputError(f"target_error needs the function's optimum; {fn.name} states none at n = {dim}")


def evolve(plan, start, step, best, name, backend, options):
    """Run ``start()`` (the evaluated initial population), then ``step(k)`` (k generations) until the
    budget, the target, the time limit or Ctrl-C; ``best()`` returns (x, value to minimise) on the host.
    Returns the OptimizeResult (value in the function's sense)."""
    s = plan.s
    trace = Trace(plan.fn.sense)
    deadline = Deadline(s.time_limit)
    t0 = time.perf_counter()
    start()
    nfev = s.np
    x, v = best()
    trace.see(nfev, plan.sign * v)
    done, why = 0, "evaluations"

    def reached(v):  # f_best - f* in the function's sense; v is the value minimised (sign f)
        return s.target_error is not None and v - plan.sign * plan.fstar <= s.target_error

    while done < plan.generations:
        if reached(v):
            why = "target"
            break
        stop = deadline.check()
        if stop:
            why = stop
            break
        k = min(s.check_every, plan.generations - done)
        step(k)
        done += k
        nfev += k * s.np
        x, v = best()
        trace.see(nfev, plan.sign * v)
    else:
        if reached(v):
            why = "target"
    seconds = time.perf_counter() - t0
    fun = plan.sign * v
    history = {"trace": trace.close(nfev), "generations": done}
    opts = {**s.as_dict(), "max_evaluations": plan.max_evaluations, "generations": plan.generations,
            "backend": backend, **options}
    return OptimizeResult(
        function=plan.fn.name, dim=plan.dim, method=name, backend=backend, x=np.asarray(x, dtype=float),
        fun=float(fun), iterations=done, nfev=nfev, seconds=seconds, converged=why == "target",
        message=f"{done} generation(s) of {s.np}; stopped: {why}", stop=stop_word(why),
        history=history, options=opts)
