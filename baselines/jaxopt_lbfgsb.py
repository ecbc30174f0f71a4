"""jaxopt's L-BFGS-B from many starts, run through jaxopt itself (JAX).

    M. Blondel, Q. Berthet, M. Cuturi, R. Frostig, S. Hoyer, F. Llinares-Lopez, F. Pedregosa,
    J.-P. Vert, "Efficient and modular implicit differentiation", NeurIPS 2022 (jaxopt).
    R. H. Byrd, P. Lu, J. Nocedal, C. Zhu, "A limited memory algorithm for bound constrained
    optimization", SIAM J. Sci. Comput. 16(5) (1995).

**jaxopt is deprecated upstream**: its authors moved its solvers to optax and optimistix and
fix no more bugs in it; 0.8.5 is its last release.  It stays here because it is the JAX
L-BFGS-B that lbfgsb-gpu was measured against (issue 27: the MINPACK-2 torsion runs), so that
comparison can be repeated; prefer another peer for new work.

``jaxopt-lbfgsb`` is the peer of lbfgsb-gpu: ``starts`` uniform starting points in the box
(``numpy.random.default_rng(seed)``), each solved by ``jaxopt.LBFGSB`` with the box as its
bounds, ``maxiter`` iterations, gradient tolerance ``tol`` and ``history_size`` correction
pairs; the starts of one round are solved together (``jax.vmap`` of ``LBFGSB.run``, one
compiled call on the device of ``backend``), in ``rounds`` rounds between which the time
limit, Ctrl-C and the trace are checked (the trace notes the best after each round).  The
value and the gradient come together from JAX's automatic differentiation of the function's
array form (:func:`gpubench.forms.arrayform.array_form`); ``nfev`` = ``njev`` = jaxopt's own count
of evaluations, summed over the starts.

Needs ``jaxopt`` and ``jax`` (``pip install 'gpubench[peers]'``); without them the method is
listed as unavailable.  float64 switches on JAX's x64 mode for the process.
"""
import time
from dataclasses import dataclass

import numpy as np

from gpubench.errors import InputError
from gpubench.methods.base import setting
from gpubench.methods.trace import Trace
from gpubench.methods.monitor import Deadline, stop_word
from gpubench.result import OptimizeResult

from ._peers import COMPILED, PeerSettings, declare, device_name, jax_device, version

SOURCE = "jaxopt (Blondel et al., NeurIPS 2022; deprecated upstream), run through its own package"


@dataclass
class JaxoptLbfgsbSettings(PeerSettings):
    starts: int = setting(100, "uniform starting points in the box", minimum=1)
    rounds: int = setting(1, "rounds the starts are split into (time_limit is checked between them)", minimum=1)
    maxiter: int = setting(500, "iterations per start", minimum=1)
    tol: float = setting(1e-5, "tolerance on the projected gradient's norm (jaxopt's stopping test)",
                         exclusive_minimum=0.0)
    history_size: int = setting(10, "stored correction pairs (SciPy's maxcor)", minimum=1)

    def validate(self):
        if self.rounds > self.starts:
            raise InputError(f"jaxopt-lbfgsb: rounds ({self.rounds}) must not exceed starts ({self.starts})")


def _solver(fn, dim, s, dev):
    """``solve(X0)``: every row of X0 solved (vmapped, jitted), compiled once per function,
    dimension, device and solver settings (jit compiles again for a new number of rows)."""
    import jax
    import jax.numpy as jnp
    import jaxopt

    from gpubench.forms.arrayform import array_form

    key = ("jaxopt-lbfgsb", id(fn), dim, str(dev), s.dtype, s.maxiter, s.tol, s.history_size)
    if key in COMPILED:
        return COMPILED[key]
    sign = -1.0 if fn.sense == "max" else 1.0
    lo_np, hi_np = fn.bounds(dim)
    values = array_form(fn, dim, "jax", dtype=s.dtype)
    lo = jnp.asarray(lo_np, dtype=s.dtype)
    hi = jnp.asarray(hi_np, dtype=s.dtype)

    def f(x):
        return sign * values(x[None, :])[0]

    solver = jaxopt.LBFGSB(fun=f, maxiter=s.maxiter, tol=s.tol, history_size=s.history_size)

    @jax.jit
    def solve(X0):
        def one(x0):
            out = solver.run(x0, bounds=(lo, hi))
            st = out.state
            return out.params, st.value, st.iter_num, st.num_fun_eval, st.error
        return jax.vmap(one)(X0)

    COMPILED[key] = solve
    return solve


