"""Paper 003 Table 5's ADMM resumes within itself (issue 37: the authors' runs take 5,648 to
41,126 iterations, more than one command on the GPU host): its whole state is checkpointed and a
later command goes on from it to the figures of a run never stopped, bit for bit (timings aside).
Tiny cases on the CPU twin (case5, a few dozen iterations)."""
import signal

import numpy as np
import pytest

from gpubench.errors import InputError
from gpubench.methods.checkpoints import Checkpoint
from gpubench.problems.opf import admm, matpower, model
from gpubench.problems.opf_rows import admm_opf
from gpubench.workflow import experiments_loader as loader
from gpubench.workflow import resume, runner

ITS = 30
# what a run must end with, whichever command ran which part of it
SAME = ("iterations", "stop", "objective", "primal_residual", "dual_residual", "eps_primal", "eps_dual",
        "tron_failures", "history", "rho_pq", "rho_va", "devices")
ARRAYS = ("pg", "qg", "x", "w", "theta", "tron_iterations")


class Killed(Exception):
    """A kill right after a checkpoint was written (what SIGKILL leaves: the last save)."""


@pytest.fixture(scope="module")
def case5():
    return model.network(matpower.load("case5"))


def _killed_at(path, k):
    """A checkpoint callable that saves the state at its k-th call into ``path``, then dies."""
    ck, seen = Checkpoint(path, {"case": "c"}, every=600.0), {"k": 0}

    def tick(take):
        seen["k"] += 1
        if seen["k"] == k:
            ck.save(take(), k, 0.0)
            raise Killed
    return tick


def _same(a, b):
    for k in SAME:
        assert getattr(a, k) == getattr(b, k), k
    for k in ARRAYS:
        assert np.array_equal(getattr(a, k), getattr(b, k)), k
    assert a.partition_seconds.shape == b.partition_seconds.shape


@pytest.mark.parametrize("partitions", [2])
def test_the_admm_resumed_from_its_checkpoint_file_is_bit_for_bit_the_straight_run(case5, tmp_path, partitions):
    straight = admm.solve(case5, max_iter=ITS, partitions=partitions, rho_pq=10.0, rho_va=1000.0)
    assert straight.stop == "iterations"
    path = tmp_path / "run.npz"
    with pytest.raises(Killed):
        admm.solve(case5, max_iter=ITS, partitions=partitions, rho_pq=10.0, rho_va=1000.0,
                   checkpoint=_killed_at(path, 17))
    state = Checkpoint(path, {"case": "c"}).state          # read back from the file
    assert state["iterations"] == 17 and state["lbr"].shape == (case5.nbranch, 8)
    assert state["partition_seconds"].shape == (17, partitions) and len(state["history"]) == 17
    resumed = admm.solve(case5, max_iter=ITS, partitions=partitions, rho_pq=10.0, rho_va=1000.0, resume=state)
    _same(resumed, straight)
    assert resumed.seconds >= state["seconds"]
    # the multipliers are part of the state: a resume without them takes another path
    bare = {**state, "lbr": np.zeros_like(state["lbr"])}
    other = admm.solve(case5, max_iter=ITS, partitions=partitions, rho_pq=10.0, rho_va=1000.0, resume=bare)
    assert other.history[-1] != straight.history[-1]
    # a state of another run is refused, in one line
    for bad in ({"rho_pq": 400.0}, {"max_iter": 10}):
        kw = {**dict(max_iter=ITS, partitions=partitions, rho_pq=10.0, rho_va=1000.0), **bad}
        with pytest.raises(InputError, match="admm: the state to resume"):
            admm.solve(case5, resume=state, **kw)


