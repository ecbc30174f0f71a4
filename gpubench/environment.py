"""The environment a measurement was taken in: stored with every result."""
import datetime
import os
import platform
import subprocess
import sys


def _run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _versions():
    out = {"python": platform.python_version()}
    from importlib import metadata
    for pkg in ("gpubench", "numpy", "numba", "numba-cuda", "llvmlite", "scipy", "sympy", "pandas"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = None
    return out


def _gpu():
    """Name, compute capability, driver and CUDA versions of GPU 0, or None without one."""
    from .device import gpu_available
    if not gpu_available():
        return None
    try:
        from numba import cuda
        dev = cuda.get_current_device()
        name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
        info = {"name": name, "compute_capability": ".".join(map(str, dev.compute_capability)),
                "multiprocessors": dev.MULTIPROCESSOR_COUNT}
    except Exception:  # no driver or toolkit: no GPU to describe
        return None
    # one line per GPU: the first (a host's GPUs share one driver)
    driver = _run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"])
    info["driver"] = driver.splitlines()[0].strip() if driver else driver
    try:
        from numba.cuda import runtime
        info["cuda_runtime"] = ".".join(map(str, runtime.get_version()))
    except Exception:
        info["cuda_runtime"] = None
    return info


def git_commit(path=None):
    path = path or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    commit = _run(["git", "-C", path, "rev-parse", "HEAD"])
    if commit and _run(["git", "-C", path, "status", "--porcelain", "--untracked-files=no"]):
        commit += "+dirty"
    return commit or os.environ.get("GPUBENCH_COMMIT")


_PINNED = ("CUDA_VISIBLE_DEVICES", "NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def capture():
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": platform.node(),
        "platform": platform.platform(),
        "cpu": _cpu_model(),
        "cpu_count": os.cpu_count(),
        # what this process may use, which a pinned or shared run differs in from the host
        "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "settings": {k: os.environ[k] for k in _PINNED if k in os.environ},
        "gpu": _gpu(),
        "versions": _versions(),
        "commit": git_commit(),
        "argv": sys.argv,
    }
