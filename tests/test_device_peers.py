"""The device rows measured beside their peers (issue 27): de-gpu vs EvoX's DE, the batched
Cholesky variants vs torch; their procedures on the CPU, the copy kernel under the simulator."""
import numpy as np
import pytest

from gpubench.errors import InputError
from gpubench.problems import catalog, device_rows


def _settings(proc, **kw):
    return {**catalog.PROCEDURES[proc].settings, **kw}


def test_de_bytes_per_generation():
    """A generation reads every target (8 D a member), the donor sectors its crossover touches
    (three rows, a 32-byte sector of four doubles when one of them crossed), writes at most the
    population, and reads and writes a value and a counter per member."""
    b = device_rows._de_bytes(100_000, 100, 0.3)
    row = 8 * 100_000 * 100
    assert b["target_read"] == row == b["population_write_at_most"]
    assert b["donor_read"] == pytest.approx(3 * row * (1 - 0.7 ** 4))
    assert b["total_at_most"] == pytest.approx(2 * row + 3 * row * 0.7599 + 32 * 100_000)
    assert device_rows._de_bytes(10, 4, 1.0)["donor_read"] == 3 * 8 * 10 * 4  # every sector


def test_de_generation_row_on_the_cpu_twin():
    m, res = device_rows.de_generation("device:de", 4, _settings("de-generation", np=16, seconds=10.0,
                                                                  max_generations=12, backend="cpu"))
    assert m["backend"] == "cpu" and m["iterations"] == res["generations"] == 12
    assert res["nfev"] == 16 * 13 and m["fe_per_s"] == pytest.approx(res["nfev"] / m["seconds"])
    assert m["ms"] == pytest.approx(1e3 * m["seconds"] / 12) and "bytes_per_generation" not in res
    with pytest.raises(InputError, match="peer"):
        device_rows.de_generation("device:de", 4, _settings("de-generation", peer="scipy"))


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
