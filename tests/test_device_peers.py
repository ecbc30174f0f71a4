"""The device rows measured beside their peers (issue 27): de-gpu vs EvoX's DE, the batched
Cholesky variants vs torch; their procedures on the CPU, the copy kernel under the simulator."""
import numpy as np
import pytest

from gpubench.errors import InputError
from gpubench.problems import catalog, device_rows


def _settings(proc, **kw):
    return {**catalog.PROCEDURES[proc].settings, **kw}


def test_de_bytes_per_generation():
    """A generation reads every target (8 D a member) and the donor sectors its crossover touches
    (three rows, a 32-byte sector of four doubles when one of them crossed).  The stream kernel
    writes 8 D + 32 bytes a replacement (the trial, its value, slot word and count) and reads 56
    bytes a member; the cooperative kernel writes at most the population, 48 bytes a member."""
    NP, D = 100_000, 100
    row = 8 * NP * D
    b = device_rows._de_bytes(NP, D, 0.3, "stream", 20_000)
    assert b["target_read"] == row and b["donor_read"] == pytest.approx(3 * row * (1 - 0.7 ** 4))
    assert b["population_write"] == 20_000 * (8 * D + 32) and b["write_exact"]
    assert b["total"] == pytest.approx(row + 3 * row * 0.7599 + 20_000 * 832 + 56 * NP)
    assert b["total"] - b["total_without_write"] == b["population_write"]
    unknown = device_rows._de_bytes(NP, D, 0.3, "stream")
    assert unknown["population_write"] == NP * (8 * D + 32) and not unknown["write_exact"]
    coop = device_rows._de_bytes(NP, D, 0.3, "cooperative")
    assert coop["population_write"] == row and coop["total"] == pytest.approx(2 * row + 3 * row * 0.7599 + 40 * NP)
    assert device_rows._de_bytes(10, 4, 1.0)["donor_read"] == 3 * 8 * 10 * 4  # every sector


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
