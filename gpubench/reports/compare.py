"""Compare methods on the same functions: certified gaps, time-to-target, COCO-compatible data.

Three things a heuristic's user cannot get elsewhere, computed from stored records only:

* **Certified gaps.**  The rigorous solver's converged enclosure ``[GLB, GUB]`` of
  the same problem (from any stored experiment; :func:`certifies` says when a
  record's problem is the comparison's) certifies the global minimum; a heuristic's best value ``b`` is then at most ``b - GLB`` above
  it (``GUB - b`` for a maximised function), and its best point either lies in
  the solver's output regions (it found the basin of a global minimiser) or
  not.  Where no converged rigorous record is stored the answer is "no
  certificate", never a guessed f*.
* **Time to target** (COCO's runtime, Hansen et al., "COCO: performance
  assessment", 2021): for targets ``f* + 10^k``, k = 2 ... -8, the first
  evaluation count and the first wall-clock second at which a run's best value
  reached the target, read from the run's trace (``history["trace"]``:
  ``[nfev, seconds, best]`` rows).  A method without a trace is credited at its
  final count and time only.  The targets use the library's closed-form f*(n).
* **COCO data** (:mod:`gpubench.reports.coco_data`, with the time to target).  ``.info``/``.dat``/``.tdat`` files in the bbob-new2 layout that
  cocopp and IOHanalyzer read, with one added last column: seconds.
"""
import math
from pathlib import Path

import numpy as np

from ..records.trace import rigorous, trace_of  # noqa: F401  (trace_of: this module's API too)
from .coco_data import first_reach, runtimes, write_coco, zip_folder

NO_CERTIFICATE = "no certificate"


# ---------------------------------------------------------------- certificates
def certifies(record):
    """Why ``record`` may not certify the library function it names at its n, or None when it may.

    A certificate needs a method the registry declares rigorous (an unregistered one
    is refused), a converged solve with finite GLB <= GUB, and the very problem the
    comparison runs: the library function of that name, with its box and parameters
    at that n.  A record that states its problem (``problem``, written by the runner)
    must state this one exactly.  An older record without it is used only when its
    experiment definition states its case (the case id, which hashes the method and
    settings, is in that experiment's plan): an experiment names library functions and
    cannot change their box or parameters; its f* must also be the library's now.
    """
    from .. import functions, methods
    from ..records.write import problem
    from ..errors import InputError
    if methods.is_rigorous(record.get("method")) is not True:
        return "not a method declared rigorous"
    m = record.get("measured") or {}
    glb, gub = m.get("glb"), m.get("gub")
    if m.get("converged") is not True:
        return "not converged"
    if not (isinstance(glb, (int, float)) and isinstance(gub, (int, float))
            and math.isfinite(glb) and math.isfinite(gub) and glb <= gub):
        return "no finite enclosure"
    try:
        fn = functions.get(record["function"])
    except InputError:
        return "not a library function"
    dim = int(record["dim"])
    if record.get("sense", "min") != fn.sense:
        return "another sense"
    stated = record.get("problem")
    if stated is not None:
        return None if stated == problem(fn, dim) else "another box or parameters"
    from .stored import planned_cases
    plan = planned_cases(record.get("experiment"), record.get("variant"))
    case = next((c for c in plan if c.case_id == record.get("case")), None) if plan else None
    if case is None:
        return "states no problem, and no experiment definition states its case"
    if (case.function, case.dim) != (record["function"], dim):
        return "its experiment's case is another function or n"
    if record.get("fstar") != fn.fstar(dim):
        return "its f* differs from the library's"
    return None


