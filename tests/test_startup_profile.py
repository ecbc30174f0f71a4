"""benchmarks/profiling/startup_profile.py and the phase hooks it reads (gpubench.device.gpu.phase): issue 11, item 2."""
import json
import os
import sys
import types

import pytest

from gpubench.device import gpu as device


@pytest.fixture
def sp(script):
    return script("startup_profile")


def test_phase_is_a_shared_no_op_without_the_variable(monkeypatch):
    monkeypatch.setattr(device, "_PHASES_FILE", None)
    before = list(device._PHASES)
    assert device.phase("x") is device.phase("y") is device._NULL
    with device.phase("x"):
        pass
    device.watch_compiles(cuda=True)
    assert device._PHASES == before


def test_phase_records_nested_intervals(monkeypatch, tmp_path):
    monkeypatch.setattr(device, "_PHASES_FILE", str(tmp_path / "p.json"))
    monkeypatch.setattr(device, "_PHASES", [])
    monkeypatch.setattr(device, "_WATCHED", {"atexit"})  # no exit hook from inside the test process
    with device.phase("outer"):
        with device.phase("inner"):
            pass
    inner, outer = device._PHASES
    assert (inner["phase"], outer["phase"]) == ("inner", "outer")
    assert outer["start"] <= inner["start"] <= inner["end"] <= outer["end"]
    device._write_phases()
    assert json.loads((tmp_path / "p.json").read_text())["phases"] == [inner, outer]


def test_exclusive_seconds_leave_out_nested_phases_and_merge_the_two_locks(sp):
    r = lambda name, s, e: {"phase": name, "start": s, "end": e}  # noqa: E731
    records = [r("codegen.import", 1.0, 3.0), r("numba.compile_or_load", 2.0, 2.5),
               # numba-cuda takes numba's lock and its own: the same interval twice, overlapping
               r("numba.compile_or_load", 4.0, 6.0), r("numba.compile_or_load", 4.5, 6.5),
               r("search.run", 3.5, 9.0), r("command", 0.5, 10.0)]
    got = sp.phase_seconds(records)
    assert got["codegen.import"]["seconds"] == pytest.approx(1.5)
    assert got["numba.compile_or_load"]["seconds"] == pytest.approx(3.0)
    assert got["numba.compile_or_load"]["count"] == 2
    assert got["search.run"]["seconds"] == pytest.approx(5.5 - 2.5)
    assert got["command"]["seconds"] == pytest.approx(9.5 - 2.0 - 5.5)
    b = sp.breakdown(0.0, 10.25, records)
    assert b["phases_s"]["startup"] == pytest.approx(0.5) and b["phases_s"]["exit"] == pytest.approx(0.25)
    assert sum(b["phases_s"].values()) == pytest.approx(b["total_s"])

IMPORTTIME = """import time: self [us] | cumulative | imported package
import time:    100000 |     100000 |       sympy.core
import time:    300000 |     400000 |     sympy
import time:      5000 |     405000 |   gpubench.forms.definition
import time:      2000 |     407000 | gpubench.functions
import time:    200000 |     200000 |   scipy.linalg
import time:       500 |     200500 | numba.np.arraymath
"""


def test_imports_by_package_and_by_importer(sp):
    entries = sp.parse_importtime(IMPORTTIME)
    assert [e[:2] for e in entries] == [(3, "sympy.core"), (2, "sympy"), (1, "gpubench.forms.definition"),
                                        (0, "gpubench.functions"), (1, "scipy.linalg"), (0, "numba.np.arraymath")]
    s = sp.import_summary(entries)
    assert s["total_s"] == pytest.approx(0.6075)
    # self times add up per package; numba's half millisecond is left out as noise
    assert s["by_package_s"] == {"sympy": 0.4, "scipy": 0.2, "gpubench": 0.007}
    top = {r["module"]: r for r in s["largest"]}
    assert [r["module"] for r in s["largest"]] == ["gpubench.functions", "sympy", "numba.np.arraymath",
                                                   "scipy.linalg"]
    assert top["sympy"]["imported_by"] == "gpubench.forms.definition <- gpubench.functions"
    assert top["scipy.linalg"]["imported_by"] == "numba.np.arraymath"


