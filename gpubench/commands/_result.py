"""How ``gpubench solve`` and ``gpubench minimize`` print a result (text or one JSON object)."""
import json

from ._args import fmt

# at most this many output regions go into --json; all of them go to --regions FILE
JSON_REGIONS = 100


# below this, the time outside the method's own clock is not worth a mention
SETUP_SHOWN = 0.05


def _seconds(result, wall):
    """The method's own seconds, and the rest of the command's (code generation, compilation,
    loading kernels) when there is any: "0.00 s" for a 15 s command read as a wrong clock."""
    setup = None if wall is None else wall - result.seconds
    if setup is None or setup < SETUP_SHOWN:
        return f"{result.seconds:.2f} s"
    return f"{result.seconds:.2f} s solving + {setup:.2f} s compiling and setting up"


def show(result, as_json, regions_file=None, note=None, wall=None):
    """``wall``: the seconds the command spent on the run, set-up and compilation included."""
    if regions_file:
        result.save_regions(regions_file)
    if as_json:
        d = result.to_json(max_regions=JSON_REGIONS)
        if regions_file:
            d["regions_file"] = str(regions_file)
        if note:
            d["note"] = note
        if wall is not None:
            d["wall_seconds"] = wall
        print(json.dumps(d))
        return 0
    if note:
        print(f"note: {note}")
    print(f"{result.function}, n = {result.dim}, method {result.method}, backend {result.backend}: "
          f"{result.message}")
    if result.glb is not None:
        print(f"  optimum enclosed in [GLB, GUB] = [{fmt(result.glb)}, {fmt(result.gub)}]")
    if result.regions_lo is not None:
        print(f"  {result.n_regions} output region(s) after {result.iterations} iterations, "
              f"{_seconds(result, wall)}, {result.nfev} interval evaluations")
    else:
        print(f"  {result.iterations} iterations, {result.nfev} evaluations, {_seconds(result, wall)}")
    if result.fun is not None:
        print(f"  best f = {fmt(result.fun)}")
    if result.stop:  # the one vocabulary of gpubench.methods.monitor
        from ..methods.monitor import STOPS
        print(f"  stopped by: {result.stop} ({STOPS.get(result.stop, '')})")
    if result.x is not None and (not result.has_regions or result.stop == "interrupted"):
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