def certificates(results=None, experiments=None):
    """{(function, dim): certificate} from every stored record that :func:`certifies`.

    A certificate is ``{"glb", "gub", "regions", "experiment", "case"}``; of several,
    the narrowest enclosure is kept.  ``regions`` is None when the record did not
    store them (too many numbers).
    """
    from ..records.read import load_records, results_dir
    root = results_dir(results)
    out = {}
    if not root.is_dir():
        return out
    from ..workflow import experiments_loader
    experiments = {e.id for e in experiments_loader.load_all(experiments)}
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        # every experiment's folder, warning of corrupt records there; other folders (the GPU host's
        # raw files) are read for certificates without a warning
        for r in load_records(folder, warn=folder.name in experiments):
            if certifies(r) is not None:
                continue
            m = r["measured"]
            key = (r["function"], int(r["dim"]))
            cert = {"glb": float(m["glb"]), "gub": float(m["gub"]), "regions": r.get("regions"),
                    "experiment": r["experiment"], "case": r["case"]}
            old = out.get(key)
            if old is None or cert["gub"] - cert["glb"] < old["gub"] - old["glb"]:
                out[key] = cert
    return out


def source(cert):
    """Where a certificate came from, for a reader: ``experiment: case``."""
    return f"{cert['experiment']}: {cert['case']}" if cert else NO_CERTIFICATE


def certified_gap(best, cert, sense="min"):
    """How far ``best`` can be from the global optimum, by the certificate; None without one."""
    if cert is None or best is None:
        return None
    return (best - cert["glb"]) if sense == "min" else (cert["gub"] - best)


def inside_regions(x, regions):
    """True when ``x`` lies in one of the output regions; None when they were not stored."""
    if regions is None or x is None:
        return None
    x = np.asarray(x, dtype=float)
    for reg in regions:
        lo, hi = np.asarray(reg["lo"]), np.asarray(reg["hi"])
        if lo.shape == x.shape and np.all(x >= lo) and np.all(x <= hi):
            return True
    return False


# ---------------------------------------------------------------- time to target
def certified_target(cert, sense="min"):
    """The value a run must reach to be certified within 1e-8 of the global minimum: GLB + 1e-8
    (GUB - 1e-8 for a maximised function); then best - f* <= best - GLB <= 1e-8."""
    tol = 10.0 ** SUCCESS_EXPONENT
    return cert["glb"] + tol if sense == "min" else cert["gub"] - tol


def ecdf(records, fstars, axis="evaluations"):
    """COCO's runtime ECDF per method: {method key: (budgets, fraction of (function, dim, target)
    triples reached within that budget)}.  ``fstars`` maps (function, dim) to f*."""
    col = 1 if axis == "evaluations" else 2
    per = {}
    for r in records:
        key = r["key"]
        fstar = fstars.get((r["function"], int(r["dim"])))
        if fstar is None:
            continue
        per.setdefault(key, []).extend(rt[col] for rt in runtimes(r, fstar))
    out = {}
    for key, hits in per.items():
        total = len(hits)
        got = np.sort(np.array([h for h in hits if h is not None], dtype=float))
        out[key] = (got, np.arange(1, got.size + 1) / total if total else np.array([]))
    return out


SUCCESS_EXPONENT = -8  # "reached 1e-8 of the certified minimum"


def _fstars(records):
    from .. import functions
    out = {}
    for r in records:
        key = (r["function"], int(r["dim"]))
        if key not in out:
            out[key] = float(functions.get(r["function"]).fstar(int(r["dim"])))
    return out


def _ecdf_figure(path, curves, axis, title):
    from .figures import _plt
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for key, (x, y) in sorted(curves.items()):
        if x.size:
            ax.step(np.concatenate([[x[0]], x]), np.concatenate([[0.0], y]), where="post", label=key)
        else:
            ax.plot([], [], label=f"{key} (no target reached)")
    ax.set_xscale("log")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("function evaluations" if axis == "evaluations" else "wall-clock seconds (same machine)")
    ax.set_ylabel("fraction of (function, n, target) pairs")
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    fig.subplots_adjust(left=0.1, right=0.98, top=0.9, bottom=0.13)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)


