"""The device rows measured beside their peers (issue 27): de-gpu vs EvoX's DE, the batched
Cholesky variants vs torch; their procedures on the CPU, the copy kernel under the simulator."""
import numpy as np
import pytest

from gpubench.errors import InputError
from gpubench.problems import catalog, device_rows, floors


def _settings(proc, **kw):
    return {**catalog.PROCEDURES[proc].settings, **kw}


def test_de_bytes_per_generation():
    """A generation reads every target (8 D a member) and the donor sectors its crossover touches
    (three rows, a 32-byte sector of four doubles when one of them crossed).  The stream kernel
    writes 8 D + 32 bytes a replacement (the trial, its value, ``last`` word and count) and 8 D + 16
    a copy (a loser whose other buffer is stale), and reads or writes 32 bytes a member; the
    cooperative kernel writes at most the population, 48 bytes a member."""
    NP, D = 100_000, 100
    row = 8 * NP * D
    b = floors.de_bytes(NP, D, 0.3, "stream", 20_000, 1_000)
    assert b["target_read"] == row and b["donor_read"] == pytest.approx(3 * row * (1 - 0.7 ** 4))
    assert b["population_write"] == 20_000 * (8 * D + 32) + 1_000 * (8 * D + 16) and b["write_exact"]
    assert b["total"] == pytest.approx(row + 3 * row * 0.7599 + 20_000 * 832 + 1_000 * 816 + 32 * NP)
    assert b["total"] - b["total_without_write"] == b["population_write"]
    assert not floors.de_bytes(NP, D, 0.3, "stream", 20_000)["write_exact"]   # copies not known
    unknown = floors.de_bytes(NP, D, 0.3, "stream")
    assert unknown["population_write"] == NP * (8 * D + 32) and not unknown["write_exact"]
    coop = floors.de_bytes(NP, D, 0.3, "cooperative")
    assert coop["population_write"] == row and coop["total"] == pytest.approx(2 * row + 3 * row * 0.7599 + 40 * NP)
    assert floors.de_bytes(10, 4, 1.0)["donor_read"] == 3 * 8 * 10 * 4  # every sector


def test_de_dram_floor_takes_the_donors_l2_could_serve():
    """At (100, 1e5) the 80 MB source buffer is larger than a 50 MB L2: at best 5/8 of the donor
    sectors hit it; at (100, 1e4) the 8 MB buffer fits and no donor sector need come from DRAM."""
    big = floors.de_dram_floor(100_000, 100, 0.3, 50e6)
    full = floors.de_bytes(100_000, 100, 0.3, "stream", 0, 0)
    assert big["donor_hit_fraction_at_best"] == pytest.approx(50 / 80)
    assert big["total"] == pytest.approx(full["total"] - full["donor_read"] * 50 / 80)
    small = floors.de_dram_floor(10_000, 100, 0.3, 50e6)
    assert small["donor_read"] == 0 and small["total"] == pytest.approx(8e6 + 32 * 10_000)
    assert floors.de_dram_floor(10_000, 100, 0.3, None)["donor_read"] == floors.de_bytes(10_000, 100, 0.3)["donor_read"]


def test_lbfgsb_bytes_per_iteration_by_hand():
    """m = 1, n = 3, every coordinate free, one evaluation, counted pass by pass (n-vectors read +
    written): lf_reduced x g lo hi + 2 history rows, x_c mask r: 9; lf_step mask x_c lo hi g x r + 2
    rows, du: 10; lf_direction x_c du lo hi x g, d: 7; the gradient's copy: 2; lf_pair x_a x g_new g lo hi
    + 2 rows: 8; lf_move x_a x g_new g, 2 rows x g: 8; the evaluation: trial x d -> x_a 3,
    stencil 2, v.g 2, sum v 1, g.d 2: 10."""
    b = floors.lbfgsb_bytes(3, 1)
    assert b["vectors_iteration"] == 9 + 10 + 7 + 2 + 8 + 8 and b["vectors_evaluation"] == 10
    assert b["total"] == 8 * 3 * 54
    # m = 2, half the coordinates free: the history reads of lf_reduced (4) and lf_step (4, and r)
    # halve: 9 + 9.5 + 7 + 2 + 10 + 8, and 1.5 evaluations
    half = floors.lbfgsb_bytes(10, 2, evaluations=1.5, free=0.5)
    assert half["vectors"] == 45.5 + 15 and half["total"] == 8 * 10 * 60.5
    assert floors.lbfgsb_bytes(4_000_000, 5)["total"] == 8 * 4_000_000 * (38 + 6 * 5 + 10)


