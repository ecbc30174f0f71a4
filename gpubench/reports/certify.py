"""The report section of a certification (layout "certify", issue 30): one table per method entry.

Each entry of the experiment (e.g. the stored `interval` and `interval_gub` beside it) is counted
and tabled on its own records only; with two entries or more, "Entries side by side" lists the
cases whose verdicts differ where both are stored.  In an entry's table, one row per planned case
(a library function at one n): the library's stated f* and
minimisers, the certified enclosure [GLB, GUB] of the true minimum, whether every stated
minimiser lies in the output regions (which hold every global minimiser), the verdict computed by
:func:`gpubench.workflow.certify.judge` when the case ran (stored in the record's ``certification``),
its evidence, the region count and the seconds.  Above it, the counts the issue's targets
name: functions expressible in the language, cases certified, fixed-dimension functions with
n <= 3 certified, stated minimisers outside the regions; below it, every case where the
library's statement is wrong, with the certified value.

An entry whose method is not rigorous (MAiNGO: ``[methods.maingo]``) is a **second opinion**: its
GUB is its point valued with the outward-rounded interval form (verified), its GLB is not verified
and it gives no output regions.  Its table heads the lower bound "GLB (not verified)", counts cases
whose gap closed rather than certified, and labels every verdict that rests on its GLB (agrees, or
f* below GLB) "(not verified)"; a verdict resting on its GUB (f* above it, a minimiser's value above
it) is proved and stands unlabelled.
"""
from ..workflow.certify import FLOAT_SPACINGS, gap_closed
from .document import MISSING

VERDICT_TEXT = {"agrees": "agrees", "value wrong": "SciPy's value is wrong",
                "minimiser wrong": "SciPy's minimiser is not a minimiser",
                "not certified": "not certified within budget"}


def _g(v, digits=12):
    if v is None:
        return MISSING
    return format(float(v), f".{digits}g")


def _point(v, digits=8):
    return "(" + ", ".join(format(float(c), f".{digits}g") for c in v) + ")"


def _minimisers(ms, limit=2):
    if not ms:
        return "none stated"
    shown = "; ".join(_point(v, 6) for v in ms[:limit])
    return shown + (f"; ... ({len(ms)} in all)" if len(ms) > limit else "")


def _evidence(c):
    ev = c.get("evidence") or {}
    if "point" in ev:
        return f"f{_point(ev['point'])} in [{_g(ev['enclosure'][0])}, {_g(ev['enclosure'][1])}]"
    if "glb" in ev:
        return f"GLB {_g(ev['glb'])} > f*"
    if "minimiser" in ev:
        return f"f(x*) in [{_g(ev['enclosure'][0])}, {_g(ev['enclosure'][1])}]"
    return ""


def _unchecked(cert):
    """A record judged before the regions built on demand were read (commit 4f864e2): its stated
    minimisers were compared with no region at all (distance inf), so they were not checked."""
    return (cert.get("evidence") or {}).get("distance") == float("inf")


def inside_regions(cert):
    """True, False, or None (not checked) for a record's certification."""
    return None if _unchecked(cert) else cert.get("minimisers_in_regions")


NOT_VERIFIED = " (not verified)"


def second_opinion(method):
    """Whether an entry's method is a second opinion (not rigorous: its GLB is not verified)."""
    from .. import methods
    return methods.is_rigorous(method) is not True


def rests_on_glb(cert):
    """Whether a verdict rests on the GLB (agrees: the gap; value wrong: f* below GLB)."""
    v = cert.get("verdict")
    return v == "agrees" or (v == "value wrong" and "glb" in (cert.get("evidence") or {}))


def stated_dim(function, dim):
    """The dimension the library states f* for where that is not ``dim`` (SciPy's fglob given for
    its default dimension only, ``Entry.fglob_dim``: Trid's for n = 6, EggHolder's for n = 2), or
    None where f* is stated for ``dim`` itself."""
    if not function.startswith("scipy_go."):
        return None
    from ..functions import scipy_go
    try:
        d = scipy_go.entry(function).fglob_dim
    except KeyError:
        return None
    return d if d is not None and d != dim else None


