"""The procedures of paper 003's Tables 1-3: batched Cholesky, batched back substitution and
TRON on a batch of hs45-type problems, each timed on one backend.

On a GPU the time is the kernel's alone (CUDA events; inputs already on the device, the
input the kernel overwrites restored untimed before each repetition), as the paper times
it; on the CPU it is the numba twin's call.  The first call compiles and is not timed.

Cholesky variants: ``left`` and ``right`` (a block per matrix, the paper's), ``warp`` (a group
of a warp's lanes per matrix, n <= 32: :mod:`gpubench.kernels.chol_gpu`), ``thread``, ``lanes``,
``lanes_shared`` and ``auto`` (one kernel per n, the factor in registers:
:mod:`gpubench.kernels.chol_small`), ``lanes_unrolled`` and ``lanes_unrolled_shared`` (the same,
every loop written out in generated text: :mod:`gpubench.kernels.chol_unrolled`) and
``torch`` (``torch.linalg.cholesky`` on the same matrices on the same GPU, timed the same way:
the peer of the comparison).

Two times per Cholesky row: ``ms``, one call between two CUDA events (what a user pays for one
call: the host's launch cost, numba's or torch's, with the GPU idle meanwhile, plus the kernel),
and with ``pipeline`` R > 0 ``ms_pipelined``, R calls back to back on R copies of the input
between two events, divided by R (the host's cost overlapped with the GPU's work).  Our kernels
are launched through :func:`gpubench.device.gpu.bound_launch` (looked up and marshalled once).
"""
import time

import numpy as np

from ..device.gpu import Timer, resolve_backend, simulator
from ..errors import InputError
from .floors import copy_gbps, de_bytes, de_dram_floor, same_run_copy


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


def _pipelined(backend, reps, launches, prepare):
    """Median over ``reps`` of the seconds per launch of ``launches`` (R functions, each on its own
    copy of the input) called back to back between two CUDA events, divided by R: the host's
    cost of a launch overlaps the GPU's work of the one before, as in a loop of calls.  Also the
    median host seconds per call of issuing them (``time.perf_counter`` around the calls, before
    the closing event waits): the Python side of a launch."""
    out, host = [], []
    for _ in range(reps):
        prepare()
        if backend == "cuda":
            from numba import cuda
            cuda.synchronize()
        t = Timer(cuda=backend == "cuda" and not simulator())
        with t.time("k"):
            t0 = time.perf_counter()
            for f in launches:
                f()
            host.append((time.perf_counter() - t0) / len(launches))
        out.append(t.seconds["k"] / len(launches))
    return float(np.median(out)), out, float(np.median(host))