def warmup(fn, dim, s):
    """Compile the solver for each round's number of starts before a timed run."""
    import jax
    import jax.numpy as jnp
    dev = jax_device(s.backend, s.dtype)
    lo, hi = fn.bounds(dim)
    with jax.default_device(dev):
        solve = _solver(fn, dim, s, dev)
        for size in sorted({len(c) for c in np.array_split(np.arange(s.starts), s.rounds)}):
            x0 = np.broadcast_to(0.5 * (lo + hi), (size, dim))
            jax.block_until_ready(solve(jnp.asarray(x0, dtype=s.dtype)))


def run(fn, dim, s):
    import jax
    import jax.numpy as jnp

    sign = -1.0 if fn.sense == "max" else 1.0
    lo_np, hi_np = fn.bounds(dim)
    dev = jax_device(s.backend, s.dtype)
    trace = Trace(fn.sense)
    deadline = Deadline(s.time_limit)
    t0 = time.perf_counter()
    starts = np.random.default_rng(s.seed).uniform(lo_np, hi_np, size=(s.starts, dim))
    with jax.default_device(dev):
        solve = _solver(fn, dim, s, dev)
        xs, fs, its, nfev, errs = [], [], [], 0, []
        done, why = 0, "completed"
        for chunk in np.array_split(np.arange(s.starts), s.rounds):
            stop = deadline.check() if done else None
            if stop:
                why = stop
                break
            X, F, It, Nf, Er = jax.block_until_ready(solve(jnp.asarray(starts[chunk], dtype=s.dtype)))
            xs.append(np.asarray(X))
            fs.append(np.asarray(F, dtype=float))
            its.append(np.asarray(It))
            errs.append(np.asarray(Er, dtype=float))
            nfev += int(np.sum(np.asarray(Nf)))
            done += len(chunk)
            trace.see(nfev, sign * float(np.nanmin(fs[-1])) if np.isfinite(fs[-1]).any() else np.nan)
    seconds = time.perf_counter() - t0
    X, F, It, Er = np.concatenate(xs), np.concatenate(fs), np.concatenate(its), np.concatenate(errs)
    F_clean = np.where(np.isnan(F), np.inf, F)
    b = int(np.argmin(F_clean))
    converged = Er <= s.tol
    status = np.where(converged, 0, 1)
    options = {**s.as_dict(), "backend": device_name(dev),
               "library": f"jaxopt {version('jaxopt')} (deprecated upstream), jax {jax.__version__}",
               "starts_rule": "uniform in the box, numpy.random.default_rng(seed)",
               "gradient": "JAX automatic differentiation of the array form"}
    history = {"trace": trace.close(nfev), "run_fun": list(sign * F), "run_iterations": It.tolist(),
               "starts_done": done, "starts_converged": int(converged.sum())}
    return OptimizeResult(
        function=fn.name, dim=dim, method="jaxopt-lbfgsb", backend=device_name(dev), x=X[b],
        fun=float(sign * F[b]), iterations=int(It.sum()), nfev=nfev, njev=nfev, seconds=seconds,
        converged=why == "completed" and bool(converged.all()), status=status,
        message=f"best of {done} of {s.starts} start(s); {int(converged.sum())} met tol",
        stop=stop_word(why if why != "completed" else ("converged" if converged.all() else "iterations")),
        history=history, options=options)


METHOD = declare("jaxopt-lbfgsb", "jaxopt's L-BFGS-B from uniform starts, vmapped (JAX; jaxopt is deprecated "
                 "upstream)", JaxoptLbfgsbSettings, run, ("jaxopt", "jax"), SOURCE, warmup=warmup)
