"""Paper 003, Tables 1 and 2 triangulated: the compared pairs written again in PyTorch.

Kim, Pacaud, Kim & Anitescu (ExaTron) compare, on 10,000 random SPD matrices for each n = 1..32,
left- against right-looking batched Cholesky (Table 1) and an explicit against an implicit L^T in
the backward substitution L^T x = b (Table 2).  gpubench's own figures come from its numba-CUDA
kernels (:mod:`gpubench.methods.tron`, a thread block per matrix).  This module is the
independent implementation a differing row is set beside: the same algorithms, vectorised over the
batch in PyTorch, the column loop in Python, sharing no code with gpubench's kernels (only the
input matrices are the harness's, :func:`gpubench.problems.device_rows._spd`, so both sides factor
the same batch).

Cholesky (unblocked, a column at a time, in place on a copy W of the batch, four torch
operations a column in both variants, so the launch count does not decide the ratio):

- left-looking (lazy): column j first receives every earlier column's update,
  W[j:, j] -= W[j:, :j] W[j, :j]^T (a batched matrix-vector product over the finished columns),
  then is scaled by the square root of its diagonal;
- right-looking (eager): column j is scaled, then the whole trailing block takes its rank-one
  update at once, W[j+1:, j+1:] -= w w^T (the full square: a vectorised rank-one update has no
  cheaper half; the upper half's work is wasted, as it would be in any dense rank-one update).

Backward substitution L^T x = b, column-oriented as the paper's (x_j = b_j / L_jj, then
b[:j] -= x_j L[j, :j], data parallel over the column), L stored column by column as in the
paper's Julia arrays, so L[j, :j] is a row, read with a stride of n:

- implicit: the row read where it lies (strided);
- explicit: L^T written out first (one transposing copy, counted), then read contiguously.

Times, as the device rows' (:mod:`gpubench.problems.device_rows`): on a GPU, CUDA events around
the call, inputs on the device, the median of ``reps`` after one untimed call.  Two figures:
``ms``, the Python loop's call (its launches issued one by one by the host: mostly the host's
cost at these sizes), and ``ms_graph``, the same call captured once in a CUDA graph and replayed
(the GPU's own work, the host's launch cost gone); the triangulation judges ``ms_graph`` where
stored (gpubench.reports.triangulation.ratio_rows).  On a CPU, the host clock.
"""
import time

import numpy as np

from ..errors import InputError

CHOLESKY = ("left", "right")
BACKSOLVE = ("explicit", "implicit")


# ------------------------------------------------------------------ the algorithms
def cholesky_left(A):
    """Lower Cholesky factors of the batch ``A`` (nb, n, n), left-looking; the upper triangle of
    the returned tensor is A's (use ``torch.tril``)."""
    W = A.clone()
    n = W.shape[-1]
    for j in range(n):
        if j:
            # the lazy update: all finished columns at once, on column j's lower part
            W[:, j:, j] -= (W[:, j:, :j] @ W[:, j, :j, None])[..., 0]
        W[:, j:, j] /= W[:, j, j, None].sqrt()
    return W


def cholesky_right(A):
    """Lower Cholesky factors of the batch ``A`` (nb, n, n), right-looking (upper triangle: work)."""
    W = A.clone()
    n = W.shape[-1]
    for j in range(n):
        W[:, j:, j] /= W[:, j, j, None].sqrt()
        if j + 1 < n:
            c = W[:, j + 1:, j]
            # the eager update: the trailing block at once, as soon as column j is known
            W[:, j + 1:, j + 1:] -= c[:, :, None] * c[:, None, :]
    return W


def column_major(L):
    """The batch of lower factors as the paper stores them: T[b, j, i] = L[b, i, j] (a column of
    L is a contiguous row of T)."""
    return L.transpose(-1, -2).contiguous()


def backsolve(T, b, explicit):
    """x with L^T x = b for each matrix, L given column-major as :func:`column_major` makes it.
    ``explicit``: L^T written out (counted) and its columns read contiguously; else L's rows read
    with a stride of n where they lie."""
    n = T.shape[-1]
    # U[b, j, :j] is column j of L^T above the diagonal (L's row j): contiguous in the explicit copy
    U = T.transpose(-1, -2).contiguous() if explicit else None
    d = T.diagonal(dim1=-2, dim2=-1)
    x = b.clone()
    for j in range(n - 1, -1, -1):
        x[:, j] /= d[:, j]
        if j:
            col = U[:, j, :j] if explicit else T[:, :j, j]
            x[:, :j].addcmul_(col, x[:, j, None], value=-1.0)
    return x


