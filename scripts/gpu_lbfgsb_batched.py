"""The fused L-BFGS-B driver on the GPU host: ms an iteration and launches an iteration on torsion at
issue 43's sizes, in one run, for five drivers: per-evaluation (sync_every=1), batched with every
launch through numba's dispatcher (``fused.BIND = False``: the arguments typed and marshalled at each
launch, as before issue 43's second round), batched with the launches bound once, batched with a
batch's iteration as one cooperative launch (``fused.COOPERATIVE``, bound), and batched with a batch's
iteration captured once as a CUDA graph and replayed (``fused.GRAPH``, the default for a capturable
objective such as torsion's stencil); the four before it run with ``fused.GRAPH`` off.

    python scripts/gpu_lbfgsb_batched.py [--sizes 10000,160000,1000000,4000000] [--iterations 200]
    python scripts/gpu_lbfgsb_batched.py --simulate --sizes 400 --iterations 30     # no GPU: the counts

``--simulate`` runs the kernels under numba's CUDA simulator on numpy arrays (any machine; the
launch counts are the GPU's, the times are not).

Prints one JSON line a run: iterations, nfev, the objective's evaluations (``calls``, the driver's
count ``r.evaluations``: the batched driver's evaluations after its gate stopped are not in nfev),
``graph`` (the result's: "replayed", or why not), host reads, ms an iteration and ``launches`` an
iteration (``kernels`` numba kernels, ``bound`` those of them bound, ``array_ops`` the driver's own
CuPy operations; torsion's fg_stencil makes about 6 CuPy launches a call on top: its gradient kernel,
v.g, sum(v) and three scalar operations).  Then a line a size saying whether the runs took the same
decisions (iterations, evaluations, stop).  Under the simulator they must (the tests hold them bit for bit);
on a GPU the block sums are atomics, so the last bits of f and x differ between any two runs, and over
100 iterations at 1e4 that has moved one line-search decision (c7ece94, 6ae396f, 6e8368c: one evaluation).  Needs CuPy and a GPU.  Each run is done once untimed first.
"""
import argparse
import json
import os
import sys
import time


# --drivers' names: (the record's name, sync_every, bound launches, cooperative, CUDA graph)
DRIVERS = {"per-evaluation": ("per-evaluation", 1, True, False, False),
           "dispatched": ("batched, dispatched", 16, False, False, False),
           "bound": ("batched, bound", 16, True, False, False),
           "cooperative": ("batched, cooperative", 16, True, True, False),
           "graph": ("batched, graph", 16, True, False, True)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,160000,1000000,4000000")
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--simulate", action="store_true", help="numba's CUDA simulator on numpy arrays (no GPU)")
    ap.add_argument("--drivers", default=",".join(DRIVERS),
                    help="which drivers, comma-separated (default: all): " + ", ".join(DRIVERS))
    ap.add_argument("--batch", type=int, default=16, help="the batched drivers' iterations between host reads")
    ap.add_argument("--trace", metavar="FILE",
                    help="every host read of each run as a JSON line (seconds from the start, iterations, "
                         "evaluations, what) into FILE, and each run's line gets per-segment figures")
    ap.add_argument("--reduced-threads", type=int, default=None, help="fused.REDUCED_THREADS: lf_reduced's block")
    a = ap.parse_args()
    unknown = [k for k in a.drivers.split(",") if k not in DRIVERS]
    if unknown:
        ap.error(f"unknown driver {unknown[0]!r}; choose from " + ", ".join(DRIVERS))
    if a.simulate:
        os.environ["NUMBA_ENABLE_CUDASIM"] = "1"        # before numba is imported
        sys.setswitchinterval(0.001)                    # the simulator's threads take turns sooner
        # the simulator's shared-array lookup is not thread-safe: the tests' lock (tests/simulator_fix.py)
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
        import simulator_fix
        simulator_fix.install()
        import numpy as cp

        def synchronize():
            pass
    else:
        import cupy as cp
        synchronize = cp.cuda.Stream.null.synchronize
    from gpubench.methods.lbfgsb import fused, shared
    from gpubench.problems import minpack2
    for n in (int(v) for v in a.sizes.split(",")):
        p = minpack2.make("torsion", n)
        lo, hi, x0 = p.on(cp)
        _, g0 = p.fg_stencil(x0)
        pg0 = float(cp.abs(cp.clip(x0 - g0, lo, hi) - x0).max())
        fg = p.fg_stencil           # capturable: the evaluations are the driver's own count (r.evaluations)
        out = {}
        for key in a.drivers.split(","):
            name, every, bind, coop, graph = DRIVERS[key]
            every = every if every == 1 else a.batch
            fused.BIND, fused.COOPERATIVE, fused.GRAPH = bind, coop, graph
            if a.reduced_threads is not None:
                fused.REDUCED_THREADS = a.reduced_threads
            args = dict(m=5, pgtol=1e-5 * pg0, factr=0.0, backend=cp, sync_every=every)
            fused.minimize(fg, x0, lo, hi, maxiter=3, **args)
            synchronize()
            s0, l0 = shared.SYNC["count"], dict(shared.LAUNCHES)
            fused.TRACE = [] if a.trace else None
            t = time.perf_counter()
            r = fused.minimize(fg, x0, lo, hi, maxiter=a.iterations, **args)
            synchronize()
            dt = time.perf_counter() - t
            out[name] = r
            extra = {}
            if a.trace:
                events = [(s_ - t, it, ev, what) for s_, it, ev, what in fused.TRACE]
                fused.TRACE = None
                with open(a.trace, "a") as fh:
                    fh.write(json.dumps({"n": n, "driver": name, "batch": every,
                                         "events": events}) + "\n")
                extra["segments"] = segments(events, r.iterations, dt)
            print(json.dumps({"batch": every, "reduced_threads": fused.REDUCED_THREADS, **extra,"n": n, "driver": name, "iterations": r.iterations, "nfev": r.nfev, "calls": r.evaluations, "graph": r.graph,
                              "host_reads": shared.SYNC["count"] - s0,
                              "ms_per_iteration": 1e3 * dt / max(r.iterations, 1),
                              "launches": shared.launches_since(l0, r.iterations),
                              "fun": r.fun, "message": r.message}), flush=True)
        fused.BIND, fused.COOPERATIVE, fused.GRAPH = True, False, True
        decided = {k: (r.iterations, r.nfev, r.message) for k, r in out.items()}
        print(json.dumps({"n": n, "same_decisions": len(set(decided.values())) == 1}), flush=True)


def segments(events, iterations, seconds, parts=8):
    """A run cut into ``parts`` spans of iterations: each span's ms an iteration, host reads, trials the
    host made, hand-overs (a batch whose gate code is 6, GATE_HOST) and evaluations, from the trace's
    events (seconds, iterations, evaluations, what); the span ends at the first read past its end."""
    out, start, t0, e0 = [], 0, 0.0, 0
    step = max(1, -(-iterations // parts))
    for end in range(step, iterations + step, step):
        span = [e for e in events if start < e[1] <= end or (e[1] == start and e[0] > t0)]
        if not span:
            continue
        t1, it1, e1, _ = span[-1]
        out.append({"iterations": [start, it1], "ms_per_iteration": 1e3 * (t1 - t0) / max(it1 - start, 1),
                    "reads": len(span), "trials": sum(w == "trial" for *_, w in span),
                    "handovers": sum(w.startswith("batch") and w.endswith(" 6") for *_, w in span),
                    "evaluations": e1 - e0})
        start, t0, e0 = it1, t1, e1
    out.append({"tail_ms": 1e3 * (seconds - t0)})
    return out


if __name__ == "__main__":
    main()
