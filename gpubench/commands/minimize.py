"""``gpubench minimize FUNCTION --dim N --method M [--set KEY=VALUE ...]``: any registered method."""
import importlib
import math
import os
import time

from ..errors import InputError
from ._args import add_dim, check_numbers, resolve_dim

NAME = "minimize"
HELP = "run any registered method (`gpubench methods` lists them) on a function"
# one process whose files are all written when run() returns: it may leave by os._exit (cli.entry)
FAST_EXIT = True


def add_arguments(p):
    p.add_argument("function", help="a library name or path/to/file.py:NAME")
    add_dim(p)
    p.add_argument("--method", required=True, help="a registered method (`gpubench methods`)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="a setting of the method (repeat for more); `gpubench methods M` lists them")
    p.add_argument("--seed", type=int, default=None, help="the method's seed setting, where it has one")
    p.add_argument("--backend", choices=["auto", "cpu", "cuda"], default=None,
                   help="the method's backend setting, where it has one")
    p.add_argument("--regions", metavar="FILE", help="rigorous methods: write every output region to FILE (.npz)")
    p.add_argument("--json", action="store_true", help="print one JSON object (the shape of `gpubench solve --json`)")


def parse_sets(items):
    out = {}
    for item in items:
        if "=" not in item:
            raise InputError(f"--set {item!r}: expected KEY=VALUE")
        k, v = item.split("=", 1)
        k = k.strip().replace("-", "_")
        if not k:
            raise InputError(f"--set {item!r}: the key is empty")
        if k in out:
            raise InputError(f"--set {k} is given twice")
        out[k] = v
    return out


def compile_first(method, fn, dim, settings, progress):
    """Before a typed-in run with a time limit, the warm-up the runner does before a record
    (:func:`gpubench.workflow.warmup.warm_up`: numba compiling the forms and the method's kernels, tens of
    seconds the first time on a CPU, cached on disk afterwards), so that the limit is the search's:
    a cold run spent it compiling and answered after one iteration.  The seconds count in the run's
    "compiling and setting up"."""
    if method.warmup is None or getattr(settings, "time_limit", None) is None:
        return
    from contextlib import nullcontext
    from ..workflow.warmup import warm_up
    # on a log or a pipe nothing: stderr keeps only what the run says (a bad input: one line)
    with (progress.ticker(f"{method.name}: compiling (once; cached for the next run)") if progress.tty
          else nullcontext()):
        warm_up(fn, dim, method, settings, skip_when_warm=True)


def interactive_defaults(method, dim, given):
    """The defaults of a run typed by a user (``Method.interactive`` and the interactive time limit)."""
    from ..methods.base import interactive_choices
    return interactive_choices(method, dim, given)


def early_context(args, method):
    """A run asked for on ``--backend cuda`` of a method that always launches (``Method.launches``)
    starts making the CUDA context now, in a thread beside the imports that precede its first launch
    (:class:`gpubench.device.driver.EarlyContext`; on the H200 at 057b3a5 ``method.run`` fell from
    0.144-0.153 s to 0.036-0.039 s with it).  ``GPUBENCH_EARLY_CONTEXT=1`` asks for it for every
    method, ``=0`` for none; None where no context is started."""
    flag = os.environ.get("GPUBENCH_EARLY_CONTEXT", "").strip()
    wanted = method.launches if flag == "" else flag not in ("0", "false", "no", "off")
    if args.backend != "cuda" or not wanted:
        return None
    from ..device import driver
    from ..device.gpu import simulator
    return None if simulator() else driver.start_primary_context()


def run(args):
    started = []   # the early context, once the method is known (_run)
    try:
        return _run(args, started)
    finally:
        for early in started:
            early.close()


def _run(args, started):
    from ..device.gpu import phase
    # the command's first imports, timed apart from the rest of "command" (issue 42, item 4: "command"
    # took 0.12-0.29 s of a second process on the H200 windows, 0.05 s on a 2-core CPU, where these
    # imports are 0.045 s of it), numpy's own import apart inside them
    with phase("command.imports"):
        with phase("numpy.import"):  # the functions would import it first; here it is timed alone
            importlib.import_module("numpy")
        from .. import functions, methods
        from ..device.gpu import check_writable_file
        from ..workflow.resources import check_method
        from . import _result
        from ._progress import Progress
        method = methods.get(args.method)
    early = early_context(args, method)
    if early is not None:
        started.append(early)
    if args.dim is None:
        resolve_dim(args, functions.get(args.function))
    text = parse_sets(args.set)
    names = set(method.settings.names())
    for opt in ("seed", "backend"):
        v = getattr(args, opt)
        if v is None:
            continue
        if opt == "backend" and opt not in names:
            # a method without the setting runs on the CPU only: asking for that is no error
            if v != "cuda" and "cpu" in method.backends:
                continue
            raise InputError(f"method {method.name!r} has no {v} backend (it has: {', '.join(method.backends)})")
        if opt not in names:
            raise InputError(f"method {method.name!r} has no {opt} setting")
        if opt in text:
            raise InputError(f"give {opt} once: --{opt} or --set {opt}=...")
        text[opt] = str(v)
    if args.regions:
        check_writable_file(args.regions, "--regions")
    # parse the typed values, then add the interactive defaults for what was not typed
    typed = method.settings.build(method.name, text, from_text=True)
    given = {k: getattr(typed, k) for k in text}
    chosen = interactive_defaults(method, args.dim, given)
    values = {**{k: c.value for k, c in chosen.items()}, **given}
    settings = method.make_settings(values)
    check_method(args.dim, settings)
    with phase("function"):  # sympy and the definition (benchmarks/profiling/startup_profile.py)
        fn = functions.get(args.function)
    check_numbers(fn, args.dim)
    note = None
    backends = method.backends
    if "backend" in names and getattr(settings, "backend") == "cuda" and "cuda" not in backends:
        raise InputError(f"method {method.name!r} has no cuda backend")
    progress = Progress()
    from ..methods.monitor import catch_interrupts
    t0 = time.perf_counter()
    with phase("method.run"), catch_interrupts():  # forms, kernels (compiled or loaded), the solve
        compile_first(method, fn, args.dim, settings, progress)
        if "progress" in method.controls:
            result = method.run(fn, args.dim, settings, progress=progress)
            progress.close()
        else:
            with progress.ticker(method.name):
                result = method.run(fn, args.dim, settings)
    wall = time.perf_counter() - t0
    if result.glb is None and result.fun is not None and math.isnan(result.fun):
        raise InputError(f"{fn.name}: every evaluation of {method.name} was NaN (is the function "
                         f"defined anywhere in its box?); no answer")
    note = (result.options or {}).get("note") or note
    rc = _result.show(result, args.json, args.regions, note=note, wall=wall, chosen=chosen)
    return 130 if result.stop == "interrupted" else rc  # printed with its best point, then as Ctrl-C exits
