"""The report of layout "rigorous" (experiment ``rigorous_peers``): who proves what, in how long.

One row per (function, n): each entry's outcome and seconds, and its time over MAiNGO's where both
ended converged.  An outcome is *proved* (a rigorous method converged: both bounds verified),
*converged, not verified* (MAiNGO: its lower bound is floating point), or how the run stopped; the
gap GUB - GLB each ended with is shown, since the methods are asked for different things (an epsilon
gap, or a box width: the experiment's note says how they are made comparable).  Then the headline:
per entry, in how many cases it proved where MAiNGO converged or did not, and the median ratio.
"""
import math
import statistics

from .document import MISSING

PEER = "maingo"
GAP = 1e-4   # "proved to 1e-4": the matched tolerance of the experiment


def _outcome(r):
    m = r["measured"]
    glb, gub = m.get("glb"), m.get("gub")
    gap = (gub - glb) if isinstance(glb, (int, float)) and isinstance(gub, (int, float)) else None
    verified = (r.get("options") or {}).get("verified")
    if m.get("converged"):
        word = "converged, not verified" if verified and not all(verified.values()) else "proved"
    else:
        word = f"stopped ({(m.get('message') or '').split(';')[0][:40]})"
    return word, gap


def rows(records, planned):
    """Table rows (dicts) for the planned (function, n) pairs, and {entry: [ratio, ...]}."""
    by = {(r["key"], r["function"], r["dim"]): r for r in records}
    keys = list(dict.fromkeys(c.key for c in planned))
    pairs = list(dict.fromkeys((c.function, c.dim) for c in planned))
    out, ratios = [], {k: [] for k in keys if k != PEER}
    for f, n in pairs:
        row = {"function": f, "n": n}
        peer = by.get((PEER, f, n))
        peer_s = peer["measured"]["seconds"] if peer and peer["measured"].get("converged") else None
        for k in keys:
            r = by.get((k, f, n))
            if r is None:
                row[k] = MISSING
                continue
            word, gap = _outcome(r)
            s = r["measured"]["seconds"]
            cell = f"{word}, {s:.3g} s" + (f", gap {gap:.2g}" if gap is not None and math.isfinite(gap) else "")
            if k != PEER and peer_s and r["measured"].get("converged"):
                ratio = s / peer_s
                ratios[k].append(ratio)
                cell += f", x{ratio:.3g} of MAiNGO"
            row[k] = cell
        out.append(row)
    return out, ratios


def headline(records, planned):
    """One line per entry: cases proved (to GAP), where MAiNGO did not converge, median time ratio."""
    by = {(r["key"], r["function"], r["dim"]): r for r in records}
    keys = [k for k in dict.fromkeys(c.key for c in planned) if k != PEER]
    lines = []
    for k in keys:
        mine = [(c.function, c.dim) for c in planned if c.key == k and (k, c.function, c.dim) in by]
        proved = [p for p in mine if by[(k, *p)]["measured"].get("converged")
                  and (_outcome(by[(k, *p)])[1] or math.inf) <= GAP]
        beyond = [p for p in proved if not (by.get((PEER, *p)) or {}).get("measured", {}).get("converged")]
        _, ratios = rows(records, [c for c in planned if c.key in (k, PEER)])
        rs = ratios.get(k, [])
        med = f"median time {statistics.median(rs):.3g}x MAiNGO's over {len(rs)} case(s) both ended" if rs else \
            "no case both ended"
        lines.append(f"`{k}`: proved to {GAP:g} in {len(proved)} of {len(mine)} stored case(s), "
                     f"{len(beyond)} of them where MAiNGO did not converge; {med}.")
    peer = [(c.function, c.dim) for c in planned if c.key == PEER and (PEER, c.function, c.dim) in by]
    if peer:
        conv = [p for p in peer if by[(PEER, *p)]["measured"].get("converged")]
        lines.append(f"`{PEER}`: converged (lower bound not verified) in {len(conv)} of {len(peer)} stored case(s).")
    return lines


def section(doc, experiment, variant, records, pub, figdir, reports, results=None):
    import pandas as pd
    from ..workflow.runner import plan
    planned = plan(experiment, quick=variant == "quick")
    recs = [r for r in records if r.get("variant", variant) == variant]
    doc.h(3, "Who proves what")
    doc.items(headline(recs, planned))
    doc.p("Each cell: outcome, seconds, the gap GUB - GLB the run ended with, and its time over MAiNGO's "
          "where both converged (below 1: faster than MAiNGO). 'proved': a rigorous method converged, both "
          "bounds verified; MAiNGO's 'converged, not verified': its lower bound is its own floating-point "
          "bound, its upper bound its point valued with the outward-rounded interval form.")
    table, _ = rows(recs, planned)
    doc.table(pd.DataFrame(table))
