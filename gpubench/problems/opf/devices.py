"""The ADMM's branch step on several devices at once (paper 003, Section 6.3).

Kim, Pacaud, Kim & Anitescu, ExaTron (seed 003), Section 6.3: "Branch problems are evenly
dispatched among 6 MPI processes in the order of branch indices ... At each ADMM iteration, the
root process distributes variable values over multiple GPUs, solves its own batch, and gathers
variable values back from other GPUs."  This module is that root/worker scheme:

- the G contiguous blocks of branch indices (:func:`gpubench.problems.opf.admm.partition`) are dealt to
  ``devices`` groups, contiguous again (with G = devices, one block a device, as in the paper);
- group 0 is solved by the root process on its own device, every other group by a worker process
  of its own, started once with ``CUDA_VISIBLE_DEVICES`` naming its GPU (on the CPU backend the
  workers are plain processes: the tests' stand-in for GPUs);
- a worker keeps its branches' admittances, penalties, box and current point; at each iteration
  it receives only the 8 targets of each of its branches and sends back the 4 coordinates of each
  branch's solution and its block's kernel seconds.  Generators, buses and multipliers stay on the
  root, as in the paper's root process.

Each block is solved by the same code (:class:`Blocks`) whichever process runs it, and a
block's TRON batch does not depend on the other blocks, so the iterates equal the one-process
run's (tested on the CPU with several workers).  Python's multiprocessing carries the exchange:
the ADMM's host steps are numpy on the root, so the data crosses host memory whatever the engine
(the paper's GPU-aware MPI moves it GPU to GPU; see docs/opf.md).
"""
import multiprocessing
import os
import signal
import time

import numpy as np

from ...errors import InputError
from . import branch as _branch


class Blocks:
    """One process's blocks of branch rows, each solved as one TRON batch.  ``blocks`` are index
    arrays into this process's rows, contiguous (:func:`gpubench.problems.opf.admm.partition`), so
    each is held as a slice: its box a view, and its parameter rows (:func:`branch.parameters`) one
    array a block whose admittances and penalties are written once; an iteration writes only the
    8 targets a branch into them (the same numbers as a fresh ``parameters`` call: the root built
    every branch's 24 x 4 rows and copied each block's out of them, every iteration)."""

    def __init__(self, blocks, Y, rho, lo, hi):
        self.rows = []
        for b in blocks:
            b = np.asarray(b)
            if b.size == 0 or not np.array_equal(b, np.arange(b[0], b[0] + b.size)):
                raise ValueError("a block of branch rows must be a non-empty contiguous range")
            self.rows.append(slice(int(b[0]), int(b[0]) + b.size))
        self.lo = [lo[r] for r in self.rows]
        self.hi = [hi[r] for r in self.rows]
        self.par = [_branch.parameters(Y[r], rho[r], np.zeros((r.stop - r.start, len(_branch.COUPLED))))
                    for r in self.rows]

    def solve(self, x, target, fn, s):
        """Solve each block at the targets ``target`` (rows as ``x``'s), in order; ``x`` is updated in
        place.  Returns (kernel seconds per block, TRON iterations summed, numerical failures)."""
        from ...methods import tron
        secs, its, failures = [], 0.0, 0
        for r, lo, hi, par in zip(self.rows, self.lo, self.hi, self.par):
            _branch.set_targets(par, target[r])
            res = tron.solve_batch(x[r], lo, hi, par, objective="library", fn=fn,
                                   backend=s.backend, hessian="differences",
                                   max_iter=s.tron_max_iter, gtol=s.tron_gtol, gatol=s.tron_gatol,
                                   stop=s.tron_stop, max_feval=s.tron_max_feval)
            x[r] = res.x
            secs.append(res.seconds)
            its += float(res.iterations.sum())
            failures += int(np.count_nonzero(res.status == 2))
        return secs, its, failures


def visible_gpus():
    """The ids a child process may name in CUDA_VISIBLE_DEVICES, in the root's device order."""
    env = os.environ.get("CUDA_VISIBLE_DEVICES")
    if env is not None:
        return [d.strip() for d in env.split(",") if d.strip()]
    from numba import cuda
    return [str(i) for i in range(len(cuda.gpus))]


def available(backend):
    """How many devices ``devices = "all"`` means: every visible GPU on cuda, one on the CPU."""
    return len(visible_gpus()) if backend == "cuda" else 1