def _verified(record):
    """The record's own statement of which bounds are interval-verified (``options["verified"]``:
    MAiNGO's), or None for a method that states none."""
    return (record.get("options") or {}).get("verified")


def _best(record, sense):
    """A run's best value: a rigorous method's GUB (GLB for a maximum), likewise a method whose own
    point side is verified (MAiNGO: its point valued with the outward-rounded interval form), else
    its best f."""
    m = record["measured"]
    side = "gub" if sense == "min" else "glb"
    verified = _verified(record)
    if (rigorous(record["method"], record) or (verified or {}).get(side)) and m.get(side) is not None:
        return m[side]
    return m.get("fun")


def own_bounds(record):
    """``[GLB, GUB]`` a non-rigorous method reports of its own (MAiNGO's), each side that is not
    interval-verified labelled so; None for a method without bounds of its own."""
    verified, m = _verified(record), record["measured"]
    if not verified or m.get("glb") is None or m.get("gub") is None:
        return None
    from .document import _bound
    return "[" + ", ".join(_bound(m[k]) + ("" if verified.get(k) else " (not verified)") for k in ("glb", "gub")) + "]"


def rows(records, certs):
    """One row per (function, n, method entry): what the compare report and the summary show."""
    groups = {}
    for r in records:
        groups.setdefault((r["function"], int(r["dim"]), r["key"]), []).append(r)
    fstars = _fstars(records)
    out = []
    for (f, dim, key), rs in sorted(groups.items()):
        sense = rs[0].get("sense", "min")
        cert = certs.get((f, dim))
        fstar = fstars[(f, dim)]
        bests = [_best(r, sense) for r in rs]
        bests = [b for b in bests if b is not None]
        best = (min(bests) if sense == "min" else max(bests)) if bests else None
        reached = []
        for r in rs:
            rt = dict((k, (e, s)) for k, e, s in runtimes(r, fstar))
            reached.append(rt[SUCCESS_EXPONENT])
        hits = [s for e, s in reached if s is not None]
        inside = [inside_regions(r.get("x"), cert["regions"]) if cert else None for r in rs]
        certified = [first_reach(r, certified_target(cert, sense)) for r in rs] if cert else None
        certified_hits = None if certified is None else [s for _, s in certified if s is not None]
        certified_evals = None if certified is None else [e for e, s in certified if s is not None]
        out.append({
            "function": f, "dim": dim, "key": key, "method": rs[0]["method"], "rigorous": rigorous(rs[0]["method"], rs[0]),
            "repetitions": len(rs), "best": best, "fstar": fstar, "certificate": cert,
            "gap": certified_gap(best, cert, sense),
            "inside": None if not cert or cert["regions"] is None else sum(bool(i) for i in inside),
            "reached_fstar": len(hits), "median_seconds": float(np.median([r["measured"]["seconds"] for r in rs])),
            "median_seconds_to_target": float(np.median(hits)) if hits else None,
            # against the certificate (None without one): reached GLB + 1e-8, and how fast
            "certified_success": None if certified is None else len(certified_hits),
            "median_seconds_to_certified": float(np.median(certified_hits)) if certified_hits else None,
            "median_evaluations_to_certified": float(np.median(certified_evals)) if certified_evals else None,
            "settings": rs[0].get("settings", {}),
            "evaluations": int(np.median([r["measured"].get("evaluations") or 0 for r in rs])),
            # a peer's own bounds (MAiNGO: its lower bound not verified), one per run
            "own_bounds": list(dict.fromkeys(b for b in (own_bounds(r) for r in rs) if b)) or None,
        })
    return out


