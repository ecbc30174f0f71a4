"""The third newcomer pass (issue 39): a user's files and variables checked where they enter, a
checkpoint recognised by its content, Ctrl-C at any moment, one resource check for every path.

The command-line cases run through the battery of ``test_bad_inputs`` (one child process, a
scratch folder whose listing is compared before and after each input); none compiles a kernel.
"""
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from child_process import child, signal_and_time, wait_for
from test_bad_inputs import FILES, _problems, _run_batch, _scratch

FILES3 = {
    "user.py": """
        import numpy as np
        from gpubench.forms.definition import Definition, Sum, x, symbols
        S = symbols("S")

        def _d(name, **kw):
            base = dict(name=name, title="t", source="s", terms={S: Sum((x - 1) ** 2)}, expr=S,
                        domain=(-3, 4), xstar=lambda n: np.ones(n), fstar=lambda n: 0.0)
            base.update(kw)
            return Definition(**base)
        FRAISES = _d("fraises", fstar=lambda n: 1 / 0)
        DRAISES = _d("draises", domain=lambda n: [][1])
        DTEXT = _d("dtext", domain=("a", "b"))
        DSTR = _d("dstr", domain="minus three to four")
        FNAN = _d("fnan", fstar=lambda n: float("nan"))
        FINF = _d("finf", fstar=lambda n: float("-inf"))
    """,
    "notes.txt": "the user's own notes\n",
}

# (class, argv): each must be one line on stderr and exit 2, and leave the scratch folder as it was
BAD3 = [
    # harmful: a file that is not a checkpoint is never replaced by one
    ("checkpoint", ["solve", "levy", "--dim", "2", "--backend", "cpu", "--split-dims", "2",
                    "--checkpoint", "notes.txt"]),
    ("checkpoint", ["solve", "levy", "--dim", "2", "--backend", "cpu", "--split-dims", "2",
                    "--checkpoint", "garbage.npz"]),
    # a user's function whose f* or domain raises, is not numbers, or whose f* is NaN
    ("user file", ["eval", "user.py:FRAISES", "--dim", "2", "--x", "1"]),
    ("user file", ["eval", "user.py:DRAISES", "--dim", "2", "--x", "1"]),
    ("user file", ["eval", "user.py:DTEXT", "--dim", "2", "--x", "1"]),
    ("user file", ["eval", "user.py:DSTR", "--dim", "2", "--x", "1"]),
    ("user file", ["minimize", "user.py:FNAN", "--dim", "2", "--method", "nelder_mead", "--set", "runs=1"]),
    ("user file", ["minimize", "user.py:FINF", "--dim", "2", "--method", "nelder_mead", "--set", "runs=1"]),
    ("user file", ["solve", "user.py:FRAISES", "--dim", "2", "--backend", "cpu", "--split-dims", "2"]),
    # an experiment file that is not UTF-8
    ("experiment file", ["reproduce", "latin1.toml"]),
    ("experiment file", ["reproduce", "latin1", "--experiments", "lat"]),
    # no resource check on the experiment path: started, then killed for memory (the command line
    # refuses the same dimension at once)
    ("resources", ["reproduce", "huge", "--experiments", "exps3"]),
]


def _scratch3(tmp_path):
    for name, text in FILES3.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    (tmp_path / "lat").mkdir()
    from test_bad_inputs2 import ONE
    (tmp_path / "exps3").mkdir()
    (tmp_path / "exps3" / "huge.toml").write_text(
        textwrap.dedent(ONE).replace('id = "one"', 'id = "huge"').replace("dims = [2]", "dims = [100000000000]"))
    for p in (tmp_path / "latin1.toml", tmp_path / "lat" / "latin1.toml"):
        p.write_bytes('id = "café"\ntitle = "t"\n'.encode("latin-1"))


def test_third_pass_battery(tmp_path):
    _scratch3(tmp_path)
    rows = _run_batch(tmp_path, [a for _, a in BAD3])  # the battery writes garbage.npz first
    before = {tmp_path / "notes.txt": FILES3["notes.txt"], tmp_path / "garbage.npz": FILES["garbage.npz"]}
    failures = [f"{cls}: gpubench {' '.join(r['argv'])}: {'; '.join(bad)}"
                for (cls, _), r in zip(BAD3, rows) if (bad := _problems(r, 2))]
    assert len(rows) == len(BAD3)
    assert not failures, "\n".join(failures)
    for p, content in before.items():
        assert p.read_text() == content, f"{p.name} was replaced"