def elsewhere(cert, function, dim):
    """Whether a "value wrong" verdict compares f* stated for another dimension than ``dim`` (so it
    says nothing about the library: its f* is not claimed at this n)."""
    return cert.get("verdict") == "value wrong" and stated_dim(function, dim) is not None


def verdict_text(cert, opinion=False, function=None, dim=None):
    """The verdict as the report says it; a second opinion's GLB-resting verdict labelled; with the
    case's ``function`` and ``dim``, f* stated for another dimension is said so, not called wrong."""
    if function is not None and elsewhere(cert, function, dim):
        return f"f* stated for n = {stated_dim(function, dim)} only (not judged at n = {dim})"
    text = VERDICT_TEXT.get(cert.get("verdict"), MISSING)
    if cert.get("verdict") == "not certified" and "when the method failed" in cert.get("reason", ""):
        return "not certified: the method failed"      # not the budget: the reason says why
    return text + NOT_VERIFIED if opinion and rests_on_glb(cert) else text


def certified(record):
    """Whether a record's case certified: GUB - GLB <= ftol, or the float spacing of the values
    where that is wider (:func:`gpubench.workflow.certify.gap_closed`, the judge's own rule; a value
    proved wrong by a point below it counts only when the enclosure is that narrow too)."""
    c = record.get("certification") or {}
    m = record.get("measured") or {}
    if not c or m.get("glb") is None or m.get("gub") is None:
        return False
    return gap_closed(m["glb"], m["gub"], c["ftol"])


def certified_by_gap(record):
    """Whether a certified record's case was certified by its gap alone: the minimum's value proved
    (GUB - GLB <= ftol) while the output regions were not all narrower than tol (a gap stop, or
    the time limit after the gap closed).  Records judged before ``by_gap`` was stored: the run
    did not converge by tol."""
    if not certified(record):
        return False
    c = record.get("certification") or {}
    if "by_gap" in c:
        return bool(c["by_gap"])
    m = record.get("measured") or {}
    return bool(c.get("regions", True)) and not m.get("converged")


def expressible(library):
    """The line on how much of the library the language expresses ("" for another library)."""
    if library != "scipy_go":
        return ""
    from ..functions import scipy_go
    expressed, missing = len(scipy_go.ENTRIES), len(scipy_go.NOT_EXPRESSED)
    total = expressed + missing
    return (f"Functions expressible in gpubench's language: {expressed} of {total} "
            f"({100 * expressed / total:.1f} %); the {missing} others are listed with the "
            f"construct they lack in docs/scipy_go.md.")


