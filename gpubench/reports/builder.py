"""``gpubench report EXPERIMENT``: paper-style reports built from stored records only.

For each experiment (a table of Zhang, Shan & Cagan (2026), PNAS Nexus 5(4)
pgag103) this writes ``reports/<experiment>.md`` and ``.html`` and figures in
``reports/figures/``, and ``reports/index.md`` links every report.

* Numbers come from two places only: the records that ``gpubench reproduce``
  stored under ``results/<experiment>/``, and the published CSVs
  (``experiments/published/``).  Published and measured values stand side by
  side with their ratio; a missing measurement reads "missing", never a
  published value, and no figure plots a published value as a measurement.
* Iteration and region counts are marked as matching (yes/no) only when the
  record's settings are the paper's (s = 10, p = 4, tol = 1e-4, 10 samples) at
  a published n; otherwise the mark says why there is nothing to compare.
* Every section states its setting (full or quick), the settings each method
  used, and the total evaluations.
* Layout "heuristic" (``gpubench/reports/heuristic.py``): tables of many runs of a
  stochastic method, e.g. Tables 1-3 of Qin et al. 2012.
"""
import json
from pathlib import Path

from .document import MISSING, NOT_PUBLISHED, Doc, _atomic_write
from .stored import (_environment_lines, _missing_cases, _records, _run_notes, _settings_summary, planned_cases,
                     records_folder, reports_dir)

# the module of each layout's report section (its function ``section``)
LAYOUT_MODULES = {"methods": "gpubench.reports.methods", "scaling": "gpubench.reports.scaling",
                  "compare": "gpubench.reports.compare", "heuristic": "gpubench.reports.heuristic",
                  "bnb": "gpubench.reports.fixed", "micro": "gpubench.reports.fixed", "lbfgsb": "gpubench.reports.fixed",
                  "admm": "gpubench.reports.fixed",
                  "certify": "gpubench.reports.certify", "rigorous": "gpubench.reports.rigorous"}
BUILT_LAYOUTS = tuple(LAYOUT_MODULES)
# A table gpubench cannot run links its paper's page of what was measured and what was not.
PAPER_PAGES = {"001": "paper001_bnb.md", "003": "kim_exatron.md"}


def page_of(experiment, reports):
    """The report page of ``experiment`` in ``reports`` (a name), or None when none is built."""
    name = (f"{experiment.id}.md" if experiment.layout in BUILT_LAYOUTS
            else PAPER_PAGES.get(experiment.paper, f"{experiment.id}.md"))
    return name if (reports / name).is_file() else None


def _file_of(experiment):
    p = Path(experiment.path)
    return p.name if experiment.id == p.stem else f"{p.parent.name}/{p.name}"


def _section(layout):
    """The report section of a layout (:data:`LAYOUT_MODULES`)."""
    import importlib
    return importlib.import_module(LAYOUT_MODULES[layout]).section