def section(doc, experiment, variant, recs, pub, figdir, reports, results=None):
    """The report section of a "compare" experiment: certified gaps, ECDFs, COCO files."""
    import pandas as pd
    from .document import MISSING, _bound, _num, _seconds
    if not recs:
        doc.p(f"Nothing stored for this setting: every figure is {MISSING}.")
        return
    certs = certificates(results)
    table = []
    all_rows = rows(recs, certs)
    own = any(row["own_bounds"] for row in all_rows)
    for row in all_rows:
        cert = row["certificate"]
        table.append({
            "Function": row["function"], "n": row["dim"], "Method": row["key"],
            "Kind": "rigorous" if row["rigorous"] else "heuristic",
            "Runs": row["repetitions"], "Best f": _num(row["best"], 10),
            "Certified [GLB, GUB]": f"[{_bound(cert['glb'])}, {_bound(cert['gub'])}]" if cert else NO_CERTIFICATE,
            "Certified gap": _num(row["gap"]) if cert else NO_CERTIFICATE,
            "In the solver's regions": (f"{row['inside']}/{row['repetitions']}" if row["inside"] is not None
                                        else ("regions not stored" if cert else NO_CERTIFICATE)),
            f"Reached f*+1e{SUCCESS_EXPONENT}": f"{row['reached_fstar']}/{row['repetitions']}",
            "Median time to 1e-8 (s)": _seconds(row["median_seconds_to_target"])
            if row["median_seconds_to_target"] is not None else "not reached",
            "Median time (s)": _seconds(row["median_seconds"]), "Median evaluations": _num(row["evaluations"]),
            **({"Its own [GLB, GUB]": "; ".join(row["own_bounds"]) if row["own_bounds"] else "-"} if own else {}),
        })
    doc.h(3, "Certified gaps")
    doc.p("The certified gap is how far a method's best value can be above the global minimum, by the "
          "rigorous solver's converged enclosure of the same function and dimension (best - GLB; "
          "GUB - best for a maximised function). 'no certificate': no converged rigorous record of that "
          "case is stored, and no f* is guessed. 'In the solver's regions': runs whose best point lies in "
          "an output region of the solver (the basin of a global minimiser)."
          + (" 'Its own [GLB, GUB]': the bounds a deterministic peer reports itself (MAiNGO): its best f is its "
             "point valued with gpubench's outward-rounded interval form (verified), its lower bound its own "
             "floating-point bound, labelled 'not verified': it certifies nothing here." if own else ""))
    doc.table(pd.DataFrame(table))
    doc.p("Where each certificate comes from: the converged record of a rigorous method, from any "
          "stored experiment, of the same problem (the library function with its box and parameters at "
          "that n; see gpubench.reports.compare.certifies). The narrowest of several is used.")
    doc.table(pd.DataFrame(_certificate_rows(recs, certs)))
    fstars = _fstars(recs)
    doc.h(3, "Time to target (runtime ECDFs)")
    doc.p("Targets f* + 10^k, k = 2 ... -8 (f* of the function library); the fraction of (function, n, "
          "target) pairs each method reached, against evaluations and against wall-clock seconds on the "
          "same machine, read from each run's trace (COCO's runtime ECDF; a method without a trace is "
          "credited at its end only).")
    for axis in ("evaluations", "seconds"):
        rel = f"figures/{experiment.id}-{variant}-ecdf-{axis}.png"
        _ecdf_figure(reports / rel, ecdf(recs, fstars, axis), axis, f"{experiment.id} ({variant}): {axis}")
        doc.img(rel, f"runtime ECDF, {axis}")
    coco = reports / "coco" / f"{experiment.id}-{variant}"
    written = write_coco(recs, fstars, coco)
    archive = zip_folder(coco)
    doc.p(f"COCO data (bbob-new2 layout, last column: seconds), one folder per method, readable by "
          f"cocopp and IOHanalyzer: `{archive.relative_to(reports)}` ({len(written)} data sets; the "
          f"archive IOHanalyzer uploads, kept in git; `gpubench report {experiment.id}` also writes "
          f"the same files unpacked in `{coco.relative_to(reports)}/`, which git ignores).")
    from .interop.ioh import write_ioh
    ioh = reports / "ioh" / f"{experiment.id}-{variant}"
    ioh_archive = zip_folder(ioh) if write_ioh(recs, fstars, ioh) else None
    if ioh_archive:
        doc.p(f"The same runs in IOHprofiler's format (IOHanalyzer, iohinspector; columns evaluations, "
              f"best value, seconds): `{ioh_archive.relative_to(reports)}` (docs/interop.md).")
    # the one-page summary follows the fullest setting stored (the full one is built after the quick one)
    v = experiment.variant(variant == "quick")
    page = summary(recs, certs, reports / "summary.md", grid=[(f, d) for f in v.functions for d in v.dims])
    doc.p(f"One-page summary for practitioners: [{page.name}]({page.name}) (from the {variant} setting).")


