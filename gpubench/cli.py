"""The ``gpubench`` command line: the commands of :mod:`gpubench.commands`, one module each.

Every user error ends in one line on stderr, ``gpubench: error: ...``, and exit
code 2; never a traceback.
"""
import sys

from .commands import demo, eval, functions, methods, minimize, report, reproduce, solve
from .commands._args import Parser
from .device import phase
from .errors import InputError

EXIT_USAGE = 2

# in the order `gpubench --help` lists them
COMMANDS = (functions, eval, methods, solve, minimize, reproduce, report, demo)


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
        c.set_defaults(run=mod.run)
    return p


def main(argv=None):
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "run", None):
            raise InputError("name a command (`gpubench --help` lists them)")
        with phase("command"):
            return args.run(args) or 0
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


if __name__ == "__main__":
    sys.exit(main())
