"""The procedures of paper 003's Tables 1-3: batched Cholesky, batched back substitution and
TRON on a batch of hs45-type problems, each timed on one backend.

On a GPU the time is the kernel's alone (CUDA events; inputs already on the device, the
input the kernel overwrites restored untimed before each repetition), as the paper times
it; on the CPU it is the numba twin's call.  The first call compiles and is not timed.
"""
import time

import numpy as np

from ..device import Timer, resolve_backend, simulator


def _spd(nb, n, seed):
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((nb, n, n))
    return M @ M.transpose(0, 2, 1) + n * np.eye(n)


def _column_major(A):
    nb, n, _ = A.shape
    return np.array(A.transpose(0, 2, 1).reshape(nb, n * n), order="C", copy=True)


def _timed(backend, reps, launch, prepare):
    """Median seconds of ``reps`` timed launches after one untimed (compiling) one."""
    prepare()
    launch()
    out = []
    for _ in range(reps):
        prepare()
        if backend == "cuda":
            from numba import cuda
            cuda.synchronize()
        t = Timer(cuda=backend == "cuda" and not simulator())    # the simulator has no events
        with t.time("k"):
            launch()
        out.append(t.seconds["k"])
    return float(np.median(out)), out


def _linalg(kind, n, s):
    from .. import tron
    backend = resolve_backend(s["backend"])
    nb = s["batch"]
    A = _spd(nb, n, 1000 + n)
    if kind == "cholesky":
        src = _column_major(A)
    else:
        src = _column_major(np.linalg.cholesky(A))
        B0 = np.random.default_rng(n).standard_normal((nb, n))
    variant = tron.CHOLESKY.get(s["variant"], 0)
    explicit = 1 if s["variant"] == "explicit" else 0
    ok = np.zeros(nb, dtype=np.int32)
    if backend == "cpu":
        from ..tron.cpu import linalg_twins
        chol, back, _ = linalg_twins()
        work, rhs = src.copy(), None if kind == "cholesky" else B0.copy()

        def prepare():
            work[:] = src
            if rhs is not None:
                rhs[:] = B0

        def launch():
            chol(work, n, variant, ok) if kind == "cholesky" else back(work, rhs, n, explicit)
        sec, all_s = _timed(backend, s["reps"], launch, prepare)
        out, sol = work, rhs
    else:
        from numba import cuda
        from ..tron import kernels
        d0, dw, dok = cuda.to_device(src), cuda.device_array(src.shape), cuda.device_array(nb, dtype=np.int32)
        dB0 = None if kind == "cholesky" else cuda.to_device(B0)
        dB = None if dB0 is None else cuda.device_array_like(dB0)

        def prepare():
            (dw.copy_to_device(d0) if kind == "cholesky" else dB.copy_to_device(dB0))

        dw.copy_to_device(d0)

        def launch():
            if kind == "cholesky":
                kernels.launch_linalg("cholesky", dw, n, variant=variant, ok=dok)
            else:
                kernels.launch_linalg("backsolve", dw, n, B=dB, explicit=explicit)
        sec, all_s = _timed(backend, s["reps"], launch, prepare)
        out, sol = dw.copy_to_host(), None if dB is None else dB.copy_to_host()
        ok = dok.copy_to_host()
    k = min(4, nb)
    if kind == "cholesky":
        L = np.tril(out.reshape(nb, n, n).transpose(0, 2, 1))
        err = float(np.abs(L[:k] - np.linalg.cholesky(A[:k])).max())
        done = bool(ok.all())
    else:
        L = np.linalg.cholesky(A[:k])
        ref = np.linalg.solve(L.transpose(0, 2, 1), B0[:k, :, None])[..., 0]
        err = float(np.abs(sol[:k] - ref).max())
        done = bool(np.isfinite(sol).all())
    measured = {"iterations": s["reps"], "seconds": sec, "best_f": None, "converged": done,
                "ms": 1e3 * sec, "backend": backend, "max_err_vs_numpy": err}
    return measured, {"batch": nb, "ms_all": [1e3 * x for x in all_s]}


def cholesky(problem, n, s):
    """Batched Cholesky factorization of ``batch`` random SPD n x n matrices (Table 1)."""
    return _linalg("cholesky", n, s)


def triangular(problem, n, s):
    """Batched L^T x = b on the Cholesky factors of the same kind of matrices (Table 2)."""
    return _linalg("triangular", n, s)


def tron_batch(problem, n, s):
    """TRON on ``batch`` hs45-type problems of size n, data in shared or global memory (Table 3)."""
    from .. import tron
    backend = resolve_backend(s["backend"])
    tron.solve_hs45(2, n, start="mid", backend=backend, memory=s["memory"])     # compiles
    best = None
    t0 = time.perf_counter()
    for _ in range(s["reps"]):
        r = tron.solve_hs45(s["batch"], n, start="mid", backend=backend, memory=s["memory"])
        if best is None or r.seconds < best.seconds:
            best = r
    err = float(np.abs(best.x - np.arange(1, n + 1)).max())
    measured = {"iterations": float(best.iterations.mean()), "seconds": best.seconds,
                "best_f": float(best.f.min()), "converged": bool((best.status == 0).all()),
                "ms": 1e3 * best.seconds, "backend": backend, "max_abs_err": err,
                "wall_all_reps": time.perf_counter() - t0}
    return measured, {"batch": s["batch"], "converged": int((best.status == 0).sum())}
