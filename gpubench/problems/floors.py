"""The memory floors of the device rows: how many bytes a unit of work (a DE generation, an
L-BFGS-B iteration, a batch of Cholesky factorizations, a batch of hs45 problems) moves, and
the bandwidth to divide them by, so that a report can print each measured time as a multiple
of the time those bytes take at the GPU's bandwidth (docs/peers.md, "At the memory floor").

Every model counts DRAM bytes of 8-byte doubles by one rule: a kernel reads each element of an
array it reads once and writes each element it writes once (a stencil's neighbours and a value
read back after the same kernel wrote it come from cache, not counted again); small scalar
arrays (a few kB) are left out.  The bandwidth is a copy kernel's, timed in the same run where
the record holds it (:func:`same_run_copy`), else the GPU's nominal HBM rate (:data:`NOMINAL_GBPS`).
"""

# ------------------------------------------------------------------ the bandwidth a floor divides by
# Nominal HBM bandwidth, GB/s, keyed by the GPU name a record stores (environment.gpu.name):
#   NVIDIA H200 Tensor Core GPU data sheet: H200 SXM, 141 GB HBM3e, "GPU memory bandwidth 4.8TB/s";
#   NVIDIA H100 Tensor Core GPU data sheet: H100 SXM, 80 GB HBM3, "GPU memory bandwidth 3.35TB/s"
#   (nvidia-smi names that part "NVIDIA H100 80GB HBM3"; the PCIe and NVL parts differ and are
#   not listed, so a record of theirs gets no nominal floor).
NOMINAL_GBPS = {"NVIDIA H200": 4800.0, "NVIDIA H100 80GB HBM3": 3350.0}
# the copy a GPU row times beside its work: 256 MiB each way, several times the 50-60 MB L2 of
# an H100 or H200, so the figure is DRAM's rate whatever the size of the row's own arrays
COPY_BYTES = 256 << 20


