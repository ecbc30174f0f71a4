"""The command line leaves out numba's low-occupancy warning, and only that one."""
import warnings

from gpubench import cli


def _performance_warning():
    try:  # the class numba-cuda's dispatcher raises (numba_cuda keeps its own errors module)
        from numba.cuda.core.errors import NumbaPerformanceWarning
    except ImportError:
        from numba.core.errors import NumbaPerformanceWarning
    return NumbaPerformanceWarning


def test_occupancy_warning_left_out_others_kept():
    W = _performance_warning()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        cli.quiet_occupancy_warnings()
        # the dispatcher's text (numba_cuda/numba/cuda/dispatcher.py), highlighted in bold by numba
        warnings.warn(W("Grid size 1 will likely result in GPU under-utilization due to low occupancy."))
        # as the H200 printed it (results/gpu/solve-31fe746/min_levy10_lbfgsb_10000_t8_2.json)
        warnings.warn(W("\x1b[1mGrid size 125 will likely result in GPU under-utilization due to low occupancy.\x1b[0m"))
        warnings.warn(W("Host array used in CUDA kernel will incur copy overhead to/from device."))
        warnings.warn(RuntimeWarning("overflow encountered in exp"))
    texts = [str(w.message) for w in seen]
    assert len(texts) == 2 and "copy overhead" in texts[0] and "overflow" in texts[1], texts
