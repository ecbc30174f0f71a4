"""Time typed-in solves of the device loop at several register caps and shared memory carveouts (GPU host).

    python3 benchmarks/profiling/loop_caps.py OUT [FUNCTION N] [--caps 64,128,96,0] [--carveouts -1,25]

For each (cap, carveout) it runs ``python3 -m gpubench solve FUNCTION --dim N --json`` twice in new
processes with ``GPUBENCH_LOOP_REGISTERS`` and ``GPUBENCH_LOOP_CARVEOUT`` set (the first compiles that
variant's kernel, the second is the warm one kept), writes each answer to OUT and prints and stores
(OUT/summary.json) the warm solve's seconds with its iterations and regions, which must not change with
the setting (registers and carveout change where values live, not the operations).  Ranks the
settings for docs/solver-scaling.md ("Registers, spills and local memory of the device loop").
"""
import json
import os
import subprocess
import sys
import time


def solve(function, n, cap, carveout, path):
    env = dict(os.environ, GPUBENCH_LOOP_REGISTERS=str(cap), GPUBENCH_LOOP_CARVEOUT=str(carveout))
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "gpubench", "solve", function, "--dim", str(n), "--json"],
                       env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    with open(path, "w") as f:
        f.write(p.stdout)
    with open(path + ".err", "w") as f:
        f.write(p.stderr)
    if p.returncode != 0:
        return {"cap": cap, "carveout": carveout, "error": p.stderr.strip().splitlines()[-1:]}
    r = json.loads(p.stdout)
    return {"cap": cap, "carveout": carveout, "seconds": r["seconds"], "wall": wall, "iterations": r["iterations"],
            "regions": r.get("n_regions"), "glb": r["glb"], "gub": r["gub"]}


def main(argv):
    caps, carveouts, rest = "64,128,96,0", "-1,25", []
    i = 0
    while i < len(argv):
        if argv[i] in ("--caps", "--carveouts"):
            caps, carveouts = (argv[i + 1], carveouts) if argv[i] == "--caps" else (caps, argv[i + 1])
            i += 2
        else:
            rest.append(argv[i])
            i += 1
    out = rest[0]
    function = rest[1] if len(rest) > 1 else "levy"
    n = int(rest[2]) if len(rest) > 2 else 1000
    os.makedirs(out, exist_ok=True)
    rows = []
    for cap in (int(v) for v in caps.split(",")):
        for c in (int(v) for v in carveouts.split(",")):
            stem = os.path.join(out, f"{function}{n}_r{cap}_c{c}")
            solve(function, n, cap, c, stem + "_cold.json")
            row = solve(function, n, cap, c, stem + "_warm.json")
            rows.append(row)
            print(json.dumps(row), flush=True)
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump({"function": function, "dim": n, "runs": rows}, f, indent=1)
    done = sorted((r for r in rows if "seconds" in r), key=lambda r: r["seconds"])
    for r in done:
        print(f"cap {r['cap'] or 'none':>4}  carveout {r['carveout']:>3}  {r['seconds']:.3f} s  "
              f"{r['iterations']} iterations, {r['regions']} regions")


if __name__ == "__main__":
    main(sys.argv[1:])