# ------------------------------------------------------------------ timing
def _torch():
    try:
        import torch
    except ImportError:
        raise InputError("the torch triangulation of paper 003: PyTorch is not installed (pip install torch)") from None
    return torch


def _device(torch, backend):
    from ..device.gpu import resolve_backend
    b = resolve_backend(backend)
    if b == "cuda" and not torch.cuda.is_available():
        raise InputError("backend cuda: this PyTorch has no CUDA (torch.cuda.is_available() is False)")
    return "cuda" if b == "cuda" else "cpu"


def _time_calls(torch, dev, fn, reps):
    """Seconds of each of ``reps`` calls of ``fn`` (CUDA events on a GPU, the host clock on a
    CPU), after one untimed call."""
    fn()
    if dev == "cuda":
        from .tron_rows import torch_time_ms   # the harness's one CUDA-event timer
        return [ms / 1e3 for ms in torch_time_ms(torch, fn, reps)]
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def _graph_times(torch, fn, reps):
    """(seconds of each replay, the output) of ``fn`` captured in a CUDA graph: warmed on a side
    stream as torch's documentation asks, captured once, replayed ``reps`` times between events."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = fn()
    return _time_calls(torch, "cuda", g.replay, reps), out


def _measure(torch, dev, fn, reps, graph):
    """(measured, result, output) of one row: ms of the eager call and, on a GPU with ``graph``,
    of its graph's replay."""
    secs = _time_calls(torch, dev, fn, reps)
    y = fn()
    measured = {"iterations": reps, "seconds": float(np.median(secs)), "fun": None, "converged": True,
                "ms": 1e3 * float(np.median(secs)), "backend": dev, "peer": f"torch {torch.__version__}"}
    result = {"ms_all": [1e3 * x for x in secs]}
    if graph and dev == "cuda":
        try:
            gsecs, y = _graph_times(torch, fn, reps)
            measured["ms_graph"] = 1e3 * float(np.median(gsecs))
            result["ms_graph_all"] = [1e3 * x for x in gsecs]
        except Exception as exc:     # a capture this torch cannot make: the eager figure stands, said so
            result["graph_error"] = f"{type(exc).__name__}: {exc}"
    return measured, result, y


def cholesky(problem, n, s):
    """The procedure ``cholesky-torch``: ``variant`` left or right on ``batch`` random SPD n x n
    matrices (the harness's, as ``cholesky-batch`` factors them)."""
    from .device_rows import _spd
    if s["variant"] not in CHOLESKY:
        raise InputError(f"cholesky-torch variant {s['variant']!r}: known: {', '.join(CHOLESKY)}")
    torch = _torch()
    dev = _device(torch, s["backend"])
    A = _spd(s["batch"], n, 1000 + n)
    tA = torch.from_numpy(A).to(dev)
    fn = {"left": cholesky_left, "right": cholesky_right}[s["variant"]]
    measured, result, W = _measure(torch, dev, lambda: fn(tA), s["reps"], s["graph"])
    k = min(4, len(A))
    L = torch.tril(W[:k]).cpu().numpy()
    measured["max_err_vs_numpy"] = float(np.abs(L - np.linalg.cholesky(A[:k])).max())
    measured["converged"] = bool(torch.isfinite(torch.diagonal(W, dim1=-2, dim2=-1)).all())
    return measured, dict(result, batch=s["batch"], algorithm=f"{s['variant']}-looking, torch, column loop")


def triangular(problem, n, s):
    """The procedure ``triangular-torch``: L^T x = b, ``variant`` explicit or implicit, on the
    factors of the harness's matrices and right-hand sides (as ``triangular-batch`` solves them)."""
    from .device_rows import _spd
    if s["variant"] not in BACKSOLVE:
        raise InputError(f"triangular-torch variant {s['variant']!r}: known: {', '.join(BACKSOLVE)}")
    torch = _torch()
    dev = _device(torch, s["backend"])
    nb = s["batch"]
    L = np.linalg.cholesky(_spd(nb, n, 1000 + n))
    B0 = np.random.default_rng(n).standard_normal((nb, n))
    T = column_major(torch.from_numpy(L)).to(dev)
    tb = torch.from_numpy(B0).to(dev)
    explicit = s["variant"] == "explicit"
    measured, result, x = _measure(torch, dev, lambda: backsolve(T, tb, explicit), s["reps"], s["graph"])
    k = min(4, nb)
    ref = np.linalg.solve(L[:k].transpose(0, 2, 1), B0[:k, :, None])[..., 0]
    measured["max_err_vs_numpy"] = float(np.abs(x[:k].cpu().numpy() - ref).max())
    measured["converged"] = bool(torch.isfinite(x).all())
    return measured, dict(result, batch=nb, algorithm=f"backward substitution, {s['variant']} L^T, torch")
