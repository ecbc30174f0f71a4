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
import html
import json
import math
import re
import statistics
from pathlib import Path

from ..device.gpu import atomic_write

RESOURCES = ("laptop", "workstation", "local_server", "cloud_server")
RESOURCE_TITLES = {"laptop": "Laptop", "workstation": "Workstation", "local_server": "Local server",
                   "cloud_server": "Cloud server"}
PAPER_SOLVER_SETTINGS = {"split_dims": 10, "parts": 4, "tol": 1e-4, "samples": 10}
MISSING = "missing"
NOT_PUBLISHED = "—"


def records_folder(results=None):
    """The records' folder as a report names it: ``results/`` for the checkout's own, else the
    folder's real path (a report built from another folder said "under results/")."""
    from ..paths import project_root
    from ..records.read import results_dir
    p = results_dir(results).resolve()
    root = project_root()
    if root is not None and p == (root / "results").resolve():
        return "results/"
    return p.as_posix().rstrip("/") + "/"


def reports_dir(path=None):
    """``path``, $GPUBENCH_REPORTS, the checkout's reports/, or ./reports (:mod:`gpubench.paths`)."""
    from ..paths import reports_dir as where
    return where(path)


# ---------------------------------------------------------------- formatting
def _num(v, digits=4):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int) or (isinstance(v, float) and v.is_integer() and abs(v) < 1e15 and abs(v) >= 1):
        return f"{int(v):,}"
    if isinstance(v, float):
        if v == 0:
            return "0"
        if abs(v) >= 1e5 or abs(v) < 1e-3:
            return f"{v:.{digits - 1}e}"
        return f"{v:.{digits}g}"
    return str(v)


def _bound(v):
    """GLB/GUB with 12 significant digits: enough to show a narrow enclosure's width."""
    return "" if v is None else f"{v:.12g}"


def _seconds(v):
    if v is None:
        return MISSING
    if v >= 100:
        return f"{v:,.0f}"
    return f"{v:.3g}"


def _ratio(measured, published):
    if measured is None or published is None or not published or (isinstance(published, float) and math.isnan(published)):
        return NOT_PUBLISHED if measured is not None else MISSING
    return f"{measured / published:.3g}"


# ---------------------------------------------------------------- records
def _records(experiment, results):
    from ..records.read import load_records, results_dir
    recs = [r for r in load_records(results_dir(results) / experiment.id) if r.get("experiment") == experiment.id]
    by_variant = {}
    for r in recs:
        by_variant.setdefault(r.get("variant", "full"), []).append(r)
    return by_variant


def _settings_key(r):
    return json.dumps(r.get("settings", {}), sort_keys=True)


def _group(records):
    """{(key, function, dim): [records of each distinct setting, repetitions merged]}."""
    groups = {}
    for r in records:
        groups.setdefault((r["key"], r["function"], r["dim"], _settings_key(r)), []).append(r)
    merged = {}
    for (key, function, dim, _), rs in groups.items():
        rs = sorted(rs, key=lambda r: r["repetition"])
        first = dict(rs[0])
        m = dict(first["measured"])
        m["seconds"] = statistics.median(r["measured"]["seconds"] for r in rs)
        m["repetitions"] = len(rs)
        first["measured"] = m
        first["success"] = all(r["success"] for r in rs)
        merged.setdefault((key, function, dim), []).append(first)
    return merged


def _rigorous(method, record=None):
    """Whether ``method`` declares itself rigorous; for a method no longer registered, whether
    its stored record carries an enclosure."""
    from .. import methods
    declared = methods.is_rigorous(method)
    if declared is not None:
        return declared
    m = (record or {}).get("measured") or {}
    return m.get("glb") is not None and m.get("gub") is not None


def _paper_settings(record):
    o = record.get("options", {})
    if not _rigorous(record.get("method"), record):
        return False
    # a limit that did not bind (the search converged before it) changed nothing
    stopped_early = not (record.get("measured") or {}).get("converged")
    if (o.get("max_iterations") is not None or o.get("time_limit") is not None) and stopped_early:
        return False
    if o.get("spacing", "inside") != "inside":  # the paper's samples divide the diagonal into 11 pieces
        return False
    return all(o.get(k) == v for k, v in PAPER_SOLVER_SETTINGS.items())


def _settings_summary(records):
    """{method key: text}: each setting the method's records share once, as ``k=v``, and each
    that differs between cases (seed, budgets by n) as ``k in {v1, v2}``, in the records' order."""
    skip = {"paper_label", "paper_runs"}
    opts = [(r["key"], {**(r.get("settings") or {}), **(r.get("options") or {})}) for r in records]
    names = {}
    for key, o in opts:
        for k in o:
            if k not in skip:
                names.setdefault(key, {}).setdefault(k, None)
    values = {}
    for key, o in opts:
        for k in names.get(key, ()):
            v = str(o[k]) if k in o else "(not reported)"  # an older record without the setting
            seen = values.setdefault(key, {}).setdefault(k, [])
            if v not in seen:
                seen.append(v)
    def text(k, vs):
        if len(vs) == 1:
            return f"{k}={vs[0]}"
        if len(vs) > 8:  # a per-run figure a method reports among its options (compile_s)
            return f"{k}: {len(vs)} different values"
        return f"{k} in {{{' | '.join(sorted(vs, key=_natural))}}}"  # values may hold commas
    return {key: ", ".join(text(k, vs) for k, vs in kv.items()) for key, kv in values.items()}


