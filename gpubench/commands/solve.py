"""``gpubench solve FUNCTION --dim N``: the rigorous interval solver of paper 000 from the command line.

Its options are the solver's settings (:class:`gpubench.solver.core.Settings`),
read from that dataclass: defaults and help are stated there once.
"""
from ._args import positive_integer, positive_number

NAME = "solve"
HELP = "enclose the global minimum rigorously (Zhang, Shan & Cagan 2026)"


def add_arguments(p):
    p.add_argument("function", help="a library name or path/to/file.py:NAME")
    p.add_argument("--dim", type=positive_integer, required=True)
    p.add_argument("--backend", default=None, choices=["auto", "cpu", "cuda"],
                   help="where the sweeps run (default auto: the GPU when present)")
    p.add_argument("--tol", type=positive_number, help="region width tolerance (default 1e-4)")
    p.add_argument("--split-dims", type=positive_integer,
                   help="coordinates cut per iteration, s (default: 10 on a GPU, sized to about 4,096 "
                        "subregions per iteration on the CPU)")
    p.add_argument("--parts", type=positive_integer, help="parts per cut coordinate, p (default 4)")
    p.add_argument("--samples", type=positive_integer, help="diagonal samples per subregion (default 10)")
    p.add_argument("--spacing", choices=["inside", "lower", "upper"],
                   help="where the samples sit on the diagonal: t = m/(samples+1) (inside, default), "
                        "m/samples from 0 (lower) or up to 1 (upper)")
    p.add_argument("--inclusion", choices=["natural", "best"],
                   help="lower bounds from the natural interval form (default, the paper's) or its "
                        "intersection with the mean value form (paper 001)")
    p.add_argument("--max-iterations", type=positive_integer, default=None)
    p.add_argument("--time-limit", type=positive_number, default=None, help="seconds")
    p.add_argument("--checkpoint", metavar="FILE", help="write the search state to FILE after the first "
                   "iteration and then every --checkpoint-every seconds")
    p.add_argument("--resume", metavar="FILE", help="continue the search saved in FILE (and keep saving to it)")
    p.add_argument("--checkpoint-every", type=positive_number, default=30.0, help="seconds (30)")
    p.add_argument("--regions", metavar="FILE", help="write every output region to FILE (.npz: lo, hi)")
    p.add_argument("--json", action="store_true", help="print one JSON object (at most 100 regions)")


SETTINGS = ("backend", "tol", "split_dims", "parts", "samples", "spacing", "inclusion", "max_iterations",
            "time_limit")


def run(args):
    from .. import functions
    from ..device import check_writable_file
    from ..errors import InputError
    from ..methods import interval
    from . import _result
    from ._progress import Progress
    from .minimize import interactive_defaults
    if args.checkpoint and args.resume:
        raise InputError("give --checkpoint or --resume, not both (--resume keeps writing to its file)")
    for opt in ("checkpoint", "resume", "regions"):
        if getattr(args, opt):
            check_writable_file(getattr(args, opt), f"--{opt}")
    fn = functions.get(args.function)
    method = interval.METHOD
    given = {k: getattr(args, k) for k in SETTINGS if getattr(args, k) is not None}
    values = {**interactive_defaults(method, args.dim, given), **given}
    settings = method.make_settings(values)
    progress = Progress()
    result = method.run(fn, args.dim, settings, progress=progress, checkpoint=args.checkpoint,
                        resume=args.resume, checkpoint_every=args.checkpoint_every)
    progress.close()
    return _result.show(result, args.json, args.regions)
