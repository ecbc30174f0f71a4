"""``gpubench demo`` (``make demo``): the quick reproduction, its records and reports."""
from ._args import positive_integer

NAME = "demo"
HELP = "the quick reproduction: run, store and report (make demo)"


def add_arguments(p):
    p.add_argument("--backend", choices=["auto", "cpu", "cuda"], default="auto",
                   help="auto: the GPU rows when a GPU is found, else the CPU quick rows")
    p.add_argument("--workers", type=positive_integer, metavar="N",
                   help="run the cases on a Dask LocalCluster of N workers")
    p.add_argument("--serial", action="store_true", help="one sweep after the other in this process")
    p.add_argument("--results", metavar="DIR", help="where its records go (default: .demo/results of the "
                   "checkout, or $GPUBENCH_DEMO/results; never the tracked results/)")
    p.add_argument("--reports", metavar="DIR", help="where its reports go (default: .demo/reports, or "
                   "$GPUBENCH_DEMO/reports; never the tracked reports/)")


def run(args):
    from ..reports import demo
    from ..device.gpu import check_writable_dir
    from ..workflow.resources import check_workers
    check_workers(args.workers)
    for opt in ("results", "reports"):
        if getattr(args, opt):
            check_writable_dir(getattr(args, opt), f"--{opt}")
    gpu = {"auto": None, "cpu": False, "cuda": True}[args.backend]
    demo.run(args.results, args.reports, gpu=gpu, workers=args.workers, parallel=not args.serial)
    return 0
