"""The ``gpubench`` command line.

Every user error ends in one line on stderr, ``gpubench: error: ...``, and exit
code 2; never a traceback.
"""
import argparse
import json
import math
import sys

import numpy as np

from .forms import InputError, check_dim

EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise InputError(message)


def _fmt(v):
    return f"{v:.10g}" if isinstance(v, float) else str(v)


def _vector_summary(v):
    v = np.asarray(v)
    if v.size and np.all(v == v[0]):
        return f"({_fmt(float(v[0]))}, ..., {_fmt(float(v[0]))})" if v.size > 1 else f"({_fmt(float(v[0]))})"
    return "per-coordinate"


# ---------------------------------------------------------------- functions
def cmd_functions(args):
    from . import functions as F
    dim = check_dim(args.dim)
    rows = []
    for name in F.names():
        fn = F.get(name)
        lo, hi = fn.bounds(dim)
        rows.append({
            "name": name, "title": fn.title,
            "bounds": fn.definition.describe_bounds(dim),
            "xstar": _vector_summary(fn.xstar(dim)),
            "fstar": fn.fstar(dim), "dim": dim, "sense": fn.sense,
            "continuous": fn.continuous, "source": fn.source,
        })
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    cols = [("name", "name"), ("bounds", "bounds"), ("xstar", "x*"), ("fstar", f"f*(n={dim})"),
            ("sense", "sense"), ("source", "source")]
    cells = [[h for _, h in cols]] + [[_fmt(r[k]) for k, _ in cols] for r in rows]
    widths = [max(len(c[j]) for c in cells[:]) for j in range(len(cols) - 1)]
    for c in cells:
        print("  ".join(c[j].ljust(widths[j]) for j in range(len(cols) - 1)) + "  " + c[-1])
    return 0


# ---------------------------------------------------------------- eval
def _parse_values(texts, what):
    vals = []
    for t in texts:
        for part in str(t).replace(",", " ").split():
            try:
                v = float(part)
            except ValueError:
                raise InputError(f"{what}: {part!r} is not a number") from None
            if math.isnan(v):
                raise InputError(f"{what}: NaN is not a coordinate")
            vals.append(v)
    return vals


def _broadcast(vals, dim, what):
    if len(vals) == 1:
        return np.full(dim, vals[0])
    if len(vals) != dim:
        raise InputError(f"{what} has {len(vals)} values but --dim is {dim}")
    return np.array(vals)


def cmd_eval(args):
    from . import functions as F
    fn = F.get(args.function)
    dim = check_dim(args.dim)
    if (args.x is None) == (args.box is None):
        raise InputError("give exactly one of --x (a point) or --box (a box)")
    out = {"function": fn.name, "dim": dim}
    if args.x is not None:
        x = _broadcast(_parse_values(args.x, "--x"), dim, "--x")
        if not np.isfinite(x).all():
            raise InputError("--x must be finite")
        out.update(kind="point", x=x.tolist(), value=fn.point(x), gradient=fn.gradient(x).tolist())
    else:
        pairs = []
        for t in args.box:
            for part in str(t).split(","):
                if not part:
                    continue
                if ":" not in part:
                    raise InputError(f"--box: {part!r} is not LO:HI")
                lo_t, hi_t = part.split(":", 1)
                pairs.append(tuple(_parse_values([lo_t, hi_t], "--box")))
        if len(pairs) == 1:
            pairs = pairs * dim
        if len(pairs) != dim:
            raise InputError(f"--box has {len(pairs)} intervals but --dim is {dim}")
        lo = np.array([p[0] for p in pairs])
        hi = np.array([p[1] for p in pairs])
        bad = np.nonzero(lo >= hi)[0]
        if bad.size:
            k = int(bad[0])
            raise InputError(f"--box: lo must be below hi, but coordinate {k + 1} is {lo[k]:g}:{hi[k]:g}")
        flo, fhi = fn.interval(lo, hi)
        glo, ghi = fn.interval_gradient(lo, hi)
        out.update(kind="box", lo=lo.tolist(), hi=hi.tolist(), value=[flo, fhi],
                   gradient=[[a, b] for a, b in zip(glo.tolist(), ghi.tolist())])
    if args.json:
        print(json.dumps(out))
        return 0
    if out["kind"] == "point":
        print(f"{fn.name}(x), n={dim}: {out['value']!r}")
        print("gradient: " + " ".join(f"{g:.10g}" for g in out["gradient"]))
    else:
        print(f"{fn.name}(box), n={dim}: [{out['value'][0]!r}, {out['value'][1]!r}]")
        print("gradient enclosure: " + " ".join(f"[{a:.6g}, {b:.6g}]" for a, b in out["gradient"]))
    return 0


# ---------------------------------------------------------------- main
def build_parser():
    p = _Parser(prog="gpubench", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", parser_class=_Parser)

    f = sub.add_parser("functions", help="list the test functions")
    f.add_argument("--dim", type=int, default=10, help="n for bounds, x* and f* (default 10)")
    f.add_argument("--json", action="store_true")
    f.set_defaults(run=cmd_functions)

    e = sub.add_parser("eval", help="evaluate a function and its gradient at a point or over a box")
    e.add_argument("function", help="a library name or path/to/file.py:NAME")
    e.add_argument("--dim", type=int, required=True)
    e.add_argument("--x", nargs="+", help="coordinates (one value is repeated n times)")
    e.add_argument("--box", nargs="+", help="LO:HI per coordinate (one is repeated n times)")
    e.add_argument("--json", action="store_true")
    e.set_defaults(run=cmd_eval)

    for register in _EXTRA_COMMANDS:
        register(sub)
    return p


_EXTRA_COMMANDS = []


def command(register):
    """Add a subcommand: ``register(subparsers)`` adds a parser with ``set_defaults(run=...)``."""
    _EXTRA_COMMANDS.append(register)
    return register


def _load_extra_commands():
    import importlib
    for mod in ("gpubench.solver.cli", "gpubench.runner", "gpubench.report", "gpubench.demo"):
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as exc:
            if exc.name != mod:
                raise


def main(argv=None):
    _load_extra_commands()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "run", None):
            parser.print_help()
            return EXIT_USAGE
        return args.run(args) or 0
    except InputError as exc:
        print(f"gpubench: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("gpubench: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    # run the imported module's main: subcommands register on gpubench.cli, not on __main__
    from gpubench.cli import main as _main
    sys.exit(_main())
