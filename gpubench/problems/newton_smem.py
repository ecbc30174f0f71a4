"""Paper 003, Table 3 triangulated: problem data in shared or in global memory, by a kernel of its own.

Kim, Pacaud, Kim & Anitescu (ExaTron) time TRON on 10,000 hs45-type problems (f = -prod x_i / i on
0 <= x_i <= i, from x_i = i/2; the solution x_i = i) with its working data in shared memory and in
global memory (Table 3: 9.536 against 16.293 ms on a V100).  gpubench's figure comes from its TRON
kernel (:mod:`gpubench.methods.tron`).  This module is the independent implementation a differing
row is set beside: the same design choice (a block of one warp per problem, every working array of
the problem in one workspace that lives in shared memory or in a row of a global array, the code
otherwise the same) in a solver written here from the printed description, sharing no code with
gpubench's TRON:

- a projected Newton method: the gradient, the projected gradient and the Hessian of the
  product (H_ij = g_i / x_j off the diagonal, 0 on it) each iteration; variables at a bound whose
  gradient points outward are held; the free block of H + alpha I factored by a left-looking
  Cholesky in the workspace (alpha = 0 when the free diagonal is positive, else a thousandth of
  max |H_ij|, times 4 until the factorization succeeds, as TRON's preconditioner raises its own);
  the Newton step by forward and backward substitution; a projected Armijo backtracking search;
- the stop: ||pg|| <= 1e-8 ||pg(x0)|| (TRON's relative rule), or 100 iterations.

One thread per variable (of the block's 32), reductions by thread 0 over the workspace.  The time
is the kernel's alone (CUDA events around the launch, inputs already on the device; best of
``reps`` after one untimed, compiling launch), as the Table 3 rows time TRON.  On a CPU the kernel
runs in numba's CUDA simulator (a separate process when this one did not start with it: numba
chooses the simulator when it is imported); its time there means nothing and is not judged.
"""
import json
import math
import os
import subprocess
import sys

import numpy as np
# at module level: numba's CUDA simulator swaps a kernel's global `cuda` for its own (a closure's it cannot)
from numba import cuda, float64

from ..errors import InputError

THREADS = 32            # one warp per problem, as the paper's blocks
MAX_ITER = 100
GTOL = 1e-8             # ||pg|| <= GTOL ||pg(x0)||
ARMIJO = 1e-4
MAX_BACKTRACK = 40
MAX_SHIFTS = 30
# alpha's growth when H + alpha I does not factor: 4, not 10, whose powers times 1e-3 land exactly on
# max |H_ij|, an eigenvalue's size of hs45's 2 x 2 free blocks [[0, h], [h, 0]] (a singular shift)
SHIFT_GROWTH = 4.0
MEMORY = ("shared", "global")
_KERNELS = {}


def layout(n):
    """{name: offset} of a problem's workspace and its size: seven vectors of n, H and L (n x n,
    column-major) and eight scalars."""
    names = ("x", "g", "c", "free", "xt", "r", "s")
    off = {k: i * n for i, k in enumerate(names)}
    off["H"] = 7 * n
    off["L"] = off["H"] + n * n
    off["sc"] = off["L"] + n * n
    return off, off["sc"] + 8