def _natural(text):
    try:
        return (0, float(text), "")
    except ValueError:
        return (1, 0.0, text)


def _missing_cases(planned, stored):
    """The planned cases without a record, as "key function n=N (R repetitions)" in plan order."""
    groups = {}
    for c in planned:
        if c.case_id not in stored:
            k = (c.key, c.function, c.dim)
            groups[k] = groups.get(k, 0) + 1
    return [f"{key} {f} n={n}" + (f" ({k} repetitions)" if k > 1 else "") for (key, f, n), k in groups.items()]


def _run_notes(results, experiment_id):
    """The text of ``results/<experiment>/NOTES.md`` (why cases are missing, what a run met), or ""."""
    from ..records.read import results_dir
    path = results_dir(results) / experiment_id / "NOTES.md"
    try:
        return " ".join(path.read_text().split())
    except OSError:
        return ""


def _environment_lines(records):
    seen = {}
    for r in records:
        e = r.get("environment", {})
        gpu = e.get("gpu") or {}
        driver = (str(gpu.get("driver") or "").splitlines() or ["?"])[0]  # older records: one line per GPU
        gpu_text = f"{gpu.get('name')} (driver {driver})" if gpu else "none"
        line = (f"CPU {e.get('cpu')} ({e.get('cpu_count')} cores), GPU {gpu_text}, "
                f"Python {e.get('versions', {}).get('python')}, numba {e.get('versions', {}).get('numba')}, "
                f"SciPy {e.get('versions', {}).get('scipy')}, commit {e.get('commit')}")
        d = e.get("date", "")
        lo, hi = seen.get(line, (d, d))
        seen[line] = (min(lo, d), max(hi, d))
    return [f"{line}; measured {lo} to {hi}" if lo != hi else f"{line}; measured {lo}"
            for line, (lo, hi) in seen.items()]


# ---------------------------------------------------------------- documents
class Doc:
    """A report as blocks, written out both as Markdown and as HTML."""

    def __init__(self):
        self.blocks = []
        self.verdicts = []      # (variant, row, Verdict) of every published row judged
        self.variant = "full"
        self.planned = []       # the experiment's cases of this variant (runner.Case)

    def verdict(self, row, v, records=(), converged=True):
        """Record the verdict of a published row (full setting only: a quick variant is not the paper's);
        returns its table cell.  ``records``: the stored records it rests on; a match or a difference
        on a record not run at the row's planned settings, or not ended as the paper's runs did
        (``converged``: they converged), is not reproduced instead (gpubench.verdict.validated): one
        gate for every report."""
        from . import verdict as V
        if self.variant != "full":
            return "— (quick setting: not judged)"
        v = V.validated(v, records, self.planned_settings, converged)
        self.verdicts.append((self.variant, row, v))
        return v.cell

    def planned_settings(self, record):
        """The settings of the planned case ``record`` stands for: its own case, else the case of the
        same entry, function and n whose settings differ least (None when the plan has no such case)."""
        same = [c for c in self.planned if c.case_id == record.get("case")]
        if not same:
            s = record.get("settings") or {}
            same = sorted((c for c in self.planned if (c.key, c.function, c.dim) ==
                           (record.get("key"), record.get("function"), record.get("dim"))),
                          key=lambda c: sum(s.get(k) != v for k, v in c.settings.items()))
        return dict(same[0].settings) if same else None

    def h(self, level, text):
        self.blocks.append(("h", level, text))

    def p(self, text):
        self.blocks.append(("p", text))

    def items(self, lines):
        self.blocks.append(("ul", list(lines)))

    def table(self, df):
        self.blocks.append(("table", df))

    def img(self, path, alt):
        self.blocks.append(("img", path, alt))

    def markdown(self):
        out = []
        for b in self.blocks:
            if b[0] == "h":
                out.append("#" * b[1] + " " + b[2])
            elif b[0] == "p":
                out.append(b[1])
            elif b[0] == "ul":
                out.append("\n".join(f"- {x}" for x in b[1]))
            elif b[0] == "table":
                out.append(_md_table(b[1]))
            elif b[0] == "img":
                out.append(f"![{b[2]}]({b[1]})")
        return "\n\n".join(out) + "\n"

    def html(self, title):
        out = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
               "<style>body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em}"
               "table{border-collapse:collapse;margin:1em 0;font-size:90%}"
               "td,th{border:1px solid #bbb;padding:3px 6px;text-align:right}"
               "th{background:#eee}td:first-child{text-align:left}img{max-width:100%}"
               "code{background:#f4f4f4}</style></head><body>"]
        for b in self.blocks:
            if b[0] == "h":
                out.append(f"<h{b[1]}>{_inline(b[2])}</h{b[1]}>")
            elif b[0] == "p":
                out.append(f"<p>{_inline(b[1])}</p>")
            elif b[0] == "ul":
                out.append("<ul>" + "".join(f"<li>{_inline(x)}</li>" for x in b[1]) + "</ul>")
            elif b[0] == "table":
                out.append(_html_table(b[1]))
            elif b[0] == "img":
                out.append(f"<p><img src='{html.escape(b[1])}' alt='{html.escape(b[2])}'></p>")
        out.append("</body></html>")
        return "\n".join(out) + "\n"