def _element_counter(monkeypatch, sizes):
    """Under numba's CUDA simulator: [(kernel, bytes read, bytes written)] per launch, the distinct
    elements of the kernel's array arguments whose size in bytes is one of ``sizes`` that the launch
    reads before writing them, and that it writes (arrays of other sizes are not counted)."""
    from numba.cuda.simulator import kernel as sk
    from numba.cuda.simulator.cudadrv import devicearray as da
    launches, cur = [], {"acc": None}

    def where(a, idx):
        idx = tuple(int(i) for i in (idx if isinstance(idx, tuple) else (idx,)))
        root = a
        while isinstance(root.base, np.ndarray):
            root = root.base
        if len(idx) != a.ndim or root.nbytes not in sizes:
            return None
        start = root.__array_interface__["data"][0]
        return start, a.__array_interface__["data"][0] - start + sum(i * s for i, s in zip(idx, a.strides)), a.itemsize

    get, put, call = da.FakeCUDAArray.__getitem__, da.FakeCUDAArray.__setitem__, sk.FakeCUDAKernel.__call__

    def getitem(self, idx):
        r = get(self, idx)
        if cur["acc"] is not None and not isinstance(r, da.FakeCUDAArray):
            k = where(self._ary, idx)
            if k:
                cur["acc"].setdefault(k, "r")
        return r

    def setitem(self, idx, val):
        k = where(self._ary, idx) if cur["acc"] is not None else None
        if k:
            cur["acc"][k] = cur["acc"].get(k, "") + "w"
        return put(self, idx, val)

    def launch(self, *args):
        if cur["acc"] is not None:       # a configured kernel calls the plain one
            return call(self, *args)
        cur["acc"] = {}
        try:
            return call(self, *args)
        finally:
            acc = cur["acc"].items()
            launches.append((self.fn.__name__, sum(k[2] for k, v in acc if v[0] == "r"),
                             sum(k[2] for k, v in acc if "w" in v)))
            cur["acc"] = None
    monkeypatch.setattr(da.FakeCUDAArray, "__getitem__", getitem)
    monkeypatch.setattr(da.FakeCUDAArray, "__setitem__", setitem)
    monkeypatch.setattr(sk.FakeCUDAKernel, "__call__", launch)
    return launches


SIMULATED = pytest.mark.skipif(not __import__("gpubench.device.gpu", fromlist=["simulator"]).simulator(),
                               reason="counts the kernels' element accesses under numba's CUDA simulator")


@SIMULATED
def test_lbfgsb_model_is_what_the_fused_kernels_touch(monkeypatch):
    """The fused kernels run under the simulator on a convex quadratic, no bound active (every
    coordinate free), m = 2, four iterations: the elements each kernel of the last iteration reads
    first and writes, in n-vectors, are the model's (the gradient's copy is an array assignment,
    the evaluation CuPy's: not kernels here)."""
    from gpubench.methods.lbfgsb import fused
    n, m = 16, 2
    launches = _element_counter(monkeypatch, {8 * n * w for w in (1, 2 * m, 11)})
    a = np.linspace(1.0, 3.0, n)
    r = fused.minimize(lambda x: (0.5 * float(a @ (x * x)) - float(x.sum()), a * x - 1.0), np.zeros(n),
                       np.full(n, -1e30), np.full(n, 1e30), m=m, pgtol=0.0, factr=0.0, maxiter=4, backend=np)
    assert r.iterations == 4
    last = {name: (rd / (8 * n), wr / (8 * n)) for name, rd, wr in launches}
    model = {k: v for k, v in floors.lbfgsb_iteration_vectors(m).items() if k != "GN copy"}
    assert {k: last[k] for k in model} == model
    assert last["lf_trial"] == floors.lbfgsb_evaluation_vectors()["lf_trial"]