def _certificate_rows(records, certs):
    out = []
    for f, dim in sorted({(r["function"], int(r["dim"])) for r in records}):
        cert = certs.get((f, dim))
        out.append({"Function": f, "n": dim,
                    "GLB": _fmt_bound(cert["glb"]) if cert else NO_CERTIFICATE,
                    "GUB": _fmt_bound(cert["gub"]) if cert else NO_CERTIFICATE,
                    "Source (experiment: case)": source(cert)})
    return out


def _fmt_bound(v):
    from .document import _bound
    return _bound(v)


def summary(records, certs, path, grid=()):
    """The one page a practitioner reads first: reports/summary.md (and .html).

    ``grid``: the experiment's (function, n) pairs, shown (with their certificates) even
    where no method's record is stored yet."""
    import pandas as pd
    from .document import Doc, _bound, _seconds
    doc = Doc()
    doc.h(1, "gpubench: which method to use")
    doc.p("Every method of the comparison experiment (experiments/compare.toml) on the same functions "
          "and dimensions, from its stored records only. The certified minimum is a rigorous "
          "solver's converged enclosure [GLB, GUB] of the same problem (named by its source record); "
          "a run succeeds when its best value is at most GLB + 1e-8, so it is certainly within 1e-8 of "
          "the global minimum. Without a certificate nothing is claimed: 'no certificate', never a "
          "guessed f*. Times are median wall-clock seconds of the runs on the same machine (budgets: "
          "compare.md).")
    by_case = {tuple(g): [] for g in grid}
    for row in rows(records, certs):
        by_case.setdefault((row["function"], row["dim"]), []).append(row)
    keys = sorted({row["key"] for rs in by_case.values() for row in rs})
    best, detail = [], []
    for (f, dim), rs in sorted(by_case.items()):
        cert = certs.get((f, dim))
        ok = [r for r in rs if r["median_seconds_to_certified"] is not None]
        fastest = min(ok, key=lambda r: r["median_seconds_to_certified"]) if ok else None
        absent = len(keys) - len({r["key"] for r in rs}) if rs else 0
        among = f"; {absent} of {len(keys)} methods not stored" if absent else ""
        best.append({
            "Function": f, "n": dim,
            "Certified minimum [GLB, GUB]": f"[{_bound(cert['glb'])}, {_bound(cert['gub'])}]" if cert
            else NO_CERTIFICATE,
            "Fastest to GLB + 1e-8 (median s)": (
                f"{fastest['key']} ({_seconds(fastest['median_seconds_to_certified'])})" if fastest
                else (NO_CERTIFICATE if not cert else "none reached it" if rs else "no runs stored yet")) + among,
            "Certificate from": source(cert),
        })
        cells = {"Function": f, "n": dim}
        mine = {r["key"]: r for r in rs}
        for key in keys:
            r = mine.get(key)
            if r is None:
                cells[key] = "not stored"
            elif r["certified_success"] is None:
                cells[key] = f"no certificate; {_seconds(r['median_seconds'])} s"
            else:
                cells[key] = f"{r['certified_success']}/{r['repetitions']}; {_seconds(r['median_seconds'])} s"
        detail.append(cells)
    doc.table(pd.DataFrame(best))
    doc.h(2, "Each method: runs that reached GLB + 1e-8 / runs; median time of a run")
    doc.table(pd.DataFrame(detail))
    return _write_summary(path, doc)


