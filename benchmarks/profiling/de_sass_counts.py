"""Static instruction counts of de-gpu's generation kernels (stream, fast) as ptxas builds them for sm_90.

    NVDISASM=path/to/nvdisasm [CAP=registers] .venv/bin/python benchmarks/profiling/de_sass_counts.py [stream|fast ...] [--function F]

No GPU needed: numba-cuda emits the kernel's PTX for the function's generated forms (shifted
Rastrigin by default: the device_peers_de_evox problem, gpubench.problems.device_rows.DE_FUNCTION),
``ptxas -arch=sm_90 -v`` builds it under the kernel's own register cap (de_stream: STREAM_REGISTERS, de_fast: FAST_REGISTERS)
and reports registers and spills.  ptxas's count is the real allocation (the PTX's ``.reg``
declarations are virtual registers); a GPU run reports the same number (ncu "Registers Per Thread").

With ``NVDISASM`` (pip package nvidia-cuda-nvdisasm, not a dependency; also found on PATH) the SASS is
split by source line (``ptxas -lineinfo``, ``nvdisasm -g``: an inlined device function's
instructions carry its call's line) and the instructions of the kernel's member loop (``while group <
ngroups``, one iteration a member) are counted by the loop body's top-level statements and by kind.
These are static counts: every unrolled copy counted once, branches both ways.  At D = 100 and a
group of T = 32 lanes (the stream kernel's configuration at NP = 1e5) a lane holds 4 elements, one
chunk, so a member's warp runs its loop body once, with nearly every branch taken by some lane; not
run there: the stream kernel's ``if e < nchunks`` row (a lane's second chunk on), the clip/reflect
folds inside the first ``if inside`` row (the default bounds rule is reinit) and the cosine's slow
path; what is left is close to the warp instructions a member (ncu at a05499a: ~1,900).  At D = 1000
(8 chunks a lane) the chunk rows run 8 times a member.  Without nvdisasm only the PTX counts print.
"""
import ast
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

# the kernels' signatures, as tests/test_de_gpu.py compiles them
_SIGS = {"stream": "a1 a1 li li a1 a1 a2 U li li I I R R I I I I I I R R B",
         "fast": "a3 a2 a1 a1 a2 st i1 li li I I R R I I I I I I R R B"}
_NAMES = {"stream": "de_stream", "fast": "de_fast"}
# SASS opcodes by kind (the rest: integer and other)
_KINDS = [("fp64", ("DADD", "DMUL", "DFMA", "DSETP", "DSET", "DMNMX")),
          ("convert", ("I2F", "F2I", "F2F", "I2FP", "F2IP")),
          ("global/local mem", ("LDG", "STG", "LDL", "STL", "ATOMG", "RED")),
          ("shared mem", ("LDS", "STS")),
          ("shuffle", ("SHFL",)),
          ("control", ("BRA", "BSSY", "BSYNC", "BREAK", "CALL", "RET", "EXIT", "WARPSYNC", "BAR", "NOP", "PLOP3")),
          ("uniform", ("ULDC", "UMOV", "UIADD3", "ULEA", "S2UR", "R2UR", "ULOP3", "USHF", "UIMAD")),
          ("int mul/add 64", ("IMAD", "IADD3", "LEA", "SHF", "LOP3", "ISETP", "SEL", "MOV", "PRMT", "IABS", "IMNMX",
                              "VIADD", "CS2R", "S2R", "LDC", "POPC", "FLO", "BREV"))]


def _types():
    import numba
    import numpy as np
    from numba import types as T
    from numba.cuda.random import xoroshiro128p_dtype
    return {"a3": T.Array(T.float64, 3, "C"), "a2": T.Array(T.float64, 2, "C"), "a1": T.Array(T.float64, 1, "C"),
            "li": T.Array(T.int64, 1, "C"), "i1": T.Array(T.int32, 1, "C"), "I": T.int64, "R": T.float64,
            "B": T.boolean, "U": T.uint64, "st": numba.typeof(np.zeros(2, dtype=xoroshiro128p_dtype))}


def _nvdisasm():
    p = os.environ.get("NVDISASM") or shutil.which("nvdisasm")
    if p:
        return p
    for d in sys.path:  # the pip package's binary
        for sub in ("nvidia/cu13/bin/nvdisasm", "nvidia/cuda_nvdisasm/bin/nvdisasm"):
            if os.path.exists(os.path.join(d, sub)):
                return os.path.join(d, sub)
    return None


