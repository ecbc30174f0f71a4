"""Registers, spills and stack of the device loop's kernel (``device_loop``) as ptxas builds it for sm_90.

    .venv/bin/python benchmarks/profiling/loop_registers.py [FUNCTION] [CAP ...]

No GPU needed: numba-cuda emits the kernel's PTX for the function's generated forms (SMAX = 16, the
paper's s = 10), then ``ptxas -arch=sm_90 -v`` builds it once per register cap (0: none) and prints
what each build takes a thread and how many blocks of 128 threads its registers let an SM hold.  The
PTX is written next to the output so that a cap can be re-run without numba (``PTX=that-path``).

With ``NVDISASM=path/to/nvdisasm`` (pip package nvidia-cuda-nvdisasm; not a dependency) it also counts
the spill instructions (loads and stores of local memory past the kernel's own arrays) in the split
sweep's lines of the kernel (phase 4, one thread a subregion: the hot loop) and in the rest (once an
iteration or a coordinate): static counts, where a spill in the sweep runs a million times an
iteration.  What a cap costs in time is the GPU's to say (docs/solver-scaling.md).
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
        "I1 I1 i i i i i f f i i i i i I1").split()
TPB = 128  # devloop.TPB
SM_REGISTERS = 65536


def kernel_ptx(function, lineinfo=False):
    """(PTX of the device loop for ``function``, its generated module's source lines)."""
    from numba import float64, int8, int32, int64

    from gpubench import functions
    from gpubench.device.ptx import compile_ptx
    from gpubench.forms import codegen
    from gpubench.methods.solver import kernels
    types = dict(A1=float64[::1], A2=float64[:, ::1], A3=float64[:, :, ::1], I1=int64[::1], J1=int32[::1],
                 B2=int8[:, ::1], O8=int8[::1], I2=int64[:, ::1], i=int64, f=float64)
    mod = codegen.load(functions.get(function).definition, "cuda", kernels.extensions("cuda", smax=16, loop=True))
    with open(mod.__file__) as f:
        source = f.read().splitlines()
    return compile_ptx(mod.device_loop, tuple(types[t] for t in _SIG), device=False, lineinfo=lineinfo), source


def ptxas(path, cap, cubin=os.devnull):
    """(registers, spill stores, spill loads, stack frame bytes) of the kernel in ``path`` at ``cap``.
    ``-c``: the grid sync's runtime calls (cudadevrt) are linked at load, not here; the figures are the
    kernel's own (ptxas reports the callee's frame apart)."""
    exe = shutil.which("ptxas") or "/usr/local/bin/ptxas"
    args = [exe, "-arch=sm_90", "-c", "-v", "-lineinfo", path, "-o", cubin] + ([f"-maxrregcount={cap}"] if cap else [])
    out = subprocess.run(args, capture_output=True, text=True, check=True).stderr
    # the kernel's line comes last (the trig slow path, a callee, before it)
    frame, stores, loads = (int(v) for v in re.findall(
        r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", out)[-1])
    regs = int(re.search(r"Used (\d+) registers", out).group(1))
    return regs, stores, loads, frame


def blocks_per_sm(regs):
    """Blocks of TPB threads an SM holds by registers alone (allocated per warp, in units of 256)."""
    per_warp = -(-regs * 32 // 256) * 256
    return (SM_REGISTERS // per_warp) // (TPB // 32)


def sweep_lines(source):
    """The kernel's source lines (1-based) of phase 4, the split sweep: from its comment to the block fold."""
    start = next(i for i, ln in enumerate(source) if "# 4. the sweep" in ln)
    end = next(i for i in range(start, len(source)) if "_block_reduce(" in source[i])
    return range(start + 1, end + 1)


def spills_by_phase(cubin, arrays, sweep, nvdisasm):
    """Static spill instructions (LDL/STL at offsets >= ``arrays``, the uncapped frame) in the sweep's
    lines and elsewhere: {("sweep" | "rest", "LDL" | "STL"): count}."""
    sass = subprocess.run([nvdisasm, "-c", "-g", cubin], capture_output=True, text=True, check=True).stdout
    counts = {(w, op): 0 for w in ("sweep", "rest") for op in ("LDL", "STL")}
    line = None
    for ln in sass.splitlines():
        if ln.strip().startswith("//##"):
            m = re.search(r"line (\d+)", ln)
            line = int(m.group(1)) if m else line
            continue
        m = re.search(r"\b(LDL|STL)\S*\s.*\[R1(?:\+0x([0-9a-f]+))?\]", ln)
        if m and int(m.group(2) or "0", 16) >= arrays:
            counts[("sweep" if line in sweep else "rest", m.group(1))] += 1
    return counts


def main(function="levy", caps=(0, 168, 128, 96, 80, 64)):
    nvdisasm = os.environ.get("NVDISASM")
    path = os.environ.get("PTX") or os.path.join(tempfile.gettempdir(), f"device_loop_{function}_{os.getpid()}.ptx")
    sweep = range(0)
    if not os.environ.get("PTX") or nvdisasm:
        ptx, source = kernel_ptx(function, lineinfo=bool(nvdisasm))
        sweep = sweep_lines(source)
        if not os.environ.get("PTX"):
            with open(path, "w") as f:
                f.write(ptx)
    print(f"device_loop, {function}, SMAX = 16, sm_90 ({path})")
    head = f"{'cap':>5} {'registers':>9} {'blocks/SM':>9} {'spill stores':>12} {'spill loads':>11} {'stack':>6}"
    print(head + ("   sweep LDL/STL   rest LDL/STL (instructions)" if nvdisasm else ""))
    arrays = ptxas(path, 0)[3] if nvdisasm else 0
    for cap in caps:
        cubin = path + f".{cap}.cubin"
        regs, st, ld, frame = ptxas(path, cap, cubin)
        row = f"{cap or 'none':>5} {regs:>9} {blocks_per_sm(regs):>9} {st:>12} {ld:>11} {frame:>6}"
        if nvdisasm:
            c = spills_by_phase(cubin, arrays, sweep, nvdisasm)
            row += f"   {c['sweep', 'LDL']:>6}/{c['sweep', 'STL']:<6}   {c['rest', 'LDL']:>6}/{c['rest', 'STL']:<6}"
        os.remove(cubin)
        print(row)


if __name__ == "__main__":
    a = sys.argv[1:]
    main(a[0] if a else "levy", *([tuple(int(v) for v in a[1:])] if a[1:] else []))
