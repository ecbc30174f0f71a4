"""``gpubench reproduce EXPERIMENT``: run an experiment's cases and store one record each."""
from ..errors import InputError
from ._args import positive_integer, positive_number

NAME = "reproduce"
HELP = "run an experiment (a published table) and store its records"


def shard_of(text):
    """``K/N`` with 1 <= K <= N, for --shard."""
    import argparse
    k, sep, n = text.partition("/")
    try:
        k, n = int(k), int(n)
    except ValueError:
        k = n = 0
    if not sep or not 1 <= k <= n:
        raise argparse.ArgumentTypeError(f"{text!r} is not K/N with 1 <= K <= N (e.g. 2/8)")
    return k, n


def add_arguments(p):
    p.add_argument("experiment", nargs="?", help="an experiment id (see --list) or a .toml file")
    p.add_argument("--list", action="store_true", help="list the experiments (or the one named) and how many "
                   "cases are stored")
    p.add_argument("--quick", action="store_true", help="the quick variant: a CPU in minutes")
    p.add_argument("--backend", choices=["auto", "cpu", "cuda"], default=None,
                   help="override the backend setting of every method entry that has one")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--workers", type=positive_integer, metavar="N",
                   help="run on a new Dask LocalCluster of N workers (loopback only, no dashboard)")
    g.add_argument("--scheduler", metavar="ADDRESS", help="run on an existing Dask cluster (tcp://host:port)")
    p.add_argument("--shard", metavar="K/N", type=shard_of,
                   help="run only the K-th of N shares of the experiment's functions (1 <= K <= N): N processes "
                        "side by side, e.g. on one GPU, run every case once")
    p.add_argument("--entries", metavar="KEY[,KEY...]", type=lambda t: tuple(k for k in t.split(",") if k),
                   help="run only these method entries of the experiment (e.g. a table's GPU rows on the GPU host, "
                        "its CPU rows elsewhere)")
    p.add_argument("--results", metavar="DIR", help="where records go (default: $GPUBENCH_RESULTS, else the "
                   "checkout's results/, else ./results)")
    p.add_argument("--experiments", metavar="DIR", help="experiment files (default: the package's experiments/)")
    p.add_argument("--checkpoint-every", metavar="SECONDS", type=positive_number, default=30.0,
                   help="a resumable case (paper 004's Table 1, a subdomain-bnb search) saves its checkpoint, "
                        "results/EXPERIMENT/CASE.checkpoint.npz, this often and at Ctrl-C or SIGTERM; the "
                        "same command goes on from it (default 30)")


def _list(args):
    from ..workflow import experiments_loader as loader
    from ..records.read import results_dir, stored_cases
    from ..workflow.runner import plan
    rows = []
    root = results_dir(args.results)
    if root.exists() and not root.is_dir():
        raise InputError(f"--results {str(root)!r} is a file, not a folder")
    # `reproduce tableS2 --list`: that experiment's line only
    chosen = [loader.load(args.experiment, args.experiments)] if args.experiment else loader.load_all(args.experiments)
    for e in chosen:
        if e.not_implemented:
            rows.append((e.paper or "-", e.id, e.table or "-", "-", "-", "-", f"{e.title} [not implemented yet: {e.not_implemented}]"))
            continue
        stored = stored_cases(root / e.id)
        counts = []
        for quick in (False, True):
            cases = plan(e, quick)
            done = sum(c.case_id in stored for c in cases)
            counts.append(f"{done}/{len(cases)}")
        rows.append((e.paper or "-", e.id, e.table or "-", e.layout, counts[0], counts[1], e.title))
    if not rows:
        raise InputError(f"no experiment files in {args.experiments or loader.experiments_dir()}")
    rows.sort(key=lambda r: (r[0], r[1]))
    head = ("paper", "experiment", "table", "layout", "full", "quick", "title")
    widths = [max(len(str(r[j])) for r in rows + [head]) for j in range(6)]
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)) + "  " + head[6])
    for r in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)) + "  " + r[6])
    print(f"(full/quick: cases stored in {root.resolve()} / cases planned; paper 'all': gpubench's own comparison)")
    return 0


def run(args):
    from ..workflow import experiments_loader as loader
    from ..workflow.runner import sweep
    if args.scheduler is not None and "://" not in args.scheduler and ":" not in args.scheduler:
        raise InputError(f"--scheduler {args.scheduler!r} is not an address (tcp://HOST:PORT)")
    if args.list:
        return _list(args)
    if not args.experiment:
        raise InputError("name an experiment (`gpubench reproduce --list` lists them)")
    from ..workflow.resources import check_workers
    check_workers(args.workers)
    exp = loader.load(args.experiment, args.experiments)
    if exp.not_implemented:
        raise InputError(f"{exp.id} (paper {exp.paper}, Table {exp.table}) is not implemented yet: {exp.not_implemented}")
    s = sweep(exp, quick=args.quick, backend=args.backend, results=args.results,
              workers=args.workers, scheduler=args.scheduler, shard=args.shard, entries=args.entries,
              checkpoint_every=args.checkpoint_every)
    print(f"{s.experiment} ({s.variant}): {s.ran} case(s) run, {s.skipped} already stored, "
          f"{s.total} in all, in {s.seconds:.1f} s; records in {s.folder}")
    return 0
