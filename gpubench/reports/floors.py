"""The "At the memory floor" section of the device rows' reports: each GPU record the models of
:mod:`gpubench.problems.floors` cover (an L-BFGS-B iteration on torsion, a batched Cholesky call,
an hs45 batch) with the bytes its unit of work moves, the bandwidth it is divided by (a copy timed
in the same run, else the GPU's nominal rate, labelled so), the time those bytes take, and the
measured time as a multiple of it."""
from ..problems import floors
from .document import MISSING

INTRO = {
    "iteration": "Bytes an iteration of lbfgsb-gpu's fused path moves on torsion (gpubench.problems.floors."
                 "lbfgsb_bytes; docs/peers.md, 'At the memory floor'): (38 + 6 m + 10 e) n doubles with m "
                 "history pairs and e line-search evaluations an iteration, every coordinate free (the most "
                 "these kernels move: a CPU run of the same problem had 0.67 of them free on average, 11 % "
                 "fewer bytes); e is the record's own count where it holds one, else 1 (the first trial "
                 "accepted: a lower bound). jaxopt's rows are "
                 "divided by the same bytes: its own traffic is not modelled. Where the arrays fit in the L2 "
                 "(n up to about 10^5), DRAM is not the limit: the multiple there measures launches and the "
                 "host's reads, not bandwidth.",
    "call": "Bytes one batched Cholesky call moves (gpubench.problems.floors.cholesky_bytes): per matrix A "
            "read and L written, n^2 doubles each way where the kernel moves the whole column-major matrix "
            "(left, right, warp, thread; torch's input and its new output), n (n + 1) / 2 where it moves the lower "
            "triangle (the lanes kernels, and auto, which runs gpubench.kernels.chol_small.AUTO), plus a 4-byte flag.",
    "batch": "Bytes one TRON launch on the hs45-type batch must move (gpubench.problems.floors.hs45_bytes): per "
             "problem x0, the bounds and the divisors read and x with five outputs written; the work space of "
             "memory = global is not counted. The multiple shows how far the batch is from being bound by "
             "memory at all.",
}


def _mb(b):
    return f"{b / 1e6:.4g}"


def _x(ms, floor_ms):
    if not (ms and floor_ms):
        return MISSING
    x = ms / floor_ms
    return f"{x:.3g}" if x < 1000 else f"{x:.0f}"


def rows(records):
    """One row per GPU record a floor model covers, sorted by unit, problem, n and entry."""
    out = []
    for r in records:
        f = floors.floor_of(r)
        if f is None:
            continue
        m = r["measured"]
        ms = m.get("ms_per_iteration") if f["unit"] == "iteration" else m.get("ms")
        row = {"unit": f["unit"], "Problem": r["function"], "n": r["dim"], "Entry": r["key"],
               f"MB / {f['unit']}": _mb(f["bytes"]),
               "GB/s": MISSING if f["gbps"] is None else f"{f['gbps']:.0f}", "bandwidth": f["source"],
               "floor µs": MISSING if f["floor_ms"] is None else f"{1e3 * f['floor_ms']:.4g}",
               "ms": MISSING if ms is None else f"{ms:.4g}", "x floor": _x(ms, f["floor_ms"])}
        if f["unit"] == "iteration":
            row["evaluations / iteration"] = (f"{f['model']['evaluations']:.3g}" if f["model"]["evaluations_counted"]
                                              else "1 (not counted)")
        if m.get("ms_pipelined"):
            row["ms pipelined"] = f"{m['ms_pipelined']:.4g}"
            row["x floor pipelined"] = _x(m["ms_pipelined"], f["floor_ms"])
        out.append(row)
    return sorted(out, key=lambda x: (x["unit"], x["Problem"], x["n"], x["Entry"]))


def section(doc, records):
    """The section, one table per unit of work; nothing when no record is covered."""
    import pandas as pd
    found = rows(records)
    if not found:
        return
    doc.h(3, "At the memory floor")
    doc.p("Each GPU row's bytes over the bandwidth: 'copy, same run' is a copy kernel over 256 MiB timed in "
          "the row's own call (gpubench.problems.floors.same_run_copy, bytes read plus written); 'nominal' is "
          "the GPU's HBM rate by NVIDIA's data sheet (H200 4.8 TB/s, H100 SXM 3.35 TB/s), used where the "
          "record holds no copy. 'floor µs' is the bytes' time at that bandwidth, 'x floor' the measured time "
          "over it: 1 would be the bytes moved at that bandwidth and nothing else.")
    for unit in ("iteration", "call", "batch"):
        part = [{k: v for k, v in row.items() if k != "unit"} for row in found if row["unit"] == unit]
        if part:
            doc.p(INTRO[unit])
            doc.table(pd.DataFrame(part).fillna(MISSING))