def _linalg(kind, n, s):
    from ..methods import tron
    backend = resolve_backend(s["backend"])
    nb = s["batch"]
    if kind == "cholesky" and s["variant"] not in (*tron.LINALG_CHOLESKY, "torch"):
        raise InputError(f"cholesky-batch variant {s['variant']!r}: known: "
                         f"{', '.join((*tron.LINALG_CHOLESKY, 'torch'))}")
    if kind == "cholesky" and s["variant"] != "torch":
        tron.check_cholesky(s["variant"], n)
    R = s.get("pipeline", 0)
    if R < 0:
        raise InputError(f"cholesky-batch pipeline must be >= 0 (launches between two events), not {R}")
    A = _spd(nb, n, 1000 + n)
    if kind == "cholesky":
        src = _column_major(A)
    else:
        src = _column_major(np.linalg.cholesky(A))
        B0 = np.random.default_rng(n).standard_normal((nb, n))
    if kind == "cholesky" and s["variant"] == "torch":
        return _torch_cholesky(A, n, s, backend)
    variant = tron.LINALG_CHOLESKY.get(s["variant"], 0)
    explicit = 1 if s["variant"] == "explicit" else 0
    extra = {}
    if backend == "cpu":
        from ..methods.tron.cpu import linalg_twins
        chol, back, _ = linalg_twins()

        def make():
            """(work, rhs, ok, launch): one copy of the input and the call that overwrites it."""
            work, rhs, ok = src.copy(), None if kind == "cholesky" else B0.copy(), np.zeros(nb, dtype=np.int32)

            def launch():
                chol(work, n, variant, ok) if kind == "cholesky" else back(work, rhs, n, explicit)
            return work, rhs, ok, launch

        def restore(work, rhs):
            work[:] = src
            if rhs is not None:
                rhs[:] = B0
        host = np.asarray
    else:
        from numba import cuda
        from ..methods.tron import kernels
        d0 = cuda.to_device(src)
        dB0 = None if kind == "cholesky" else cuda.to_device(B0)

        def make():
            work, ok = cuda.device_array(src.shape), cuda.device_array(nb, dtype=np.int32)
            rhs = None if dB0 is None else cuda.device_array_like(dB0)
            work.copy_to_device(d0)
            launch = kernels.linalg_launcher("cholesky" if kind == "cholesky" else "backsolve", work, n,
                                             variant=variant, explicit=explicit, B=rhs, ok=ok)
            return work, rhs, ok, launch

        def restore(work, rhs):
            (work.copy_to_device(d0) if kind == "cholesky" else rhs.copy_to_device(dB0))

        def host(a):
            return a.copy_to_host()
    work, rhs, ok, launch = make()
    sec, all_s = _timed(backend, s["reps"], launch, lambda: restore(work, rhs))
    out, sol, ok = host(work), None if rhs is None else host(rhs), host(ok)
    extra["launch"] = getattr(launch, "path", "call")
    if getattr(launch, "why", None):
        extra["launch_not_bound"] = launch.why
    k = min(4, nb)
    firsts = []         # the first k results of every pipelined copy, checked as the single call's
    if R:
        copies = [make() for _ in range(R)]

        def restore_all():
            for w, b, _, _ in copies:
                restore(w, b)
        for c in copies:        # compiled already; each copy's first call untimed
            c[3]()
        psec, p_all, hsec = _pipelined(backend, s["reps"], [c[3] for c in copies], restore_all)
        ok = np.minimum(ok, np.min([host(c[2]) for c in copies], axis=0))
        firsts = [host(c[0][:k] if kind == "cholesky" else c[1][:k]) for c in copies]
        extra.update(pipeline=R, ms_pipelined_all=[1e3 * x for x in p_all], host_ms_per_call=1e3 * hsec)
        del copies
    if kind == "cholesky":
        ref = np.linalg.cholesky(A[:k])
        err = max(float(np.abs(np.tril(x.reshape(k, n, n).transpose(0, 2, 1)) - ref).max())
                  for x in [out[:k], *firsts])
        done = bool(ok.all())
    else:
        L = np.linalg.cholesky(A[:k])
        ref = np.linalg.solve(L.transpose(0, 2, 1), B0[:k, :, None])[..., 0]
        err = max(float(np.abs(x[:k] - ref).max()) for x in [sol, *firsts])
        done = bool(np.isfinite(sol).all())
    measured = {"iterations": s["reps"], "seconds": sec, "fun": None, "converged": done,
                "ms": 1e3 * sec, "backend": backend, "max_err_vs_numpy": err}
    if R:
        measured["ms_pipelined"] = 1e3 * psec
    if kind == "cholesky":      # the bandwidth its floor divides by (gpubench.problems.floors)
        extra.update(same_run_copy(backend == "cuda"))
    return measured, {"batch": nb, "ms_all": [1e3 * x for x in all_s], **extra}


def _torch_cholesky(A, n, s, backend):
    """torch.linalg.cholesky on the batch, on the GPU (or the CPU) the row runs on: the median of
    ``reps`` calls timed by CUDA events after one untimed call; with ``pipeline`` R, also the median
    of R calls back to back (each on its own copy of the batch) between two events, divided by R."""
    try:
        import torch
    except ImportError:
        raise InputError("cholesky-batch variant torch: PyTorch is not installed (pip install torch)") from None
    dev = "cuda" if backend == "cuda" and torch.cuda.is_available() else "cpu"
    tA = torch.from_numpy(A).to(dev)
    L = torch.linalg.cholesky(tA)

    def sync():
        if dev == "cuda":
            torch.cuda.synchronize()

    def timed(calls):
        """(seconds per call, host seconds per call of issuing them, the last factor)."""
        sync()
        if dev == "cuda":
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            t0 = time.perf_counter()
            for x in calls:
                y = torch.linalg.cholesky(x)
            issued = time.perf_counter() - t0
            b.record()
            b.synchronize()
            return a.elapsed_time(b) / 1e3 / len(calls), issued / len(calls), y
        t0 = time.perf_counter()
        for x in calls:
            y = torch.linalg.cholesky(x)
        sec = (time.perf_counter() - t0) / len(calls)
        return sec, sec, y
    out = []
    for _ in range(s["reps"]):
        sec1, _, L = timed([tA])
        out.append(sec1)
    k = min(4, A.shape[0])
    err = float(np.abs(L[:k].cpu().numpy() - np.linalg.cholesky(A[:k])).max())
    sec = float(np.median(out))
    measured = {"iterations": s["reps"], "seconds": sec, "fun": None, "converged": True, "ms": 1e3 * sec,
                "backend": "cuda" if dev == "cuda" else "cpu", "max_err_vs_numpy": err,
                "peer": f"torch {torch.__version__} linalg.cholesky"}
    result = {"batch": A.shape[0], "ms_all": [1e3 * x for x in out]}
    R = s.get("pipeline", 0)
    if R:
        copies = [tA.clone() for _ in range(R)]
        p_all, h_all = zip(*[timed(copies)[:2] for _ in range(s["reps"])])
        measured["ms_pipelined"] = 1e3 * float(np.median(p_all))
        result.update(pipeline=R, ms_pipelined_all=[1e3 * x for x in p_all],
                      host_ms_per_call=1e3 * float(np.median(h_all)))
    result.update(same_run_copy(dev == "cuda"))
    return measured, result