def build(experiment, results=None, reports=None):
    """Write ``reports/<id>.md`` and ``.html`` (and figures) for ``experiment``; returns the md path."""
    reports = reports_dir(reports)
    figdir = reports / "figures"
    figdir.mkdir(parents=True, exist_ok=True)
    by_variant = _records(experiment, results)
    pub = experiment.published()
    doc = Doc()
    doc.h(1, f"{experiment.id}: {experiment.title}")
    doc.p(f"Source: {experiment.source}. Experiment file: `experiments/{_file_of(experiment)}`. "
          + (f"Published values: `experiments/published/{experiment.published_file}`"
             + (f" (tables {', '.join(experiment.published_tables)})" if experiment.published_tables else "") + "."
             if experiment.published_file else "No published table: nothing below is compared with a paper's figures."))
    if experiment.note:
        doc.p(experiment.note)
    doc.p("Every measured number below comes from the records stored under "
          f"`{records_folder(results)}{experiment.id}/`; a measurement that is not stored reads \"{MISSING}\", and "
          f"\"{NOT_PUBLISHED}\" means the paper has no such value.")
    variants = [x for x in ("quick", "full") if x in by_variant] or ["full"]
    if "full" not in variants:
        variants.append("full")
    for variant in variants:
        recs = by_variant.get(variant, [])
        v = experiment.variant(variant == "quick")
        planned = planned_cases(experiment, variant)
        stored = {r["case"] for r in recs}
        done = sum(c.case_id in stored for c in planned)
        doc.h(2, f"{'Quick' if variant == 'quick' else 'Full'} setting"
              + (" (`gpubench reproduce " + experiment.id + (" --quick`)" if variant == "quick" else "`)")))
        if variant == "quick":
            doc.p("This is the QUICK setting, not the paper's. " + (v.note or ""))
        else:
            doc.p("This is the FULL setting: the paper's settings and run counts." if experiment.published_file
                  else "This is the FULL setting: the experiment's own settings and run counts.")
        doc.p(f"Cases stored: {done} of {len(planned)} planned"
              + (f" (plus {len(recs) - done} stored with other settings)" if len(recs) > done else "") + ".")
        missing = _missing_cases(planned, stored)
        if missing:
            doc.p(f"Not stored ({len(planned) - done} cases, so not shown below): " + "; ".join(missing) + ".")
        notes = _run_notes(results, experiment.id)
        if notes:
            doc.p(f"Notes on the stored runs (`{records_folder(results)}{experiment.id}/NOTES.md`): " + notes)
        settings = _settings_summary(recs)
        if settings:
            doc.p("Settings used (every setting the method reported; where the cases differ, each value seen):")
            doc.items(f"`{k}`: {s}" for k, s in settings.items())
        else:
            doc.p("Settings planned: " + "; ".join(
                f"`{m.key}` ({m.method}): " + ", ".join(f"{k}={val}" for k, val in m.settings.items())
                for m in v.methods))
        env = _environment_lines(recs)
        if env:
            doc.p("Measured on:")
            doc.items(env)
        doc.variant = variant
        doc.planned = planned
        _section(experiment.layout)(doc, experiment, variant, recs, pub, figdir, reports, results=results)
    _verdict_summary(doc, experiment, reports)
    md = reports / f"{experiment.id}.md"
    _atomic_write(md, doc.markdown())
    _atomic_write(reports / f"{experiment.id}.html", doc.html(f"{experiment.id}: {experiment.title}"))
    return md


def _verdict_summary(doc, experiment, reports):
    """Open the report with its verdict counts, list every row that is not a match, and store the
    counts (reports/verdicts/<id>.json) for the reproduction summary."""
    from . import verdict as V
    judged = [(row, v) for variant, row, v in doc.verdicts if variant == "full"]
    blocks = [("p", "**Verdicts** (full setting, each published row judged by its rule; "
                    "`gpubench/reports/verdict.py` states the rules): "
                    + (V.headline(v for _, v in judged) if judged else
                       "no published row is judged in this report") + ".")]
    others = [f"{row}: {v.cell}" for row, v in judged if v.kind != V.MATCHES]
    if others:
        blocks.append(("ul", others))
    doc.blocks[1:1] = blocks
    out = reports / "verdicts" / f"{experiment.id}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = [{"row": row, "verdict": v.kind, "rule": v.rule, "reason": v.reason, "records": list(v.records),
             **({"triangulation": list(v.triangulation)} if v.triangulation else {})} for row, v in judged]
    _atomic_write(out, json.dumps({"experiment": experiment.id, "paper": experiment.paper,
                                   "table": experiment.table, "title": experiment.title,
                                   "counts": V.counts(v for _, v in judged), "rows": rows}, indent=1) + "\n")


__all__ = ["build", "page_of", "BUILT_LAYOUTS", "LAYOUT_MODULES", "PAPER_PAGES"]