@SIMULATED
@pytest.mark.parametrize("variant, n", [("left", 3), ("warp", 3), ("thread", 3), ("lanes", 3), ("lanes_shared", 3),
                                        ("lanes_unrolled", 3), ("lanes_unrolled_shared", 3), ("auto", 5)])
def test_cholesky_model_is_what_the_kernels_touch(monkeypatch, variant, n):
    """Each Cholesky kernel of the row, under the simulator on 2 matrices: the bytes of A it reads
    and writes and of the flags it writes are the model's call."""
    nb = 2
    launches = _element_counter(monkeypatch, {8 * nb * n * n, 4 * nb})
    device_rows.cholesky("device:cholesky", n, _settings("cholesky-batch", variant=variant, batch=nb, reps=1,
                                                         backend="cuda"))
    _, read, written = launches[-1]
    assert read + written == floors.cholesky_bytes(variant, n, nb)["total"]


@SIMULATED
def test_hs45_model_is_what_the_tron_kernel_must_touch(monkeypatch):
    """TRON's kernel on 2 hs45-type problems of n = 2 under the simulator: of x0 (x), the bounds, the
    divisors and the outputs it reads and writes the model's bytes (its work space and its six
    settings, read once a launch, aside: no array of theirs has the size of these); 4 threads a block."""
    from gpubench.methods import tron
    nb, n = 2, 2
    launches = _element_counter(monkeypatch, {8 * nb * n, 8 * nb * 5})
    r = tron.solve_hs45(nb, n, backend="cuda", memory="shared", threads=4)
    assert (r.status == 0).all()
    _, read, written = launches[-1]
    assert read + written == floors.hs45_bytes(n, nb)["total"]


def test_lbfgsb_row_counts_its_evaluations():
    """The torsion row stores the objective's calls in its timed run (the floor's e), which path ran,
    and no copy bandwidth off a GPU."""
    from gpubench.problems import lbfgsb_rows
    m, res = lbfgsb_rows.lbfgsb_minpack("minpack2:torsion", 400, _settings(
        "lbfgsb-minpack", cauchy="approximate", backend="cpu", cap_seconds=0.0))
    assert m["converged"] and m["iterations"] <= m["evaluations"] <= 2 * m["iterations"] + 1
    assert res["path"] == "array" and "copy_gbps" not in res


def test_cholesky_and_hs45_bytes_by_hand():
    """A 3 x 3 matrix moved whole: 9 doubles read, 9 written, a 4-byte flag; the lanes kernel moves
    the lower triangle, 6 each way; auto is lanes_unrolled_shared (the lower triangle); torch's input
    and output are whole.  An hs45 problem of n = 2: x0, lo, hi, divisors read (8), x and five
    outputs written (7)."""
    assert floors.cholesky_bytes("warp", 3, 2) == {"storage": "full", "per_matrix": 148, "total": 296}
    assert floors.cholesky_bytes("lanes", 3, 2)["total"] == 2 * (8 * 12 + 4)
    assert floors.cholesky_bytes("auto", 3, 1)["storage"] == "lower"
    assert floors.cholesky_bytes("auto", 5, 1)["per_matrix"] == 8 * 30 + 4
    assert floors.cholesky_bytes("torch", 32, 10_000)["total"] == 10_000 * (16 * 1024 + 4)
    assert floors.hs45_bytes(2, 3) == {"per_problem": 8 * 15, "total": 3 * 8 * 15}