def cholesky(problem, n, s):
    """Batched Cholesky factorization of ``batch`` random SPD n x n matrices (Table 1)."""
    return _linalg("cholesky", n, s)


def triangular(problem, n, s):
    """Batched L^T x = b on the Cholesky factors of the same kind of matrices (Table 2)."""
    return _linalg("triangular", n, s)


def tron_batch(problem, n, s):
    """TRON on ``batch`` hs45-type problems of size n, data in shared or global memory (Table 3);
    ``registers`` > 0: the kernel compiled with at most that many registers a thread; ``specialize``:
    compiled for the launch's flags only (:func:`gpubench.methods.tron.kernels.bind_flags`); ``shift``: the
    preconditioner's shift after a failed Cholesky (paper: doubled, as ExaTron; gershgorin: a jump to a shift
    Gershgorin's theorem proves enough, :func:`gpubench.methods.tron.solve_batch`)."""
    from ..methods import tron
    backend = resolve_backend(s["backend"])
    kw = {"memory": s["memory"], "registers": s.get("registers", 0), "specialize": s.get("specialize", False),
          "shift": s["shift"]}
    tron.solve_hs45(2, n, start="mid", backend=backend, **kw)     # compiles
    best = None
    t0 = time.perf_counter()
    for _ in range(s["reps"]):
        r = tron.solve_hs45(s["batch"], n, start="mid", backend=backend, **kw)
        if best is None or r.seconds < best.seconds:
            best = r
    err = float(np.abs(best.x - np.arange(1, n + 1)).max())
    measured = {"iterations": float(best.iterations.mean()), "seconds": best.seconds,
                "fun": float(best.f.min()), "converged": bool((best.status == 0).all()),
                "ms": 1e3 * best.seconds, "backend": backend, "max_abs_err": err,
                "wall_all_reps": time.perf_counter() - t0}
    return measured, {"batch": s["batch"], "converged": int((best.status == 0).sum()),
                      **same_run_copy(backend == "cuda")}


# ------------------------------------------------------------------ DE generations side by side
DE_FUNCTION = "shifted_rastrigin"
DE_MODES = ("auto", "fast", "stream", "paper")
# a population below this many bytes is bound by launches and latency: no bandwidth is derived
MIN_BANDWIDTH_BYTES = 8 << 20


def _l2_bytes():
    """The current GPU's L2 size in bytes (None where the driver does not say)."""
    try:
        from numba import cuda
        return int(cuda.get_current_device().L2_CACHE_SIZE) or None
    except Exception:
        return None


def _de_gpu_row(D, NP, s):
    from .. import methods
    from ..methods import de_gpu
    saved = de_gpu.CHUNK, de_gpu.FAST_CHUNK, de_gpu.STREAM_REGISTERS, de_gpu.FAST_REGISTERS, de_gpu.FAST_FOLD
    # ``chunk`` and ``registers`` are the kernel's that the mode names (auto: each its module's own)
    stream, fast = s["mode"] == "stream", s["mode"] == "fast"
    de_gpu.CHUNK = (s["chunk"] or None) if stream else None
    de_gpu.FAST_CHUNK = (s["chunk"] or None) if fast else None
    cap = 0 if s["registers"] == -1 else (s["registers"] or None)   # -1: no cap, the compiler's choice
    de_gpu.STREAM_REGISTERS = cap if stream else None
    de_gpu.FAST_REGISTERS = cap if fast else None
    de_gpu.FAST_FOLD = {"fused": True, "pass": False}.get(s["fold"]) if fast else None
    try:
        return _de_gpu_timed(D, NP, s, methods)
    finally:
        de_gpu.CHUNK, de_gpu.FAST_CHUNK, de_gpu.STREAM_REGISTERS, de_gpu.FAST_REGISTERS, de_gpu.FAST_FOLD = saved