def copy_gbps(nbytes, reps=5, launches=4):
    """GB/s of a copy kernel over ``nbytes`` (bytes read plus bytes written), ``launches`` back to
    back between two CUDA events (their launch overhead overlapped), best of ``reps``: the
    bandwidth this GPU reaches on a plain stream of that size."""
    import numpy as np
    from numba import cuda
    from ..device.gpu import Timer
    from ..kernels import bandwidth
    n = max(1, nbytes // 8)
    a = cuda.to_device(np.ones(n))
    b = cuda.device_array_like(a)
    sms = cuda.get_current_device().MULTIPROCESSOR_COUNT
    grid, block = 8 * sms, 256
    bandwidth.copy[grid, block](a, b)
    best = None
    for _ in range(reps):
        t = Timer(cuda=True)
        cuda.synchronize()
        with t.time("k"):
            for k in range(launches):
                bandwidth.copy[grid, block](a if k % 2 == 0 else b, b if k % 2 == 0 else a)
        best = t.seconds["k"] if best is None else min(best, t.seconds["k"])
    return 2 * a.nbytes * launches / best / 1e9


def same_run_copy(on_gpu):
    """What a GPU row stores beside its time: {"copy_gbps", "copy_bytes"} of :func:`copy_gbps` over
    :data:`COPY_BYTES`, timed now; {} off a real GPU (the CPU, numba's simulator: no bandwidth)."""
    from ..device.gpu import gpu_available
    if not on_gpu or not gpu_available():
        return {}
    try:
        return {"copy_gbps": copy_gbps(COPY_BYTES), "copy_bytes": COPY_BYTES}
    except Exception as exc:    # (a peer holding the GPU's memory): the row's own time stands, its floor is nominal
        return {"copy_error": f"{type(exc).__name__}: {exc}"[:200]}


def bandwidth_of(record):
    """(GB/s, source) a record's floor divides by: the copy timed in its own run, else the nominal
    rate of its GPU, else (None, why)."""
    res = record.get("result") or {}
    if res.get("copy_gbps"):
        return float(res["copy_gbps"]), "copy, same run"
    gpu = ((record.get("environment") or {}).get("gpu") or {}).get("name")
    if gpu in NOMINAL_GBPS:
        return NOMINAL_GBPS[gpu], "nominal"
    return None, f"no copy measured and no nominal rate for {gpu or 'an unnamed GPU'}"


# ------------------------------------------------------------------ DE: bytes of a generation
def de_bytes(NP, D, CR, schedule="stream", replacements=None, copies=None):
    """DRAM bytes of one generation of de-gpu's kernel ``schedule`` at (NP, D, CR), as the kernel
    moves them (docs/peers.md, "de-gpu at large populations", derives each term):

    * every target read whole: 8 D a member;
    * the donors' elements where crossover takes them: three rows, each 32-byte sector (four
      doubles) read when one of its elements crossed, 1 - (1 - CR)^4 of a row;
    * the population written: ``stream`` writes a winning trial once (8 D, with its value, ``last``
      word and count: 8 D + 32 a replacement) and copies a loser's row whose other buffer is stale
      (it won the generation before: 8 D + 16, the row read back from L2 not counted);
      ``replacements`` and ``copies`` a generation when known, else every member written at most;
      the cooperative kernel writes at most the population (a winner's changed sectors, or the
      whole row where the other buffer is stale);
    * per member: ``stream`` reads its value and its ``last`` word and reads and writes its
      evaluation count, 32 bytes; the cooperative kernel reads and writes its value, its count and
      its same-flag, 48 bytes;
    * random numbers: none read or written by ``stream`` (counter-based); the cooperative kernel's
      xoroshiro states are read and written once a launch, not a generation (left out).
    """
    row = 8 * NP * D
    donors = 3 * row * (1 - (1 - CR) ** 4)
    if schedule == "stream":
        per_member = NP * (8 + 8 + 16)
        exact = replacements is not None
        if replacements is None:
            write = NP * (8 * D + 32)
        else:
            write = replacements * (8 * D + 32) + (copies or 0) * (8 * D + 16)
            exact = copies is not None
    else:
        per_member = NP * (16 + 16 + 8)
        write = row
        exact = False
    total = row + donors + write + per_member
    return {"schedule": schedule, "target_read": row, "donor_read": donors, "population_write": write,
            "write_exact": exact, "per_member": per_member, "total": total,
            "total_without_write": total - write}


def de_dram_floor(NP, D, CR, l2_bytes, replacements=0.0, copies=0.0):
    """The fewest DRAM bytes a generation of DE/rand/1/bin can move with an L2 of ``l2_bytes``: the
    stream kernel's traffic (:func:`de_bytes`) less the donor sectors that could come from L2.  The
    donors are random rows of the source buffer (8 NP D bytes), each row read as a target in the
    same generation: at best the L2 holds a fraction min(1, l2 / buffer) of the buffer, and that
    fraction of the donor sectors hits it.  A bound, not a prediction (the targets streaming
    through and the writes compete for the same L2): where the buffer fits, only the targets'
    first read remains (then L2's bandwidth, not DRAM's, is the limit)."""
    b = de_bytes(NP, D, CR, "stream", replacements, copies)
    hit = min(1.0, l2_bytes / (8 * NP * D)) if l2_bytes else 0.0
    donors = b["donor_read"] * (1.0 - hit)
    total = b["total"] - b["donor_read"] + donors
    return {"l2_bytes": l2_bytes, "donor_hit_fraction_at_best": hit, "donor_read": donors, "total": total}


# ------------------------------------------------------------------ L-BFGS-B: bytes of an iteration
def lbfgsb_evaluation_vectors():
    """n-vectors (reads, writes) of one line-search evaluation of torsion on the fused path:
    ``lf_trial`` reads x and d and writes the trial point; the stencil kernel reads it and writes
    g; f = (v.g - c hx hy sum v) / 2 reads v and g, then v; the slope g.d reads g and d."""
    return {"lf_trial": (2, 1), "stencil": (1, 1), "v.g": (2, 0), "sum v": (1, 0), "g.d": (2, 0)}


def lbfgsb_iteration_vectors(m, free=1.0):
    """n-vectors (reads, writes) of the passes of one iteration of the fused path
    (:mod:`gpubench.kernels.lbfgsb_fused`) besides its evaluations, history full (k = m), the
    projected step taken, the pair accepted; ``free`` the fraction of coordinates free at the
    Cauchy point (the reduced gradient and the subspace step read the history only there):

    * ``lf_reduced``: x, g, lo and hi and the 2m history rows (free) read; x_c, the free mask, r
      written (the rows of a bound coordinate in a tile that follows a free one are read and dropped:
      left out);
    * ``lf_step``: the mask, x_c, lo, hi, g, x, r and the history (both free) read; du written;
    * ``lf_direction``: x_c, du, lo, hi, x, g read; d written;
    * ``GN = g_new``: the accepted gradient copied into its row;
    * ``lf_pair``: the trial x_a, x, g_new, g, lo, hi and the 2m history rows read (the pair's products
      and the next Cauchy point's, at x_a);
    * ``lf_move``: x_a, x, g_new, g read, the new pair's two rows and x, g written."""
    h = 2 * m
    return {"lf_reduced": (4 + h * free, 3), "lf_step": (6 + (1 + h) * free, 1), "lf_direction": (6, 1),
            "GN copy": (1, 1), "lf_pair": (6 + h, 0), "lf_move": (4, 4)}


def lbfgsb_bytes(n, m, evaluations=1.0, free=1.0):
    """DRAM bytes of one iteration of lbfgsb-gpu's fused path on torsion at n variables with m
    history pairs and ``evaluations`` line-search evaluations an iteration (the model of
    :func:`lbfgsb_iteration_vectors` and :func:`lbfgsb_evaluation_vectors`):
    (37 + 2 m + (4 m + 1) free + 10 e) n doubles; every coordinate free, (38 + 6 m + 10 e) n.
    Left out: the small-matrix kernels and the scalars the host reads (a few kB), lo and hi read by
    a trial clipped at the largest step, the first m iterations (a shorter history), restarts."""
    it = lbfgsb_iteration_vectors(m, free)
    ev = lbfgsb_evaluation_vectors()
    per_iter = sum(r + w for r, w in it.values())
    per_eval = sum(r + w for r, w in ev.values())
    vectors = per_iter + evaluations * per_eval
    return {"n": n, "m": m, "evaluations": evaluations, "free": free, "vectors_iteration": per_iter,
            "vectors_evaluation": per_eval, "vectors": vectors, "total": 8 * n * vectors}


# ------------------------------------------------------------------ batched Cholesky and hs45
def cholesky_storage(variant, n):
    """How the entry ``variant`` moves a matrix: "full" (the whole n x n column-major matrix read
    and written back: left, right, warp, thread, and torch's input and its new n x n output with
    the upper triangle zeroed) or "lower" (the lanes kernels: only the lower triangle read, and L
    written over it); auto runs chol_small.AUTO."""
    if variant == "auto":
        from ..kernels.chol_small import AUTO
        variant = AUTO
    return "lower" if variant in ("lanes", "lanes_shared", "lanes_unrolled", "lanes_unrolled_shared") else "full"


def cholesky_bytes(variant, n, batch):
    """DRAM bytes of one batched Cholesky call: per matrix A read and L written, 8 n^2 each way
    ("full") or 8 n (n + 1) / 2 each way ("lower"), plus the 4-byte flag a matrix (our ok, torch's
    info).  torch's own traffic inside the call (workspaces, a copy before factoring in place) is
    not modelled: its row is the floor of its inputs and outputs."""
    storage = cholesky_storage(variant, n)
    per = 8 * n * n if storage == "full" else 4 * n * (n + 1)
    return {"storage": storage, "per_matrix": 2 * per + 4, "total": batch * (2 * per + 4)}


def hs45_bytes(n, batch):
    """DRAM bytes one TRON launch on a batch of hs45-type problems must move: per problem x0, lo,
    hi and the divisors read (4 n doubles), x and the five outputs (f, iterations, status, nfev,
    ||pg||) written.  The work space of ``memory = "global"`` (2 n^2 + 16 n doubles a problem,
    read and written every iteration) is the kernel's choice, not what the batch must move, and the
    six settings are read once a launch (48 bytes): left out."""
    per = 8 * (4 * n + n + 5)
    return {"per_problem": per, "total": batch * per}


# ------------------------------------------------------------------ a record's floor
LBFGSB_PEERS = "device_peers_lbfgsb_jaxopt"


def floor_of(record):
    """{"bytes", "unit", "gbps", "source", "floor_ms", "model"} of a stored GPU record the models
    cover (de-generation rows have theirs in the record already), or None."""
    m = record.get("measured") or {}
    if m.get("backend") in (None, "cpu", "scipy (cpu)") or str(m.get("backend")).endswith("on cpu"):
        return None
    s = record.get("settings") or {}
    method, n = record.get("method"), record.get("dim")
    # the model is the fused path's: a record says which path ran (``path``), and every record of
    # the side-by-side experiment ran the fused one (it came with it, e8be071), jaxopt's beside it
    fused = (record.get("result") or {}).get("path") == "fused" or record.get("experiment") == LBFGSB_PEERS
    if method == "lbfgsb-minpack" and record.get("function") == "minpack2:torsion" and fused \
            and s.get("cauchy", "approximate") == "approximate":
        it = m.get("iterations") or 0
        evals = m.get("evaluations")
        b = lbfgsb_bytes(n, s.get("m", 5), evals / it if evals and it else 1.0)
        b["evaluations_counted"] = bool(evals and it)
        unit = "iteration"
    elif method == "cholesky-batch" and record.get("function") == "device:cholesky":
        b = cholesky_bytes(s.get("variant", "left"), n, (record.get("result") or {}).get("batch") or s.get("batch"))
        unit = "call"
    elif method == "tron-batch":
        b = hs45_bytes(n, (record.get("result") or {}).get("batch") or s.get("batch"))
        unit = "batch"
    else:
        return None
    gbps, source = bandwidth_of(record)
    return {"bytes": b["total"], "unit": unit, "gbps": gbps, "source": source, "model": b,
            "floor_ms": None if gbps is None else b["total"] / (gbps * 1e9) * 1e3}
