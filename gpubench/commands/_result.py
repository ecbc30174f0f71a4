"""How ``gpubench solve`` and ``gpubench minimize`` print a result (text or one JSON object)."""
import json

from ._args import fmt

# at most this many output regions go into --json; all of them go to --regions FILE
JSON_REGIONS = 100


def show(result, as_json, regions_file=None, note=None):
    if regions_file:
        result.save_regions(regions_file)
    if as_json:
        d = result.to_json(max_regions=JSON_REGIONS)
        if regions_file:
            d["regions_file"] = str(regions_file)
        if note:
            d["note"] = note
        print(json.dumps(d))
        return 0
    if note:
        print(f"note: {note}")
    print(f"{result.function}, n = {result.dim}, method {result.method}, backend {result.backend}: "
          f"{result.message}")
    if result.glb is not None:
        print(f"  optimum enclosed in [GLB, GUB] = [{fmt(result.glb)}, {fmt(result.gub)}]")
        print(f"  {result.n_regions} output region(s) after {result.iterations} iterations, "
              f"{result.seconds:.2f} s, {result.nfev} interval evaluations")
    else:
        print(f"  {result.iterations} iterations, {result.nfev} evaluations, {result.seconds:.2f} s")
    if result.fun is not None:
        print(f"  best f = {fmt(result.fun)}")
    if result.stop:  # the one vocabulary of gpubench.monitor
        from ..monitor import STOPS
        print(f"  stopped by: {result.stop} ({STOPS.get(result.stop, '')})")
    if result.x is not None and (result.glb is None or result.stop == "interrupted"):
        x = list(result.x)
        print("  at x = (" + ", ".join(f"{v:.8g}" for v in x[:6]) + (", ..." if len(x) > 6 else "") + ")")
    for k, r in enumerate(result.regions(limit=5)):
        lo, hi = r["lo"], r["hi"]
        print(f"  region {k + 1}: " + ", ".join(f"[{a:.8g}, {b:.8g}]" for a, b in zip(lo[:4], hi[:4]))
              + (" ..." if len(lo) > 4 else ""))
    if result.n_regions > 5:
        print(f"  ... and {result.n_regions - 5} more (--regions FILE writes them all)")
    if regions_file:
        print(f"  regions written to {regions_file}")
    return 0