def _build(n):
    """(shared kernel, global kernel) for problems of size n (the workspace's size a constant)."""
    off, size = layout(n)
    X, G, C, F, XT, R, S, H, L, SC = (off[k] for k in ("x", "g", "c", "free", "xt", "r", "s", "H", "L", "sc"))

    @cuda.jit(device=True)
    def value_and_sum(ws, at):
        # (f at the point ws[at:at+n], f = -prod x_k / c_k, and the sum of ws[S:S+n]): the iterate's
        # value with its squared projected gradient, and a trial point's with its directional slope
        f = -1.0
        s = 0.0
        for k in range(n):
            f *= ws[at + k] / ws[C + k]
            s += ws[S + k]
        return f, s

    @cuda.jit(device=True)
    def solve(ws, x0, hi, xout, iters, status, b, i):
        if i < n:
            ws[X + i] = x0[b, i]
            ws[C + i] = hi[b, i]
        cuda.syncthreads()
        it = 0
        st = 1
        while it < MAX_ITER:
            # gradient (g_i = -prod_{k != i} x_k / c_k / c_i), projected gradient, free flags
            if i < n:
                p = 1.0
                for k in range(n):
                    if k != i:
                        p *= ws[X + k] / ws[C + k]
                gi = -p / ws[C + i]
                ws[G + i] = gi
                xi = ws[X + i]
                lo_held = xi <= 0.0 and gi > 0.0
                hi_held = xi >= ws[C + i] and gi < 0.0
                pg = 0.0 if (lo_held or hi_held) else gi
                ws[S + i] = pg * pg
                ws[F + i] = 0.0 if (lo_held or hi_held) else 1.0
            cuda.syncthreads()
            if i == 0:
                f, s = value_and_sum(ws, X)
                ws[SC + 0] = f
                ws[SC + 2] = math.sqrt(s)
                if it == 0:
                    ws[SC + 1] = math.sqrt(s)
            cuda.syncthreads()
            if ws[SC + 2] <= GTOL * ws[SC + 1]:
                st = 0
                break
            # the Hessian, row i: H_ij = g_i / x_j (j != i), H_ii = 0
            if i < n:
                for j in range(n):
                    if j == i:
                        v = 0.0
                    elif ws[X + j] > 0.0:
                        v = ws[G + i] / ws[X + j]
                    else:
                        v = -1.0 / (ws[C + i] * ws[C + j])
                        for k in range(n):
                            if k != i and k != j:
                                v *= ws[X + k] / ws[C + k]
                    ws[H + i + j * n] = v
            cuda.syncthreads()
            if i == 0:
                hmax = 0.0
                for a in range(n):
                    for j in range(n):
                        if ws[F + a] > 0.0 and ws[F + j] > 0.0:
                            hmax = max(hmax, abs(ws[H + a + j * n]))
                ws[SC + 7] = hmax
                ws[SC + 3] = 1e-3 * hmax if hmax > 0.0 else 1.0     # the free diagonal of H is 0
            cuda.syncthreads()
            ok = False
            shifts = 0
            while not ok and shifts < MAX_SHIFTS:
                alpha = ws[SC + 3]
                if i < n:
                    for j in range(n):
                        if ws[F + i] > 0.0 and ws[F + j] > 0.0:
                            v = ws[H + i + j * n] + (alpha if i == j else 0.0)
                        else:
                            v = 1.0 if i == j else 0.0
                        ws[L + i + j * n] = v
                cuda.syncthreads()
                ok = True
                for j in range(n):       # left-looking Cholesky, column j by threads i >= j
                    if i < n and i >= j:
                        s = ws[L + i + j * n]
                        for k in range(j):
                            s -= ws[L + i + k * n] * ws[L + j + k * n]
                        ws[S + i] = s
                    cuda.syncthreads()
                    piv = ws[S + j]
                    if not piv > 0.0:
                        ok = False
                        break
                    if i < n and i >= j:
                        ws[L + i + j * n] = ws[S + i] / math.sqrt(piv)
                    cuda.syncthreads()
                cuda.syncthreads()
                if not ok and i == 0:
                    ws[SC + 3] = SHIFT_GROWTH * alpha
                cuda.syncthreads()
                shifts += 1
            if not ok:
                st = 2
                break
            # Newton step on the free block: L y = -g, then L^T d = y (r holds y, then d)
            if i < n:
                ws[R + i] = -ws[G + i] if ws[F + i] > 0.0 else 0.0
            cuda.syncthreads()
            for j in range(n):
                yj = ws[R + j] / ws[L + j + j * n]
                cuda.syncthreads()
                if i == j:
                    ws[R + j] = yj
                elif i > j and i < n:
                    ws[R + i] -= ws[L + i + j * n] * yj
                cuda.syncthreads()
            for jj in range(n):
                j = n - 1 - jj
                dj = ws[R + j] / ws[L + j + j * n]
                cuda.syncthreads()
                if i == j:
                    ws[R + j] = dj
                elif i < j:
                    ws[R + i] -= ws[L + j + i * n] * dj
                cuda.syncthreads()
            # projected Armijo backtracking along the step
            t = 1.0
            found = False
            for _ in range(MAX_BACKTRACK):
                if i < n:
                    xt = min(max(ws[X + i] + t * ws[R + i], 0.0), ws[C + i])
                    ws[XT + i] = xt
                    ws[S + i] = ws[G + i] * (xt - ws[X + i])
                cuda.syncthreads()
                if i == 0:
                    ft, gd = value_and_sum(ws, XT)
                    ws[SC + 6] = 1.0 if ft <= ws[SC + 0] + ARMIJO * gd else 0.0
                cuda.syncthreads()
                if ws[SC + 6] > 0.0:
                    found = True
                    break
                t *= 0.5
                cuda.syncthreads()
            if not found:
                st = 2
                break
            if i < n:
                ws[X + i] = ws[XT + i]
            cuda.syncthreads()
            it += 1
        if i < n:
            xout[b, i] = ws[X + i]
        if i == 0:
            iters[b] = it
            status[b] = st

    @cuda.jit
    def in_shared(x0, hi, xout, iters, status):
        ws = cuda.shared.array(size, float64)
        solve(ws, x0, hi, xout, iters, status, cuda.blockIdx.x, cuda.threadIdx.x)

    @cuda.jit
    def in_global(x0, hi, xout, iters, status, gws):
        b = cuda.blockIdx.x
        solve(gws[b], x0, hi, xout, iters, status, b, cuda.threadIdx.x)

    return in_shared, in_global