def test_same_run_copy_on_a_gpu_and_when_it_fails(monkeypatch):
    """On a GPU the row stores the copy's GB/s over COPY_BYTES; a copy that fails (the GPU's memory
    held by a peer) leaves the reason instead, and the row stands."""
    monkeypatch.setattr("gpubench.device.gpu.gpu_available", lambda: True)
    monkeypatch.setattr(floors, "copy_gbps", lambda nbytes: nbytes / 1e5)
    assert floors.same_run_copy(True) == {"copy_gbps": floors.COPY_BYTES / 1e5, "copy_bytes": floors.COPY_BYTES}

    def fails(nbytes):
        raise MemoryError("out of memory")
    monkeypatch.setattr(floors, "copy_gbps", fails)
    assert floors.same_run_copy(True) == {"copy_error": "MemoryError: out of memory"}
    assert floors.same_run_copy(False) == {}


def test_floor_takes_the_same_run_copy_else_the_nominal_rate():
    """A record's bandwidth: its own copy figure, else its GPU's data-sheet rate (named 'nominal'),
    else none; CPU rows, an exact Cauchy point and methods without a model get no floor."""
    def rec(gpu="NVIDIA H200", **res):
        return {"method": "lbfgsb-minpack", "function": "minpack2:torsion", "dim": 10_000, "key": "approximate",
                "settings": {"m": 5, "cauchy": "approximate"}, "result": {"path": "fused", **res},
                "measured": {"iterations": 100, "evaluations": 150, "ms_per_iteration": 2.0, "backend": "cuda"},
                "environment": {"gpu": {"name": gpu}}}
    assert floors.bandwidth_of(rec(copy_gbps=3000.0)) == (3000.0, "copy, same run")
    assert floors.bandwidth_of(rec()) == (4800.0, "nominal")
    assert floors.bandwidth_of(rec("NVIDIA H100 80GB HBM3")) == (3350.0, "nominal")
    assert floors.bandwidth_of(rec("NVIDIA A100-SXM4-40GB"))[0] is None
    f = floors.floor_of(rec(copy_gbps=2000.0))
    assert f["model"]["evaluations"] == 1.5 and f["bytes"] == 8 * 10_000 * (68 + 15)
    assert f["floor_ms"] == pytest.approx(f["bytes"] / 2e12 * 1e3)
    cpu = rec()
    cpu["measured"]["backend"] = "cpu"
    exact = rec()
    exact["settings"]["cauchy"] = "exact"
    assert floors.floor_of(cpu) is None and floors.floor_of(exact) is None
    array = rec()
    array["result"]["path"] = "array"       # the array loop's traffic is not the model's
    assert floors.floor_of(array) is None and floors.floor_of({**array, "experiment": floors.LBFGSB_PEERS})
    assert floors.floor_of({**rec(), "method": "de-generation"}) is None
    assert floors.same_run_copy(False) == {}


def test_report_shows_each_row_against_its_floor():
    """The report's floor table: bytes, bandwidth and its source, the floor and the measured time as
    a multiple of it, per unit of work (iterations with their evaluations, Cholesky calls with the
    pipelined time)."""
    from gpubench.reports import floors as section
    from gpubench.reports.document import Doc
    lb = {"method": "lbfgsb-minpack", "function": "minpack2:torsion", "dim": 4_000_000, "key": "approximate",
          "settings": {"m": 5}, "result": {"copy_gbps": 2720.0, "path": "fused"},
          "measured": {"iterations": 10, "ms_per_iteration": 2.0, "backend": "cuda"}}
    ch = {"method": "cholesky-batch", "function": "device:cholesky", "dim": 32, "key": "torch",
          "settings": {"variant": "torch", "batch": 10_000}, "result": {"batch": 10_000},
          "measured": {"ms": 0.42, "ms_pipelined": 0.35, "backend": "cuda"},
          "environment": {"gpu": {"name": "NVIDIA H200"}}}
    rows = section.rows([lb, ch, {**ch, "measured": {"ms": 1.0, "backend": "cpu"}}])
    assert [r["unit"] for r in rows] == ["call", "iteration"]
    it = rows[1]
    assert it["MB / iteration"] == "2496" and it["GB/s"] == "2720" and it["bandwidth"] == "copy, same run"
    assert it["floor µs"] == "917.6" and it["x floor"] == "2.18" and it["evaluations / iteration"] == "1 (not counted)"
    call = rows[0]
    assert call["bandwidth"] == "nominal" and call["GB/s"] == "4800" and call["MB / call"] == "163.9"
    assert call["x floor"] == f"{0.42 / (163.88e6 / 4.8e12 * 1e3):.3g}" and "x floor pipelined" in call
    doc = Doc()
    section.section(doc, [lb, ch])
    text = doc.markdown()
    assert "### At the memory floor" in text and "x floor" in text and "MB / call" in text


