"""The solver's device code is real modules (gpubench/methods/solver/spliced/), not source strings.

Each module imports as itself against stand-in forms (Levy's generated forms), so a linter and the
PTX checks see it; kernels.py only reads their text for codegen, with the compile-time sizes set."""
import ast
import importlib
from pathlib import Path

import pytest

from gpubench.methods.solver import kernels, spliced

MODULES = ("cut", "layout", "subregion", "cpu", "gpu_full", "gpu_split", "loop_tables", "loop", "subdomain",
           "subdomain_cpu", "subdomain_gpu")


@pytest.mark.parametrize("name", MODULES)
def test_each_spliced_module_imports_as_itself(name):
    mod = importlib.import_module(f"gpubench.methods.solver.spliced.{name}")
    own = [k for k, v in vars(mod).items()
           if getattr(getattr(v, "py_func", getattr(v, "fn", None)), "__module__", None) == mod.__name__]
    assert own, name  # it defines jitted code of its own (numba compiles it when called)


def test_kernels_py_holds_no_kernel_source_in_strings():
    tree = ast.parse(Path(kernels.__file__).read_text())
    strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    assert not [s for s in strings if "def " in s or "@device" in s or "jit" in s]


def test_compile_time_sizes_are_set_when_spliced():
    _, split = kernels.extensions("cuda", smax=32)
    assert "\nSMAX = 32\n" in split and "\nSMAX = 16\n" not in split
    _, loop = kernels.extensions("cuda", smax=16, loop=True)
    assert f"\nMAX_REGISTERS = {kernels.loop_registers()}\n" in loop and "def device_loop(" in loop
    _, full = kernels.extensions("cuda", nmax=256)
    assert "\nNMAX = 256\n" in full
    with pytest.raises(ValueError, match="not found"):
        spliced.text("cut", replace=(("no such text", ""),))


def test_subdomain_bounds_holds_no_kernel_source_in_strings():
    from gpubench.methods import subdomain_bounds
    tree = ast.parse(Path(subdomain_bounds.__file__).read_text())
    strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    assert not [s for s in strings if "def " in s or "@device" in s or "jit" in s]