def _md_cell(v):
    return str(v).replace("|", "\\|").replace("\n", " ")


def _md_table(df):
    cols = [_md_cell(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(_md_cell(v) for v in row) + " |")
    return "\n".join(lines)


def _href(target):
    """A link of the HTML twin: a link to a sibling report's .md goes to its .html (written beside it)."""
    if "/" not in target and not target.startswith("#"):
        target = re.sub(r"\.md(#|$)", r".html\1", target)
    return html.escape(target, quote=True)


def _inline(text):
    """Markdown's inline marks as HTML: code, bold, and links (to the .html twin of a .md)."""
    t = html.escape(str(text), quote=False)
    t = re.sub(r"`([^`]+)`", r"<code>\1</code>", t)
    t = re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", t)
    t = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", lambda m: f"<a href='{_href(m.group(2))}'>{m.group(1)}</a>", t)
    return t


def _html_table(df):
    """The table with each cell's Markdown (links, code) rendered, as in the .md."""
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in df.columns)
    rows = "".join("<tr>" + "".join(f"<td>{_inline(v)}</td>" for v in row) + "</tr>"
                   for row in df.itertuples(index=False))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


# ---------------------------------------------------------------- figures
def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def fit_exponent(ns, ts):
    """Slope of log t against log n (least squares), or None with fewer than two distinct n."""
    import numpy as np
    pts = [(n, t) for n, t in zip(ns, ts) if n and t and t > 0]
    if len({n for n, _ in pts}) < 2:
        return None
    x = np.log([n for n, _ in pts])
    y = np.log([t for _, t in pts])
    return float(np.polyfit(x, y, 1)[0])


def _adjust(fig, nrows, ncols, right_axis=False):
    """Fixed margins in inches: tight_layout took seconds per figure on log axes."""
    w, h = fig.get_size_inches()
    gap_w = 1.4 if right_axis else 0.75
    fig.subplots_adjust(left=0.75 / w, right=1 - (0.65 if right_axis else 0.15) / w,
                        bottom=0.55 / h, top=1 - 0.95 / h,
                        wspace=gap_w * ncols / (w - gap_w * ncols) if ncols > 1 else 0.2,
                        hspace=0.75 * nrows / (h - 0.75 * nrows) if nrows > 1 else 0.2)


def _grid(count, ncols=3):
    ncols = min(ncols, count)
    nrows = (count + ncols - 1) // ncols
    return nrows, ncols