def counts(cases, by_case, opinion=False):
    """The issue's counts over ``cases`` (one entry's planned cases) from their stored records;
    ``opinion``: a second opinion's (its gap closed, not certified)."""
    lines = []
    stored = [c for c in cases if c.case_id in by_case]
    ok = [c for c in stored if certified(by_case[c.case_id])]
    unchecked = [c for c in ok if _unchecked(by_case[c.case_id].get("certification") or {})]
    if opinion:
        wrong = [c for c in stored if (cert := by_case[c.case_id].get("certification") or {}).get("verdict")
                 in ("value wrong", "minimiser wrong") and not elsewhere(cert, c.function, c.dim)]
        proved = [c for c in wrong if not rests_on_glb(by_case[c.case_id]["certification"])]
        return [f"Cases whose gap closed (GUB - GLB <= ftol, GLB not verified: a second opinion, not a "
                f"certificate): {len(ok)} of {len(stored)} stored ({_pct(len(ok), len(stored))}); {len(cases)} "
                f"planned (less those the method cannot express).",
                f"SciPy's statement found wrong: in {len(wrong)} case(s); {len(proved)} of them proved by the "
                f"verified GUB (a point's outward-rounded enclosure), the others rest on the GLB (not verified)."]
    gap_only = [c for c in ok if certified_by_gap(by_case[c.case_id])]
    lines.append(f"Cases certified (GUB - GLB <= ftol, or {FLOAT_SPACINGS} ulp of the values where wider): {len(ok)} of "
                 f"{len(stored)} stored ({_pct(len(ok), len(stored))}); {len(cases)} planned"
                 + (f"; in {len(unchecked)} of them the stated minimisers were not checked against the "
                    f"regions (marked in the table)" if unchecked else "") + ".")
    lines.append(f"Of these, certified by the gap: {len(gap_only)} (the minimum's value proved to ftol, as a "
                 f"B&B solver proves it, while the output regions, which hold every global minimiser, were "
                 f"not all narrower than the method's tol: verdict marked 'by the gap'); by regions narrower "
                 f"than tol: {len(ok) - len(gap_only)}.")
    names = sorted({c.function for c in cases})
    per_function = {f: [c for c in stored if c.function == f] for f in names}
    done = [f for f in names if per_function[f] and
            len(per_function[f]) == sum(c.function == f for c in cases)]
    all_ok = [f for f in done if all(certified(by_case[c.case_id]) for c in per_function[f])]
    lines.append(f"Functions certified at every planned n: {len(all_ok)} of {len(done)} with every case stored "
                 f"({_pct(len(all_ok), len(done))}).")
    small = [c for c in stored if c.dim <= 3 and not _scalable(c.function)]
    small_ok = [c for c in small if certified(by_case[c.case_id])]
    lines.append(f"Fixed-dimension functions with n <= 3 certified: {len(small_ok)} of {len(small)} stored "
                 f"({_pct(len(small_ok), len(small))}).")
    outside = [c for c in stored if inside_regions(by_case[c.case_id].get("certification") or {}) is False]
    wrong = [c for c in outside if by_case[c.case_id]["certification"]["verdict"] in ("value wrong", "minimiser wrong")
             and not elsewhere(by_case[c.case_id]["certification"], c.function, c.dim)]
    lines.append(f"Stated minimisers outside the output regions: in {len(outside)} case(s); in "
                 f"{len(wrong)} of them the report proves SciPy wrong, the others lie within SciPy's own "
                 f"success tolerance of the minimum (stated to too few digits).")
    return lines


def _pct(a, b):
    return f"{100 * a / b:.1f} %" if b else "-"


def _scalable(name):
    try:
        from ..workflow.certify import _entries
        return _entries(name.split(".", 1)[0])(name).scalable
    except (KeyError, ValueError):
        return False


def section(doc, experiment, variant, records, pub, figdir, reports, results=None):
    """The counts and the table of each method entry, in file order; with two entries or more, each
    is judged on its own records (never mixed: a case reads "missing" until its entry's own record
    is stored), then the entries are set side by side where both are stored."""
    from ..workflow.runner import plan
    planned = plan(experiment, quick=variant == "quick")
    by_case = {r["case"]: r for r in records}
    entries = [m for m in experiment.variant(variant == "quick").methods if any(c.key == m.key for c in planned)]
    opinions = {m.key for m in entries if second_opinion(m.method)}
    if line := expressible(experiment.library):
        doc.p(line)
    for spec in entries:
        cases = [c for c in planned if c.key == spec.key]
        if len(entries) > 1:
            doc.h(3, f"Entry `{spec.key}`" + (" (a second opinion: its GLB is not verified)"
                                              if spec.key in opinions else ""))
            doc.p(f"Settings of `{spec.key}` ({spec.method}): "
                  + ", ".join(f"{k}={v}" for k, v in spec.settings.items()) + f". Cases stored: "
                  + f"{sum(c.case_id in by_case for c in cases)} of {len(cases)}, each judged on its own record.")
        if len(entries) > 1 and not any(c.case_id in by_case for c in cases):
            where = (f"`gpubench reproduce {experiment.id} --entries {spec.key}` runs them (one CPU core a case)"
                     if spec.key in opinions else
                     f"a GPU host runs them with `gpubench reproduce {experiment.id} --backend cuda`")
            doc.p(f"No record of `{spec.key}` is stored yet: its {len(cases)} cases are not counted or "
                  f"shown (each reads {MISSING}); {where}.")
            continue
        _entry(doc, cases, by_case, spec.key in opinions)
    if len(entries) > 1:
        _side_by_side(doc, entries, planned, by_case, opinions)
    doc.p("Verdicts (`gpubench.workflow.certify.judge`): *agrees*: GUB - GLB <= ftol (or, where wider, "
          f"{FLOAT_SPACINGS} ulp of max(|GLB|, |GUB|): no float64 enclosure of a value that large is narrower; "
          "docs/scipy_go.md), f* within stated_atol of "
          "[GLB, GUB] and every stated minimiser within xslack of an output region (one off the regions "
          "but with f there within stated_atol of the minimum is named in the reason: stated to too few "
          "digits); *SciPy's value is wrong*: f* below GLB (nothing in the domain reaches it), or above "
          "GUB, with the best point and its outward-rounded interval enclosure, where SciPy states f* for "
          "this n; *f* stated for n = d only (not judged at n)*: the same finding where SciPy's f* is the "
          "value at its default dimension d, given for every n (`Entry.fglob_dim`), so it makes no claim at "
          "this n; *SciPy's minimiser is not "
          "a minimiser*: it lies in no output region and its outward-rounded enclosure is above GUB + "
          "stated_atol; *not certified within budget*: GUB - GLB > ftol when the time limit ran out. "
          "*(by the gap)*: certified with output regions not all narrower than the method's tol (the "
          "search stopped on its gap tolerance, gap_tol, or at its time limit after the gap had closed): "
          "the value is proved and every global minimiser lies in the regions, which are coarser. "
          "A stated minimiser of another dimension than n (SciPy states the n = 2 answer for every n) "
          "is not checked, and the reason says so."
          + (" A second opinion (MAiNGO): the same rules on its [GLB, GUB], whose GUB is its point valued with "
             "the outward-rounded interval form (verified) and whose GLB is its floating-point bound (not "
             "verified); it gives no output regions, so a stated minimiser is checked by its value only "
             "(not a minimiser when its enclosure is above GUB + stated_atol); a verdict resting on the GLB "
             "reads '(not verified)'." if opinions else ""))


