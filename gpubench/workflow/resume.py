"""A case of ``gpubench reproduce`` resumed within itself: the runner's hook.

A case of hours (paper 004's Table 1 at the stated stop rule: up to 2 x 100,000 L-BFGS-B
iterations) outlasts one command on the GPU host.  A procedure that declares itself resumable
(``Procedure.resumable``; its function takes ``checkpoint=``) is handed a
:class:`~gpubench.methods.checkpoints.Checkpoint` at
``results/<experiment>/<case-id>.checkpoint.npz``, beside where its record will be.  The case
saves its whole state there every ``checkpoint_every`` seconds and at Ctrl-C or SIGTERM (then it
stops: the runner writes no record of an unfinished case), and the next command, on any machine,
reads it back and goes on.  Its record lists the commands' parts (``measured.segments``: the
iterations, seconds, wall seconds and environment of each) and sums their seconds; the checkpoint
is removed once the record is stored.  A registered method takes the same hook where it says
``Method.resumable`` (subdomain-bnb): its run is handed the Checkpoint as ``checkpoint=``.
"""
import sys
from pathlib import Path

CHECKPOINT_EVERY = 30.0   # seconds between a resumable case's checkpoints (reproduce --checkpoint-every)


def checkpoint_path(folder, case_id):
    """Where a resumable case keeps its checkpoint: beside its record, named by its case id."""
    return Path(folder) / f"{case_id}.checkpoint.npz"


def checkpoint(case, proc, folder, every=CHECKPOINT_EVERY):
    """The :class:`~gpubench.methods.checkpoints.Checkpoint` of ``case`` (its state read back where
    the file is there), or None for a procedure ``proc`` that is not resumable, or no ``folder``
    (a remote worker, whose disk is not the records')."""
    from ..methods.checkpoints import Checkpoint
    if folder is None or proc is None or not getattr(proc, "resumable", False):
        return None
    ck = Checkpoint(checkpoint_path(folder, case.case_id), {"case": case.case_id}, every=every)
    if ck.state is not None:
        done = ck.before[-1]["iterations"][1] if ck.before else 0
        print(f"case {case.case_id}: resumed from its checkpoint after {done} iteration(s) "
              f"({len(ck.before)} part(s) before this one)", file=sys.stderr, flush=True)
    return ck


def measured(values, ck):
    """A finished case's measured ``values``, with its parts where it ran in more than one
    (``resumed``, ``segments``) and the wall seconds summed over them (the seconds are summed by
    the procedure, whose state carries them)."""
    parts = ck.finished or []
    if len(parts) < 2:
        return values
    return {**values, "resumed": True, "segments": parts,
            "wall_seconds": sum(p.get("wall_seconds", 0.0) for p in parts)}
