"""``python -m gpubench.workflow.convert [RESULTS]``: the papers' earlier runners' files written as
records of their tables, and stored records renamed to today's case ids, once
(:mod:`gpubench.records.convert`; the experiments' entries read from their experiment files).
Running it again changes nothing."""
import sys

from . import experiments_loader
from ..records.convert import convert_papers, rename_records
from ..records.read import results_dir


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    root = results_dir(argv[0] if argv else None)
    papers = convert_papers(root, experiments_loader.load)
    if papers:
        print(f"{len(papers)} record(s) of papers 001, 003 and 004 written in the one format")
    for folder in sorted(d for d in root.iterdir() if d.is_dir()):
        renamed, clashes = rename_records(folder)
        if renamed or clashes:
            print(f"{folder.name}: {len(renamed)} renamed" + (f", {len(clashes)} left (the case is stored twice: "
                  f"{', '.join(clashes)})" if clashes else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