def test_the_refusals_say_why(tmp_path):
    _scratch3(tmp_path)
    rows = _run_batch(tmp_path, [BAD3[0][1], BAD3[6][1], BAD3[9][1], BAD3[-1][1]])
    assert "not a gpubench checkpoint" in rows[0]["stderr"], rows[0]["stderr"]
    assert "NaN" in rows[1]["stderr"] and "UNKNOWN" in rows[1]["stderr"], rows[1]["stderr"]
    assert "UTF-8" in rows[2]["stderr"], rows[2]["stderr"]
    assert "n = 100000000000 needs about" in rows[3]["stderr"] and "TiB" in rows[3]["stderr"], rows[3]["stderr"]


def test_a_checkpoint_is_recognised_by_its_content(tmp_path):
    """What the module writes is a checkpoint whatever its name; anything else is refused, also
    through the Python API (before the search is set up)."""
    from gpubench.errors import InputError
    from gpubench.methods import interval
    from gpubench.methods.solver import checkpoint as ckpt
    from gpubench.methods.solver.core import run_search
    from test_bad_inputs2 import _checkpoint
    _checkpoint(tmp_path / "state.npz")
    os.replace(tmp_path / "state.npz", tmp_path / "state.bin")
    assert ckpt.is_checkpoint(tmp_path / "state.bin")
    ckpt.check_target(tmp_path / "state.bin")  # ours: it may be replaced
    ckpt.check_target(tmp_path / "absent.npz")
    import numpy as np
    np.savez(tmp_path / "data.npz", meta=np.array("{}"), x=np.zeros(3))  # an npz of the user's
    (tmp_path / "empty.npz").write_bytes(b"")
    for name in ("data.npz", "empty.npz"):
        assert not ckpt.is_checkpoint(tmp_path / name)
        with pytest.raises(InputError, match="not a gpubench checkpoint"):
            ckpt.check_target(tmp_path / name)
    from gpubench import functions
    s = interval.METHOD.make_settings({"backend": "cpu", "split_dims": 2})
    with pytest.raises(InputError, match="not a gpubench checkpoint"):
        run_search(functions.get("levy"), 2, s, checkpoint=str(tmp_path / "data.npz"))
    assert (tmp_path / "data.npz").stat().st_size > 0


def test_unknown_fstar_is_declared_not_typed():
    """A surrogate's unknown minimum (UNKNOWN) is NaN and accepted; its negation keeps it."""
    import math
    import numpy as np
    from gpubench.forms.definition import UNKNOWN, Definition, Sum, symbols, x
    from gpubench.forms.function import TestFunction
    S = symbols("S")
    d = Definition(name="unk", title="t", source="s", terms={S: Sum(x ** 2)}, expr=S, domain=(-1, 1),
                   xstar=lambda n: np.full(n, np.nan), fstar=UNKNOWN)
    assert math.isnan(TestFunction(d).fstar(2))
    assert math.isnan(TestFunction(d.negated()).fstar(2))


def test_cache_variable_naming_a_file(tmp_path):
    """GPUBENCH_CACHE naming a file: one line naming the variable (was a NotADirectoryError)."""
    _scratch(tmp_path)
    (tmp_path / "cachefile").write_text("x")
    for argv in (["eval", "levy", "--dim", "2", "--x", "1"], ["cache"]):
        p = subprocess.run([sys.executable, "-m", "gpubench", *argv], cwd=tmp_path,
                           env=dict(os.environ, GPUBENCH_CACHE=str(tmp_path / "cachefile")),
                           capture_output=True, text=True, timeout=300)
        lines = p.stderr.splitlines()
        assert p.returncode == 2 and len(lines) == 1 and "GPUBENCH_CACHE" in lines[0], p.stderr
        assert lines[0].startswith("gpubench: error: ")
    assert (tmp_path / "cachefile").read_text() == "x"