def test_de_generation_row_on_the_cpu_twin():
    m, res = device_rows.de_generation("device:de", 4, _settings("de-generation", np=16, seconds=10.0,
                                                                  max_generations=12, backend="cpu"))
    assert m["backend"] == "cpu" and m["iterations"] == res["generations"] == 12
    assert res["nfev"] == 16 * 13 and m["fe_per_s"] == pytest.approx(res["nfev"] / m["seconds"])
    assert m["ms"] == pytest.approx(1e3 * m["seconds"] / 12) and "bytes_per_generation" not in res
    with pytest.raises(InputError, match="peer"):
        device_rows.de_generation("device:de", 4, _settings("de-generation", peer="scipy"))
    with pytest.raises(InputError, match="mode"):
        device_rows.de_generation("device:de", 4, _settings("de-generation", mode="warp"))
    with pytest.raises(InputError, match="registers"):
        device_rows.de_generation("device:de", 4, _settings("de-generation", registers=8))
    with pytest.raises(InputError, match="lanes 64"):
        device_rows.de_generation("device:de", 4, _settings("de-generation", lanes=64))


def test_de_generation_lanes_reach_de_gpu(monkeypatch):
    """``lanes`` is de-gpu's threads_per_member (0: unset), and the row says which cap it ran under."""
    from gpubench import methods
    seen = []
    real = methods.minimize

    def spy(*a, **kw):
        seen.append(kw.get("threads_per_member"))
        return real(*a, **kw)
    monkeypatch.setattr(methods, "minimize", spy)
    _, res = device_rows.de_generation("device:de", 4, _settings("de-generation", np=16, seconds=10.0, lanes=2,
                                                                  max_generations=3, backend="cpu"))
    assert seen == [2, 2] and res["lanes_cap"] == 2
    seen.clear()
    _, res = device_rows.de_generation("device:de", 4, _settings("de-generation", np=16, seconds=10.0,
                                                                  max_generations=3, backend="cpu"))
    assert seen == [None, None] and res["lanes_cap"] is None


