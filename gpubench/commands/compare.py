"""``gpubench compare FUNCTION --dim N [--quick]``: every method of the comparison on one function.

The methods, their budgets (settings, time limits) and repetitions are those of the comparison
experiment (``experiments/compare.toml``; ``--quick``: its quick variant, a CPU in minutes).
Each (method, repetition) is one record, written atomically when it ends, under
``OUT/records/``: a rerun of the same command runs only what is missing (resume after Ctrl-C).
The rigorous method certifies the minimum when its solve converges within its budget; the
one-page summary (``OUT/summary.md`` and .html, written by :func:`gpubench.reports.compare.function_summary`) then gives each method's success rate (runs whose best
value is at most GLB + 1e-8, so certainly within 1e-8 of the global minimum), its median time
and evaluations to that target, and the fastest.  ``OUT/coco/`` and ``OUT/ioh/`` hold the runs
for cocopp and IOHanalyzer (docs/interop.md).
"""
from ..errors import InputError
from ._args import add_dim, check_numbers, positive_integer, resolve_dim

NAME = "compare"
HELP = "run every method of the comparison on one function (yours too: FILE.py:NAME) and summarise"


def add_arguments(p):
    p.add_argument("function", help="a library name or path/to/file.py:NAME")
    add_dim(p)
    p.add_argument("--quick", action="store_true",
                   help="the comparison's quick budgets (experiments/compare.toml [quick]): a CPU in minutes")
    p.add_argument("--repetitions", type=positive_integer, metavar="R",
                   help="runs of each method (default: the comparison's, 2)")
    p.add_argument("--methods", metavar="KEY,KEY", help="only these method entries of the comparison "
                   "(default: every one; `interval` is the one that certifies)")
    p.add_argument("--out", metavar="DIR", help="where records and the summary go "
                   "(default: ./compare-FUNCTION-nN[-quick])")
    p.add_argument("--backend", choices=["auto", "cpu", "cuda"], default=None,
                   help="override the backend setting of every method that has one")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--workers", type=positive_integer, metavar="N",
                   help="run on a new Dask LocalCluster of N workers (as `gpubench reproduce`)")
    g.add_argument("--scheduler", metavar="ADDRESS", help="run on an existing Dask cluster (tcp://host:port)")


def _user_function(text):
    """(registry name, TestFunction) of ``text``: a library function, or a user's file registered
    under ``<file stem>_<NAME>`` so that records and case ids name it without a path."""
    import dataclasses
    from pathlib import Path
    from .. import functions
    if not (":" in text and text.split(":", 1)[0].endswith(".py")):
        return text, functions.get(text), None
    path, attr = text.split(":", 1)
    fn = functions.load_file(path, attr)
    defn = getattr(fn, "definition", None)
    if defn is None:
        raise InputError(f"{text}: a constrained problem; compare runs box-constrained functions only")
    name = "".join(c if c.isalnum() else "_" for c in f"{Path(path).stem}_{attr}")
    try:
        functions.get(name)
        taken = True
    except InputError:
        taken = False
    if taken:
        raise InputError(f"{text}: its name {name!r} is a library function's; rename the file or NAME")
    return name, functions.register(dataclasses.replace(defn, name=name)), str(Path(path).resolve())


def experiment(function, dim, repetitions=None, methods=None):
    """The comparison experiment restricted to ``function`` at ``dim`` (both variants) and to the
    method entries ``methods`` (None: all)."""
    import dataclasses
    from ..workflow import experiments_loader as loader
    base = loader.load("compare")
    if methods is not None:
        known = {m.key for m in base.full.methods}
        bad = sorted(set(methods) - known)
        if bad:
            raise InputError(f"--methods: no method entry {bad[0]!r} in the comparison; "
                             f"entries: {', '.join(sorted(known))}")

    def variant(v):
        chosen = tuple(m for m in v.methods if methods is None or m.key in methods)
        return dataclasses.replace(v, functions=(function,), dims=(dim,), methods=chosen,
                                   repetitions=repetitions or v.repetitions)
    return dataclasses.replace(base, id=f"compare-{function}-n{dim}", layout="compare",
                               title=f"Every method on {function}, n = {dim}",
                               published_file="", published_tables=(), success_tol=1e-8,
                               full=variant(base.full), quick=variant(base.quick))


def certificate(records):
    """The narrowest converged enclosure [GLB, GUB] among ``records`` of a rigorous method, or None."""
    import math
    from ..reports import compare as cmp
    best = None
    for r in records:
        m = r["measured"]
        glb, gub = m.get("glb"), m.get("gub")
        if not (cmp.rigorous(r["method"], r) and m.get("converged") is True and isinstance(glb, (int, float))
                and isinstance(gub, (int, float)) and math.isfinite(glb) and math.isfinite(gub) and glb <= gub):
            continue
        if best is None or gub - glb < best["gub"] - best["glb"]:
            best = {"glb": float(glb), "gub": float(gub), "regions": r.get("regions"),
                    "experiment": r["experiment"], "case": r["case"]}
    return best


def run(args):
    from pathlib import Path
    from ..reports import compare as cmp
    from ..workflow import runner
    from ..records.read import load_records
    from ..device.gpu import check_writable_dir
    from ..reports.interop.ioh import write_ioh
    if args.scheduler is not None and "://" not in args.scheduler and ":" not in args.scheduler:
        raise InputError(f"--scheduler {args.scheduler!r} is not an address (tcp://HOST:PORT)")
    name, fn, source = _user_function(args.function)
    if source and args.scheduler:
        raise InputError("--scheduler needs a library function (a remote worker cannot read your file); "
                         "use --workers")
    dim = resolve_dim(args, fn)
    check_numbers(fn, dim)  # a dimension the function refuses, or a user's bad f*, fails here, before any work
    chosen = None
    if args.methods is not None:
        chosen = [m.strip() for m in args.methods.split(",") if m.strip()]
        if not chosen:
            raise InputError("--methods names no method entry")
    exp = experiment(name, dim, args.repetitions, chosen)
    if not exp.variant(args.quick).methods:
        raise InputError(f"--methods: none of {', '.join(chosen)} runs in the "
                         f"{'quick' if args.quick else 'full'} variant")
    variant = "quick" if args.quick else "full"
    out = Path(args.out or f"compare-{name}-n{dim}" + ("-quick" if args.quick else ""))
    check_writable_dir(out, "--out")
    # a user's function is registered in this process only: its workers are threads here
    s = runner.sweep(exp, quick=args.quick, backend=args.backend, results=out / "records",
                     workers=args.workers, scheduler=args.scheduler, processes=source is None)
    planned = {c.case_id for c in runner.plan(exp, args.quick, args.backend)}
    recs = [r for r in load_records(Path(s.folder)) if r["case"] in planned]
    cert = certificate(recs)
    if cert is None and source is None:
        cert = cmp.certificates().get((name, dim))  # a converged solve stored by another experiment
    fstars = cmp._fstars(recs)
    from ..reports.coco_data import write_coco
    write_coco(recs, fstars, out / "coco")
    write_ioh(recs, fstars, out / "ioh")
    text = cmp.function_summary(out / "summary.md", name, dim, variant, recs, cert, fn.fstar(dim), fn.sense, source)
    print(text, end="")
    print(f"{s.ran} run(s) now, {s.skipped} already stored; summary in {out / 'summary.md'}")
    return 0
