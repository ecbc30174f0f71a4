"""``gpubench eval``: a function's value and gradient at a point, or their enclosures over a box."""
import json
import math

from ..errors import InputError
from ._args import add_dim, resolve_dim

NAME = "eval"
HELP = "evaluate a function and its gradient at a point or over a box"


def add_arguments(p):
    p.add_argument("function", help="a library name or path/to/file.py:NAME")
    add_dim(p)
    p.add_argument("--x", nargs="+", help="coordinates (one value is repeated n times); negative values are fine")
    p.add_argument("--box", nargs="+", help="LO:HI per coordinate (one is repeated n times); LO may equal HI")
    p.add_argument("--json", action="store_true", help="print one JSON object")


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
    import numpy as np
    if len(vals) == 1:
        return np.full(dim, vals[0])
    if len(vals) != dim:
        raise InputError(f"{what} has {len(vals)} values but --dim is {dim}")
    return np.array(vals)


def _parse_box(texts, dim):
    import numpy as np
    pairs = []
    for t in texts:
        for part in str(t).split(","):
            if not part:
                continue
            if ":" not in part[1:]:
                raise InputError(f"--box: {part!r} is not LO:HI")
            k = part.index(":", 1)
            pairs.append(tuple(_parse_values([part[:k], part[k + 1:]], "--box")))
    if len(pairs) == 1:
        pairs = pairs * dim
    if len(pairs) != dim:
        raise InputError(f"--box has {len(pairs)} intervals but --dim is {dim}")
    lo = np.array([p[0] for p in pairs])
    hi = np.array([p[1] for p in pairs])
    bad = np.nonzero(lo > hi)[0]
    if bad.size:
        k = int(bad[0])
        raise InputError(f"--box: LO must not exceed HI, but coordinate {k + 1} is {lo[k]:g}:{hi[k]:g}")
    return lo, hi


def run(args):
    from .. import functions as F
    from ..workflow.resources import check_vectors
    # the box and its gradient enclosure as arrays, as Python lists and as JSON text
    fn = F.get(args.function)
    check_vectors(resolve_dim(args, fn), 400 if args.box is not None else 160)
    if (args.x is None) == (args.box is None):
        raise InputError("give exactly one of --x (a point) or --box (a box)")
    if not getattr(fn, "constrained", False):
        return _run_one(fn, args)
    # a constrained problem: the objective, then each g <= 0 and h = 0
    parts = ([fn.objective] + fn.inequalities + fn.equalities)
    for f in parts:
        rc = _run_one(f, args)
        if rc:
            return rc
    return 0


def _run_one(fn, args):
    import numpy as np
    dim = args.dim
    out = {"function": fn.name, "dim": dim}
    if args.x is not None:
        x = _broadcast(_parse_values(args.x, "--x"), dim, "--x")
        if not np.isfinite(x).all():
            raise InputError("--x must be finite")
        value = float(fn.point(x))
        if not math.isfinite(value):
            raise InputError(f"{fn.name} is not defined at this point (its value there is {value!r})")
        out.update(kind="point", x=x.tolist(), value=value, gradient=fn.gradient(x).tolist())
    else:
        lo, hi = _parse_box(args.box, dim)
        flo, fhi = fn.interval(lo, hi)
        glo, ghi = fn.interval_gradient(lo, hi)
        out.update(kind="box", lo=lo.tolist(), hi=hi.tolist(), value=[float(flo), float(fhi)],
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
