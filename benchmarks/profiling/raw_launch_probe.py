"""How fast could a second process answer if it launched its cached kernel without numba? (issue 42, item 4)

    python benchmarks/profiling/raw_launch_probe.py dump DIR [--function levy --dim 10 --starts 64]
    python benchmarks/profiling/raw_launch_probe.py launch DIR

A second ``gpubench minimize levy --dim 10 --method tron-gpu --backend cuda`` spent about 1.5 s
beyond its solve on the H200 (results/gpu/solve-2348217/startup_importtime.json), almost all of it
in libraries: numpy (~0.3 s), numba and numba-cuda's import (~0.5 s), numba-cuda's target set-up
and the kernel's load from its disk cache (~0.45 s; numba.cuda.np.arraymath alone imports
scipy.linalg), the CUDA context, the exit.  gpubench's own imports are ~0.03 s.  So no moving of
gpubench's imports reaches the issue's 1 s; a process that skips numba-cuda might.  This probe
measures that floor before anything is built on it:

``dump`` (a gpubench process, numba-cuda, a GPU) builds tron-gpu's kernel launch exactly as
:func:`gpubench.methods.tron.solve_batch` does for ``gpubench minimize FUNCTION --dim N --method
tron-gpu`` with its default settings, launches it through numba-cuda, and writes into DIR the
kernel's cubin (numba-cuda's own, from its code library), its entry name, the launch's geometry,
its arguments and the results.

``launch`` (a bare process: numpy and ``cuda.bindings`` only, no numba, no gpubench) loads that
cubin, passes the same arguments in numba-cuda's kernel ABI (an array is meminfo, parent, size,
itemsize, data pointer, shape, strides in bytes: ``numba.cuda.dispatcher._Kernel._prepare_args``),
launches, and prints one JSON object: the seconds of each step from the process's start, and
whether X and OUT are bit for bit numba-cuda's.  Nothing here is used by gpubench.
"""
import sys
import time

T0 = time.perf_counter()


def _dump(folder, function, dim, starts):
    import json
    from pathlib import Path

    import numpy as np
    from numba import cuda, typeof

    from gpubench import functions
    from gpubench.methods import tron
    from gpubench.methods.tron import kernels
    from gpubench.methods.tron_gpu import SYMBOLIC_MAX_N, TronSettings

    out_dir = Path(folder)
    out_dir.mkdir(parents=True, exist_ok=True)
    s = TronSettings()
    fn = functions.get(function)
    lo, hi = fn.bounds(dim)
    x0 = np.random.default_rng(s.seed).uniform(lo, hi, (starts, dim))   # as tron_gpu._run draws them
    par = np.broadcast_to(fn.params(dim), (starts,) + fn.params(dim).shape)
    if par.shape[1] == 0:
        par = np.zeros((starts, 1, dim))
    hessian = "symbolic" if dim <= SYMBOLIC_MAX_N else "differences"
    x0, lo2, hi2, par = tron._check(x0, lo, hi, par)
    nb, n = x0.shape
    cfg = tron.config(s.max_iter, s.gtol, s.gatol, s.frtol, s.delta0 or 0.0, s.cgtol)
    forms = tron.forms_for(fn, "cuda")
    hess = tron.hessian_for(fn, n, "cuda") if hessian == "symbolic" else None
    kind = "symbolic" if hess is not None else "library"
    block = kernels.block_shape(n, s.layout, s.threads)
    nt = block[0] * block[1]
    smem = kernels.dynamic_shared_bytes(n, nt, s.memory)
    ws = 2 * n * n + 16 * n
    host = [x0, lo2, hi2, par, np.zeros((nb if s.memory == "global" else 1, ws)),
            np.zeros((nb, n + 4 * n * nt)), np.zeros((nb, 5)), cfg]
    scalars = [n, tron.CHOLESKY[s.cholesky], 1 if s.backsolve == "explicit" else 0,
               1 if s.layout == "2d" else 0, 1 if s.memory == "shared" else 0, kernels.padded(nt)]
    dev = [cuda.to_device(a) for a in host]
    args = tuple(dev) + tuple(scalars)
    kern = kernels.tron_kernel(kind, forms, hess)
    sig = tuple(typeof(a) for a in args)
    kern.compile(sig)
    k = kern.overloads[sig]
    lib = k._codelibrary
    kern[nb, block, 0, smem](*args)
    cuda.synchronize()
    (out_dir / "kernel.cubin").write_bytes(lib.get_cubin())
    np.savez(out_dir / "args.npz", *host, X=dev[0].copy_to_host(), OUT=dev[6].copy_to_host())
    (out_dir / "launch.json").write_text(json.dumps({
        "entry": lib._entry_name, "grid": nb, "block": list(block), "shared_bytes": smem,
        "scalars": scalars, "function": function, "dim": dim, "starts": starts,
        "signature": [str(t) for t in sig]}, indent=1) + "\n")
    print(f"raw_launch_probe: wrote {out_dir} (entry {lib._entry_name[:60]}...)")