def _write_summary(path, doc):
    """The one writer of a summary page: ``path`` (Markdown) and its HTML twin; returns the path."""
    from .document import _atomic_write
    path = Path(path)
    _atomic_write(path, doc.markdown())
    _atomic_write(path.with_suffix(".html"), doc.html("gpubench summary"))
    return path


def no_certificate_reason(records):
    """Why there is no certificate, as it happened: no rigorous method ran (heuristics only, e.g.
    ``--methods``), or those that ran did not converge within their budget."""
    if not any(rigorous(r["method"], r) for r in records):
        return "no rigorous method was run; the methods compared are heuristics"
    return "the rigorous method did not converge within its budget"


def _fmt(v, digits=4):
    if v is None:
        return "-"
    if isinstance(v, float) and not v.is_integer():
        return f"{v:.{digits}g}"
    return f"{int(v):,}"


def function_summary(path, function, dim, variant, records, cert, fstar, sense, source=None):
    """``gpubench compare``'s page (``OUT/summary.md`` and .html): every method on one function at
    one n, from the same rows (:func:`rows`) as the comparison's summary; returns the Markdown."""
    import pandas as pd
    from .document import Doc
    table = rows(records, {(function, int(dim)): cert} if cert else {})
    fastest = min((r for r in table if r["median_seconds_to_certified"] is not None),
                  key=lambda r: r["median_seconds_to_certified"], default=None)
    doc = Doc()
    doc.h(1, f"Which method for {function} at n = {dim}?")
    if source:
        doc.p(f"Function file: `{source}`.")
    doc.p(f"Every method of gpubench's comparison with the budgets of `experiments/compare.toml` "
          f"({variant} variant), {max((r['repetitions'] for r in table), default=0)} run(s) each (repetition r "
          "adds r to a method's seed), on the same machine.")
    if cert:
        tgt = "GLB + 1e-8" if sense == "min" else "GUB - 1e-8"
        doc.p(f"**Certified minimum**: [GLB, GUB] = [{cert['glb']:.12g}, {cert['gub']:.12g}] "
              f"(rigorous solve `{cert['case']}`). A run succeeds when its best value reaches "
              f"{tgt}: then it is certainly within 1e-8 of the global optimum.")
        doc.p(f"**Fastest to the target**: {fastest['key']} (median {_fmt(fastest['median_seconds_to_certified'])} s)."
              if fastest else "**Fastest to the target**: no method reached it.")
    else:
        doc.p(f"**Certified minimum**: no certificate ({no_certificate_reason(records)}); nothing is "
              f"claimed about the global minimum. The function's stated f* is {fstar!r}, not certified here.")
    doc.table(pd.DataFrame([{
        "Method": r["key"], "Runs": r["repetitions"],
        "Reached target": (f"{r['certified_success']}/{r['repetitions']}" if r["certified_success"] is not None
                           else NO_CERTIFICATE),
        "Median s to target": _fmt(r["median_seconds_to_certified"]),
        "Median evals to target": _fmt(r["median_evaluations_to_certified"]),
        "Median s per run": _fmt(r["median_seconds"]), "Best f": _fmt(r["best"], 10)} for r in table],
        columns=["Method", "Runs", "Reached target", "Median s to target", "Median evals to target",
                 "Median s per run", "Best f"]))
    doc.p("Budgets (each method's settings):")
    doc.items(f"{r['key']} ({r['method']}): " + (", ".join(f"{k}={v}" for k, v in sorted(r["settings"].items()))
                                                 or "defaults") for r in table)
    doc.p("Data: `records/` (one JSON record per run), `coco/` (cocopp), `ioh/` (IOHanalyzer); "
          "see docs/interop.md of gpubench.")
    _write_summary(path, doc)
    return doc.markdown()
