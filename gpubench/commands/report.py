"""``gpubench report EXPERIMENT|--all``: reports/<experiment>.md and .html from the stored records."""
from ..errors import InputError

NAME = "report"
HELP = "write reports/<experiment>.md and .html from the stored records"


def add_arguments(p):
    p.add_argument("experiment", nargs="*", help="experiment ids")
    p.add_argument("--all", action="store_true", help="every experiment")
    p.add_argument("--results", metavar="DIR", help="stored records (default: $GPUBENCH_RESULTS, else the "
                   "checkout's results/, else ./results)")
    p.add_argument("--reports", metavar="DIR", help="output folder (default: $GPUBENCH_REPORTS, else the "
                   "checkout's reports/, else ./reports)")
    p.add_argument("--experiments", metavar="DIR", help="experiment files (default: the package's experiments/)")


def run(args):
    from pathlib import Path
    from ..workflow import experiments_loader as loader
    from ..device.gpu import check_writable_dir
    from ..reports.builder import build, reports_dir
    from ..reports.index import write_index
    from ..records.read import results_dir
    if not args.all and not args.experiment:
        raise InputError("name one or more experiments, or give --all")
    if args.experiments and not Path(args.experiments).is_dir():
        raise InputError(f"--experiments {args.experiments!r} is not a folder")
    res = results_dir(args.results)
    if res.exists() and not res.is_dir():
        raise InputError(f"--results {str(res)!r} is a file, not a folder")
    rep = reports_dir(args.reports)
    if rep.exists() and not rep.is_dir():
        raise InputError(f"--reports {str(rep)!r} is a file, not a folder")
    from ..reports.builder import BUILT_LAYOUTS
    names = loader.names(args.experiments) if args.all else args.experiment
    if not names:
        raise InputError(f"no experiment files in {args.experiments or loader.experiments_dir()}")
    # every experiment file is read before the reports folder is made: a typo leaves nothing behind
    exps = [loader.load(name, args.experiments) for name in names]
    for exp in exps:
        if not args.all and exp.not_implemented:
            raise InputError(f"{exp.id} is not implemented yet: {exp.not_implemented}")
        if not args.all and exp.layout not in BUILT_LAYOUTS:
            raise InputError(f"{exp.id}: the report layout {exp.layout!r} is not in `gpubench report` yet "
                             "(reports/index.md links its paper's page)")
    exps = [e for e in exps if e.layout in BUILT_LAYOUTS]
    check_writable_dir(rep, "--reports")
    before = _files(rep)
    print(f"records from {res.resolve()}" + ("" if res.is_dir() else " (no such folder: every case is missing)"))
    for exp in exps:
        md = build(exp, args.results, args.reports)
        print(f"wrote {md} and {md.with_suffix('.html')}")
    if args.all:
        for page in paper_pages(res, rep):
            print(f"wrote {page}")
    idx = write_index(args.reports, args.results, args.experiments)
    print(f"wrote {idx}")
    print(written(rep, before))
    return 0


def _files(folder):
    """{path: (mtime_ns, size)} of every file under ``folder``."""
    out = {}
    for p in folder.rglob("*"):
        try:
            st = p.stat()
        except OSError:
            continue
        if p.is_file():
            out[p] = (st.st_mtime_ns, st.st_size)
    return out


def written(folder, before):
    """One line: every file the command wrote or changed under ``folder`` since ``before``
    (:func:`_files`), by top-level entry (reproduction.md, summary.md, figures/ (12 files), ...)."""
    changed = [p for p, v in _files(folder).items() if before.get(p) != v]
    top = {}
    for p in changed:
        rel = p.relative_to(folder)
        key = rel.parts[0] + ("/" if len(rel.parts) > 1 else "")
        top[key] = top.get(key, 0) + 1
    items = [k + (f" ({n} file{'s' * (n != 1)})" if k.endswith("/") else "") for k, n in sorted(top.items())]
    return f"in {folder.resolve()}: wrote " + (", ".join(items) if items else "nothing new")


def paper_pages(results, reports):
    """The pages of measurements that are not one experiment's cases (paper 001's Figure 6 and
    lb100x rows, paper 003's Figure 3 and batch scaling, paper 004's first runner's records),
    each written where its records are stored; written before the index, which links them."""
    from ..device.gpu import atomic_write
    from ..records.read import document
    from ..problems import fei2014 as lbfgsb
    from ..reports.paper001 import default_folders, render as render_bnb
    from ..reports.tron import render as render_tron
    written = []

    def write(name, text):
        atomic_write(reports / name, text)
        written.append(reports / name)
    folders = default_folders(results)
    if folders:
        write("paper001_bnb.md", render_bnb(folders))
    tron = results / "gpu" / "tron" / "tron_gpu.json"
    if tron.is_file():
        write("kim_exatron.md", render_tron(document(tron)))
    for table, render in (("table1", lbfgsb.report_table1), ("table4", lbfgsb.report_table4)):
        gpu = results / "gpu" / "lbfgsb" / ("fei2014_table1_gpu.json" if table == "table1" else "lbfgsb_gpu.json")
        for variant in ("full", "quick"):
            rec = results / f"fei2014_{table}_{variant}" / "records.json"
            if rec.is_file():
                write(f"fei2014_{table}_{variant}.md", render(document(rec), gpu))
    return written