def _check(result, what):
    err = result[0]
    if int(err) != 0:
        raise SystemExit(f"raw_launch_probe: {what} failed: {err}")
    return result[1] if len(result) == 2 else result[1:]


def _launch(folder):
    import ctypes
    import json
    import os
    marks = {}

    def mark(name):
        marks[name] = round(time.perf_counter() - T0, 4)

    import numpy as np
    mark("numpy")
    from cuda.bindings import driver as cu
    mark("cuda.bindings")
    spec = json.loads(open(os.path.join(folder, "launch.json")).read())
    data = np.load(os.path.join(folder, "args.npz"))
    cubin = open(os.path.join(folder, "kernel.cubin"), "rb").read()
    host = [np.ascontiguousarray(data[f"arr_{i}"]) for i in range(8)]
    _check(cu.cuInit(0), "cuInit")
    device = _check(cu.cuDeviceGet(0), "cuDeviceGet")
    mark("cuInit")
    ctx = _check(cu.cuDevicePrimaryCtxRetain(device), "cuDevicePrimaryCtxRetain")
    _check(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    mark("context")
    module = _check(cu.cuModuleLoadData(cubin), "cuModuleLoadData")
    func = _check(cu.cuModuleGetFunction(module, spec["entry"].encode()), "cuModuleGetFunction")
    mark("module")
    params, ptrs = [], []
    for a in host:
        ptr = _check(cu.cuMemAlloc(max(a.nbytes, 8)), "cuMemAlloc")
        _check(cu.cuMemcpyHtoD(ptr, a.ctypes.data, a.nbytes), "cuMemcpyHtoD")
        ptrs.append(ptr)
        # numba-cuda's array ABI: meminfo, parent, nitems, itemsize, data, shape..., strides (bytes)...
        params += [ctypes.c_void_p(0), ctypes.c_void_p(0), ctypes.c_int64(a.size), ctypes.c_int64(a.itemsize),
                   ctypes.c_void_p(int(ptr))]
        params += [ctypes.c_int64(d) for d in a.shape] + [ctypes.c_int64(st) for st in a.strides]
    params += [ctypes.c_int64(v) for v in spec["scalars"]]
    table = (ctypes.c_void_p * len(params))(*[ctypes.addressof(p) for p in params])
    mark("arguments")
    bx, by = spec["block"]
    _check(cu.cuLaunchKernel(func, spec["grid"], 1, 1, bx, by, 1, spec["shared_bytes"], 0,
                             ctypes.addressof(table), 0), "cuLaunchKernel")
    _check(cu.cuCtxSynchronize(), "cuCtxSynchronize")
    mark("solve")
    X, OUT = np.empty_like(host[0]), np.empty_like(host[6])
    _check(cu.cuMemcpyDtoH(X.ctypes.data, ptrs[0], X.nbytes), "cuMemcpyDtoH")
    _check(cu.cuMemcpyDtoH(OUT.ctypes.data, ptrs[6], OUT.nbytes), "cuMemcpyDtoH")
    mark("results")
    same = bool(np.array_equal(X.view(np.int64), data["X"].view(np.int64))
                and np.array_equal(OUT.view(np.int64), data["OUT"].view(np.int64)))
    print(json.dumps({"seconds_from_start": marks, "same_as_numba": same,
                      "best_f": float(np.nanmin(OUT[:, 0])), "numba_best_f": float(np.nanmin(data["OUT"][:, 0]))}))
    sys.stdout.flush()
    os._exit(0 if same else 1)


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("action", choices=("dump", "launch"))
    ap.add_argument("folder")
    ap.add_argument("--function", default="levy")
    ap.add_argument("--dim", type=int, default=10)
    ap.add_argument("--starts", type=int, default=64)
    a = ap.parse_args(argv)
    if a.action == "dump":
        _dump(a.folder, a.function, a.dim, a.starts)
    else:
        _launch(a.folder)


if __name__ == "__main__":
    main()
