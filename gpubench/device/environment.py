"""The environment a measurement was taken in: stored with every result."""
import datetime
import hashlib
import os
import platform
import re
import subprocess
import sys

from .gpu import gpu_available, run_quietly as _run


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


# A record's commit names the code that ran: a full hash from git, "+dirty-<hash of the diff>"
# when tracked files differ from it, or (on a host whose copy has no git metadata) the
# GPUBENCH_COMMIT the queue exported, accepted only when it looks like a hash.  Anything else
# (a branch label, say) is kept as commit_label and the commit is None: labels went stale before.
_COMMIT = re.compile(r"[0-9a-f]{7,40}(\+dirty(-[0-9a-f]{12})?)?")


def git_commit(path=None):
    path = path or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    commit = _run(["git", "-C", path, "rev-parse", "HEAD"])
    if commit:
        try:
            diff = subprocess.run(["git", "-C", path, "diff", "HEAD", "--binary"], capture_output=True,
                                  timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            diff = b""
        return commit + ("+dirty-" + hashlib.sha256(diff).hexdigest()[:12] if diff else "")
    given = os.environ.get("GPUBENCH_COMMIT")
    return given if given and _COMMIT.fullmatch(given) else None


def commit_fields(path=None):
    """{"commit": ...}, plus "commit_label" when GPUBENCH_COMMIT was set to something not a hash."""
    commit = git_commit(path)
    out = {"commit": commit}
    given = os.environ.get("GPUBENCH_COMMIT")
    if commit is None and given:
        out["commit_label"] = given
    return out


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
        **commit_fields(),
        "argv": sys.argv,
    }