def _refused(case):
    """Why the case's method cannot express its function (``Method.refuses``), or None (also where
    the method's package is missing here: its cases then read missing)."""
    from .. import methods
    from ..problems import catalog
    m = methods.get(case.method)
    if m.refuses is None or not m.available:
        return None
    return m.refuses(catalog.function_of(case.function), case.dim)


def _gap(record):
    m = record.get("measured") or {}
    return MISSING if m.get("glb") is None or m.get("gub") is None else _g(m["gub"] - m["glb"], 3)


def _side_by_side(doc, entries, planned, by_case, opinions=frozenset()):
    """The first entry against each other one, on the cases both have stored: how many each
    certifies, and every case whose verdict differs (each verdict computed from its own record)."""
    import pandas as pd
    first = entries[0].key
    index = {(c.key, c.function, c.dim): c for c in planned}
    doc.h(3, "Entries side by side")
    for spec in entries[1:]:
        pairs = [(c, index.get((first, c.function, c.dim))) for c in planned if c.key == spec.key]
        both = [(a, b) for b, a in pairs if a is not None and a.case_id in by_case and b.case_id in by_case]
        if not both:
            doc.p(f"`{spec.key}` beside `{first}`: no case is stored for both yet, so none is compared "
                  f"(`{spec.key}`'s verdicts read {MISSING} until its own records are stored).")
            continue
        ok_a = sum(certified(by_case[a.case_id]) for a, _ in both)
        ok_b = sum(certified(by_case[b.case_id]) for _, b in both)
        opinion = spec.key in opinions
        doc.p(f"`{spec.key}` beside `{first}`, on the {len(both)} case(s) stored for both: `{first}` "
              f"certifies {ok_a}, `{spec.key}` {ok_b}" + (" (its gap closed; its GLB not verified)" if opinion
                                                         else "") + ".")
        rows = []
        for a, b in both:
            ra, rb = by_case[a.case_id], by_case[b.case_id]
            va, vb = [(r.get("certification") or {}).get("verdict") for r in (ra, rb)]
            if (va, certified(ra)) == (vb, certified(rb)):
                continue
            rows.append({"function": a.function.split(".", 1)[-1], "n": a.dim,
                         f"GUB - GLB, {first}": _gap(ra),
                         f"verdict, {first}": verdict_text(ra.get("certification") or {}, False, a.function, a.dim)
                         if va else MISSING,
                         f"GUB - GLB, {spec.key}": _gap(rb),
                         f"verdict, {spec.key}": verdict_text(rb.get("certification") or {}, opinion, b.function,
                                                              b.dim)})
        if rows:
            doc.p("The cases whose verdict or certification differs:")
            doc.table(pd.DataFrame(rows))
        else:
            doc.p("Every case has the same verdict in both.")