def groups(nblocks, devices):
    """The blocks (0 .. nblocks-1) dealt to ``devices`` contiguous groups, as even as possible."""
    if not 1 <= devices <= nblocks:
        raise InputError(f"admm: devices must be between 1 and the {nblocks} partitions, got {devices}")
    return [list(g) for g in np.array_split(np.arange(nblocks), devices)]


def warm_up(Y, rho, lo, hi, x, fn, settings):
    """Compile (or load) TRON's kernels for the branch function on this process's device, with one
    branch solved from a copy, so that no iteration's timing holds a compilation."""
    Blocks([np.arange(1)], Y, rho, lo, hi).solve(x[:1].copy(), np.zeros((1, len(_branch.COUPLED))), fn, settings)


def _serve(conn, env, rows, blocks, Y, rho, lo, hi, x, settings):
    """A worker: its branch rows' data, then one solve per target array received."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # the root answers Ctrl-C and stops the workers
    os.environ.update(env)                          # before anything initialises CUDA
    try:
        fn = _branch.function()
        mine = Blocks([np.searchsorted(rows, b) for b in blocks], Y, rho, lo, hi)
        warm_up(Y, rho, lo, hi, x, fn, settings)
        conn.send(("ready", None))
        while True:
            target = conn.recv()
            if target is None:
                return
            out = mine.solve(x, target, fn, settings)
            conn.send(("ok", (x, *out)))
    except (EOFError, KeyboardInterrupt):
        return
    except Exception as exc:  # reported to the root, which raises it there with its words
        try:
            conn.send(("error", f"{type(exc).__name__}: {exc}"))
        except (OSError, EOFError):
            pass


class BranchDevices:
    """The branch step of one ADMM run on ``devices`` devices: the root solves group 0, one worker
    process per other group; use as a context manager (the workers end with it)."""

    def __init__(self, parts, devices, settings, Y, rho, lo, hi, x):
        self.parts, self.s = parts, settings
        self.groups = groups(len(parts), devices)
        self.root = Blocks([parts[b] for b in self.groups[0]], Y, rho, lo, hi)
        self.workers = []   # (process, connection, rows)
        warm_up(Y, rho, lo, hi, x, _branch.function(), settings)
        if devices == 1:
            return
        gpus = visible_gpus() if settings.backend == "cuda" else None
        if gpus is not None and len(gpus) < devices:
            raise InputError(f"admm: devices = {devices}, but {len(gpus)} GPU(s) are visible here")
        ctx = multiprocessing.get_context("spawn")   # a forked CUDA context is unusable
        try:
            for k, grp in enumerate(self.groups[1:], start=1):
                rows = np.concatenate([parts[b] for b in grp])
                env = {"CUDA_VISIBLE_DEVICES": gpus[k]} if gpus is not None else {}
                mine, theirs = ctx.Pipe()
                p = ctx.Process(target=_serve, daemon=True,
                                args=(theirs, env, rows, [parts[b] for b in grp], Y[rows], rho[rows],
                                      lo[rows], hi[rows], x[rows].copy(), settings))
                p.start()
                theirs.close()
                self.workers.append((p, mine, rows))
            for _, conn, _ in self.workers:
                self._receive(conn)
        except BaseException:
            self.close()
            raise

    def _receive(self, conn):
        try:
            kind, payload = conn.recv()
        except EOFError:
            raise RuntimeError("admm: a device worker ended unexpectedly") from None
        if kind == "error":
            raise RuntimeError(f"admm: a device worker failed: {payload}")
        return payload

    def step(self, x, target, fn):
        """One branch step: ``x`` updated in place.  Returns (kernel seconds per block in block
        order, TRON iterations summed, failures, the root's wall seconds for the whole step,
        distribution and gathering included: the paper's timing of the root process)."""
        t0 = time.perf_counter()
        for _, conn, rows in self.workers:
            conn.send(np.ascontiguousarray(target[rows]))
        secs, its, failures = self.root.solve(x, target, fn, self.s)
        for _, conn, rows in self.workers:
            xw, wsecs, wits, wfail = self._receive(conn)
            x[rows] = xw
            secs += wsecs
            its += wits
            failures += wfail
        return secs, its, failures, time.perf_counter() - t0

    def close(self):
        for p, conn, _ in self.workers:
            try:
                conn.send(None)
            except (OSError, BrokenPipeError):
                pass
        for p, conn, _ in self.workers:
            p.join(timeout=2.0)
            if p.is_alive():
                p.terminate()
                p.join(timeout=1.0)
            conn.close()
        self.workers = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