def _de_gpu_timed(D, NP, s, methods):
    kw = dict(np=NP, runs=1, mode=s["mode"], backend=s["backend"], F=s["F"], CR=s["CR"], seed=1, bounds="reinit",
              threads_per_member=s.get("lanes") or None)
    if s["mode"] == "stream":
        kw["cpu_variant"] = "stream"   # on the CPU, the stream kernel's twin
    t0 = time.perf_counter()
    g_cal = 20
    cal = methods.minimize(DE_FUNCTION, D, "de-gpu", max_evaluations=NP * (1 + g_cal), **kw)   # compiles
    warm = time.perf_counter() - t0
    gens = int(min(max(s["seconds"] * g_cal / max(cal.seconds, 1e-9), 10), s["max_generations"]))
    r = methods.minimize(DE_FUNCTION, D, "de-gpu", max_evaluations=NP * (1 + gens), **kw)
    launch = r.options.get("launch")
    return {"generations": gens, "nfev": r.nfev, "seconds": r.seconds, "warmup_s": warm, "chunk": s["chunk"] or None,
            "registers_cap": s["registers"] or None, "lanes_cap": s.get("lanes") or None, "mode": s["mode"],
            "fold": s["fold"] or None,
            "schedule": launch["schedule"] if launch else r.options.get("variant"),
            "replacements": r.history.get("replacements"), "stale_copies": r.history.get("stale_copies"),
            "best_error": float(min(r.history["run_error"])), "backend": r.backend,
            "launch": launch, "timing": r.timing, "auto": r.options.get("auto")}


