"""Test set-up shared by every test module.

Without a GPU, GPU code runs under numba's CUDA simulator.  The flag must be
set before numba is first imported, hence here.  CPU code (numba njit) is not
affected by it.  ``tests/test_ptx.py`` compiles real PTX in a subprocess
without the simulator.
"""
import os
import shutil

if "NUMBA_ENABLE_CUDASIM" not in os.environ and shutil.which("nvidia-smi") is None:
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
os.environ.setdefault("GPUBENCH_CACHE", os.path.join(os.path.dirname(__file__), "..", ".cache"))


import importlib  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

# The simulator runs a block as one Python thread per CUDA thread, and the thread that launched
# it polls them in a loop that never blocks: each time it gets the GIL it keeps it for the whole
# switch interval (5 ms by default) doing nothing useful.  At 1 ms the simulated tests take about
# a third less CPU and wall time (the 20 of tests/test_reduce.py and test_devloop.py that simulate:
# 80 -> 48 CPU seconds); the switch interval changes no result, only how often threads take turns.
sys.setswitchinterval(0.001)

# The simulator's shared-array lookup is not thread-safe (tests/simulator_fix.py says how it failed)
if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
    sys.path.insert(0, os.path.dirname(__file__))
    import simulator_fix  # noqa: E402

    simulator_fix.install()

import pytest  # noqa: E402


@pytest.fixture
def script(monkeypatch):
    """``script("startup_profile")``: a tool of benchmarks/profiling/, imported by name (not from a
    path) so that worker processes it spawns can import it too."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks" / "profiling"))
    return importlib.import_module


# ---------------------------------------------------------------- no test leaves state behind
def _process_state():
    """What one test may change for the next in the same process (issue 39: tests failed only after
    others had run in the same process): the environment, the working folder, the SIGINT handler
    and the wakeup fd, the Ctrl-C flags of gpubench.methods.monitor."""
    import signal
    from gpubench.methods import monitor
    try:
        fd = signal.set_wakeup_fd(-1)
        signal.set_wakeup_fd(fd)
    except ValueError:  # not the main thread: no wakeup fd to compare
        fd = None
    # gpubench's and numba's variables (a library's first import sets its own, e.g. jax's TF_CPP_*)
    env = {k: v for k, v in os.environ.items() if k.startswith(("GPUBENCH_", "NUMBA_", "XDG_", "HOME"))}
    return {"environment": env, "cwd": os.getcwd(), "SIGINT": signal.getsignal(signal.SIGINT),
            "wakeup fd": fd, "Ctrl-C flags": dict(monitor._INTERRUPT), "guards": list(monitor._GUARD)}


@pytest.fixture(autouse=True)
def _leaves_no_state():
    """Fails a test that changes the process for the tests after it (monkeypatch undoes its own
    changes before this check; an assignment to os.environ or os.chdir does not)."""
    before = _process_state()
    yield
    after = _process_state()
    changed = {k: (before[k], after[k]) for k in before if before[k] != after[k]}
    if "environment" in changed:
        b, a = changed.pop("environment")
        changed["environment"] = {k: (b.get(k), a.get(k)) for k in set(b) | set(a) if b.get(k) != a.get(k)}
    assert not changed, f"the test left process state changed for the next test: {changed}"


# ---------------------------------------------------------------- the longest tests first
# `make test` runs two xdist workers with --dist load: each worker keeps at least two tests queued,
# so a test of half a minute or more that the random order puts near the end runs while the other
# worker has nothing left to do.  These (seconds on 2 cores with a cold cache, the last full runs)
# go first, in this order; every other test keeps pytest-randomly's order (a stable sort after its
# shuffle), and no test's outcome depends on its place (the shared set-up of tests/shared.py waits
# for whichever worker builds it).
LONG_FIRST = (
    "tests/test_quick_variants.py::test_quick_variant_end_to_end[tableS12]",    # 13-93
    "tests/test_compare.py::",                                                   # its quick run, 56
    "tests/test_certify.py::test_quick_certification_agrees_on_five_functions",  # 17-56
    "tests/test_compare_command.py::",                                           # its levy run, 43
    "tests/test_reports.py::test_committed_records_load_and_rebuild_the_committed_reports",  # 28-32
    "tests/test_tron.py::test_kernels_compile_to_ptx",                           # 18-31
    "tests/test_devloop.py::test_device_loop_kernel_compiles_for_sm90",          # 25-27
    "tests/test_quick_variants.py::test_quick_variant_end_to_end[scipy_go_certify]",  # 14-22
    "tests/test_bad_inputs.py::test_bad_inputs_one_line_exit_2_no_traceback_no_stray_file",  # 17-22
    "tests/test_bad_inputs2.py::test_readme_python_example_prints_what_it_shows",  # 21
    "tests/test_wheel_install.py::",                                             # 14-21
    "tests/test_provenance.py::test_every_stored_commit_is_a_commit_of_this_repository",  # 18
)


def _long_rank(item):
    for i, prefix in enumerate(LONG_FIRST):
        if item.nodeid.startswith(prefix):
            return i
    return len(LONG_FIRST)


def pytest_collection_modifyitems(items):
    items.sort(key=_long_rank)
