"""Whether a GPU is here, asked of the CUDA driver without importing numba-cuda, and the GPU's free
memory asked only for a need that could not fit (gpubench/device/driver.py; issue 42, item 4)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpubench.device import driver, gpu
from gpubench.errors import InputError
from gpubench.workflow import resources

ROOT = Path(__file__).resolve().parents[1]


class FakeDriver:
    """cuInit, cuDeviceGetCount, cuDeviceGet and cuDeviceTotalMem_v2 as the driver answers them."""

    def __init__(self, init=0, count=1, total=80 * 2**30):
        self.init, self.count, self.total = init, count, total

    def cuInit(self, flags):
        return self.init

    def cuDeviceGetCount(self, ref):
        ref._obj.value = self.count
        return 0

    def cuDeviceGet(self, ref, ordinal):
        if ordinal >= self.count:
            return 101   # CUDA_ERROR_INVALID_DEVICE
        ref._obj.value = ordinal
        return 0

    def cuDeviceTotalMem_v2(self, ref, device):
        ref._obj.value = self.total
        return 0


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.delenv("NUMBA_DISABLE_CUDA", raising=False)
    monkeypatch.setattr(sys, "platform", "linux")

    def use(lib):
        monkeypatch.setitem(driver._LIB, "lib", lib)
    return use


def test_the_driver_says_whether_a_device_is_here(fake, monkeypatch):
    fake(FakeDriver(count=2))
    assert driver.sees_gpu() is True and driver.total_memory() == 80 * 2**30
    fake(FakeDriver(init=100))          # CUDA_ERROR_NO_DEVICE (CUDA_VISIBLE_DEVICES="", no card)
    assert driver.sees_gpu() is False and driver.total_memory() is None
    fake(FakeDriver(count=0))
    assert driver.sees_gpu() is False and driver.total_memory() is None
    fake(None)                          # no libcuda: numba-cuda, looking in the same places, has none
    assert driver.sees_gpu() is False and driver.total_memory() is None
    fake(FakeDriver())
    monkeypatch.setenv("NUMBA_DISABLE_CUDA", "1")   # as numba-cuda honours it
    assert driver.sees_gpu() is False and driver.total_memory() is None


def test_where_the_driver_cannot_answer_numba_cuda_does(fake, monkeypatch):
    fake(object())                      # a library without the entry points
    assert driver.sees_gpu() is None
    monkeypatch.setattr(gpu, "_GPU", {})
    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)
    monkeypatch.setattr(gpu, "_numba_sees_gpu", lambda: "numba's answer")
    assert gpu.gpu_available() == "numba's answer"
    monkeypatch.setattr(gpu, "_GPU", {})
    fake(FakeDriver())
    assert gpu.gpu_available() is True


def test_a_process_asking_for_a_gpu_imports_no_numba_cuda():
    """On any Linux machine, with a GPU or without: the answer comes from the driver alone."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the driver is asked through ctypes on Linux only")
    code = "import sys\nfrom gpubench.device import gpu\nprint(gpu.gpu_available(), 'numba.cuda' in sys.modules)"
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_ENABLE_CUDASIM", "NUMBA_DISABLE_CUDA")}
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    found, imported = p.stdout.split()
    assert found in ("True", "False") and imported == "False", "numba-cuda imported to ask for a GPU"


def test_the_gpus_free_memory_is_asked_only_for_a_need_that_might_not_fit(fake, monkeypatch):
    fake(FakeDriver(total=80 * 2**30))
    monkeypatch.setattr(gpu, "gpu_available", lambda: True)
    monkeypatch.setattr(resources, "host_available", lambda: None)
    asked = []

    def free():
        asked.append(1)
        return 2**30
    monkeypatch.setattr(resources, "_free_device_memory", free)
    resources.check([("--dim 10", 92e6)], device=True)      # Levy n = 10's interval solve
    assert not asked, "a CUDA context was made for a need of 92 MB on an 80 GiB card"
    with pytest.raises(InputError, match="the GPU has 1 GiB available"):
        resources.check([("--dim 1000000", 6 * 2**30)], device=True)   # over 1/16 of the card: asked
    assert asked == [1]
    fake(None)                                              # the driver cannot say: asked
    with pytest.raises(InputError, match="the GPU has"):
        resources.check([("--dim 10", 2 * 2**30)], device=True)
    assert asked == [1, 1]



CUDA_SOLVE = r"""
import sys
sys.path.insert(0, sys.argv[1])
from test_driver import FakeDriver
from gpubench.device import driver
driver._LIB["lib"] = FakeDriver(total=141 * 2**30)   # an H200 as the driver shows it
from gpubench import cli
rc = cli.main(["solve", "levy", "--dim", "10", "--backend", "cuda", "--json"])
print("NUMBA_CUDA", "numba.cuda" in sys.modules, file=sys.stderr)
sys.exit(rc)
"""