def test_a_state_saved_at_the_last_iteration_resumes_to_the_same_end(case5, tmp_path):
    """A kill after the last iteration's save, before the record was stored: the next command
    runs no iteration and ends with the same figures."""
    straight = admm.solve(case5, max_iter=5)
    with pytest.raises(Killed):
        admm.solve(case5, max_iter=5, checkpoint=_killed_at(tmp_path / "end.npz", 5))
    resumed = admm.solve(case5, max_iter=5, resume=Checkpoint(tmp_path / "end.npz", {"case": "c"}).state)
    _same(resumed, straight)


def _experiment(folder, iterations):
    folder.mkdir()
    path = folder / "t5.toml"
    path.write_text(f"""id = "t5"
title = "Table 5, one tiny case"
source = "a test"
layout = "admm"

[methods.admm]
method = "admm-opf"
devices = 1
backend = "cpu"

[[problems]]
problem = "opf:case5"
n = [2]
iterations = {iterations}
rho_pq = 10.0
rho_va = 1000.0

[quick]
note = "the same"
""")
    return loader.load(str(path))


def test_a_table5_case_stopped_by_a_signal_resumes_in_the_next_command_to_the_straight_figures(tmp_path, monkeypatch):
    """Through the runner (``gpubench reproduce``'s path): Ctrl-C at the 12th iteration saves the
    checkpoint beside where the record goes and ends the command, no record written; the next
    command goes on from it; the record's figures are those of a run never stopped."""
    e = _experiment(tmp_path / "exp", ITS)
    case, = runner.plan(e)
    assert case.settings == {"devices": 1, "backend": "cpu", "iterations": ITS, "rho_pq": 10.0, "rho_va": 1000.0}
    folder = tmp_path / "res"
    folder.mkdir()
    real, seen = Checkpoint.tick, {"k": 0}

    def tick(self, take):
        seen["k"] += 1
        if seen["k"] == 12:
            signal.raise_signal(signal.SIGINT)      # the runner's handler: stop at the next check
        real(self, take)
    monkeypatch.setattr(Checkpoint, "tick", tick)
    with pytest.raises(KeyboardInterrupt):
        runner.run_case(case, folder, checkpoint_every=600.0)
    ckpt = resume.checkpoint_path(folder, case.case_id)
    assert ckpt.exists() and not list(folder.glob("*.json"))
    assert Checkpoint(ckpt, {"case": case.case_id}).state["iterations"] == 12
    monkeypatch.setattr(Checkpoint, "tick", real)
    rec = runner.run_case(case, folder, checkpoint_every=600.0)
    m0, r0 = admm_opf("opf:case5", 2, {**case.settings})
    m = rec["measured"]
    for k in ("iterations", "stop", "objective", "primal_residual", "dual_residual", "tron_failures",
              "rho_pq", "rho_va", "start"):
        assert m[k] == m0[k], k
    assert rec["result"]["residuals"] == r0["residuals"] and m["start"] == "authors"
    assert m["resumed"] and [s["iterations"] for s in m["segments"]] == [[0, 12], [12, ITS]]
    assert m["seconds"] == pytest.approx(sum(s["seconds"] for s in m["segments"]))
    assert len(rec["result"]["partition_ms"]) == ITS


def test_the_procedure_takes_the_penalties_given(case5):
    given, _ = admm_opf("opf:case5", 1, {"iterations": 1, "devices": 1, "backend": "cpu", "rho_pq": 10.0,
                                         "rho_va": 1000.0})
    assert (given["rho_pq"], given["rho_va"], given["start"]) == (10.0, 1000.0, "authors")
    # devices = 0 (Table 5's entry: every GPU of the machine) is one device on the CPU
    every, _ = admm_opf("opf:case5", 2, {"iterations": 1, "devices": 0, "backend": "cpu", "rho_pq": 0.0, "rho_va": 0.0})
    assert every["devices"] == 1 and (every["rho_pq"], every["rho_va"]) == (400.0, 40000.0)
    with pytest.raises(InputError, match="rho_pq"):
        admm_opf("opf:case5", 1, {"iterations": 1, "devices": 1, "backend": "cpu", "rho_pq": -1.0, "rho_va": 0.0})
