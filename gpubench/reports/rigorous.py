"""The report of layout "rigorous" (experiment ``rigorous_peers``): who proves what, in how long.

One row per (function, n): each entry's outcome and seconds, and its time over MAiNGO's where both
closed the matched gap.  An outcome is *proved* (a rigorous method converged to the gap: both bounds
verified), *closed, GLB not verified* (MAiNGO: its lower bound is floating point; its upper bound is
its point valued with the outward-rounded interval form), *converged, gap above 1e-4* (the interval
solver's regions all narrower than its tol, their gap still wider), or how the run stopped; the gap
GUB - GLB each ended with is shown, since the methods are asked for different things (an epsilon gap,
or a box width: the experiment's note says how they are made comparable).

The headline, per entry: in how many cases it proved the gap, where MAiNGO did not close it and
where MAiNGO did and the entry did not; on the cases both closed, how often it was faster and the
median (and range of) its time over MAiNGO's; then the best of gpubench's entries per case against
MAiNGO, the answer to "where is gpubench ahead, where MAiNGO, by how much".
"""
import math
import statistics

from .document import MISSING

PEER = "maingo"
GAP = 1e-4   # "proved to 1e-4": the matched tolerance of the experiment
NOT_VERIFIED = "GLB not verified"


def _gap(r):
    m = r["measured"]
    glb, gub = m.get("glb"), m.get("gub")
    return (gub - glb) if isinstance(glb, (int, float)) and isinstance(gub, (int, float)) else None


def _peer_like(r):
    """Whether a record states that one of its bounds is not verified (MAiNGO's)."""
    verified = (r.get("options") or {}).get("verified")
    return bool(verified) and not all(verified.values())


def closed(r):
    """Whether the run ended converged with GUB - GLB <= GAP (for MAiNGO: its GLB not verified)."""
    if r is None or not r["measured"].get("converged"):
        return False
    g = _gap(r)
    return g is not None and g <= GAP


def _outcome(r):
    m = r["measured"]
    gap = _gap(r)
    if closed(r):
        word = f"closed, {NOT_VERIFIED}" if _peer_like(r) else "proved"
    elif m.get("converged") and gap is None:
        # a record whose GLB or GUB was not finite (stored as null): nothing proved by it
        word = "converged, no finite " + ("GLB" if m.get("glb") is None else "GUB") + " stored"
    elif m.get("converged"):
        word = "converged, gap above 1e-4" + (f" ({NOT_VERIFIED})" if _peer_like(r) else "")
    else:
        word = f"stopped ({(m.get('message') or '').split(';')[0][:40]})"
    return word, gap


def _index(records):
    return {(r["key"], r["function"], r["dim"]): r for r in records}


def rows(records, planned):
    """Table rows (dicts) for the planned (function, n) pairs, and {entry: [ratio, ...]}: each
    entry's time over MAiNGO's on the cases both closed the gap."""
    by = _index(records)
    keys = list(dict.fromkeys(c.key for c in planned))
    pairs = list(dict.fromkeys((c.function, c.dim) for c in planned))
    out, ratios = [], {k: [] for k in keys if k != PEER}
    for f, n in pairs:
        row = {"function": f, "n": n}
        peer = by.get((PEER, f, n))
        peer_s = peer["measured"]["seconds"] if closed(peer) else None
        for k in keys:
            r = by.get((k, f, n))
            if r is None:
                row[k] = MISSING
                continue
            word, gap = _outcome(r)
            s = r["measured"]["seconds"]
            cell = f"{word}, {s:.3g} s" + (f", gap {gap:.2g}" if gap is not None and math.isfinite(gap) else "")
            if k != PEER and peer_s and closed(r):
                ratio = s / peer_s
                ratios[k].append(ratio)
                cell += f", x{ratio:.3g} of MAiNGO"
            row[k] = cell
        out.append(row)
    return out, ratios


def _ratio_words(rs):
    if not rs:
        return "no case both closed"
    faster = sum(r < 1 for r in rs)
    return (f"on the {len(rs)} case(s) both closed, faster in {faster}, slower in {len(rs) - faster}; "
            f"time over MAiNGO's: median {statistics.median(rs):.3g}, from {min(rs):.3g} to {max(rs):.3g}")


