"""The pages over every report: ``reports/reproduction.md`` (the verdict counts per paper and table,
from each report's ``reports/verdicts/<id>.json``) and ``reports/index.md`` (every experiment, its
report, and how many of its cases are stored)."""
import json

from .builder import PAPER_PAGES, page_of
from .document import Doc, _atomic_write
from .stored import records_folder, reports_dir


def write_reproduction(reports=None, experiments_dir=None):
    """reports/reproduction.md: verdict counts per paper and table, from reports/verdicts/*.json;
    a table gpubench cannot run counts its published rows as not implemented yet."""
    from ..workflow import experiments_loader as loader
    from . import verdict as V
    reports = reports_dir(reports)
    lines = ["# Reproduction: a verdict on every published row", "",
             "Counts per paper and table of the rows each report judged (full setting). *matches*: exact "
             "counts, a success rate inside the binomial 95% interval, or a statistic within the stated "
             "tolerance; *differs*: with the explanation found, or \"not explained\"; *not informative*: the "
             "rule held but could not have failed on the row (both figures under an absolute tolerance), so it "
             "is no match; *not reproduced*: not measured at the paper's settings (or its records not valid: "
             "run at other settings, capped, stopped at a limit), with the reason; *not implemented yet*: the "
             "capability is missing. Each row names its records in `verdicts/<id>.json`. Rules: "
             "`gpubench/reports/verdict.py`, docs/verdicts.md. Built by `gpubench report --all` from the stored records only.", ""]
    head = "| paper | table | experiment | rows | " + " | ".join(V.KINDS) + " |"
    lines += [head, "|" + "---|" * (4 + len(V.KINDS))]
    totals = {k: 0 for k in V.KINDS}
    for e in sorted(loader.load_all(experiments_dir), key=lambda e: (e.paper, e.id)):
        if e.table == "demo":
            continue  # the demo's rows are rows of the tables listed here
        if e.not_implemented:
            counts = {V.NOT_IMPLEMENTED: _published_row_count(e)}
        else:
            path = reports / "verdicts" / f"{e.id}.json"
            if not path.is_file():
                continue
            counts = json.loads(path.read_text())["counts"]
            if not counts:
                continue
        rows = sum(v for v in counts.values() if isinstance(v, int))
        for k, v in counts.items():
            if isinstance(v, int):
                totals[k] += v
        link = f"[{e.id}]({e.id}.md)" if (reports / f"{e.id}.md").is_file() else e.id
        lines.append(f"| {e.paper} | {e.table or '-'} | {link} | {rows or '-'} | "
                     + " | ".join(str(counts.get(k, 0)) for k in V.KINDS) + " |")
    lines += ["", "Judged rows in all: " + ", ".join(f"{v} {k}" for k, v in totals.items()) + ". A table "
              "gpubench cannot run counts every row of its published CSV as not implemented yet; the demo "
              "(functions12) is left out, its rows being rows of paper 000's tables above."]
    _atomic_write(reports / "reproduction.md", "\n".join(lines) + "\n")
    return reports / "reproduction.md"


def _published_row_count(experiment):
    """How many rows the published CSV holds for this experiment's table (at least 1)."""
    pub = experiment.published()
    if pub is None:
        return 1
    if "table" not in pub:
        return max(1, len(pub))        # a CSV of this one table
    tables = set(experiment.published_tables) or {experiment.table}
    return max(1, int(pub["table"].astype(str).isin(tables).sum()))


def write_index(reports=None, results=None, experiments_dir=None):
    """``reports/index.md`` (and .html): every experiment, its report, and what is stored."""
    import pandas as pd
    from ..workflow import experiments_loader as loader
    from ..records.read import results_dir, stored_cases
    from ..workflow.runner import plan
    reports = reports_dir(reports)
    reports.mkdir(parents=True, exist_ok=True)
    rows = []
    for e in sorted(loader.load_all(experiments_dir), key=lambda e: (e.paper, e.id)):
        stored = stored_cases(results_dir(results) / e.id)
        counts = {}
        for quick in (False, True):
            cases = plan(e, quick)
            counts[quick] = f"{sum(c.case_id in stored for c in cases)}/{len(cases)}"
        page = page_of(e, reports)
        html = page and page[:-3] + ".html"
        title = e.title + (f" (not implemented yet: {e.not_implemented})" if e.not_implemented else "")
        rows.append({"Paper": e.paper or "-", "Experiment": f"[{e.id}]({page})" if page else e.id,
                     "HTML": f"[html]({html})" if html and (reports / html).is_file() else "-" if page else "not built",
                     "Table": e.table, "Title": title,
                     "Quick cases stored": "-" if e.not_implemented else counts[True],
                     "Full cases stored": "-" if e.not_implemented else counts[False]})
    doc = Doc()
    doc.h(1, "gpubench reports")
    doc.p("Reproductions of the tables of the five papers (000: Zhang, Shan & Cagan (2026), PNAS Nexus "
          "5(4), pgag103; 001: Zhang, Kerkenhoff et al., GPU-parallel interval arithmetic; 002: Qin et al. "
          "(2012), GPU differential evolution; 003: Kim et al., ExaTron; 004: Fei et al. (2014), parallel "
          "L-BFGS-B), one row per table (`gpubench reproduce --list`). Each report is built from the records stored "
          f"under `{records_folder(results)}` only, next to the published values (`experiments/published/`); a "
          "measurement that is not stored is marked missing. `make demo` runs the quick setting (into .demo/); "
          "`gpubench reproduce EXPERIMENT` the full one; `gpubench report --all` rebuilds every report.")
    repro = write_reproduction(reports, experiments_dir)
    doc.p(f"Every published row judged: [the reproduction summary]({repro.name}) gives the verdict counts "
          "(matches, differs, not reproduced, not implemented yet) per paper and table.")
    if (reports / "summary.md").is_file():
        doc.p("Which method to use: [the one-page summary](summary.md) ([html](summary.html)): for each "
              "function and n of the comparison, the certified minimum and its source, the fastest method "
              "to it, and every method's success rate and median time.")
    pages = [f"[{name}]({name}) (paper {paper})" for paper, name in sorted(PAPER_PAGES.items())
             if (reports / name).is_file()]
    if pages:  # linked here too: every table of paper 003 has a report of its own now
        doc.p("Pages of the measurements that are no experiment's cases: " + ", ".join(pages) + ".")
    for page in sorted(reports.glob("cocopp/*/index.html")):  # python -m gpubench.reports.interop.coco (docs/interop.md)
        doc.p(f"cocopp (COCO's post-processor) on `coco/{page.parent.name}.zip`: "
              f"[{page.relative_to(reports).as_posix()}]({page.relative_to(reports).as_posix()}).")
    doc.table(pd.DataFrame(rows))
    path = reports / "index.md"
    _atomic_write(path, doc.markdown())
    _atomic_write(reports / "index.html", doc.html("gpubench reports"))
    return path


__all__ = ["write_index", "write_reproduction"]