def test_a_cuda_solve_that_never_launches_imports_no_numba_cuda():
    """A typed-in interval solve of Levy n = 10 on cuda keeps its root whole by contraction on the
    host: no launch, so neither the question "is a GPU here?" nor the memory check may import
    numba-cuda (1 s of a process on the H200 host).  Without a GPU here, a launch would fail."""
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_ENABLE_CUDASIM", "NUMBA_DISABLE_CUDA")}
    p = subprocess.run([sys.executable, "-c", CUDA_SOLVE, str(Path(__file__).parent)], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "NUMBA_CUDA False" in p.stderr, "a cuda solve that made no launch imported numba-cuda"


class FakeContextDriver(FakeDriver):
    """The primary context's retain (taking ``seconds``, with no Python lock held, as a ctypes call
    into the driver) and release, recorded."""

    def __init__(self, retain=0, seconds=0.3, **kw):
        super().__init__(**kw)
        self.retain, self.seconds, self.calls = retain, seconds, []

    def cuDevicePrimaryCtxRetain(self, ref, device):
        import time
        time.sleep(self.seconds)
        self.calls.append(("retain", device.value))
        return self.retain

    def cuDevicePrimaryCtxRelease_v2(self, device):
        self.calls.append(("release", device.value))
        return 0


def test_the_early_context_is_made_beside_the_caller_and_given_back(fake):
    import time
    lib = FakeContextDriver(count=2)
    fake(lib)
    t0 = time.perf_counter()
    early = driver.start_primary_context(1)
    assert time.perf_counter() - t0 < 0.2 and lib.calls == []   # the caller goes on at once
    early.close()                                                # waits for the retain, then releases
    assert lib.calls == [("retain", 1), ("release", 1)]
    early.close()
    assert lib.calls == [("retain", 1), ("release", 1)]          # given back once
    lib = FakeContextDriver(retain=2, seconds=0.0)              # CUDA_ERROR_OUT_OF_MEMORY: nothing to give back
    fake(lib)
    driver.start_primary_context().close()
    assert lib.calls == [("retain", 0)]
    fake(FakeDriver())                                           # no such entry points: numba-cuda makes it
    driver.start_primary_context().close()
    fake(None)
    assert driver.start_primary_context() is None


def test_a_typed_in_run_makes_the_early_context_for_a_launching_method_on_cuda(fake, monkeypatch):
    from argparse import Namespace

    from gpubench import methods
    from gpubench.commands import minimize
    fake(FakeContextDriver(seconds=0.0))
    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)
    monkeypatch.delenv("GPUBENCH_EARLY_CONTEXT", raising=False)
    launching, maybe = methods.get("tron-gpu"), methods.get("interval")
    assert launching.launches and not maybe.launches
    cuda = Namespace(backend="cuda")
    early = minimize.early_context(cuda, launching)                       # on by default where it launches
    assert isinstance(early, driver.EarlyContext)
    early.close()
    assert minimize.early_context(cuda, maybe) is None                    # may answer without a launch
    for backend in ("cpu", "auto", None):
        assert minimize.early_context(Namespace(backend=backend), launching) is None
    monkeypatch.setenv("GPUBENCH_EARLY_CONTEXT", "1")                     # asked for: every method
    early = minimize.early_context(cuda, maybe)
    assert isinstance(early, driver.EarlyContext)
    early.close()
    monkeypatch.setenv("GPUBENCH_EARLY_CONTEXT", "0")                     # refused: none
    assert minimize.early_context(cuda, launching) is None
    monkeypatch.delenv("GPUBENCH_EARLY_CONTEXT")
    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "1")                      # the simulator has no context
    assert minimize.early_context(cuda, launching) is None


def test_a_minimize_run_gives_its_early_context_back(fake, monkeypatch):
    """The command starts the context once the method is known and gives it back however the run
    ends (here: refused by a bad setting after the start), so no thread is left for the exit."""
    import threading
    from argparse import Namespace

    from gpubench.commands import minimize
    from gpubench.errors import InputError
    lib = FakeContextDriver(seconds=0.05)
    fake(lib)
    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)
    monkeypatch.delenv("GPUBENCH_EARLY_CONTEXT", raising=False)
    args = Namespace(function="levy", dim=2, method="tron-gpu", backend="cuda", seed=None,
                     set=["no_such_setting=1"], regions=None, json=True)
    with pytest.raises(InputError):
        minimize.run(args)
    assert lib.calls == [("retain", 0), ("release", 0)]
    assert not any(t.name == "gpubench-early-context" for t in threading.enumerate())