def headline(records, planned):
    """One line per entry, one for gpubench's best entry per case, one for MAiNGO."""
    by = _index(records)
    keys = [k for k in dict.fromkeys(c.key for c in planned) if k != PEER]
    lines = []
    for k in keys:
        mine = [(c.function, c.dim) for c in planned if c.key == k and (k, c.function, c.dim) in by]
        if not mine:
            lines.append(f"`{k}`: no case stored yet.")
            continue
        proved = [p for p in mine if closed(by[(k, *p)])]
        beyond = [p for p in proved if (PEER, *p) in by and not closed(by[(PEER, *p)])]
        behind = [p for p in mine if not closed(by[(k, *p)]) and closed(by.get((PEER, *p)))]
        _, ratios = rows(records, [c for c in planned if c.key in (k, PEER)])
        lines.append(f"`{k}`: proved to {GAP:g} in {len(proved)} of {len(mine)} stored case(s); "
                     f"{len(beyond)} where MAiNGO (stored) did not close the gap, {len(behind)} where MAiNGO did and it did "
                     f"not; {_ratio_words(ratios.get(k, []))}.")
    pairs = list(dict.fromkeys((c.function, c.dim) for c in planned))
    best = {}
    for p in pairs:
        done = [by[(k, *p)]["measured"]["seconds"] for k in keys if closed(by.get((k, *p)))]
        if done:
            best[p] = min(done)
    peer = [p for p in pairs if (PEER, *p) in by]
    if keys and (best or peer):
        both = [p for p in best if closed(by.get((PEER, *p)))]
        rs = [best[p] / by[(PEER, *p)]["measured"]["seconds"] for p in both]
        only_us = [p for p in best if (PEER, *p) in by and not closed(by[(PEER, *p)])]
        only_peer = [p for p in peer if closed(by[(PEER, *p)]) and p not in best
                     and any((k, *p) in by for k in keys)]
        lines.append(f"gpubench's best entry per case: proved in {len(best)} case(s); alone (MAiNGO stored, gap not "
                     f"closed) in {len(only_us)}" + (f" ({_names(only_us)})" if only_us else "")
                     + f"; MAiNGO alone (a gpubench entry stored, none proved) in {len(only_peer)}"
                     + (f" ({_names(only_peer)})" if only_peer else "") + f"; {_ratio_words(rs)}"
                     + (f"; by n, median time over MAiNGO's: {_by_n(both, rs)}" if rs else "") + ".")
    if peer:
        conv = [p for p in peer if closed(by[(PEER, *p)])]
        lines.append(f"`{PEER}`: closed the gap to {GAP:g} in {len(conv)} of {len(peer)} stored case(s); its lower "
                     f"bound is its own floating-point bound ({NOT_VERIFIED}), its upper bound its point valued "
                     f"with the outward-rounded interval form: a closed gap is MAiNGO's claim, not a proof."
                     + _above_fstar([by[(PEER, *p)] for p in peer]))
    return lines


def _above_fstar(recs):
    """Where MAiNGO's GLB lies above the library's stated f* (a lower bound wrong by rounding)."""
    above = [(r["function"], r["dim"], r["measured"]["glb"] - r["fstar"]) for r in recs
             if isinstance(r.get("fstar"), (int, float)) and isinstance(r["measured"].get("glb"), (int, float))
             and r["measured"]["glb"] > r["fstar"]]
    if not above:
        return ""
    return (f" Its GLB lies above the library's f* in {len(above)} case(s) (" + ", ".join(
        f"{f} n={n} by {d:.2g}" for f, n, d in above) + "): a lower bound wrong by rounding, as a floating-point "
        "bound may be.")


def _by_n(pairs, ratios):
    """'n=2: 0.5 (11 cases), ...': the median ratio at each n."""
    at = {}
    for (_, n), r in zip(pairs, ratios):
        at.setdefault(n, []).append(r)
    return ", ".join(f"n={n}: {statistics.median(v):.3g} ({len(v)})" for n, v in sorted(at.items()))


def _names(pairs, limit=8):
    shown = ", ".join(f"{f} n={n}" for f, n in pairs[:limit])
    return shown + (f", ... ({len(pairs)} in all)" if len(pairs) > limit else "")


def section(doc, experiment, variant, records, pub, figdir, reports, results=None):
    import pandas as pd
    from ..workflow.runner import plan
    planned = plan(experiment, quick=variant == "quick")
    recs = [r for r in records if r.get("variant", variant) == variant]
    doc.h(3, "Who proves what")
    doc.items(headline(recs, planned))
    doc.p("Each cell: outcome, seconds, the gap GUB - GLB the run ended with, and its time over MAiNGO's "
          "where both closed the gap to 1e-4 (below 1: faster than MAiNGO). 'proved': a rigorous method "
          f"converged with GUB - GLB <= 1e-4, both bounds verified; MAiNGO's 'closed, {NOT_VERIFIED}': its "
          "lower bound is its own floating-point bound, its upper bound its point valued with the "
          "outward-rounded interval form. 'converged, gap above 1e-4': every region of the interval solver "
          "narrower than its tol, their gap still wider than 1e-4 (not proved to the matched gap). 'converged, "
          "no finite GLB stored': the run said it converged but its record holds no finite lower bound (a "
          "non-finite value is stored as null), so it proves nothing here.")
    table, _ = rows(recs, planned)
    doc.table(pd.DataFrame(table))