def test_de_generation_registers_cap_the_kernel_its_mode_names(monkeypatch):
    """``registers`` and ``chunk`` are the fast kernel's in mode fast and the stream kernel's in mode
    stream (each module's text carries them into its jit and its loops), never the other's; -1 lifts
    the cap; mode auto refuses both."""
    import re
    from gpubench import kernels
    from gpubench.methods import de_gpu
    seen = []
    monkeypatch.setattr(device_rows, "_de_gpu_timed", lambda D, NP, s, methods: seen.append(
        (de_gpu.FAST_REGISTERS, de_gpu.STREAM_REGISTERS, de_gpu.FAST_CHUNK, de_gpu.CHUNK, de_gpu._cuda_edits())) or {})
    for mode in ("fast", "stream"):
        assert device_rows._de_gpu_row(4, 16, _settings("de-generation", mode=mode, registers=80, chunk=3)) == {}
    assert device_rows._de_gpu_row(4, 16, _settings("de-generation", mode="fast", registers=-1)) == {}
    assert [s[:4] for s in seen] == [(80, None, 3, None), (None, 80, None, 3), (0, None, None, None)]
    assert (de_gpu.FAST_REGISTERS, de_gpu.STREAM_REGISTERS, de_gpu.FAST_CHUNK, de_gpu.CHUNK) == (None,) * 4  # restored
    (fast, _), (gpu_text, stream), (uncapped, _) = seen[0][4], seen[1][4], seen[2][4]
    fast_text, stream_text = kernels.splice("de_gpu", fast), kernels.splice("de_stream", stream)
    assert re.search(r"^FAST_REGISTERS = 80 ", fast_text, re.M) and re.search(r"^FAST_CHUNK = 3 ", fast_text, re.M)
    assert re.search(r"^CHUNK = 4 ", fast_text, re.M)   # the stream kernel's, untouched in mode fast
    assert "@_fast_jit\ndef de_fast(" in fast_text and "max_registers=FAST_REGISTERS" in fast_text
    fast_body = fast_text[fast_text.index("def de_fast("):]
    assert "range(FAST_CHUNK)" in fast_body and "range(CHUNK)" not in fast_body
    assert re.search(r"^STREAM_REGISTERS = 80 ", stream_text, re.M)
    assert re.search(r"^CHUNK = 3 ", kernels.splice("de_gpu", gpu_text), re.M)   # read by de_stream
    assert re.search(r"^FAST_REGISTERS = 0 ", kernels.splice("de_gpu", uncapped), re.M)
    for name, value in (("registers", 96), ("chunk", 2)):
        with pytest.raises(InputError, match=f"{name} {value}: a setting of the fast or the stream kernel"):
            device_rows.de_generation("device:de", 4, _settings("de-generation", mode="auto", **{name: value}))


def test_de_generation_row_stream_mode_on_the_cpu_twin():
    """mode = stream on the CPU runs the stream kernel's twin and records its replacements."""
    m, res = device_rows.de_generation("device:de", 4, _settings("de-generation", np=16, seconds=10.0, mode="stream",
                                                                  max_generations=6, backend="cpu"))
    assert res["generations"] == 6 and res["nfev"] == 16 * 7 and "stream" in res["schedule"]
    assert 0 < res["replacements"] <= 16 * 6 and m["replacement_rate"] == res["replacements"] / (16 * 6)


def test_cholesky_rows_name_their_variant():
    m, _ = device_rows.cholesky("device:cholesky", 5, _settings("cholesky-batch", variant="warp", batch=8, reps=1,
                                                                backend="cpu"))
    assert m["converged"] and m["max_err_vs_numpy"] < 1e-12
    with pytest.raises(InputError, match="known"):
        device_rows.cholesky("device:cholesky", 5, _settings("cholesky-batch", variant="upward", backend="cpu"))
    try:
        import torch  # noqa: F401
    except ImportError:
        with pytest.raises(InputError, match="PyTorch is not installed"):
            device_rows.cholesky("device:cholesky", 3, _settings("cholesky-batch", variant="torch", backend="cpu"))
    else:
        m, _ = device_rows.cholesky("device:cholesky", 3, _settings("cholesky-batch", variant="torch", batch=8,
                                                                    reps=1, backend="cpu"))
        assert m["max_err_vs_numpy"] < 1e-12


def test_copy_kernel_covers_an_array_larger_than_its_grid():
    """The bandwidth reference copies every element with a grid-stride loop (simulated: 2 blocks
    of 4 threads over 37 elements)."""
    from numba import cuda
    from gpubench.kernels import bandwidth
    a = np.arange(37, dtype=np.float64)
    d, out = cuda.to_device(a), cuda.to_device(np.zeros(37))
    bandwidth.copy[2, 4](d, out)
    assert np.array_equal(out.copy_to_host(), a)


