"""The ``gpubench`` command line: the commands of :mod:`gpubench.commands`, one module each.

Every user error ends in one line on stderr, ``gpubench: error: ...``, and exit
code 2; never a traceback.  An unexpected exception (a bug) ends in one line
``gpubench: internal error: ...`` and exit code 1; ``GPUBENCH_TRACEBACK=1`` raises it instead.
"""
import errno
import os
import sys
import threading
import warnings

# Before anything imports numba: its import-time BLAS probe answered from scipy's files (0.15 s of a
# process).  Here, in the command's own process, not on `import gpubench`: a library imported into a
# user's program leaves that program's imports alone.
from .device import blas_probe  # noqa: E402  (the probe is light: importlib, os, sys)
blas_probe.install()

from .commands import cache, compare, demo, eval, functions, methods, minimize, report, reproduce, solve  # noqa: E402
from .commands._args import Parser  # noqa: E402
from .device.gpu import phase  # noqa: E402
from .errors import InputError  # noqa: E402

EXIT_USAGE = 2
EXIT_INTERNAL = 1
_DISK_ERRORS = (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG)
_FAST_EXIT = []  # set by main() when the command that ran declares FAST_EXIT and succeeded

# in the order `gpubench --help` lists them
COMMANDS = (functions, eval, methods, solve, minimize, reproduce, report, compare, demo, cache)


def _version():
    from . import __version__
    return f"gpubench {__version__}"


def build_parser():
    p = Parser(prog="gpubench", description="Benchmarks of GPU global optimizers: a rigorous interval "
                                            "solver, heuristics, and the tables of five papers.")
    p.add_argument("--version", action="version", version=_version())
    sub = p.add_subparsers(dest="command", parser_class=Parser, metavar="COMMAND")
    for mod in COMMANDS:
        c = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(c)
        c.set_defaults(run=mod.run, fast_exit=getattr(mod, "FAST_EXIT", False))
    return p


def quiet_occupancy_warnings():
    """Leave out numba's "Grid size N will likely result in GPU under-utilization" on the terminal.

    The methods launch small grids on purpose (the last starts still running, a small case), and
    the warning, two lines a launch, would bury a command's one line of output.  Matched by its
    text, not its class, so that a command that never touches CUDA does not import numba for it.
    """
    warnings.filterwarnings("ignore", message=r".*Grid size \d+ will likely result in GPU under-utilization")


def main(argv=None):
    quiet_occupancy_warnings()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "run", None):
            raise InputError("name a command (`gpubench --help` lists them)")
        from .methods.monitor import guard_interrupts
        with phase("command"), guard_interrupts():  # Ctrl-C at any moment, compiling included
            rc = args.run(args) or 0
        if args.fast_exit:
            _FAST_EXIT.append(True)
        return rc
    except InputError as exc:
        print(f"gpubench: error: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}",
              file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("gpubench: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `gpubench ... | head`: the reader left; nothing more to say
        sys.stderr.close()
        return 0
    except OSError as exc:  # a full or read-only disk met outside the atomic writer (a cache, a figure)
        if exc.errno not in _DISK_ERRORS:
            raise
        print(f"gpubench: error: {exc.strerror}" + (f": {exc.filename}" if exc.filename else ""),
              file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # a bug of ours (or a definition numba cannot compile): one line, exit 1
        if os.environ.get("GPUBENCH_TRACEBACK"):
            raise
        first = next((ln.strip() for ln in str(exc).splitlines() if ln.strip()), "")
        print(f"gpubench: internal error: {type(exc).__name__}: {first[:300]} "
              f"(GPUBENCH_TRACEBACK=1 prints where; please report it)", file=sys.stderr)
        return EXIT_INTERNAL


def entry():
    """The process's entry point (``gpubench``, ``python -m gpubench``): :func:`main`, then the exit.

    A command that declares ``FAST_EXIT = True`` (solve, minimize: one process, every file
    written before the command returns) ends the process by ``os._exit`` once its output is
    flushed, if no other thread or child process is alive.  The interpreter's teardown (the
    atexit handlers of numba and of the CUDA context, freeing every module) took 0.5-1.0 s of a
    5 s second-process ``gpubench solve levy --dim 50 --backend cuda`` on the H200 and 0.16 s
    on a CPU; the operating system and the driver free the same resources with the process.
    """
    rc = main()
    # not under a profiler or tracer (``python -m cProfile -o F -m gpubench ...``, coverage): they
    # write what they gathered at the interpreter's exit, which os._exit would skip
    watched = sys.getprofile() is not None or sys.gettrace() is not None or _monitored()
    if _FAST_EXIT and not watched and threading.active_count() == 1 and not _children_alive():
        from .device.gpu import write_phases_now
        write_phases_now()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # closed (a reader that left): nothing more to write
                pass
        os._exit(rc)
    return rc


def _monitored():
    """Whether a tool watches the process through ``sys.monitoring`` (Python >= 3.12): cProfile does so
    there, not through ``sys.setprofile`` (a GPU window's ``python -m cProfile -o F -m gpubench solve``
    left no F)."""
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is None:
        return False
    return any(monitoring.get_tool(i) is not None for i in range(6))


def _children_alive():
    mp = sys.modules.get("multiprocessing")
    return bool(mp and mp.active_children())


if __name__ == "__main__":
    sys.exit(entry())
