"""The branch work behind paper 003's Table 5 on the CPU twin, beside a GPU record's batch times
(docs/opf.md, "Table 5: what carries the imbalance"):

    nice -n 10 python scripts/opf_branch_work.py CASE ITERATIONS [RECORD.json] [--save OUT.json]
                                                 [--checkpoint FILE.npz]

Runs the ADMM of CASE at the authors' settings (admm.AUTHORS_RUNS, TRON_AUTHORS, 6 blocks one after
another in one process, backend cpu) for ITERATIONS iterations and records, per iteration and block,
the TRON steps of the block's slowest branch.  With a GPU record of the same case it prints how far the
twin's residuals are from the record's, the record's stall-free batch time against those steps (least
squares), and how many of its stalls (gpubench.reports.admm_timing) fall on batches with little work.
2868rte, 800 iterations: about 2 minutes on a loaded CPU.  With ``--save OUT.json`` the steps (one row
per iteration, one column per block) are written with the command, the commit and the run's end: the
stored measurement a Table 5 verdict's branch-work figures are computed from
(``results/opf_branch_work/``, read by gpubench.reports.admm_timing.stored_work).
9241pegase's 30,935 iterations take hours on a 2-core host: with ``--checkpoint FILE.npz`` the run
(the ADMM's state and the steps counted so far) is saved every minute and at Ctrl-C or SIGTERM, and
the same command goes on from it (gpubench.methods.checkpoints, the format of `reproduce`'s cases).
"""
import json
import os
import subprocess
import sys

import numpy as np

from gpubench.methods import tron
from gpubench.methods.checkpoints import Checkpoint, Interrupted
from gpubench.methods.monitor import catch_interrupts, guard_interrupts
from gpubench.problems.opf import admm, matpower, model
from gpubench.reports import admm_timing

argv = sys.argv[1:]


def _option(name):
    """The value of ``name VALUE`` in argv (taken out of it), or None."""
    if name not in argv:
        return None
    i = argv.index(name)
    value = argv[i + 1]
    del argv[i:i + 2]
    return value


save, ckpt = _option("--save"), _option("--checkpoint")
case, iterations = argv[0], int(argv[1])
rho_pq, rho_va = admm.AUTHORS_RUNS[case][:2]
steps = []   # per block solve: the most TRON steps of one branch
_solve = tron.solve_batch


def _counting(*a, **k):
    res = _solve(*a, **k)
    if res.x.shape[0] > 1:      # the warm-up solves one branch
        steps.append(int(res.iterations.max()))
    return res


tron.solve_batch = _counting
settings = admm.Settings(rho_pq=rho_pq, rho_va=rho_va, max_iter=iterations, partitions=6, devices=1, backend="cpu")
resume, saver = None, None
if ckpt:
    # the fingerprint leaves ITERATIONS out: a run checkpointed with a smaller one goes on with a larger
    ck = Checkpoint(ckpt, {"script": "opf_branch_work", "case": case, "settings": admm.solve_settings(settings),
                           "rho": [rho_pq, rho_va]}, every=60.0)
    if ck.state is not None:
        resume = ck.state["admm"]
        steps.extend(int(v) for v in np.asarray(ck.state["steps"]).ravel())
        print(f"{case}: resumed from {ckpt} after {resume['iterations']} iterations", flush=True)
    ck.begin(resume["iterations"] if resume else 0, resume["seconds"] if resume else 0.0)

    def _save(take):
        def whole():
            st = take()
            return {"admm": st, "steps": np.array(steps, dtype=np.int64)}, st["iterations"], st["seconds"]
        ck.tick(whole)
    saver = _save
try:
    with guard_interrupts(), catch_interrupts():
        r = admm.solve(model.network(matpower.load(case)), settings, resume=resume, checkpoint=saver)
except Interrupted as stop:
    print(f"{case}: stopped; the checkpoint {stop} holds the run so far (the same command goes on from it)")
    sys.exit(130)
S = np.array(steps, dtype=float).reshape(r.iterations, 6)
late = S[10:]
print(f"{case}: {r.iterations} iterations ({r.stop}); the slowest branch of a block batch after iteration 10: "
      f"median {np.median(late):g}, 99.9 % {np.percentile(late, 99.9):g}, max {late.max():g} TRON steps")
print("per block, mean of the slowest branch's steps:", np.round(late.mean(axis=0), 3).tolist())
if save:
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    out = {"case": case, "iterations": r.iterations, "stop": r.stop, "partitions": 6, "backend": "cpu",
           "rho_pq": rho_pq, "rho_va": rho_va, "solve": "admm.TRON_AUTHORS", "commit": head,
           "command": "python scripts/opf_branch_work.py " + " ".join(sys.argv[1:]),
           "what": "per ADMM iteration (row) and block (column): the TRON steps of the block's slowest branch",
           "slowest_branch_steps": S.astype(int).tolist()}
    os.makedirs(os.path.dirname(os.path.abspath(save)), exist_ok=True)
    with open(save, "w") as fh:
        json.dump(out, fh, separators=(",", ":"))
    print("wrote", save)
    if ckpt:
        ck.discard()          # the run is finished and stored
if len(argv) > 2:
    rec = json.load(open(argv[2]))
    P = np.array(rec["result"]["partition_ms"])[:len(S)]
    hist, res = np.array(r.history), np.array(rec["result"]["residuals"])[:len(S)]
    print(f"the twin's primal residual vs the record's: largest relative difference "
          f"{np.max(np.abs(hist[:, 1] - res[:, 1]) / res[:, 1]):.2g}")
    stalled = (P - np.median(P, axis=0)) > admm_timing.STALL_MS
    quiet = ~stalled
    b, a = np.polyfit(S[quiet], P[quiet], 1)
    print(f"stall-free batch ms = {a:.3f} + {b:.4f} x steps; 1 ms over the median is {1 / b:.0f} more steps")
    s10, w10 = stalled[10:], late
    print(f"after iteration 10: {int(s10.sum())} stalls of {s10.size} batches, {int((s10 & (w10 <= 2)).sum())} "
          f"of them with at most 2 steps; batches with >= {1 / b:.0f} steps on the twin: {int((w10 >= 1 / b).sum())}")
