"""``gpubench solve FUNCTION --dim N``: the rigorous interval solver of paper 000 from the command line.

Its options are the solver's settings (:class:`gpubench.methods.solver.core.Settings`),
read from that dataclass: defaults and help are stated there once.
"""
import time

from ._args import add_dim, check_numbers, positive_number, resolve_dim

NAME = "solve"
HELP = "enclose the global minimum rigorously (Zhang, Shan & Cagan 2026)"
# one process whose files are all written when run() returns: it may leave by os._exit (cli.entry)
FAST_EXIT = True


def add_arguments(p):
    from ..methods.base import INTERACTIVE_TIME_LIMIT
    from ..methods.solver.settings import CPU_SPLIT_DIMS, Settings
    p.add_argument("function", help="a library name or path/to/file.py:NAME")
    add_dim(p)
    # one option per solver setting, with the dataclass's own help and default
    for name, base, optional, default, meta in Settings.fields():
        extra = {"choices": list(meta["choices"])} if meta.get("choices") else {}
        shown = {"split_dims": f"{default} on a GPU; on the CPU {CPU_SPLIT_DIMS}, about 4,096 subregions "
                               f"per iteration",
                 "time_limit": f"{INTERACTIVE_TIME_LIMIT:g} typed in; {default} from the library"}.get(name, default)
        p.add_argument("--" + name.replace("_", "-"), dest=name, default=None, metavar=name.upper(),
                       help=f"{meta['help']} (default {shown})", **extra)
    p.add_argument("--checkpoint", metavar="FILE", help="write the search state to FILE after the first "
                   "iteration and then every --checkpoint-every seconds")
    p.add_argument("--resume", metavar="FILE", help="continue the search saved in FILE (and keep saving to it)")
    p.add_argument("--checkpoint-every", type=positive_number, default=30.0, help="seconds (30)")
    p.add_argument("--regions", metavar="FILE", help="write every output region to FILE (.npz: lo, hi)")
    p.add_argument("--json", action="store_true", help="print one JSON object (at most 100 regions)")


def run(args):
    from ..device.gpu import check_writable_file, phase
    from ..errors import InputError
    from ..methods import interval
    from ..workflow.resources import check_method
    from . import _result
    from ._progress import Progress
    from .minimize import compile_first, interactive_defaults
    if args.checkpoint and args.resume:
        raise InputError("give --checkpoint or --resume, not both (--resume keeps writing to its file)")
    for opt in ("checkpoint", "resume", "regions"):
        if getattr(args, opt):
            check_writable_file(getattr(args, opt), f"--{opt}")
    if args.checkpoint:  # before anything compiles; run_search checks it again for the Python API
        from ..methods.solver.checkpoint import check_target
        check_target(args.checkpoint, "--checkpoint")
    with phase("function"):
        from .. import functions  # sympy, and the definitions
        fn = functions.get(args.function)
    resolve_dim(args, fn)
    method = interval.METHOD
    typed = {k: getattr(args, k) for k in method.settings.names() if getattr(args, k) is not None}
    given = method.settings.build(method.name, typed, from_text=True).as_dict()
    given = {k: given[k] for k in typed}
    chosen = interactive_defaults(method, args.dim, given)
    values = {**{k: c.value for k, c in chosen.items()}, **given}
    settings = method.make_settings(values)
    check_method(args.dim, settings, fn=fn)   # the sweep that will run: split or full, by n and the function
    check_numbers(fn, args.dim)
    progress = Progress()
    from ..methods.monitor import catch_interrupts
    t0 = time.perf_counter()
    with catch_interrupts():  # Ctrl-C: the best so far and its bounds printed, the checkpoint saved
        if not args.resume:  # a resumed search goes on with its own clock, its checkpoint read first
            compile_first(method, fn, args.dim, settings, progress)
        result = method.run(fn, args.dim, settings, progress=progress, checkpoint=args.checkpoint,
                            resume=args.resume, checkpoint_every=args.checkpoint_every)
    progress.close()
    rc = _result.show(result, args.json, args.regions, wall=time.perf_counter() - t0, chosen=chosen)
    return 130 if result.stop == "interrupted" else rc
