"""Where a cold tron-gpu process's compile goes: numba's front end, NVVM, ptxas (issue 42, item 4).

    python benchmarks/profiling/tron_compile_split.py [--function levy --dim 10] [--cc 9.0] [--hessian symbolic]
                                                      [--constants CHOLESKY,EXPLICIT,LAYOUT2D,SHARED]

A first ``gpubench minimize levy --dim 10 --method tron-gpu --backend cuda`` spent 26.9 s of its
31 s compiling one kernel on the H200 (results/gpu/solve-2348217/startup_importtime.json).  This
compiles the same kernel (:func:`gpubench.methods.tron.kernels.tron_kernel` of the function's forms
and Hessian, the signature ``solve_batch`` launches it with) to PTX with ``numba.cuda.compile_ptx``
for compute capability ``--cc``, then to a cubin with nvJitLink (ptxas, ``-O3`` as numba-cuda's
linker), and prints one JSON object: the seconds of numba's front end (typing and lowering each
device function, self times by function) and of NVVM, of ptxas, and the PTX's lines.  It needs
NVVM and nvJitLink (the CUDA wheels), not a GPU: numba-cuda's question for the current device's
compute capability is answered with ``--cc``.  Nothing is written to numba's cache.

``--constants 0,1,0,1`` compiles the kernel with its four layout flags (``cholesky``, ``explicit``,
``layout2d``, ``shared``: runtime arguments of ``tron``) bound to those constants at its top, the
values ``gpubench minimize --method tron-gpu`` launches by default: what compiling only the variant a
call uses would cost.  Here (2 shared cores, loaded) ptxas took 16-17 s on that PTX against 22-24 s on
the generic kernel's, its cubin 466 KB against 634 KB (``shared`` known, NVVM can address W in shared
memory), PTX 22,765 lines against 22,865.
"""
import argparse
import json
import os
import sys
import time


def _with_constants(kernel, constants):
    """``kernel``'s Python function with its layout flags rebound to ``constants``
    (:func:`gpubench.methods.tron.kernels.bind_flags`)."""
    from gpubench.methods.tron.kernels import bind_flags
    values = [int(v) for v in constants.split(",")]
    if len(values) != 4:
        raise SystemExit("tron_compile_split: --constants takes four integers")
    return bind_flags(kernel, values)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--function", default="levy")
    ap.add_argument("--dim", type=int, default=10)
    ap.add_argument("--cc", default="9.0", help="compute capability, e.g. 9.0")
    ap.add_argument("--constants", help="CHOLESKY,EXPLICIT,LAYOUT2D,SHARED: the flags bound at the kernel's top")
    ap.add_argument("--hessian", choices=("symbolic", "differences", "hs45"), default="symbolic",
                    help="hs45: the core with the paper's own objective, no library function")
    a = ap.parse_args(argv)
    cc = tuple(int(v) for v in a.cc.split("."))

    from types import SimpleNamespace

    from numba import cuda, types
    import numba.cuda.compiler as cuda_compiler
    import numba.cuda.dispatcher as cuda_dispatcher

    from gpubench import functions
    from gpubench.methods import tron
    from gpubench.methods.tron import kernels

    # device functions compile for the current device's capability: ours, without a device
    cuda_dispatcher.get_current_device = lambda: SimpleNamespace(compute_capability=cc)
    t = time.perf_counter()
    fn = functions.get(a.function)
    forms = None if a.hessian == "hs45" else tron.forms_for(fn, "cuda")
    hess = tron.hessian_for(fn, a.dim, "cuda") if a.hessian == "symbolic" else None
    kind = {"symbolic": "symbolic", "differences": "library", "hs45": "hs45"}[a.hessian]
    kern = kernels.tron_kernel(kind, forms, hess)
    forms_s = time.perf_counter() - t

    # self seconds of each device function's front end (typing, lowering; NVVM runs on the kernel)
    inner = cuda_compiler.compile_cuda
    stack, by_function = [], {}

    def timed(py_func, *args, **kw):
        t0 = time.perf_counter()
        stack.append(0.0)
        try:
            return inner(py_func, *args, **kw)
        finally:
            dt = time.perf_counter() - t0
            child = stack.pop()
            if stack:
                stack[-1] += dt
            by_function[py_func.__name__] = round(by_function.get(py_func.__name__, 0.0) + dt - child, 3)
    cuda_dispatcher.compile_cuda = timed

    import numba.cuda.cudadrv.nvvm as nvvm
    nvvm_s = [0.0]
    compile_ir = nvvm.compile_ir

    def timed_ir(*args, **kw):
        t0 = time.perf_counter()
        try:
            return compile_ir(*args, **kw)
        finally:
            nvvm_s[0] += time.perf_counter() - t0
    nvvm.compile_ir = timed_ir
    # numba.cuda.codegen calls nvvm.compile_ir through the module, so it meets the wrapper

    a2, a3, a1 = types.float64[:, :], types.float64[:, :, :], types.float64[:]
    sig = (a2, a2, a2, a3, a2, a2, a2, a1) + (types.int64,) * 6   # solve_batch's arguments
    pyfunc = kern.py_func if not a.constants else _with_constants(kern.py_func, a.constants)
    t = time.perf_counter()
    ptx, _ = cuda.compile_ptx(pyfunc, sig, cc=cc, device=False)
    ptx_s = time.perf_counter() - t

    from cuda.bindings import nvjitlink
    data = ptx.encode()
    t = time.perf_counter()
    h = nvjitlink.create(2, [f"-arch=sm_{cc[0]}{cc[1]}", "-O3"])
    nvjitlink.add_data(h, nvjitlink.InputType.PTX, data, len(data), "tron")
    nvjitlink.complete(h)
    cubin_bytes = nvjitlink.get_linked_cubin_size(h)
    nvjitlink.destroy(h)
    ptxas_s = time.perf_counter() - t
    print(json.dumps({
        "function": a.function, "dim": a.dim, "hessian": a.hessian, "cc": a.cc, "constants": a.constants,
        "forms_and_load_s": round(forms_s, 3),
        "compile_ptx_s": round(ptx_s, 3), "nvvm_s": round(nvvm_s[0], 3),
        "front_end_s": round(ptx_s - nvvm_s[0], 3), "ptxas_s": round(ptxas_s, 3),
        "ptx_lines": ptx.count("\n"), "cubin_bytes": int(cubin_bytes),
        "front_end_self_s_by_function": dict(sorted(by_function.items(), key=lambda kv: -kv[1])),
        "cpu": os.uname().machine, "python": sys.version.split()[0]}, indent=1))


if __name__ == "__main__":
    main()
