"""``gpubench functions``: the test functions with bounds, x*, f*(n), sense and source."""
import json

from ._args import fmt, positive_integer

NAME = "functions"
HELP = "list the test functions"


def add_arguments(p):
    p.add_argument("--dim", type=positive_integer, default=10, help="n for bounds, x* and f* (default 10)")
    p.add_argument("--json", action="store_true", help="print one JSON array")
    p.add_argument("--library", default=None,
                   help="list another library: scipy_go (SciPy's global optimization benchmarks); "
                        "fixed-dimension functions are shown at their own dimension")


def _vector_summary(v):
    import numpy as np
    v = np.asarray(v)
    if v.size and np.all(v == v[0]):
        return f"({fmt(float(v[0]))}, ..., {fmt(float(v[0]))})" if v.size > 1 else f"({fmt(float(v[0]))})"
    return "per-coordinate"


def run(args):
    from .. import functions as F
    from ..workflow.resources import check_vectors
    # x*, the bounds and the parameters of one function at a time, and the printed summaries
    dim = check_vectors(args.dim, 8 * 8)
    rows = []
    for name in F.names(args.library):
        fn = F.get(name)
        dim = fn.definition.dim or args.dim
        rows.append({
            "name": name, "title": fn.title,
            "bounds": fn.definition.describe_bounds(dim),
            "xstar": _vector_summary(fn.xstar(dim)),
            "fstar": float(fn.fstar(dim)), "dim": dim, "sense": fn.sense,
            "continuous": fn.continuous, "source": fn.source,
        })
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    dim = args.dim
    cols = [("name", "name"), ("bounds", "bounds"), ("xstar", "x*"), ("fstar", f"f*(n={dim})"),
            ("sense", "sense"), ("source", "source")]
    cells = [[h for _, h in cols]] + [[fmt(r[k]) for k, _ in cols] for r in rows]
    widths = [max(len(c[j]) for c in cells) for j in range(len(cols) - 1)]
    for c in cells:
        print("  ".join(c[j].ljust(widths[j]) for j in range(len(cols) - 1)) + "  " + c[-1])
    return 0
