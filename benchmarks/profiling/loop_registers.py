"""Registers, spills and stack of the device loop's kernel (``device_loop``) as ptxas builds it for sm_90.

    .venv/bin/python benchmarks/profiling/loop_registers.py [FUNCTION] [CAP ...]

No GPU needed: numba-cuda emits the kernel's PTX for the function's generated forms (SMAX = 16, the
paper's s = 10), then ``ptxas -arch=sm_90 -v`` builds it once per register cap (0: none) and prints
what each build takes a thread.  The PTX is written next to the output (``PTX`` env: the path) so
that a cap can be re-run without numba (``PTX=that-path``).  What a cap costs in time is the GPU's to say
(docs/solver-scaling.md); this says how far each cap spills.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

# the kernel's signature: devloop.DeviceLoop's arguments, in order (as tests/test_devloop.py compiles it)
_SIG = ("I1 A1 A2 A2 I1 O8 A1 A1 I1 J1 J1 A1 J1 J1 A1 A1 A1 A2 I1 I1 I1 I1 O8 O8 O8 A2 A2 A2 B2 I1 A2 A2 A2 A2 "
        "A2 A2 B2 A1 A1 O8 O8 A3 A3 A2 A2 A2 A2 A3 A3 I2 I2 I2 A3 A3 A2 A2 A1 A1 I1 I1 A2 A2 A2 A2 A2 A2 A2 A2 "
        "I1 I1 i i i i i f f i i i i i").split()


def kernel_ptx(function):
    from numba import float64, int8, int32, int64

    from gpubench import functions
    from gpubench.device.ptx import compile_ptx
    from gpubench.forms import codegen
    from gpubench.methods.solver import kernels
    types = dict(A1=float64[::1], A2=float64[:, ::1], A3=float64[:, :, ::1], I1=int64[::1], J1=int32[::1],
                 B2=int8[:, ::1], O8=int8[::1], I2=int64[:, ::1], i=int64, f=float64)
    mod = codegen.load(functions.get(function).definition, "cuda", kernels.extensions("cuda", smax=16, loop=True))
    return compile_ptx(mod.device_loop, tuple(types[t] for t in _SIG), device=False)


def ptxas(path, cap):
    """(registers, spill stores, spill loads, stack frame bytes) of the kernel in ``path`` at ``cap``.
    ``-c``: the grid sync's runtime calls (cudadevrt) are linked at load, not here; the figures are the
    kernel's own (ptxas reports the callee's frame apart)."""
    exe = shutil.which("ptxas") or "/usr/local/bin/ptxas"
    args = [exe, "-arch=sm_90", "-c", "-v", path, "-o", os.devnull] + ([f"-maxrregcount={cap}"] if cap else [])
    out = subprocess.run(args, capture_output=True, text=True, check=True).stderr
    # the kernel's line comes last (the trig slow path, a callee, before it)
    frame, stores, loads = (int(v) for v in re.findall(
        r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", out)[-1])
    regs = int(re.search(r"Used (\d+) registers", out).group(1))
    return regs, stores, loads, frame


def main(function="levy", caps=(0, 128, 96, 80, 72, 64, 48)):
    path = os.environ.get("PTX") or os.path.join(tempfile.gettempdir(), f"device_loop_{function}_{os.getpid()}.ptx")
    if not os.environ.get("PTX"):
        with open(path, "w") as f:
            f.write(kernel_ptx(function))
    print(f"device_loop, {function}, SMAX = 16, sm_90 ({path})")
    print(f"{'cap':>5} {'registers':>9} {'spill stores':>12} {'spill loads':>11} {'stack':>6}")
    for cap in caps:
        regs, st, ld, frame = ptxas(path, cap)
        print(f"{cap or 'none':>5} {regs:>9} {st:>12} {ld:>11} {frame:>6}")


if __name__ == "__main__":
    a = sys.argv[1:]
    main(a[0] if a else "levy", *([tuple(int(v) for v in a[1:])] if a[1:] else []))