def _evox_row(D, NP, s, compiled):
    """EvoX's DE (DE/rand/1/bin: base_vector "rand", the same F, CR and box) on the same function in
    float64, stepped by its StdWorkflow, compiled with torch.compile(workflow.step) (EvoX 1.x's
    documented compiled mode) or eager; compilation and the first steps are timed apart."""
    try:
        import evox
        import torch
        from evox.algorithms import DE
        from evox.core import Problem
        from evox.workflows import StdWorkflow
    except ImportError as exc:
        raise InputError(f"de-generation peer evox: {exc} (pip install evox torch)") from None
    import math
    from .. import functions
    fn = functions.get(DE_FUNCTION)
    lo, hi = fn.bounds(D)
    dev = "cuda" if s["backend"] != "cpu" and torch.cuda.is_available() else "cpu"
    o = torch.tensor(fn.params(D)[0], dtype=torch.float64, device=dev)

    class Rastrigin(Problem):
        def evaluate(self, pop):
            z = pop - o
            return (z * z - 10 * torch.cos(2 * math.pi * z) + 10).sum(-1)
    torch.set_default_dtype(torch.float64)
    torch._dynamo.reset()
    algo = DE(pop_size=NP, lb=torch.tensor(lo, device=dev), ub=torch.tensor(hi, device=dev), base_vector="rand",
              differential_weight=s["F"], cross_probability=s["CR"], device=dev)
    wf = StdWorkflow(algo, Rastrigin(), device=dev)
    wf.init_step()
    step = wf.step

    def sync():
        if dev == "cuda":
            torch.cuda.synchronize()
    from importlib.metadata import version
    out = {"version": getattr(evox, "__version__", None) or version("evox"), "torch": torch.__version__,
           "device": dev}
    t0 = time.perf_counter()
    if compiled:
        step = torch.compile(wf.step)
        step()
        sync()
        out["compile_s"] = time.perf_counter() - t0
    for _ in range(3):
        step()
    sync()
    out["warmup_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(5):
        step()
    sync()
    per = max((time.perf_counter() - t0) / 5, 1e-9)
    gens = int(min(max(s["seconds"] / per, 10), s["max_generations"]))
    t0 = time.perf_counter()
    for _ in range(gens):
        step()
    sync()
    sec = time.perf_counter() - t0
    out.update(generations=gens, nfev=gens * NP, seconds=sec, backend=dev)
    return out


def de_generation(problem, n, s):
    """Generations of DE/rand/1/bin (F, CR; Storn & Price 1997, as de-gpu: Qin et al. 2012) on the
    shifted Rastrigin function at D = n with population ``np``, by ``peer``: de-gpu (``mode``: auto,
    fast or stream, with its ``chunk``, ``lanes`` (a cap on a member's group of lanes, de-gpu's
    ``threads_per_member``: fewer lanes a member put more members in a warp, so a member's own steps,
    its key, indices, reduction and selection, take fewer warp instructions) and, for stream or fast, that
    kernel's ``chunk`` and ``registers`` cap (-1: none; auto: refused) and, for fast, ``fold`` (``fused``:
    the terms folded in the crossover pass, ``pass``: in a pass of their own; '' the kernel's own); one run; its own clock,
    after compilation and random-state set-up) or EvoX's DE (compiled or eager,
    warm).  Measured: function evaluations per second and ms per generation; on a GPU also the
    bytes a generation must move (:func:`gpubench.problems.floors.de_bytes`) and the bandwidth that makes, against a
    device-to-device copy of the population timed in the same call."""
    D, NP = n, s["np"]
    if s["peer"] not in ("de-gpu", "evox", "evox-compiled"):
        raise InputError(f"de-generation peer {s['peer']!r}: known: de-gpu, evox, evox-compiled")
    if s["mode"] not in DE_MODES:
        raise InputError(f"de-generation mode {s['mode']!r}: known: {', '.join(DE_MODES)}")
    if s["registers"] and not (s["registers"] == -1 or 16 <= s["registers"] <= 255):
        raise InputError(f"de-generation registers {s['registers']}: 0 (the kernel module's own cap), -1 (no cap: "
                         f"the compiler's choice) or 16 to 255")
    if s["fold"] not in ("", "fused", "pass"):
        raise InputError(f"de-generation fold {s['fold']!r}: '' (the kernel's own), fused (the terms folded in the "
                         f"crossover pass) or pass (in a pass of their own)")
    if s["fold"] and s["mode"] != "fast":
        raise InputError(f"de-generation fold {s['fold']}: a setting of the fast kernel (mode fast), "
                         f"not of mode {s['mode']}")
    for name in ("registers", "chunk"):
        if s[name] and s["mode"] not in ("fast", "stream"):
            raise InputError(f"de-generation {name} {s[name]}: a setting of the fast or the stream kernel "
                             f"(mode fast or stream), not of mode {s['mode']}")
    if s["chunk"] and not 1 <= s["chunk"] <= 16:
        raise InputError(f"de-generation chunk {s['chunk']}: 0 (the kernel's own) or 1 to 16")
    if s["lanes"] and not 1 <= s["lanes"] <= 32:
        raise InputError(f"de-generation lanes {s['lanes']}: 0 (the kernel's own) or 1 to 32")
    if s["peer"] == "de-gpu":
        row = _de_gpu_row(D, NP, s)
    else:
        row = _evox_row(D, NP, s, compiled=s["peer"] == "evox-compiled")
    ms = 1e3 * row["seconds"] / row["generations"]
    measured = {"iterations": row["generations"], "seconds": row["seconds"], "fun": row.get("best_error"),
                "converged": True, "ms": ms, "ms_per_generation": ms, "fe_per_s": row["nfev"] / row["seconds"],
                "backend": row["backend"], "peer": s["peer"]}
    result = dict(row, function=DE_FUNCTION, D=D, NP=NP, F=s["F"], CR=s["CR"])
    if row.get("replacements") is not None:
        measured["replacement_rate"] = row["replacements"] / (NP * row["generations"])
    if row["backend"] == "cuda" and 8 * NP * D >= MIN_BANDWIDTH_BYTES:
        schedule = row.get("schedule") or "peer"
        reps, copies = row.get("replacements"), row.get("stale_copies")
        b = de_bytes(NP, D, s["CR"], "stream" if schedule == "stream" else "cooperative",
                      None if reps is None else reps / row["generations"],
                      None if copies is None else copies / row["generations"])
        if s["peer"] != "de-gpu":
            b["schedule"] = "de-gpu's cooperative kernel's model (the peer's own traffic is not modelled)"
        gbps = copy_gbps(8 * NP * D)
        achieved = b["total"] / (ms / 1e3) / 1e9
        result.update(bytes_per_generation=b, copy_gbps=gbps, achieved_gbps=achieved,
                      achieved_gbps_without_write=b["total_without_write"] / (ms / 1e3) / 1e9,
                      fraction_of_copy_bandwidth=achieved / gbps,
                      floor_ms_at_copy_bandwidth=b["total"] / (gbps * 1e9) * 1e3)
        l2 = _l2_bytes()
        if l2:   # the floor with every donor sector L2 could serve served there (floors.de_dram_floor)
            fl = de_dram_floor(NP, D, s["CR"], l2, (reps or 0) / row["generations"],
                               (copies or 0) / row["generations"])
            result.update(dram_floor_l2=fl, floor_ms_with_l2=fl["total"] / (gbps * 1e9) * 1e3)
        measured["bandwidth_fraction"] = result["fraction_of_copy_bandwidth"]
        measured["gbps"] = achieved
    return measured, result