# ---------------------------------------------------------------- Ctrl-C while compiling
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child")
def test_ctrl_c_while_compiling_ends_within_2_s_in_one_line(tmp_path):
    """A cold compile (an empty cache) of a reproduce: Ctrl-C once the generated module is written,
    while numba compiles it.  The process ends within 2 s (it waited 12-13 s for the compile, or
    raised inside numba: "no compiled object yet", "double free detected"), exit 130, one line on
    stderr, no traceback, the results folder without a partial record or a claim."""
    from test_bad_inputs2 import ONE
    env = _scratch(tmp_path)
    (tmp_path / "good").mkdir()
    (tmp_path / "good" / "one.toml").write_text(textwrap.dedent(ONE))
    cache = tmp_path / "cache"
    env.update(GPUBENCH_CACHE=str(cache), NUMBA_CACHE_DIR=str(tmp_path / "numba"), GPUBENCH_NO_CARDS="1")
    with child([sys.executable, "-m", "gpubench", "reproduce", "one", "--experiments", "good"],
               cwd=tmp_path, env=env) as p:
        wait_for(p, lambda: list(cache.glob("generated/gpubench_generated_*.py")), 300, poll=0.05)
        assert p.poll() is None, p.communicate()[1][-2000:]
        time.sleep(2.0)  # numba is compiling now (the case takes tens of seconds cold)
        out, err, took = signal_and_time(p, signal.SIGINT)
    lines = err.splitlines()
    assert p.returncode == 130, err[-2000:]
    assert "Traceback" not in err and len(lines) == 1 and lines[0].startswith("gpubench: interrupted"), err
    # the bound is 2 s; the process ends at once (0.03-0.1 s measured), where the interpreter's
    # KeyboardInterrupt and teardown took 1.3-2.5 s even between LLVM calls
    assert took < 1.0, f"Ctrl-C took {took:.1f} s"
    assert "interrupted; 0 case(s) stored" in out, out
    folder = tmp_path / "results" / "one"
    assert not [f.name for f in folder.iterdir() if not f.name.startswith(".") or f.suffix == ".claim"]


# ---------------------------------------------------------------- wrong words
def test_compare_with_heuristics_only_says_no_rigorous_method_ran(tmp_path):
    from gpubench.reports.compare import function_summary
    de = {"key": "de", "method": "de-gpu", "function": "levy", "dim": 2, "measured": {"seconds": 1.0, "fun": 0.5},
          "settings": {}}
    text = function_summary(tmp_path / "s.md", "levy", 2, "quick", [de], None, 0.0, "min")
    assert "no rigorous method was run" in text and "did not converge" not in text, text
    iv = {"key": "iv", "method": "interval", "function": "levy", "dim": 2, "settings": {},
          "measured": {"seconds": 1.0, "glb": -1.0, "gub": 0.0, "converged": False}}
    text = function_summary(tmp_path / "s.md", "levy", 2, "quick", [de, iv], None, 0.0, "min")
    assert "the rigorous method did not converge within its budget" in text, text


def test_stopped_by_names_the_reason_that_applied():
    import numpy as np
    from gpubench.methods.monitor import describe_stop
    from gpubench.result import OptimizeResult
    rig = OptimizeResult("levy", 2, "interval", x=np.ones(2), fun=0.0, glb=-1e-9, gub=0.0, stop="converged")
    multi = OptimizeResult("levy", 2, "tron-gpu", x=np.ones(2), fun=0.0, stop="converged", options={"starts": 64})
    local = OptimizeResult("levy", 2, "nelder_mead", x=np.ones(2), fun=0.0, stop="converged")
    said = [describe_stop(r) for r in (rig, multi, local)]
    assert "gap" in said[0] and "start" not in said[0] and "tolerances" not in said[0], said
    assert "every start converged" in said[1] and "gap" not in said[1], said
    assert "tolerances" in said[2] and "gap" not in said[2] and "start" not in said[2], said


def test_de_gpu_stopped_by_ctrl_c_says_so(monkeypatch):
    """Ctrl-C asked (as the command line's guard sets it): de-gpu's headline said "stopped at time_limit"."""
    from gpubench.methods import monitor
    from gpubench.methods import minimize
    monkeypatch.setitem(monitor._INTERRUPT, "requested", True)
    r = minimize("levy", 2, method="de-gpu", backend="cpu", runs=1, max_evaluations=2000)
    assert r.stop == "interrupted" and "stopped by Ctrl-C" in r.message and "time_limit" not in r.message, r.message