def _time_figure(path, functions, measured, published, title):
    """Time against n, log-log, per function: measured (filled) and published (hollow) series."""
    plt = _plt()
    nrows, ncols = _grid(len(functions))
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.4 * ncols + 0.4, 3.3 * nrows + 0.6), squeeze=False)
    exps = {}
    for k, f in enumerate(functions):
        ax = axes[k // ncols][k % ncols]
        pts = sorted(measured.get(f, []))
        if pts:
            ns, ts = zip(*pts)
            e = fit_exponent(ns, ts)
            exps[(f, "measured")] = e
            ax.plot(ns, ts, "o-", color="k", label="measured" + (f" (slope {e:.2f})" if e is not None else ""))
        else:
            ax.text(0.5, 0.5, "measured: missing", transform=ax.transAxes, ha="center", va="center",
                    color="k", weight="bold")
        for j, res in enumerate(RESOURCES):
            pp = sorted(published.get((f, res), []))
            if not pp:
                continue
            ns, ts = zip(*pp)
            e = fit_exponent(ns, ts)
            exps[(f, res)] = e
            ax.plot(ns, ts, "s--", mfc="none", color=f"C{j}", alpha=0.8,
                    label=f"published {RESOURCE_TITLES[res]}" + (f" (slope {e:.2f})" if e is not None else ""))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.minorticks_off()  # log minor ticks made each figure 3 times slower to draw
        ax.set_title(f, fontsize=10)
        ax.set_xlabel("n")
        ax.set_ylabel("time (s)")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    for k in range(len(functions), nrows * ncols):
        axes[k // ncols][k % ncols].axis("off")
    fig.suptitle(title, fontsize=11)
    _adjust(fig, nrows, ncols)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return exps


def _history_figure(path, records, title):
    """GLB and GUB (as distances to f*, log scale) and |L| (right axis) against iteration, per solve."""
    plt = _plt()
    floor = 1e-16
    nrows, ncols = _grid(len(records))
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.6 * ncols + 0.6, 3.2 * nrows + 0.6), squeeze=False)
    for k, r in enumerate(records):
        ax = axes[k // ncols][k % ncols]
        h = r.get("history") or {}
        it = h.get("iteration") or list(range(1, len(h.get("glb", [])) + 1))
        fstar = r["fstar"]

        def dist(values, sign):
            return [max(sign * (v - fstar), floor) if v is not None and math.isfinite(v) else float("nan")
                    for v in values]
        ax.step(it, dist(h.get("gub", []), 1), where="post", color="C1", label="GUB − f*")
        ax.step(it, dist(h.get("glb", []), -1), where="post", color="C0", label="f* − GLB")
        ax.set_yscale("log")
        ax.minorticks_off()
        ax.set_ylim(bottom=floor / 3)
        ax.set_xlabel("iteration")
        ax.set_ylabel("distance to f*")
        ax.set_title(f"{r['function']}, n = {r['dim']}: [{r['measured']['glb']:.3g}, {r['measured']['gub']:.3g}]",
                     fontsize=9)
        ax2 = ax.twinx()
        ax2.step(it, h.get("list_size", []), where="post", color="C2", lw=0.8, alpha=0.8, label="|L|")
        ax2.set_yscale("log")
        ax2.minorticks_off()
        ax2.set_ylabel("|L|", color="C2")
        lines = ax.get_legend_handles_labels()
        lines2 = ax2.get_legend_handles_labels()
        ax.legend(lines[0] + lines2[0], lines[1] + lines2[1], fontsize=7, loc="upper right")
    for k in range(len(records), nrows * ncols):
        axes[k // ncols][k % ncols].axis("off")
    fig.suptitle(title + f"\n(distances below {floor:g} drawn at {floor:g})", fontsize=9)
    _adjust(fig, nrows, ncols, right_axis=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)


def _methods_figure(path, rows, enclosure, published, title):
    """Each method's best value (bars; measured only), published values (x), the rigorous enclosure."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(rows) + 1.8))
    ys = list(range(len(rows)))
    for y, (name, value, pub) in zip(ys, rows):
        if value is None:
            ax.text(0.02, y, "missing", va="center", color="C3", transform=ax.get_yaxis_transform())
        else:
            ax.barh(y, value, color="C0", height=0.6, label="measured best f" if y == 0 or not ax.patches else None)
        if pub is not None:
            ax.plot([pub], [y], "x", color="k", ms=8)
    ax.plot([], [], "x", color="k", label=f"published ({published})")
    ax.plot([], [], "s", color="C0", label="measured best f")
    if enclosure is not None:
        lo, hi = enclosure
        ax.axvspan(min(lo, 0), max(hi, 0), color="C2", alpha=0.4)
        ax.axvline(hi, color="C2", lw=1.5, label=f"rigorous enclosure [{lo:.3g}, {hi:.3g}]")
    else:
        ax.plot([], [], " ", label="rigorous enclosure: missing")
    ax.axvline(0, color="k", lw=0.6, ls=":")
    ax.set_yticks(ys, [r[0] for r in rows])
    ax.invert_yaxis()
    ax.set_xlabel("best function value found (f* = 0)")
    handles, labels = ax.get_legend_handles_labels()
    uniq = dict(zip(labels, handles))
    ax.legend(uniq.values(), uniq.keys(), fontsize=8, loc="lower right")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


# ---------------------------------------------------------------- sections
def _planned(experiment, variant):
    from ..workflow.runner import plan
    return plan(experiment, quick=(variant == "quick"))


def _scaling_section(doc, experiment, variant, records, pub, figdir, reports, results=None):
    import pandas as pd
    v = experiment.variant(variant == "quick")
    groups = _group(records)
    keys = {(c.function, c.dim) for c in _planned(experiment, variant)}
    keys |= {(f, n) for (_, f, n) in groups}
    order = {f: i for i, f in enumerate(v.functions)}
    keys = sorted(keys, key=lambda k: (order.get(k[0], 99), k[1]))
    method_keys = [m.key for m in v.methods]
    # the first entry is the paper's (judged, plotted); any other (the same search run another
    # way, e.g. the device loop) is shown in columns of its own beside it
    primary, extras = method_keys[0], method_keys[1:]
    resources = [r for r in RESOURCES if pub is not None and (pub["resource"] == r).any()]

    def published_row(f, n):
        if pub is None:
            return None
        rows = pub[(pub["function"] == f) & (pub["dimension"] == n)]
        return rows if len(rows) else None

    rows_a, rows_b = [], []
    measured_times, published_times, device_times = {}, {}, {}
    total_fev = total_gev = 0
    history_records = {}
    for f, n in keys:
        prow = published_row(f, n)
        recs = groups.get((primary, f, n), []) or [None]
        beside = {k: (groups.get((k, f, n)) or [None])[0] for k in extras}
        for r in recs:
            m = r["measured"] if r else None
            p_it = int(prow["iterations"].iloc[0]) if prow is not None else None
            p_rg = int(prow["output_regions"].iloc[0]) if prow is not None else None

            def mark(pv, mv):
                if r is None:
                    return MISSING
                if pv is None:
                    return "— (no published row)"
                if not _paper_settings(r):
                    return "n/a (settings differ)"
                return "yes" if pv == mv else "no"

            verdict_cell = _scaling_verdict(doc, experiment, f, n, r, p_it, p_rg)
            rows_a.append({
                "Function": f, "n": n, "Verdict": verdict_cell,
                "Iterations, published": _num(p_it) if p_it is not None else NOT_PUBLISHED,
                "Iterations, measured": _num(m["iterations"]) if m else MISSING,
                "Iterations match": mark(p_it, m["iterations"] if m else None),
                "Output regions, published": _num(p_rg) if p_rg is not None else NOT_PUBLISHED,
                "Output regions, measured": _num(m["regions"]) if m else MISSING,
                "Regions match": mark(p_rg, m["regions"] if m else None),
                **{col: val for k, e in beside.items() for col, val in _beside_counts(k, e, m, primary)},
                "GLB": _bound(m["glb"]) if m else MISSING,
                "GUB": _bound(m["gub"]) if m else MISSING,
                "f*": _num(r["fstar"], 6) if r else "",
                "f* enclosed": ("yes" if r["success"] else "no") if r else MISSING,
                "Evaluations": _num(m["evaluations"]) if m else MISSING,
                "Backend": m["backend"] if m else MISSING,
            })
            row_b = {"Function": f, "n": n}
            pub_secs = {}
            for res in resources:
                cell = NOT_PUBLISHED
                if prow is not None:
                    pr = prow[prow["resource"] == res]
                    if len(pr):
                        s = pr["seconds"].iloc[0]
                        if isinstance(s, float) and math.isnan(s):
                            cell = pr["raw"].iloc[0] or "NA"
                        else:
                            cell = _num(float(s))
                            pub_secs[res] = float(s)
                row_b[f"{RESOURCE_TITLES[res]} (published)"] = cell
            msec = m["seconds"] if m else None
            row_b["Measured"] = _seconds(msec)
            row_b["Measured on"] = _device_of(r) if r else MISSING
            for k, e in beside.items():
                esec = e["measured"]["seconds"] if e else None
                row_b[f"Measured, {k}"] = _seconds(esec)
                row_b[f"Measured on, {k}"] = _device_of(e) if e else MISSING
                row_b[f"Measured / {k}"] = (_ratio(msec, esec) if msec is not None and esec is not None
                                                      else MISSING)
            for res in resources:
                row_b[f"Measured / {RESOURCE_TITLES[res]}"] = (
                    _ratio(msec, pub_secs.get(res)) if res in pub_secs else (MISSING if msec is None else NOT_PUBLISHED))
            rows_b.append(row_b)
            if m:
                measured_times.setdefault(f, []).append((n, msec))
                device_times.setdefault((f, _device_of(r)), []).append((n, msec))
                total_fev += m["evaluations"] or 0
                total_gev += m["gradient_evaluations"] or 0
                if _rigorous(r["method"], r) and (f not in history_records or n > history_records[f]["dim"]):
                    history_records[f] = r
    if pub is not None:
        for f in v.functions:
            for res in resources:
                sub = pub[(pub["function"] == f) & (pub["resource"] == res)].dropna(subset=["seconds"])
                sub = sub.drop_duplicates(subset=["dimension"])
                if len(sub):
                    published_times[(f, res)] = list(zip(sub["dimension"].astype(int), sub["seconds"].astype(float)))
    doc.h(3, "Iterations, output regions and enclosures")
    for k in extras:
        doc.p(f"Columns ending in `{k}`: the experiment's entry `{k}` (its settings are listed above), "
              f"the same search run another way; its counts should equal those of `{primary}`, the "
              f"paper's entry, which alone is judged and plotted. In the time table, "
              f"\"Measured / {k}\" above 1 means `{k}` took less time (two runs, perhaps at other commits: docs/solver-scaling.md compares the loops in one process).")
    doc.table(pd.DataFrame(rows_a))
    doc.h(3, "Computation time (seconds)")
    doc.p("Published: the paper's four machines (Table S1). Measured: the median over repetitions of "
          "the solver's own clock, on the machine named below. A ratio above 1 means the measurement "
          "took longer.")
    doc.table(pd.DataFrame(rows_b))
    doc.p(f"Total evaluations in this setting: {_num(total_fev)} evaluations "
          f"(for the rigorous solver: interval evaluations, samples included) and "
          f"{_num(total_gev)} interval-gradient evaluations.")
    # figures: none at all in a section without measurements (no published-only figure)
    doc.h(3, "Time against n")
    if measured_times:
        rel = f"figures/{experiment.id}-{variant}-time.png"
        exps = _time_figure(reports / rel, list(v.functions), measured_times, published_times,
                            f"{experiment.id} ({variant}): computation time against n")
        doc.img(rel, f"time against n, {variant}")
    else:
        exps = {f: fit_exponent(*zip(*pts)) for f, pts in published_times.items()}
        doc.p(f"Figure {MISSING}: no measurement of this setting is stored.")
    erows = []
    devices = sorted({d for (_, d) in device_times})
    for f in v.functions:
        row = {"Function": f, "Measured": (_num(exps.get((f, "measured")), 3)
                                           if exps.get((f, "measured")) is not None
                                           else (MISSING if f not in measured_times else "one n only"))}
        if len(devices) > 1:
            # a table measured on several machines: a fit across them would mix their speeds
            row["Measured"] = "mixed devices: see per device"
            for d in devices:
                pts = device_times.get((f, d), [])
                row[f"Measured, {d}"] = (_num(fit_exponent(*zip(*pts)), 3) if len({p[0] for p in pts}) > 1
                                         else ("one n only" if pts else MISSING))
        for res in resources:
            e = exps.get((f, res))
            row[f"{RESOURCE_TITLES[res]} (published)"] = _num(e, 3) if e is not None else NOT_PUBLISHED
        erows.append(row)
    doc.p("Fitted exponent b of time ≈ a·n^b (least squares on log-log axes). The paper reports about "
          "quadratic growth for the 10 multimodal functions and the discontinuous function, cubic to "
          "quartic for Rosenbrock.")
    doc.table(pd.DataFrame(erows))
    if history_records:
        recs = [history_records[f] for f in v.functions if f in history_records]
        rel = f"figures/{experiment.id}-{variant}-history.png"
        _history_figure(reports / rel, recs, f"{experiment.id} ({variant}): GLB, GUB and |L|")
        doc.h(3, "GLB, GUB and |L| against iteration")
        doc.p("The solve with the largest measured n of each function.")
        doc.img(rel, f"GLB, GUB and list size, {variant}")
    else:
        doc.h(3, "GLB, GUB and |L| against iteration")
        doc.p(f"No solve of this setting is stored: the figure is {MISSING}.")
    return total_fev, total_gev


def _beside_counts(key, e, m, primary):
    """The columns of another entry's record beside the paper entry's: its counts, and whether
    they equal the paper entry's."""
    em = e["measured"] if e else None
    same = (MISSING if em is None or m is None else
            "yes" if (em["iterations"], em["regions"]) == (m["iterations"], m["regions"]) else "no")
    return [(f"Iterations, {key}", _num(em["iterations"]) if em else MISSING),
            (f"Output regions, {key}", _num(em["regions"]) if em else MISSING),
            (f"Same counts as {primary}, {key}", same)]


def _scaling_verdict(doc, experiment, f, n, r, p_it, p_rg):
    """A paper-000 row matches when its iteration and output-region counts equal the published."""
    from . import verdict as V
    if p_it is None:
        return NOT_PUBLISHED
    label = f"{f} n={n}"
    vs = experiment.verdicts
    if r is None or not _paper_settings(r):
        reason = vs.get("not_reproduced", {}).get(label, "no record at the paper's settings is stored")
        return doc.verdict(label, V.not_reproduced(reason), [r] if r else ())
    m = r["measured"]
    v = V.combine([V.exact(m["iterations"], p_it, "iterations"), V.exact(m["regions"], p_rg, "output regions")])
    return doc.verdict(label, v.explained(vs.get("explained", {}).get(label)), [r])


# a minimum over many random runs varies from one set of runs to the next: judged within this
# relative tolerance of the published one unless [verdicts] rtol says otherwise
METHODS_RTOL = 0.5


def _methods_verdict(doc, experiment, spec, r, prow, p_val, value, runs_done, runs_p):
    """Table S12/S13: a CPU method matches when it fails to find f*, as published, with a minimum
    within the tolerance of the published one over as many runs; the rigorous solver when its
    enclosure holds f* (the paper's printed interval)."""
    from . import verdict as V
    if prow is None:
        return NOT_PUBLISHED
    label = spec.label
    vs = experiment.verdicts
    if r is None:
        return doc.verdict(label, V.not_reproduced(vs.get("not_reproduced", {}).get(
            label, "no record at the paper's settings is stored")))
    if _rigorous(spec.method, r):
        v = V.exact(bool(r["success"]), True, "f* enclosed")
    else:
        parts = [V.exact(bool(r["success"]), False, "found f*")]
        if p_val is not None and value is not None:
            if runs_done != runs_p:
                return doc.verdict(label, V.not_reproduced(f"{runs_done} of the paper's {runs_p} runs stored"), [r])
            parts.append(V.relative(value, p_val, vs.get("rtol", METHODS_RTOL), "minimum value"))
        v = V.combine(parts)
    return doc.verdict(label, v.explained(vs.get("explained", {}).get(label)), [r])


def _device_of(record):
    gpu = (record.get("environment") or {}).get("gpu")
    return gpu.get("name") if isinstance(gpu, dict) and gpu.get("name") else "CPU"


def _methods_section(doc, experiment, variant, records, pub, figdir, reports, results=None):
    import pandas as pd
    v = experiment.variant(variant == "quick")
    groups = _group(records)
    rows, fig_rows, verdicts = [], [], []
    enclosure = None
    total_fev = total_gev = 0
    for spec in v.methods:
        recs = [r for f in v.functions for n in v.dims for r in groups.get((spec.key, f, n), [])] or [None]
        prow = None
        if pub is not None and spec.label:
            sub = pub[pub["method"] == spec.label]
            prow = sub.iloc[0] if len(sub) else None
        for r in recs:
            m = r["measured"] if r else None
            p_val = None if prow is None or pd.isna(prow["min_value"]) else float(prow["min_value"])
            p_sec = None if prow is None or pd.isna(prow["seconds"]) else float(prow["seconds"])
            if prow is None:
                pv_text = ps_text = pr_text = NOT_PUBLISHED
            else:
                pv_text = _num(p_val) if p_val is not None else (prow["raw"] if not p_sec else prow["raw"])
                ps_text = _num(p_sec) if p_sec is not None else (prow["raw"] or NOT_PUBLISHED)
                pr_text = _num(int(prow["runs"]))
            if prow is not None and p_val is None and p_sec is not None:
                pv_text = prow["raw"]  # the proposed method's printed interval
            if m is None:
                mv_text = MISSING
                value = None
            elif m.get("glb") is not None:
                mv_text = f"[{m['glb']:.4g}, {m['gub']:.4g}]"
                value = None
                enclosure = (m["glb"], m["gub"])
            else:
                mv_text = _num(m["fun"], 4)
                value = m["fun"]
            # a multi-start GPU method counts its starts (all done in one call)
            starts = None if r is None else (r.get("options") or {}).get("starts")
            runs_done = None if m is None else (m["runs_completed"] if m.get("runs_completed") is not None
                                                else (starts or 1))
            runs_planned = None if m is None else (m.get("runs") or starts)
            runs_m = MISSING if m is None else (
                f"{runs_done:,} of {runs_planned:,} (partial)" if runs_planned and runs_done < runs_planned
                else _num(runs_done))
            found_m = MISSING if m is None else _found_runs(r, experiment.success_tol)
            runs_p = None if prow is None else int(prow["runs"])
            if m is None:
                t_ratio = MISSING
            elif p_sec is None:
                t_ratio = NOT_PUBLISHED
            elif runs_done != runs_p:
                t_ratio = "n/a (runs differ)"
            else:
                t_ratio = _ratio(m["seconds"], p_sec)
                if _rigorous(spec.method, r) and not _paper_settings(r):
                    t_ratio += " (settings differ)"
            per_run_p = _num(p_sec / runs_p, 3) if p_sec is not None and runs_p else NOT_PUBLISHED
            per_run_m = _num(m["seconds"] / runs_done, 3) if m is not None and runs_done else MISSING
            rows.append({
                "Method": spec.key + (f" ({spec.label})" if spec.label else ""),
                "Runs, published": pr_text, "Runs, measured": runs_m,
                "Minimum value, published": pv_text, "Minimum value, measured": mv_text,
                "Measured / published": _ratio(value, p_val) if m is not None and value is not None
                else (MISSING if m is None else NOT_PUBLISHED),
                "Time (s), published": ps_text, "Time (s), measured": _seconds(m["seconds"]) if m else MISSING,
                "Time measured / published": t_ratio,
                "Time per run (s), published": per_run_p, "Time per run (s), measured": per_run_m,
                "Evaluations": _num(m["evaluations"]) if m else MISSING,
                "Gradient evaluations": _num(m["gradient_evaluations"]) if m else MISSING,
                "Found f*": ("yes" if r["success"] else "no") if r else MISSING,
                "Runs that found f*": found_m,
                "Verdict": _methods_verdict(doc, experiment, spec, r, prow, p_val, value, runs_done, runs_p),
            })
            if m is not None and not _rigorous(spec.method, r):
                verdicts.append((spec, r, runs_done, runs_planned))
            if m:
                total_fev += m["evaluations"] or 0
                total_gev += m["gradient_evaluations"] or 0
            if not _rigorous(spec.method, r):
                fig_rows.append((spec.key, value, p_val))
    doc.h(3, "Best value found and time")
    doc.p("Published: the paper's table (minimum rounded by the paper to four significant digits). "
          "Measured: the best value over all runs, the total time of all runs (compared only when the run "
          "counts are equal; the time per run is compared always). A heuristic 'found f*' "
          f"when its best value is within {experiment.success_tol:g} of f*; the rigorous solver when its "
          "enclosure [GLB, GUB] holds f* and the search converged.")
    doc.table(pd.DataFrame(rows))
    _claim(doc, experiment, verdicts)
    doc.p(f"Total evaluations in this setting: {_num(total_fev)} function evaluations (for the rigorous "
          f"solver: interval evaluations) and {_num(total_gev)} gradient evaluations.")
    shared = [(r["key"], r["provenance"]["same_computation_as"]) for r in records
              if r is not None and isinstance(r.get("provenance"), dict) and r["provenance"].get("same_computation_as")]
    if shared:
        doc.p("Records of one computation reported in several tables (the same case id: function, n, settings "
              "and seeds): " + "; ".join(f"{key} from {src}" for key, src in shared) + ".")
    doc.h(3, "Each method's best value against the rigorous enclosure")
    if any(r is not None for r in records):
        rel = f"figures/{experiment.id}-{variant}-methods.png"
        label = ", ".join(experiment.published_tables) or "none"
        _methods_figure(reports / rel, fig_rows, enclosure, f"Table {label}",
                        f"{experiment.id} ({variant}): best value of each method and the rigorous enclosure")
        doc.img(rel, f"best values, {variant}")
    else:
        doc.p(f"Figure {MISSING}: no measurement of this setting is stored.")
    return total_fev, total_gev


def _found_runs(record, tol):
    """'k of N' runs within tol of f*, from the stored per-run values (or a chunked record's count)."""
    h = record.get("history") or {}
    done = (record["measured"].get("runs_completed") or 1)
    if h.get("runs_found_fstar") is not None:
        return f"{h['runs_found_fstar']:,} of {done:,}"
    vals = h.get("run_fun") or h.get("fun") or h.get("start_fun")  # per run, or per start
    if not vals:
        return "not stored"
    fstar = record["fstar"]
    return f"{sum(1 for v in vals if abs(v - fstar) <= tol):,} of {len(vals):,}"


def _claim(doc, experiment, verdicts):
    """The paper's claim that all seven CPU methods fail, beside what the stored runs show."""
    published = [(spec, r, d, p) for spec, r, d, p in verdicts if spec.label]
    extra = [(spec, r, d, p) for spec, r, d, p in verdicts if not spec.label]
    if not verdicts:
        return
    doc.h(3, "The claim 'all seven fail'")
    # the figures as the published CSV prints them (never typed here)
    pub = experiment.published(as_printed=True)
    cpu = pub[pub["min_value"].str.strip() != ""] if pub is not None else []
    shown = ""
    if len(cpu):
        vals = sorted(cpu["min_value"], key=float)
        direct = cpu[cpu["method"] == "DIRECT"]["min_value"]
        shown = (f" (best values {vals[0]} to {vals[-1]} in Table {', '.join(experiment.published_tables)}"
                 + (f"; DIRECT {direct.iloc[0]}" if len(direct) else "") + ")")
    doc.p("Published (SI Appendix E): \"All seven popular CPU-based numerical optimization methods fail to "
          f"find the global minimum of the function\"{shown}.")

    def verdict(spec, r, done, planned):
        state = (f"{done:,} of {planned:,} runs done" if planned and done < planned
                 else ("its one run" if done == 1 else f"all {done:,} runs"))
        word = "found f*" if r["success"] else "did not find f*"
        return f"{spec.key}: {word} (best {_num(r['measured']['fun'], 4)}; {state})"
    partial = any(p and d < p for _, _, d, p in published)
    found = [spec.key for spec, r, _, _ in published if r["success"]]
    stored = {spec.key for spec, _, _, _ in verdicts}
    absent = [spec.key for spec in experiment.variant(False).methods
              if spec.label and spec.key not in stored and not _rigorous(spec.method)]
    doc.p("Measured with the paper's stated settings: " + "; ".join(verdict(*v) for v in published) + ". "
          + (f"{len(found)} of {len(published)} stored entries found f* (within {experiment.success_tol:g})"
             + (": the claim does not hold for " + ", ".join(found) if found else ", as published")
             + (". Not stored yet: " + ", ".join(absent) if absent else "")
             + (". Some entries have not done all their runs yet; their verdict may change."
                if partial else ".")))
    if extra:
        doc.p("With budgets a user would choose (no published counterpart): "
              + "; ".join(verdict(*v) for v in extra) + ".")


def _section(layout):
    """The report section of a layout: the two of paper 000 here, the others in their own modules."""
    if layout == "methods":
        return _methods_section
    if layout == "scaling":
        return _scaling_section
    import importlib
    return importlib.import_module(LAYOUT_MODULES[layout]).section


# layouts whose report section lives in a module of its own
LAYOUT_MODULES = {"compare": "gpubench.reports.compare", "heuristic": "gpubench.reports.heuristic",
                  "bnb": "gpubench.reports.fixed", "micro": "gpubench.reports.fixed", "lbfgsb": "gpubench.reports.fixed",
                 "admm": "gpubench.reports.fixed",
                  "certify": "gpubench.reports.certify", "rigorous": "gpubench.reports.rigorous"}
BUILT_LAYOUTS = ("methods", "scaling", *LAYOUT_MODULES)
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
        planned = _planned(experiment, variant)
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


def _atomic_write(path, text):
    atomic_write(path, text, fsync=False)


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


__all__ = ["build", "write_index", "write_reproduction", "fit_exponent", "Doc"]
