"""Count what the interval solver asks of the CUDA driver per iteration, host loop against device loop (simulator).

    NUMBA_ENABLE_CUDASIM=1 .venv/bin/python benchmarks/profiling/loop_counts.py [FUNCTION] [N]

Runs the same small search (s = 2, p = 3, 2 samples) for 3 and for 11 iterations with
``loop = "host"`` and ``loop = "device"`` under numba's CUDA simulator, counting kernel launches,
host-to-device copies, device-to-host copies (each a host wait) and event/stream calls
(gpubench/methods/solver/simcount.py).  The difference between the two runs, divided by 8, is the cost of
an iteration; what is left is the start (uploads) and the end (the list brought back).  The
device loop's batches double (1, 2, 4, ... iterations a launch; here without the time cap that
stops their growth past 0.25 s, since the simulator is slow).  Counts, not times: the times are
measured on the GPU host (docs/solver-scaling.md).
"""
import math
import sys


def main(function="levy", n=3):
    from gpubench.methods.solver import devloop
    from gpubench.methods.solver.core import solve
    from gpubench.methods.solver.simcount import counting
    devloop.BATCH_SECONDS = math.inf
    opts = dict(split_dims=2, parts=3, tol=1e-2, samples=2)
    keys = ("launches", "h2d", "d2h", "events")
    print(f"{function}, n = {n}: counts for 3 and 11 iterations, and per iteration in between")
    print(f"{'loop':8s} " + " ".join(f"{k:>22s}" for k in keys))
    for loop in ("host", "device"):
        runs = []
        for iterations in (3, 11):
            with counting() as c:
                r = solve(function, n, backend="cuda", loop=loop, max_iterations=iterations, **opts)
            assert r.iterations == iterations, (loop, r.iterations, r.message)
            runs.append(c)
        print(f"{loop:8s} " + " ".join(f"{runs[0][k]:5d} {runs[1][k]:5d} {(runs[1][k] - runs[0][k]) / 8:10.3f}"
                                       for k in keys))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "levy", int(sys.argv[2]) if len(sys.argv) > 2 else 3)