def test_a_real_solve_is_split_into_phases_that_add_up(sp):
    """The phases of a small CPU solve in a new process (numba's cache as the tests keep it)."""
    cmd = sp.solve_command("levy", 3, "cpu", ["--split-dims", "2", "--max-iterations", "2", "--time-limit", "600",
                                                    "--variant", "paper"])
    r = sp.run_once(cmd, dict(os.environ))
    p = r["phases_s"]
    for name in ("startup", "function", "numba.compile_or_load", "search.run", "command", "exit"):
        assert p[name] > 0, name
    # the process that first derives the function's card (on this cache) generates and imports its
    # forms' text; a later one loads them from the card without sympy (issue 42): either may run here
    if "codegen.source" in p:
        assert p["codegen.source"] > 0 and p["codegen.import"] > 0
    assert sum(p.values()) == pytest.approx(r["total_s"], rel=0.01)
    assert r["iterations"] == 2
    assert r["imports"]["by_package_s"]["numba"] > 0



def test_any_method_is_profiled_through_minimize(sp):
    """--method M profiles `gpubench minimize --method M`: the method's run is a phase, and the wall
    time less the method's own seconds and its stop come with each run."""
    cmd = sp.solve_command("rastrigin", 2, "cpu", ["--set", "np=8", "--set", "max_evaluations=80",
                                                   "--set", "cpu_variant=sde"], importtime=False, method="de-gpu")
    assert cmd[cmd.index("gpubench") + 1] == "minimize" and cmd[cmd.index("--method") + 1] == "de-gpu"
    r = sp.run_once(cmd, dict(os.environ))
    assert r["phases_s"]["method.run"] > 0 and r["phases_s"]["function"] > 0
    # the command's first imports are timed apart, numpy's inside them (imported there, not at startup)
    assert r["phases_s"]["command.imports"] > 0 and r["phases_s"]["numpy.import"] > 0.001
    assert r["wall_minus_solve_s"] == pytest.approx(r["total_s"] - r["solver_seconds"], abs=1e-3)
    assert r["stop"] == "evaluations"
    assert "de-gpu" in sp.every_method("cuda") and "nelder_mead" not in sp.every_method("cuda")


def test_solve_leaves_by_os_exit_only_when_nothing_else_runs(monkeypatch, tmp_path):
    """cli.entry skips the interpreter's teardown after a FAST_EXIT command (solve), with the
    output flushed and the phases written, but not while a child process is alive, and never
    after a command without it (eval)."""
    import multiprocessing
    from gpubench import cli
    from gpubench.device import gpu as device
    calls = []

    class Left(Exception):
        pass

    def fake_exit(rc):
        calls.append(rc)
        raise Left

    monkeypatch.setattr(cli.os, "_exit", fake_exit)
    # threads other tests left in this (pytest worker) process are not the command's own
    monkeypatch.setattr(cli.threading, "active_count", lambda: 1)
    monkeypatch.setattr(device, "_PHASES_FILE", str(tmp_path / "phases.json"))
    monkeypatch.setattr(device, "_PHASES", [])
    monkeypatch.setattr(device, "_WATCHED", set())  # and no atexit writer left in this process:
    monkeypatch.setattr(device, "_write_at_exit", lambda: device._WATCHED.add("atexit"))
    argv = ["solve", "levy", "--dim", "2", "--backend", "cpu", "--json"]
    # ... nor under a profiler (python -m cProfile -o F -m gpubench solve ...: it writes F at the exit),
    # one through sys.setprofile or, Python >= 3.12's cProfile, through sys.monitoring
    for argv_i, children, expect, profiled in ((argv, False, [0], False),
                                               (["eval", "levy", "--dim", "2", "--x", "1", "1"], False, [], False),
                                               (argv, True, [], False), (argv, False, [], True),
                                               (argv, False, [], "monitoring")):
        calls.clear()
        cli._FAST_EXIT.clear()
        monkeypatch.setattr(sys, "argv", ["gpubench"] + argv_i)
        monkeypatch.setattr(multiprocessing, "active_children", lambda c=children: [object()] if c else [])
        monkeypatch.setattr(cli.sys, "getprofile", lambda p=profiled: object() if p is True else None)
        tool = (lambda i: "cProfile" if i == 2 else None) if profiled == "monitoring" else (lambda i: None)
        monkeypatch.setattr(cli.sys, "monitoring", types.SimpleNamespace(get_tool=tool), raising=False)
        try:
            rc = cli.entry()
        except Left:
            rc = None
        assert calls == expect, (argv_i, children, profiled)
        if expect:
            assert json.loads((tmp_path / "phases.json").read_text())["phases"]
        else:
            assert rc == 0