def _member_loop(source, kernel):
    """(first, last) line of the member loop's body and its top-level statements as (first line, last
    line, text) in the generated module's source."""
    tree = ast.parse(source)
    fn = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == kernel)
    loop = next(n for n in ast.walk(fn) if isinstance(n, ast.While) and ast.unparse(n.test) == "group < ngroups")
    lines = source.splitlines()
    stmts = [(s.lineno, s.end_lineno, lines[s.lineno - 1].strip()[:60]) for s in loop.body]
    return loop.body[0].lineno, loop.end_lineno, stmts


def _kind(op):
    for name, ops in _KINDS:
        if op in ops:
            return name
    return "other"


def count(which, function):
    import gpubench.functions as F
    from gpubench.device.ptx import compile_ptx
    from gpubench.methods import de_gpu
    mod = de_gpu._module(F.get(function), "cuda")
    kernel = getattr(mod, _NAMES[which])
    ty = _types()
    sig = tuple(ty[k] for k in _SIGS[which].split())
    ptx = compile_ptx(kernel, sig, device=False, lineinfo=True)
    body = ptx[ptx.index(".entry"):]
    ops = collections.Counter(m.group(1) for m in re.finditer(r"^\s+(?:@!?%p\d+\s+)?([a-z][\w.]*)", body, re.M))
    regs = " ".join(f"{t}:{n}" for t, n in re.findall(r"\.reg\s+\.(\w+)\s+%\w+<(\d+)>", body))
    print(f"== {_NAMES[which]} ({function}): PTX {sum(ops.values())} instructions; virtual registers {regs}")
    cap = int(getattr(mod, "STREAM_REGISTERS" if which == "stream" else "FAST_REGISTERS", 0))
    cap = int(os.environ.get("CAP", cap))   # CAP=128: another register cap (0: none)
    with tempfile.TemporaryDirectory() as d:
        open(d + "/k.ptx", "w").write(ptx)
        args = ["ptxas", "-arch=sm_90", "-c", "-v", "-lineinfo"] + ([f"-maxrregcount={cap}"] if cap else [])
        out = subprocess.run(args + [d + "/k.ptx", "-o", d + "/k.o"], capture_output=True, text=True)
        if out.returncode:
            raise SystemExit(out.stderr[-2000:])
        # the kernel's own lines come last (the libdevice slow paths' before them)
        frame, used = re.findall(r"\d+ bytes stack frame[^\n]*", out.stderr)[-1], re.findall(r"Used \d+ registers", out.stderr)[-1]
        print(f"ptxas sm_90 (cap {cap or 'none'}): {used}, {frame}")
        nvd = _nvdisasm()
        if not nvd:
            print("(no nvdisasm: set NVDISASM for the SASS counts)")
            return
        sass = subprocess.run([nvd, "-g", "-c", d + "/k.o"], capture_output=True, text=True, check=True).stdout
    source = open(mod.__file__).read()
    first, last, stmts = _member_loop(source, _NAMES[which])
    sec = sass[sass.index(".text._Z"):]
    sec = sec[:sec.index("//-----", 10)] if "//-----" in sec[10:] else sec
    line = None
    by_line = collections.Counter()
    kinds = collections.Counter()
    total = 0
    for text in sec.splitlines():
        m = re.search(r"//## File .*line (\d+)", text)
        if m:
            line = int(m.group(1))
            continue
        m = re.search(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)", text)
        if not m:
            continue
        total += 1
        if line is not None and first <= line <= last:
            by_line[line] += 1
            kinds[_kind(m.group(1))] += 1
    inner = sum(by_line.values())
    print(f"SASS: {total} instructions in the kernel, {inner} in its member loop (lines {first}-{last})")
    for a, b, text in stmts:
        n = sum(v for k, v in by_line.items() if a <= k <= b)
        if n:
            print(f"  {n:5d}  {text}")
    print("  by kind: " + ", ".join(f"{k} {v}" for k, v in kinds.most_common()))


if __name__ == "__main__":
    argv = sys.argv[1:]
    function = "shifted_rastrigin"
    if "--function" in argv:
        i = argv.index("--function")
        function = argv[i + 1]
        del argv[i:i + 2]
    for which in argv or ["stream", "fast"]:
        count(which, function)
