"""``gpubench solve FUNCTION --dim N``: the rigorous search from the command line."""
import argparse
import json
import math
import sys
import time

from ..cli import command
from ..forms import InputError


def _progress_printer(stream):
    """A one-line live display on a terminal: iteration, |L|, GLB, GUB, elapsed."""
    last = [0.0]

    def show(state, final=False):
        now = time.perf_counter()
        if not final and now - last[0] < 0.2:
            return
        last[0] = now
        glb = state.hist_glb[-1] if state.hist_glb else -math.inf
        stream.write(f"\riteration {state.iteration:6d}  |L| {len(state.regions):9d}  "
                     f"GLB {glb: .10g}  GUB {state.gub: .10g}  {state.seconds:8.1f} s")
        stream.flush()
    return show


def cmd_solve(args):
    from .. import functions
    from ..forms import check_dim
    from .core import solve
    fn = functions.get(args.function)
    dim = check_dim(args.dim)
    if args.checkpoint and args.resume:
        raise InputError("give --checkpoint or --resume, not both (--resume keeps writing to its file)")
    show = None
    if not args.json and sys.stderr.isatty():
        show = _progress_printer(sys.stderr)
    result = solve(fn, dim, backend=args.backend, split_dims=args.split_dims, parts=args.parts,
                   tol=args.tol, samples=args.samples, spacing=args.spacing, max_iterations=args.max_iterations,
                   time_limit=args.time_limit, checkpoint=args.checkpoint, resume=args.resume,
                   checkpoint_every=args.checkpoint_every, progress=show)
    if show is not None:
        sys.stderr.write("\n")
    if args.json:
        d = result.to_dict()
        keep = ("function", "dim", "backend", "iterations", "regions", "glb", "gub", "seconds",
                "converged", "n_regions", "nfev", "njev", "x", "fun", "message", "options", "history")
        print(json.dumps({k: d[k] for k in keep}))
        return 0
    print(f"{fn.name}, n = {dim}, backend {result.backend}: {result.message}")
    print(f"  optimum enclosed in [GLB, GUB] = [{result.glb!r}, {result.gub!r}]")
    print(f"  {result.n_regions} output region(s) after {result.iterations} iterations, "
          f"{result.seconds:.2f} s, {result.nfev} interval evaluations")
    if result.x is not None:
        print(f"  best sample f = {result.fun!r}")
    for k, r in enumerate(result.regions()[:5]):
        lo, hi = r["lo"], r["hi"]
        print(f"  region {k + 1}: " + ", ".join(f"[{a:.8g}, {b:.8g}]" for a, b in zip(lo[:4], hi[:4]))
              + (" ..." if len(lo) > 4 else ""))
    if result.n_regions > 5:
        print(f"  ... and {result.n_regions - 5} more (use --json for all)")
    return 0


def positive_number(text):
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (math.isfinite(v) and v > 0):
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number")
    return v


def integer(text):
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None


@command
def register(sub):
    p = sub.add_parser("solve", help="enclose the global minimum rigorously (Zhang, Shan & Cagan 2026)")
    p.add_argument("function", help="a library name or path/to/file.py:NAME")
    p.add_argument("--dim", type=integer, required=True)
    p.add_argument("--backend", default="auto", choices=["auto", "cpu", "cuda"])
    p.add_argument("--tol", type=positive_number, default=1e-4, help="region width tolerance (1e-4)")
    p.add_argument("--split-dims", type=integer, default=10, help="coordinates cut per iteration, s (10)")
    p.add_argument("--parts", type=integer, default=4, help="parts per cut coordinate, p (4)")
    p.add_argument("--samples", type=integer, default=10, help="diagonal samples per subregion (10)")
    p.add_argument("--spacing", default="inside", choices=["inside", "lower", "upper"],
                   help="where the samples sit on the diagonal: t = m/(samples+1) (inside, default), "
                        "m/samples from 0 (lower) or up to 1 (upper)")
    p.add_argument("--max-iterations", type=integer, default=None)
    p.add_argument("--time-limit", type=positive_number, default=None, help="seconds")
    p.add_argument("--checkpoint", metavar="FILE", help="write the search state to FILE as it runs")
    p.add_argument("--resume", metavar="FILE", help="continue the search saved in FILE")
    p.add_argument("--checkpoint-every", type=positive_number, default=30.0, help="seconds (30)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=cmd_solve)
