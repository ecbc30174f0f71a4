"""Argument types and the parser class every command shares."""
import argparse
import math
import re

from ..errors import InputError

# argparse takes "-1:1" or "-1e-3" for an option; these patterns let negative numbers and boxes through
_NEGATIVE = re.compile(r"^-(\d|\.\d|inf)")


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are :class:`InputError` (one line, exit 2)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = _NEGATIVE

    def error(self, message):
        raise InputError(message)


def add_dim(p):
    """``--dim N``: optional for a function defined in one dimension only (see :func:`resolve_dim`)."""
    p.add_argument("--dim", type=positive_integer, default=None,
                   help="the dimension n (a fixed-dimension function's own when left out)")


def resolve_dim(args, fn):
    """``args.dim``, else the function's own dimension (set on ``args``); a scalable function
    needs ``--dim``."""
    if args.dim is None:
        d = getattr(fn, "fixed_dim", None)
        if d is None and hasattr(fn, "objective"):  # a constrained problem: its objective's
            d = getattr(fn.objective, "fixed_dim", None)
        if d is None:
            raise InputError(f"{fn.name} is defined for any dimension: give one with --dim N")
        args.dim = d
    return args.dim


def check_numbers(fn, dim):
    """A function's domain and f* at ``dim`` computed now, where the function enters a command:
    a user's file whose ``domain`` or ``fstar`` raises, is not numbers, or whose f* is NaN is one
    line before any work (TestFunction says which), not an internal error or a run that "did not
    reach" an unknown minimum.  Called after the resource check: the domain is ``dim`` numbers."""
    fn.bounds(dim)
    if hasattr(fn, "fstar"):
        fn.fstar(dim)


def integer(text):
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None


def positive_integer(text):
    v = integer(text)
    if v < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive integer")
    return v


def positive_number(text):
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (math.isfinite(v) and v > 0):
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number")
    return v


def fmt(v):
    """A number as a user reads it: 2.0, not np.float64(2.0)."""
    try:
        import numpy as np
        if isinstance(v, np.generic):
            v = v.item()
    except ImportError:
        pass
    return f"{v:.10g}" if isinstance(v, float) else str(v)


def print_json(obj):
    import json
    print(json.dumps(obj))