def _profile_record():
    def run(cache, total, solve, phases, **extra):
        return dict(cache=cache, total_s=total, solver_seconds=solve, wall_minus_solve_s=round(total - solve, 4),
                    phases_s=phases, stop="time_limit", **extra)
    cold = run("cold", 12.0, 2.0, {"startup": 0.5, "function": 1.5, "codegen.source": 0.5,
                                   "numba.compile_or_load": 6.0, "cuda.context": 0.25, "exit": 0.1},
               glb=-1.0, gub=0.5)
    warm = run("second", 3.0, 2.25, {"startup": 0.25, "function": 0.01, "numba.compile_or_load": 0.2, "exit": 0.05},
               glb=-1.0, gub=0.5)
    return {"function": "levy", "dim": 50, "backend": "cuda", "environment": {"gpu": {"name": "H200", "driver": "1"},
                                                                              "commit": "abc", "versions": {}},
            "host": {"python_s": 0.05, "numpy_s": 0.2, "numba_s": 0.4, "numba_cuda_s": None},
            "methods": {"subdomain-bnb": {"cache": "cold", "runs": [cold, warm]},
                        "tron-gpu": {"cache": "cold", "runs": [{"cache": "cold", "failed": "boom\nit broke"}]}}}


def test_the_table_is_rendered_from_the_stored_profile(sp):
    text = sp.render([_profile_record()])
    rows = [line for line in text.splitlines() if line.startswith("| levy n = 50")]
    assert len(rows) == 3
    first = [c.strip() for c in rows[0].split("|")[1:-1]]
    # wall, solve, wall - solve, import, forms (function + codegen.source), compile or load, exit
    assert first[:10] == ["levy n = 50", "subdomain-bnb", "first", "12.00", "2.00", "**10.00**", "0.50", "2.00",
                          "6.25", "0.10"]
    assert first[10:] == ["time_limit", "[-1, 0.5]"]
    assert [c.strip() for c in rows[1].split("|")[1:4]] == ["levy n = 50", "subdomain-bnb", "second #1"]
    assert "failed: it broke" in rows[2]
    assert "H200, driver 1" in text and "commit abc" in text
    assert text.rstrip().endswith("a new process on this host (s): python 0.05, numpy 0.20, numba 0.40")


def test_the_host_is_measured_beside_the_runs(sp):
    """A profile carries what the host alone costs a new process (windows differ by 1.5x, code aside)."""
    host = sp.host_reference("cpu", runs=1)
    assert set(host) == {"python_s", "numpy_s", "numba_s"}   # numba-cuda only for a GPU backend
    assert 0 < host["python_s"] < host["numpy_s"] < host["numba_s"]



def test_an_import_the_host_cannot_make_is_none(sp, monkeypatch):
    monkeypatch.setattr(sp, "HOST_IMPORTS", {"python": "pass", "missing": "import gpubench_no_such_module"})
    host = sp.host_reference("cuda", runs=2)
    assert host["python_s"] > 0 and host["missing_s"] is None


def test_the_docs_table_is_replaced_between_its_markers(sp, tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text(f"intro\n{sp.BEGIN}\nold table\n{sp.END}\nafter\n")
    stored = tmp_path / "p.json"
    stored.write_text(json.dumps(_profile_record()))
    sp.main(["--render", str(stored), "--docs", str(doc)])
    text = doc.read_text()
    assert text.startswith("intro\n") and text.endswith(f"{sp.END}\nafter\n") and "old table" not in text
    assert "| levy n = 50 | subdomain-bnb | first |" in text and f"rendered from {stored}" in text
