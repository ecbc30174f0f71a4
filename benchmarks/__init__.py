"""asv benchmarks of gpubench: kernels, one solver iteration, whole solves, cold JIT, tracked metrics.

Modules (each benchmark runs in its own spawned process):

- ``bench_sweep``     interval sweep of one iteration's subregions, per function, CPU and CUDA
- ``bench_points``    batched point evaluation, CPU and CUDA
- ``bench_iteration`` one solver iteration (sweep plus list bookkeeping), CPU and CUDA
- ``bench_solve``     whole solves (CPU n=10, CUDA n=50/100) and the ``track_`` metrics
                      (iterations, output regions, GUB-GLB gap, failure %)
- ``bench_jit``       cold JIT compilation, each sample in a fresh interpreter
- ``bench_nightly``   long runs kept out of ``make bench`` (its regex skips this module)

Every number is "lower is better", as asv assumes.  CUDA benchmarks raise
``NotImplementedError`` in ``setup`` (asv: skipped) where no real GPU exists.
How to run and compare: docs/benchmarks.md.

Importing this package pins the thread counts listed under ``matrix.env`` of
the asv configuration before numba is imported.  asv sets them itself with
``--python=same`` and in environments it builds, but not in a plain ``asv run``
of ``environment_type: existing``; this covers that case with the same values.
"""
import json
import os
from pathlib import Path


def _conf_path():
    here = os.environ.get("ASV_CONF_DIR")
    for d in ([Path(here)] if here else []) + [Path(__file__).resolve().parent.parent]:
        for name in ("asv.conf.json", "asv.conf.jsonc"):
            if (d / name).is_file():
                return d / name
    return None


def pinned_env():
    """The ``matrix.env`` variables of the asv configuration (``{}`` if there is none)."""
    path = _conf_path()
    if path is None:
        return {}
    # the configuration may hold whole-line // comments (asv reads it with js_comments=True)
    text = "\n".join(line for line in path.read_text().splitlines() if not line.lstrip().startswith("//"))
    try:
        env = json.loads(text).get("matrix", {}).get("env", {})
    except ValueError:
        return {}
    return {str(k): str(v[0] if isinstance(v, list) else v) for k, v in env.items()}


def _pin():
    if os.environ.get("GPUBENCH_BENCH_NO_PIN"):  # documented escape hatch for experiments
        return
    for key, value in pinned_env().items():
        os.environ[key] = value


_pin()