def _entry(doc, planned, by_case, opinion=False):
    """One entry's counts, its table and the cases where the library's statement is wrong
    (``opinion``: a second opinion's, its GLB labelled not verified)."""
    import pandas as pd
    for line in counts(planned, by_case, opinion):
        doc.p(line)
    glb_head = "GLB (not verified)" if opinion else "GLB"
    rows, wrong, other = [], [], []
    for c in planned:
        r = by_case.get(c.case_id)
        if r is None and opinion and (why := _refused(c)):
            cols = ("stated f*", "stated x*", glb_head, "GUB", "x* in regions", "verdict", "evidence / reason",
                    "regions", "seconds", "backend")
            rows.append({"function": c.function.split(".", 1)[-1], "n": c.dim, **dict.fromkeys(cols, "-"),
                         "verdict": "not run: the method cannot express it",
                         "evidence / reason": why.split(" (")[0]})
            continue
        cert = (r or {}).get("certification") or {}
        m = (r or {}).get("measured") or {}
        inside = inside_regions(cert)
        row = {"function": c.function.split(".", 1)[-1], "n": c.dim,
               "stated f*": _g(cert["stated_fstar"]) if cert else MISSING,
               "stated x*": _minimisers(cert["stated_minimisers"]) if cert else MISSING,
               glb_head: _g(m.get("glb"), 14) if r else MISSING, "GUB": _g(m.get("gub"), 14) if r else MISSING,
               "x* in regions": {True: "yes", False: "no", None: "-"}[inside] if cert else MISSING,
               "verdict": (verdict_text(cert, opinion, c.function, c.dim)
                           + (" (by the gap)" if certified_by_gap(r) else ""))
               if cert else MISSING,
               "evidence / reason": ("stated minimisers not checked: the output regions (built on demand) "
                                     "were not read when this record was judged" if _unchecked(cert) else
                                     "; ".join(t for t in (_evidence(cert), cert.get("reason", "")) if t))
               if cert else "",
               "regions": m.get("regions", MISSING) if r else MISSING,
               "seconds": format(m["seconds"], ".3g") if r and m.get("seconds") is not None else MISSING,
               "backend": m.get("backend", MISSING) if r else MISSING}
        rows.append(row)
        if elsewhere(cert, c.function, c.dim):
            other.append(f"{c.function} n={c.dim}: stated f* {_g(cert['stated_fstar'])} (for n = "
                         f"{stated_dim(c.function, c.dim)}); the minimum at n = {c.dim} lies in "
                         f"[{_g(m.get('glb'), 14)}, {_g(m.get('gub'), 14)}]"
                         + (" (GLB not verified)" if opinion else "")
                         + ("" if certified(r) else " (not certified)"))
        elif cert.get("verdict") in ("value wrong", "minimiser wrong"):
            wrong.append(f"{c.function} n={c.dim}: {verdict_text(cert, opinion)}; stated f* "
                         f"{_g(cert['stated_fstar'])}, "
                         + (f"[{_g(m.get('glb'), 14)} (not verified), {_g(m.get('gub'), 14)}]; " if opinion else
                            f"certified [{_g(m.get('glb'), 14)}, {_g(m.get('gub'), 14)}]; ") +
                         f"{_evidence(cert) or cert.get('reason', '')}")
    if rows:
        doc.table(pd.DataFrame(rows))
    doc.p("Where SciPy's statement is wrong (" + (f"{len(wrong)} case(s))" if wrong else "none among the stored cases)")
          + (":" if wrong else "."))
    if wrong:
        doc.items(wrong)
    if other:
        doc.p(f"Where the library states f* for another dimension only ({len(other)} case(s): SciPy's fglob "
              f"of its default dimension, given for every n; not a claim at this n, so not judged; the "
              f"enclosure is this n's minimum):")
        doc.items(other)
