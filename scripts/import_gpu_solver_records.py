"""Store GPU-host solver runs (scripts/gpu_solver_runs.py output) as experiment records.

    python scripts/import_gpu_solver_records.py results/gpu/solver_h100_run2.jsonl ...

Each JSON line is one real solve on the GPU host, with its environment.  It
becomes the record of the matching case of the paper-000 experiment of its
function (Table 2 for Levy, S2-S11, S14), full variant, in the runner's format,
so reports show it next to the published figures.  Only runs made with the
experiment's own settings are stored (a run with another sample spacing is not
a case of the experiment); ``provenance`` names the source file.  A case
already stored is left alone, as the runner would.
"""
import gzip
import json
import os
import sys

import numpy as np

from gpubench import experiments_loader, functions, runner
from gpubench.result import OptimizeResult

TABLE_OF = {"levy": "table2", "ackley": "tableS2", "belegundu": "tableS3", "breiman": "tableS4",
            "fu": "tableS5", "griewank": "tableS6", "rastrigin": "tableS7", "salomon": "tableS8",
            "styblinski": "tableS9", "zabinsky": "tableS10", "rosenbrock": "tableS11",
            "levy_delta": "tableS14"}
SOLVER_SETTINGS = ("split_dims", "parts", "tol", "samples")


def _options(rec):
    """The solve's settings; a run that spanned commands (scripts/gpu_scale.py) paused through
    time_limit, which is the command's deadline, not a setting of the experiment."""
    opts = dict(rec["settings"])
    if "commands" in rec:
        opts["time_limit"] = None
    return opts


def _result(rec):
    regions = rec["regions"]
    return OptimizeResult(
        function=rec["function"], dim=rec["dim"], method="interval", backend=rec["backend"],
        x=None, fun=rec["fun"], glb=rec["glb"], gub=rec["gub"],
        regions_lo=np.array([r["lo"] for r in regions]), regions_hi=np.array([r["hi"] for r in regions]),
        iterations=rec["iterations"], nfev=rec["nfev"], njev=rec["njev"],
        seconds=rec["solver_seconds_warm"], converged=rec["converged"],
        message="converged: every region is narrower than tol" if rec["converged"] else "",
        history=rec["history"], timing=rec.get("timing", {}), options=_options(rec))


def main(paths, results=None):
    folder_root = runner.results_dir(results)
    stored = skipped = 0
    for path in paths:
        # the stored record files are gzipped (a few of them hold every iteration's history)
        for line in (gzip.open(path, 'rt') if str(path).endswith('.gz') else open(path)):
            rec = json.loads(line)
            # a solve is a case of its function's own table and, at n = 1,000, of Table 1 too
            for table in (TABLE_OF[rec["function"]], "table1"):
                s, k = _store(rec, experiments_loader.load(table), folder_root, path)
                stored += s
                skipped += k
    print(f"stored {stored} records, skipped {skipped} (other settings, other tables or already stored)")


def _store(rec, exp, folder_root, path):
    cases = [c for c in runner.plan(exp) if c.function == rec["function"] and c.dim == rec["dim"]]
    opts = rec["settings"]
    match = [c for c in cases
             if all(c.settings.get(k) == opts.get(k) for k in SOLVER_SETTINGS)
             and c.settings.get("spacing", "inside") == opts.get("spacing", "inside")]
    if not match:
        return 0, 1
    case = match[0]
    folder = os.path.join(folder_root, case.experiment)
    if case.case_id in runner.stored_cases(folder):
        return 0, 1
    fn = functions.get(rec["function"])
    record = runner.make_record(
        case, fn, _result(rec), wall=min(rec["seconds_warm"]),
        warm=rec["seconds_first_iteration_cold"], env=rec["environment"],
        provenance=f"imported from {os.path.basename(path)} (scripts/gpu_solver_runs.py on the GPU host)")
    runner.write_record(folder, record)
    return 1, 0


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description="Store the GPU host's solver records (JSON lines, or gzipped) as runner records.")
    ap.add_argument("paths", nargs="+", metavar="JSONL")
    args = ap.parse_args()
    missing = [p for p in args.paths if not os.path.isfile(p)]
    if missing:
        sys.exit(f"import_gpu_solver_records: no such file: {missing[0]}")
    main(args.paths)