@pytest.mark.parametrize("variant", ["lanes", "auto", "warp"])
def test_cholesky_row_times_one_call_and_pipelined_calls_on_the_simulator(variant):
    """The GPU path of the row under the simulator: one call timed, then ``pipeline`` calls back to
    back, each on its own copy of the batch (every copy factored: the flags and first factors of all
    are checked); without ``pipeline`` no pipelined time."""
    m, res = device_rows.cholesky("device:cholesky", 3, _settings("cholesky-batch", variant=variant, batch=5, reps=1,
                                                                  pipeline=2, backend="cuda"))
    assert m["backend"] == "cuda" and m["converged"] and m["max_err_vs_numpy"] < 1e-12
    assert m["ms_pipelined"] > 0 and res["pipeline"] == 2 and len(res["ms_pipelined_all"]) == 1
    assert 0 < res["host_ms_per_call"] <= 1.001 * m["ms_pipelined"]   # issuing is inside the timed span
    assert res["launch"] == "dispatcher"         # the simulator launches the ordinary way
    m, res = device_rows.cholesky("device:cholesky", 2, _settings("cholesky-batch", variant=variant, batch=3, reps=1,
                                                                  backend="cuda"))
    assert "ms_pipelined" not in m and "pipeline" not in res


def test_cholesky_row_pipelined_on_the_cpu_and_its_input_errors():
    """On the CPU twins (and torch where installed) the pipelined time is R calls over R copies;
    a pipeline below 0, n outside a variant's range and an unknown variant are one-line errors."""
    m, res = device_rows.cholesky("device:cholesky", 4, _settings("cholesky-batch", variant="thread", batch=6, reps=2,
                                                                  pipeline=3, backend="cpu"))
    assert m["converged"] and m["ms_pipelined"] > 0 and len(res["ms_pipelined_all"]) == 2
    with pytest.raises(InputError, match="pipeline must be >= 0"):
        device_rows.cholesky("device:cholesky", 4, _settings("cholesky-batch", variant="lanes", pipeline=-1,
                                                             backend="cpu"))
    with pytest.raises(InputError, match=r"lanes: n must be 1\.\.32, not 40"):
        device_rows.cholesky("device:cholesky", 40, _settings("cholesky-batch", variant="lanes", backend="cpu"))
    with pytest.raises(InputError, match="known: .*auto.*torch"):
        device_rows.cholesky("device:cholesky", 4, _settings("cholesky-batch", variant="registers", backend="cpu"))
    try:
        import torch  # noqa: F401
    except ImportError:
        return
    m, res = device_rows.cholesky("device:cholesky", 3, _settings("cholesky-batch", variant="torch", batch=4, reps=1,
                                                                  pipeline=2, backend="cpu"))
    assert m["ms_pipelined"] > 0 and res["pipeline"] == 2 and res["host_ms_per_call"] > 0


def test_report_ratio_against_torch():
    """torch's ms / the entry's ms per n, mean and least, and the n where the entry is slower, for
    one call and pipelined; nothing without torch's records."""
    from gpubench.reports.fixed import against_peer

    def rec(key, n, ms, piped=None):
        return {"key": key, "function": "device:cholesky", "dim": n,
                "measured": {"ms": ms, **({"ms_pipelined": piped} if piped else {})}}
    recs = [rec("torch", 1, 0.1, 0.08), rec("torch", 2, 0.2, 0.1), rec("lanes", 1, 0.05, 0.01),
            rec("lanes", 2, 0.4, 0.02), rec("warp", 1, 0.1)]
    rows = {r["Entry"]: r for r in against_peer(recs)}
    assert set(rows) == {"lanes", "warp"}
    assert rows["lanes"]["one call: mean ratio"] == "1.25" and rows["lanes"]["one call: least"] == "0.5"
    assert rows["lanes"]["one call: slower at n"] == "2"
    assert rows["lanes"]["pipelined: mean ratio"] == "6.5" and rows["lanes"]["pipelined: slower at n"] == ""
    assert rows["warp"]["one call: mean ratio"] == "1" and rows["warp"]["pipelined: mean ratio"] == "missing"
    assert against_peer([r for r in recs if r["key"] != "torch"]) == []
    # a ratio across runs is no side-by-side measurement: lanes of another commit pairs with nothing
    other = [{**r, "environment": {"commit": "b" * 40}} if r["key"] == "lanes" else r for r in recs]
    rows = {r["Entry"]: r for r in against_peer(other)}
    assert rows["lanes"]["one call: mean ratio"] == "missing" and rows["warp"]["one call: mean ratio"] == "1"
