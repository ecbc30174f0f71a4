"""Kernels compiled once per machine (issue 25, item 1): every method kernel lives in a real
module (gpubench/kernels/) or in a generated file in the cache folder, numba's on-disk cache can
locate it, and a second process loads the compiled code instead of compiling it."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(script, cache, cudasim):
    # numba's caches beside the generated module (the suite's own NUMBA_CACHE_DIR would take them elsewhere)
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_ENABLE_CUDASIM", "NUMBA_CACHE_DIR")}
    if cudasim:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    env["GPUBENCH_CACHE"] = str(cache)
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


CUDA_KERNELS = r'''
import json
from gpubench.forms import codegen
from gpubench import functions as F
from gpubench.methods import tron
from gpubench.methods.lbfgsb import batch
from gpubench.methods import de_gpu
from gpubench.methods.tron import kernels
fn = F.get("levy")
de = de_gpu._module(fn, "cuda")
found = {k: getattr(de, k) for k in ("de_init", "de_indices", "de_mcer", "de_block", "de_fast", "de_stream_init",
                                    "de_stream")}
found["lbfgsb_starts"] = batch.module(fn, "cuda").lbfgsb_starts
found["points"] = codegen.load(fn.definition, "cuda").points
from gpubench.methods import subdomain_bnb
found["subdomains"] = codegen.load(fn.definition, "cuda", (subdomain_bnb.GPU_EXTENSION,)).sub_bounds_kernel
found["tron"] = kernels.tron_kernel("library", tron.forms_for(fn, "cuda"))
found.update(zip(("cholesky", "backsolve", "forwardsolve"), kernels.linalg_kernels()))
print(json.dumps({k: [type(d._cache).__name__, d.py_func.__code__.co_filename] for k, d in found.items()}))
'''


def test_every_cuda_kernel_is_in_a_real_file_of_the_cache_folder_with_a_disk_cache(tmp_path):
    """numba-cuda (no simulator, no GPU needed to build the dispatchers): each kernel's cache is a
    CUDACache (an exec'd string raises 'no locator available'; a kernel without cache=True has a
    NullCache) and its source is a file in GPUBENCH_CACHE/generated."""
    got = _run(CUDA_KERNELS, tmp_path, cudasim=False)
    assert len(got) == 14
    for name, (cache, path) in got.items():
        assert cache == "CUDACache", (name, cache)
        assert Path(path).parent == tmp_path / "generated" and Path(path).is_file(), (name, path)


CPU_TWIN = r'''
import json
from gpubench import functions as F
from gpubench.methods import de_gpu, get
r = get("de-gpu")(F.get("rastrigin"), 2, backend="cpu", cpu_variant="sde", np=8,
                       max_evaluations=40, seed=3)
mod = de_gpu._module(F.get("rastrigin"), "cpu")
print(json.dumps({"fun": r.fun, "x": [float(v) for v in r.x], "file": mod.__file__,
                  **{k: [sum(getattr(mod, k).stats.cache_hits.values()),
                         sum(getattr(mod, k).stats.cache_misses.values())] for k in ("cpu_init", "cpu_sde")}}))
'''


def test_a_second_process_loads_the_cpu_twin_from_the_disk_cache(tmp_path):
    """de-gpu's CPU twins (numba cache=True on the spliced real module): the first process
    compiles them, the second loads them (hits, no misses) and gets the same answer."""
    first = _run(CPU_TWIN, tmp_path, cudasim=True)
    second = _run(CPU_TWIN, tmp_path, cudasim=True)
    assert first["file"] == second["file"] and Path(first["file"]).parent == tmp_path / "generated"
    for k in ("cpu_init", "cpu_sde"):
        hits, misses = second[k]
        assert first[k][1] and not first[k][0], (k, first[k])  # compiled in the first process
        assert hits and not misses, (k, second[k])  # loaded in the second
    assert first["fun"] == second["fun"] and first["x"] == second["x"]
    index = list((tmp_path / "generated" / "__pycache__").glob("*cpu_sde*.nbi"))
    assert index, "numba wrote no index for cpu_sde"


PTX_ALONE = r'''
from numba import types as T
from gpubench.kernels import lbfgsb_gpu
from gpubench.device.ptx import compile_ptx
a1, a2, a3, a4 = (T.Array(T.float64, k, "C") for k in (1, 2, 3, 4))
A3, A4 = T.Array(T.float64, 3, "A"), T.Array(T.float64, 4, "A")
I, R, B = T.int64, T.float64, T.boolean
L = T.Array(T.int64, 1, "C")
sig = (a2, a1, a1, a2, R, I, R, R, I, I, B, B, I, L, a3, a4, a4, a3, a2, a2)
ptx = compile_ptx(lbfgsb_gpu.lbfgsb_starts, sig, device=False)
assert ".entry" in ptx
print("{}")
'''


@pytest.mark.parametrize("name", ["stand_in", "de_random", "de_gpu", "de_stream", "de_cpu", "lbfgsb", "lbfgsb_cpu", "lbfgsb_gpu", "lbfgsb_fused", "lbfgsb_fused_layout", "lbfgsb_fused_gate", "lbfgsb_fused_push", "lbfgsb_fused_trial",
                                  "tron_gpu", "tron_cpu"])
def test_each_kernel_module_imports_alone(name, tmp_path):
    """A kernel module is an ordinary module: imported as itself it takes the stand-in forms."""
    _run(f"import gpubench.kernels.{name}\nprint('{{}}')", tmp_path, cudasim=True)


def test_a_kernel_module_alone_compiles_to_ptx(tmp_path):
    """NVVM compiles the batched L-BFGS-B kernel from its module, with the stand-in forms."""
    _run(PTX_ALONE, tmp_path, cudasim=False)


USER_FUNCTION = '''
from gpubench.forms.definition import Definition, Sum, x, symbols
S = symbols("S")
MINE = Definition(name="mine", title="mine", source="a test", terms={S: Sum(x ** 2)}, expr=S + OFFSET,
                  domain=(-1, 1), xstar=lambda d: [0.0] * d, fstar=lambda d: OFFSET)
'''


def test_a_changed_user_definition_is_never_served_from_the_cache(tmp_path):
    """The same file, the same name, a new expression: the next process evaluates the new one (the
    cache is keyed by the definition, and its kernels by the generated file's text), on the CPU forms
    and on de-gpu's CPU twin with its kernels spliced in."""
    f = tmp_path / "mine.py"
    code = r'''
import json, numpy as np
from gpubench import functions
from gpubench.methods import de_gpu
fn = functions.get(PATH + ":MINE")
mod = de_gpu._module(fn, "cpu")
print(json.dumps({"point": fn.point([0.5, 0.5]), "twin": float(mod.point(np.array([0.5, 0.5]), fn.params(2)))}))
'''.replace("PATH", repr(str(f)))
    values = []
    for offset in ("1", "2"):
        f.write_text("OFFSET = " + offset + "\n" + USER_FUNCTION)
        values.append(_run(code, tmp_path / "cache", cudasim=True))
    assert values[0] == {"point": 1.5, "twin": 1.5}
    assert values[1] == {"point": 2.5, "twin": 2.5}
