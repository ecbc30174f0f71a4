"""A report as a document: blocks written out both as Markdown and as HTML, and how its cells
format numbers (a missing measurement reads "missing", a value the paper has not "—")."""
import html
import math
import re

from ..device.gpu import atomic_write

MISSING = "missing"
NOT_PUBLISHED = "—"


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


def _atomic_write(path, text):
    atomic_write(path, text, fsync=False)