# ---------------------------------------------------------------- clarity
def test_a_typed_in_solve_says_what_was_chosen_and_why():
    """On a CPU a typed-in solve takes split_dims 6 where `gpubench methods interval` says 10."""
    import numpy as np
    from gpubench.methods import interval
    from gpubench.methods.base import interactive_choices
    from gpubench.result import OptimizeResult
    from test_bad_inputs2 import _printed
    chosen = interactive_choices(interval.METHOD, 50, {"backend": "cpu"})
    assert chosen["split_dims"].value == 6 and "10" in chosen["split_dims"].why, chosen
    r = OptimizeResult("levy", 50, "interval", x=np.ones(50), fun=0.0, glb=-1e-9, gub=0.0, iterations=75)
    text = _printed(r, wall=1.0, chosen=chosen)
    assert "chosen: split_dims = 6 (on the CPU" in text and "chosen: time_limit = 20" in text, text
    assert "split_dims" not in _printed(r, wall=1.0, chosen=interactive_choices(
        interval.METHOD, 50, {"backend": "cpu", "split_dims": 10, "time_limit": 5.0})), "a typed value is no choice"


def test_functions_of_a_library_show_each_dimension(capsys):
    from gpubench import cli
    assert cli.main(["functions", "--library", "scipy_go"]) == 0
    lines = capsys.readouterr().out.splitlines()
    head = lines[0].split()
    assert head[:3] == ["name", "n", "bounds"] and "f*(n=10)" not in lines[0], lines[0]
    beale = next(ln for ln in lines if ln.startswith("scipy_go.Beale "))
    assert "2 (fixed)" in beale and "[-4.5, 4.5]^2" in beale and "^n" not in beale, beale
    ackley = next(ln for ln in lines if ln.startswith("scipy_go.Ackley01 "))
    assert "[-35, 35]^n" in ackley and "(fixed)" not in ackley, ackley


def test_report_says_what_it_wrote_and_where_the_records_are(tmp_path, capsys, monkeypatch):
    from gpubench import cli
    from test_bad_inputs2 import ONE
    (tmp_path / "good").mkdir()
    (tmp_path / "good" / "one.toml").write_text(textwrap.dedent(ONE))
    res, rep = tmp_path / "elsewhere" / "recs", tmp_path / "rep"
    res.mkdir(parents=True)
    assert cli.main(["report", "one", "--experiments", str(tmp_path / "good"), "--results", str(res),
                     "--reports", str(rep)]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith(f"in {rep.resolve()}: wrote ") and "reproduction.md" in last and "index.md" in last, last
    page = (rep / "one.md").read_text()
    assert f"`{res.resolve().as_posix()}/one/`" in page and "`results/one/`" not in page
    assert f"`{res.resolve().as_posix()}/`" in (rep / "index.md").read_text()


def test_demo_s12_time_says_what_compiling_took(monkeypatch, capsys):
    """The quick S12 rows showed 0.02 s and 0.00 s where the runs took 6.6 and 16.6 s with compiling."""
    import io
    from gpubench.reports import demo
    from gpubench.workflow import experiments_loader as loader
    s12 = loader.load("tableS12")
    key = s12.quick.methods[0].key
    rec = {"variant": "quick", "key": key, "label": "x", "settings": {"runs": 1},
           "measured": {"fun": 0.5, "seconds": 0.02, "warmup_seconds": 6.58}}
    monkeypatch.setattr("gpubench.records.read.load_records", lambda folder, warn=True: [rec])
    out = io.StringIO()
    demo._summary(s12, None, out)
    text = out.getvalue()
    assert "compiling" in text.splitlines()[1] and "6.58 s" in text, text


@pytest.mark.parametrize("name, meant", [("rastrgin", "rastrigin"), ("Levy", "levy"),
                                         ("scipy_go.beale", "scipy_go.Beale")])
def test_a_near_miss_name_gets_did_you_mean(name, meant, capsys):
    from gpubench import cli
    assert cli.main(["eval", name, "--dim", "2", "--x", "1"]) == 2
    err = capsys.readouterr().err
    assert f"did you mean {meant!r}?" in err and len(err.splitlines()) == 1, err
