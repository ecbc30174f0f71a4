"""A case of paper 004's Table 1 resumes within itself (issue 37): its L-BFGS-B run is checkpointed
(the iterate, the memory pairs, the counts, the (t_c, t*) log) and a later command goes on from the
checkpoint with the same arithmetic, so the record is the one an uninterrupted run writes."""
import io
import os
import signal
import sys
from pathlib import Path

import numpy as np
import pytest

from child_process import child, signal_and_time, wait_for
from gpubench.errors import InputError
from gpubench.methods.checkpoints import Checkpoint, Interrupted
from gpubench.methods.lbfgsb import core
from gpubench.problems import lbfgsb_rows, minpack2
from gpubench.reports.verdict import invalidity
from gpubench.workflow import experiments_loader as loader
from gpubench.workflow import runner

ROOT = Path(__file__).resolve().parents[1]
RULE = dict(m=5, pg_rel=1e-5, stop="energy_decrease", energy_tol=1e-64, maxiter=100000, box=1.0, backend="cpu")
GL1 = "minpack2:ginzburg-landau-1d"
# a case of about 0.4 s here: still running when the signal comes at its first checkpoint
N_SIGNAL = 200


class Killed(Exception):
    """A kill right after a checkpoint was written (what SIGKILL leaves: the last save)."""


def _killed_after(ck, k):
    """``ck`` killed at its k-th call, right after a save there (it saves when due before)."""
    real, seen = ck.tick, {"k": 0}

    def tick(take):
        seen["k"] += 1
        if seen["k"] == k:
            ck.save(*take())
            raise Killed
        real(take)
    ck.tick = tick
    return ck


@pytest.mark.parametrize("cauchy", ["approximate", "exact"])
def test_the_lbfgsb_loop_resumed_from_its_checkpoint_file_is_bit_for_bit_the_straight_run(tmp_path, cauchy):
    p = minpack2.make("ginzburg-landau-1d", 100, box=1.0)
    kw = dict(m=5, pgtol=0.0, factr=0.0, maxiter=100000, maxfun=10 ** 6, cauchy=cauchy, backend=np,
              record_cauchy=True, ftol_abs=1e-64)
    straight = core.minimize(p.fg, p.x0, p.lo, p.hi, **kw)
    ck = _killed_after(Checkpoint(tmp_path / "run.npz", {"case": cauchy}, every=600.0), 57)

    def save(snapshot):
        ck.tick(lambda: (snapshot(), 0, 0.0))
    with pytest.raises(Killed):
        core.minimize(p.fg, p.x0, p.lo, p.hi, checkpoint=save, **kw)
    state = Checkpoint(tmp_path / "run.npz", {"case": cauchy}).state    # read back from the file
    assert state["nit"] == 57 and state["memory"]["YS"].shape == (10, 100)
    resumed = core.minimize(p.fg, p.x0, p.lo, p.hi, resume=state, **kw)
    assert straight.iterations > 100
    assert (resumed.iterations, resumed.nfev, resumed.message) == (straight.iterations, straight.nfev, straight.message)
    assert np.array_equal(resumed.x, straight.x) and resumed.fun == straight.fun
    assert resumed.cauchy == straight.cauchy
    # the memory pairs are part of the state: a resume without them takes another path
    bare = {**state, "memory": {**state["memory"], "order": [], "SS": np.zeros((0, 0)), "SY": np.zeros((0, 0)),
                                "M": np.zeros((0, 0)), "theta": 1.0}}
    other = core.minimize(p.fg, p.x0, p.lo, p.hi, resume=bare, **kw)
    assert not np.array_equal(other.x, straight.x)
    with pytest.raises(InputError, match="another run"):
        core.minimize(p.fg, p.x0, p.lo, p.hi, resume={**state, "m": 3}, **kw)


@pytest.mark.parametrize("kill_at", [120, 400])   # in the approximate run (309 iterations), in the exact one
def test_a_table1_case_killed_and_resumed_gives_the_uninterrupted_figures(tmp_path, kill_at):
    m0, r0 = lbfgsb_rows.lbfgsb_cauchy(GL1, 100, RULE)
    path = tmp_path / "case.checkpoint.npz"
    with pytest.raises(Killed):
        lbfgsb_rows.lbfgsb_cauchy(GL1, 100, RULE, checkpoint=_killed_after(Checkpoint(path, {"case": "c"}, every=600.0),
                                                                          kill_at))
    ck = Checkpoint(path, {"case": "c"}, every=30.0)
    assert ck.state["phase"] == ("approximate" if kill_at < m0["iterations"] else "exact")
    m1, r1 = lbfgsb_rows.lbfgsb_cauchy(GL1, 100, RULE, checkpoint=ck)
    for k in ("iterations", "fun", "converged", "message"):
        assert m1[k] == m0[k], k
    assert r1["bins"] == r0["bins"] and r1["energy_diff_percent"] == r0["energy_diff_percent"]
    for run in ("approximate", "exact"):
        assert {k: r1[run][k] for k in ("iterations", "fun", "status")} == {k: r0[run][k] for k in ("iterations", "fun", "status")}
    parts = ck.finished
    assert [s["iterations"] for s in parts] == [[0, kill_at + (kill_at >= m0["iterations"])],
                                                 [parts[0]["iterations"][1], m0["iterations"] + r0["exact"]["iterations"]]]
    assert m1["seconds"] == pytest.approx(sum(s["seconds"] for s in parts))
    # a checkpoint is named by its run: another case's file, or a file not a checkpoint, is refused
    with pytest.raises(InputError, match="another run"):
        Checkpoint(path, {"case": "d"})
    (tmp_path / "mine.npz").write_text("the user's file")
    with pytest.raises(InputError, match="not a gpubench checkpoint"):
        Checkpoint(tmp_path / "mine.npz", {"case": "c"})