def kernels(n):
    if n not in _KERNELS:
        _KERNELS[n] = _build(n)
    return _KERNELS[n]


def solve_batch(nb, n, memory, reps=3):
    """(x, iterations, status, best seconds) of ``nb`` hs45-type problems of size n, the workspace in
    ``memory``; status 0 converged, 1 the iteration limit, 2 failed (no shift or no step found)."""
    from ..device.gpu import Timer, simulator
    if memory not in MEMORY:
        raise InputError(f"newton-batch-independent memory {memory!r}: known: {', '.join(MEMORY)}")
    if not 1 <= n <= THREADS:
        raise InputError(f"newton-batch-independent n = {n}: 1 to {THREADS} (one thread a variable)")
    hi = np.tile(np.arange(1.0, n + 1.0), (nb, 1))
    d_x0, d_hi = cuda.to_device(0.5 * hi), cuda.to_device(hi)
    d_x = cuda.device_array((nb, n))
    d_it, d_st = cuda.device_array(nb, dtype=np.int32), cuda.device_array(nb, dtype=np.int32)
    shared, glob = kernels(n)
    if memory == "shared":
        def launch():
            shared[nb, THREADS](d_x0, d_hi, d_x, d_it, d_st)
    else:
        gws = cuda.device_array((nb, layout(n)[1]))

        def launch():
            glob[nb, THREADS](d_x0, d_hi, d_x, d_it, d_st, gws)
    launch()            # compiles
    cuda.synchronize()
    best = None
    for _ in range(reps):
        t = Timer(cuda=not simulator())
        cuda.synchronize()
        with t.time("k"):
            launch()
            if simulator():
                cuda.synchronize()
        best = t.seconds["k"] if best is None else min(best, t.seconds["k"])
    return d_x.copy_to_host(), d_it.copy_to_host(), d_st.copy_to_host(), best


def _row(n, s, where):
    x, its, st, sec = solve_batch(s["batch"], n, s["memory"], s["reps"])
    err = float(np.abs(x - np.arange(1, n + 1)).max())
    measured = {"iterations": float(its.mean()), "seconds": sec, "fun": float(-np.prod(x[0] / np.arange(1, n + 1))),
                "converged": bool((st == 0).all()), "ms": 1e3 * sec, "backend": where, "max_abs_err": err}
    return measured, {"batch": s["batch"], "converged": int((st == 0).sum()), "threads": THREADS,
                      "workspace_doubles": layout(n)[1], "memory": s["memory"]}


def newton_batch(problem, n, s):
    """The procedure ``newton-batch-independent``: the batch of hs45-type problems of size n solved by
    this module's projected Newton kernel, the workspace in ``memory`` (Table 3's triangulation)."""
    from ..device.gpu import resolve_backend, simulator
    if s["memory"] not in MEMORY:
        raise InputError(f"newton-batch-independent memory {s['memory']!r}: known: {', '.join(MEMORY)}")
    backend = resolve_backend(s["backend"])
    if backend == "cuda" or simulator():
        return _row(n, s, "cuda" if backend == "cuda" and not simulator() else "simulator")
    # on a CPU: the same kernel in numba's simulator, chosen at numba's import, so in a process of its own
    code = ("import json, sys; from gpubench.problems import newton_smem as m; "
            "print(json.dumps(m._row(int(sys.argv[1]), json.loads(sys.argv[2]), 'simulator')))")
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    out = subprocess.run([sys.executable, "-c", code, str(n), json.dumps(s)], env=env, capture_output=True,
                         text=True, check=False)
    if out.returncode:
        raise RuntimeError(f"newton-batch-independent in the CUDA simulator failed: {out.stderr.strip()[-400:]}")
    measured, result = json.loads(out.stdout.strip().splitlines()[-1])
    return measured, result