def _experiment(folder, n):
    folder.mkdir()
    (folder / "t1.toml").write_text(f"""id = "t1"
title = "Table 1, one case"
source = "a test"
layout = "lbfgsb"

[methods.cauchy]
method = "lbfgsb-cauchy"
m = 5
stop = "energy_decrease"
energy_tol = 1e-64
maxiter = 100000
box = 1.0
backend = "cpu"

[[problems]]
problem = "{GL1}"
n = {n}

[quick]
note = "the same"
""")
    return folder / "t1.toml"


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM to a child")
def test_sigterm_saves_the_case_checkpoint_at_once_and_the_same_command_finishes_it(tmp_path):
    toml = _experiment(tmp_path / "exp", N_SIGNAL)
    res = tmp_path / "res"
    cmd = [sys.executable, "-m", "gpubench", "reproduce", str(toml), "--results", str(res), "--checkpoint-every", "600"]
    folder = res / "t1"
    with child(cmd, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT))) as p:
        # the first save comes after the first iteration
        ckpt, = wait_for(p, lambda: list(folder.glob("*.checkpoint.npz")), 120)
        # each save replaces the file by a new one (os.replace of a temporary): a new inode.  The
        # mtime alone can repeat: the file system stamps with a coarse clock, and a save at a signal
        # sent right after the first save can land in the same tick (seen once in a fresh-clone run)
        st = os.stat(ckpt)
        first = (st.st_ino, st.st_mtime_ns)
        out, err, took = signal_and_time(p, signal.SIGTERM)
    assert p.returncode == 130, err[-2000:]
    assert took < 2.0 and "Traceback" not in err
    st = os.stat(ckpt)
    assert (st.st_ino, st.st_mtime_ns) != first   # a last checkpoint, written at the signal
    assert not list(folder.glob("*.json"))        # no record of an unfinished case
    assert "its checkpoint saved" in err and "interrupted; 0 case(s) stored" in out
    e = loader.load(str(toml))
    s = runner.sweep(e, results=res, stream=io.StringIO(), fancy=False)
    assert s.ran == 1 and not ckpt.exists()       # the record stored, the checkpoint dropped
    rec, = runner.load_records(folder)
    m = rec["measured"]
    assert m["resumed"] and len(m["segments"]) == 2 and m["segments"][1]["environment"]["versions"]
    assert m["seconds"] == pytest.approx(sum(s["seconds"] for s in m["segments"]))
    # the figures of a run never stopped, and a record the verdict rules take as valid
    m0, r0 = lbfgsb_rows.lbfgsb_cauchy(GL1, N_SIGNAL, RULE)
    assert (m["iterations"], m["fun"], rec["result"]["bins"]) == (m0["iterations"], m0["fun"], r0["bins"])
    assert (rec["result"]["exact"]["iterations"], rec["result"]["exact"]["fun"]) == \
        (r0["exact"]["iterations"], r0["exact"]["fun"])
    planned, = runner.plan(e)
    assert invalidity(rec, planned.settings) == ""


def test_an_interrupted_case_raises_after_its_last_save(tmp_path, monkeypatch):
    from gpubench.methods import monitor
    ck = Checkpoint(tmp_path / "c.npz", {"case": "c"}, every=600.0)
    ck.begin(0, 0.0)
    ck.tick(lambda: ({"x": np.arange(3.0)}, 1, 0.1))     # the first save: after the first step
    ck.tick(lambda: pytest.fail("not due"))
    monkeypatch.setitem(monitor._INTERRUPT, "requested", True)
    with pytest.raises(Interrupted):
        ck.tick(lambda: ({"x": np.arange(4.0)}, 2, 0.2))
    back = Checkpoint(tmp_path / "c.npz", {"case": "c"})
    assert np.array_equal(back.state["x"], np.arange(4.0)) and back.before[0]["iterations"] == [0, 2]
