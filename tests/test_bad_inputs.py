"""Bad input through the real command line: one line on stderr, exit 2, no traceback, no stray file.

Most inputs run in one child process that calls :func:`gpubench.cli.main` in a
loop with stdout and stderr captured (a fresh interpreter per input would cost
seconds each); a few run as true ``python -m gpubench`` subprocesses.  Every
run happens in a scratch folder with $GPUBENCH_RESULTS/$GPUBENCH_REPORTS/
$GPUBENCH_DEMO pointing into it; the folder's listing is compared before and
after each input, so a file left behind by a failed command is caught.
"""
import json
import os
import subprocess
import sys
import textwrap

import pytest

BATCH_TIMEOUT = 400  # seconds for the whole batch: a hang fails the test instead of stalling CI

# user function files (written into the scratch folder)
FILES = {
    "ok.py": """
        import numpy as np
        from gpubench.forms.definition import Definition, Sum, x, symbols
        S = symbols("S")
        OK = Definition(name="ok", title="ok", source="test", terms={S: Sum((x - 1) ** 2)}, expr=S,
                        domain=(-3, 4), xstar=lambda n: np.ones(n), fstar=lambda n: 0.0)
        NOT_A_DEFINITION = 42
    """,
    "partial.py": """
        import numpy as np
        from gpubench.forms.definition import Definition, Sum, log, sqrt, x, symbols
        S = symbols("S")
        SQ = Definition(name="sq", title="sqrt", source="test", terms={S: Sum(sqrt(x))}, expr=S,
                        domain=(-1, 4), xstar=lambda n: np.zeros(n), fstar=lambda n: 0.0)
        LG = Definition(name="lg", title="log", source="test", terms={S: Sum(log(x))}, expr=S,
                        domain=(-1, 4), xstar=lambda n: np.zeros(n), fstar=lambda n: 0.0)
    """,
    "kinks.py": """
        import numpy as np
        import sympy
        from gpubench.forms.definition import Definition, Sum, x, symbols
        S = symbols("S")
        AB = Definition(name="ab", title="abs", source="test", terms={S: Sum(sympy.Abs(x - 1))}, expr=S,
                        domain=(-3, 4), xstar=lambda n: np.ones(n), fstar=lambda n: 0.0)
        MX = Definition(name="mx", title="max", source="test", terms={S: Sum(sympy.Max(x, 1))}, expr=S,
                        domain=(-3, 4), xstar=lambda n: np.ones(n), fstar=lambda n: 1.0)
    """,
    "piecewise.py": """
        import numpy as np
        import sympy
        from gpubench.forms.definition import Definition, Sum, x, symbols
        S = symbols("S")
        PW = Definition(name="pw", title="piecewise", source="test",
                        terms={S: Sum(sympy.Piecewise((x ** 2, x < 0), (x, True)))}, expr=S,
                        domain=(-3, 4), xstar=lambda n: np.zeros(n), fstar=lambda n: 0.0)
    """,
    "syntax.py": "def broken(:\n",
    "raises.py": "raise RuntimeError('boom at import')\n",
    "nofields.py": """
        from gpubench.forms.definition import Definition, Sum, x, symbols
        S = symbols("S")
        F = Definition(name="f", title="t", source="s", terms={S: Sum(x)}, expr=S, domain=(0, 1))
    """,
    "afile.txt": "not a folder\n",
    "garbage.npz": "this is not a checkpoint\n",
}

EXPERIMENT = """
    id = "{id}"
    title = "t"
    source = "s"
    layout = "scaling"
    functions = ["levy"]
    dims = [2]
    repetitions = 1
    {extra}

    [methods.interval]
    label = "x"
    backend = "cpu"
    {setting}
"""

EXPERIMENTS = {
    "exps/wrongtype.toml": EXPERIMENT.format(id="wrongtype", extra="", setting='split_dims = "ten"'),
    "exps/unknownsetting.toml": EXPERIMENT.format(id="unknownsetting", extra="", setting="bogus = 1"),
    "exps/unknownkey.toml": EXPERIMENT.format(id="unknownkey", extra="colour = 3", setting=""),
    "exps/badvalue.toml": EXPERIMENT.format(id="badvalue", extra="", setting="tol = -1.0"),
    "exps/baddims.toml": EXPERIMENT.format(id="baddims", extra="", setting="").replace("dims = [2]", "dims = [0]"),
    "exps/notoml.toml": "id = \n[[[",
    "exps/idmismatch.toml": EXPERIMENT.format(id="other", extra="", setting=""),
}

SOLVE = ["solve", "levy", "--dim", "2", "--backend", "cpu", "--split-dims", "2"]

# each: argv for `gpubench` (run in the scratch folder)
BAD = [
    # --- the table
    ["solve", "levy", "--dim", "3", "--backend", "cpu", "--split-dims", "3", "--checkpoint", "adir"],
    ["report", "--all", "--results", "afile.txt"],
    ["report", "--all", "--reports", "afile.txt"],
    ["reproduce", "table2", "--results", "afile.txt"],
    ["reproduce", "--list", "--results", "afile.txt"],
    ["reproduce", "table2", "--scheduler", "notanaddress"],
    ["minimize", "levy", "--dim", "2", "--method", "interval", "--set", "bogus=1"],
    ["eval", "piecewise.py:PW", "--dim", "2", "--x", "1"],
    ["solve", "piecewise.py:PW", "--dim", "2", "--backend", "cpu", "--split-dims", "2"],
    SOLVE + ["--tol", "1e-300"],
    ["solve", "partial.py:SQ", "--dim", "2", "--backend", "cpu", "--split-dims", "4"],
    ["solve", "partial.py:LG", "--dim", "2", "--backend", "cpu", "--split-dims", "4"],
    ["report", "--all", "--experiments", "/nonexistent"],
    ["eval", "partial.py:SQ", "--dim", "2", "--x", "-1"],
    ["reproduce", "wrongtype", "--experiments", "exps"],
    # --- top level
    [],
    ["nosuchcommand"],
    ["eval", "levy", "--dim", "2", "--x", "1", "--bogus"],
    # --- functions
    ["functions", "--dim", "0"],
    ["functions", "--dim", "abc"],
    # --- eval
    ["eval", "nosuchfunction", "--dim", "2", "--x", "1"],
    ["eval", "levy", "--dim", "0", "--x", "1"],
    ["eval", "levy", "--dim", "-1", "--x", "1"],
    ["eval", "levy", "--dim", "abc", "--x", "1"],
    ["eval", "levy", "--dim", "2"],
    ["eval", "levy", "--x", "1"],  # a scalable function needs --dim
    ["minimize", "levy", "--method", "bfgs"],
    ["eval", "levy", "--dim", "2", "--x", "1", "--box", "0:1"],
    ["eval", "levy", "--dim", "3", "--x", "1", "2"],
    ["eval", "levy", "--dim", "2", "--x", "abc"],
    ["eval", "levy", "--dim", "2", "--x", "nan"],
    ["eval", "levy", "--dim", "2", "--x", "inf"],
    ["eval", "levy", "--dim", "2", "--box", "2:1"],
    ["eval", "levy", "--dim", "2", "--box", "1"],
    ["eval", "levy", "--dim", "2", "--box", "a:b"],
    ["eval", "levy", "--dim", "3", "--box", "0:1", "0:1"],
    ["eval", "missing.py:F", "--dim", "2", "--x", "1"],
    ["eval", "syntax.py:F", "--dim", "2", "--x", "1"],
    ["eval", "raises.py:F", "--dim", "2", "--x", "1"],
    ["eval", "ok.py:NOPE", "--dim", "2", "--x", "1"],
    ["eval", "ok.py:NOT_A_DEFINITION", "--dim", "2", "--x", "1"],
    ["eval", "nofields.py:F", "--dim", "2", "--x", "1"],
    ["eval", "adir.py:F", "--dim", "2", "--x", "1"],
    # --- methods
    ["methods", "nosuchmethod"],
    # --- solve
    ["solve", "nosuchfunction", "--dim", "2"],
    ["solve", "levy", "--dim", "0"],
    SOLVE + ["--tol", "0"],
    SOLVE + ["--tol", "-1"],
    SOLVE + ["--tol", "nan"],
    SOLVE + ["--tol", "inf"],
    SOLVE + ["--tol", "1e-15"],
    SOLVE + ["--parts", "1"],
    SOLVE + ["--split-dims", "0"],
    ["solve", "levy", "--dim", "20", "--backend", "cpu", "--split-dims", "20", "--parts", "8"],
    SOLVE + ["--samples", "0"],
    SOLVE + ["--spacing", "bogus"],
    SOLVE + ["--backend", "tpu"],
    SOLVE + ["--max-iterations", "-1"],
    SOLVE + ["--time-limit", "0"],
    SOLVE + ["--checkpoint-every", "0"],
    SOLVE + ["--regions", "adir"],
    SOLVE + ["--resume", "missing.npz"],
    SOLVE + ["--resume", "garbage.npz"],
    SOLVE + ["--resume", "adir"],
    SOLVE + ["--checkpoint", "a.npz", "--resume", "b.npz"],
    SOLVE + ["--checkpoint", "afile.txt/x.npz"],
    # --- minimize
    ["minimize", "levy", "--dim", "2", "--method", "nosuchmethod"],
    ["minimize", "levy", "--dim", "2", "--method", "interval", "--set", "foo"],
    ["minimize", "levy", "--dim", "2", "--method", "interval", "--set", "=1"],
    ["minimize", "levy", "--dim", "2", "--method", "interval", "--set", "split_dims=abc"],
    ["minimize", "levy", "--dim", "2", "--method", "interval", "--set", "tol=-1"],
    ["minimize", "levy", "--dim", "2", "--method", "interval", "--set", "tol=1e-300"],
    ["minimize", "levy", "--dim", "2", "--method", "interval", "--set", "parts=2", "--set", "parts=3"],
    ["minimize", "levy", "--dim", "2", "--method", "interval", "--seed", "1"],
    ["minimize", "levy", "--dim", "2", "--method", "nelder_mead", "--backend", "cuda"],
    ["minimize", "levy", "--dim", "2", "--method", "nelder_mead", "--set", "runs=0"],
    ["minimize", "levy", "--dim", "2", "--method", "nelder_mead", "--set", "runs=many"],
    ["minimize", "levy", "--dim", "2", "--method", "nelder_mead", "--regions", "adir"],
    # --- reproduce
    ["reproduce"],
    ["reproduce", "nosuchexperiment"],
    ["reproduce", "table2", "--workers", "0"],
    ["reproduce", "table2", "--workers", "abc"],
    ["reproduce", "table2", "--workers", "2", "--scheduler", "tcp://127.0.0.1:1"],
    ["reproduce", "missing.toml"],
    ["reproduce", "--list", "--experiments", "/nonexistent"],
    ["reproduce", "unknownsetting", "--experiments", "exps"],
    ["reproduce", "unknownkey", "--experiments", "exps"],
    ["reproduce", "badvalue", "--experiments", "exps"],
    ["reproduce", "baddims", "--experiments", "exps"],
    ["reproduce", "notoml", "--experiments", "exps"],
    ["reproduce", "exps/notoml.toml"],
    ["reproduce", "exps/wrongtype.toml"],
    # --- report
    ["report"],
    ["report", "nosuchexperiment"],
    ["report", "table2", "--reports", "afile.txt/sub"],
    # --- demo
    ["demo", "--results", "afile.txt"],
    ["demo", "--reports", "afile.txt"],
    ["demo", "--workers", "0"],
    ["demo", "--backend", "tpu"],
]

# inputs that used to fail and must now work (exit 0)
GOOD = [
    ["--version"],
    ["eval", "levy", "--dim", "3", "--box", "-1:1"],
    ["eval", "levy", "--dim", "3", "--x", "-1e-3"],
    ["eval", "levy", "--dim", "2", "--box", "1:1"],
    ["eval", "ok.py:OK", "--dim", "2", "--x", "-1", "2"],
    ["eval", "partial.py:SQ", "--dim", "2", "--x", "1"],
    # Abs, Min and Max (their derivatives: sign and Heaviside) have interval forms now
    ["eval", "kinks.py:AB", "--dim", "2", "--x", "1"],
    ["eval", "kinks.py:MX", "--dim", "2", "--x", "1"],
    ["eval", "kinks.py:AB", "--dim", "2", "--box", "0:3"],
    ["solve", "kinks.py:AB", "--dim", "2", "--backend", "cpu", "--split-dims", "2", "--tol", "1e-3"],
]

DRIVER = r"""
import contextlib, io, json, sys, time, traceback
from gpubench.cli import main
inputs = json.load(open(sys.argv[1]))
log = open(sys.argv[2], "w")
import os
def listing():
    out = []
    for root, dirs, files in os.walk("."):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        out += [os.path.join(root, f) for f in files] + [os.path.join(root, d) + "/" for d in dirs]
    return sorted(out)
for argv in inputs:
    log.write(json.dumps({"start": argv}) + "\n"); log.flush()
    before = listing()
    out, err = io.StringIO(), io.StringIO()
    t0 = time.perf_counter()
    tb = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            rc = None
            tb = traceback.format_exc()
    new = sorted(set(listing()) - set(before))
    log.write(json.dumps({"argv": argv, "rc": rc, "stderr": err.getvalue(), "stdout": out.getvalue()[-2000:],
                          "traceback": tb, "new_files": new, "seconds": time.perf_counter() - t0}) + "\n")
    log.flush()
"""


def _scratch(tmp_path):
    for name, text in {**FILES, **EXPERIMENTS}.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    (tmp_path / "adir").mkdir()
    (tmp_path / "adir.py").mkdir()
    env = dict(os.environ)
    env.update(GPUBENCH_RESULTS=str(tmp_path / "results"), GPUBENCH_REPORTS=str(tmp_path / "reports"),
               GPUBENCH_DEMO=str(tmp_path / "demo"), NUMBA_NUM_THREADS="1")
    return env


def _run_batch(tmp_path, inputs):
    env = _scratch(tmp_path)
    (tmp_path / "inputs.json").write_text(json.dumps(inputs))
    log = tmp_path / "log.jsonl"
    # the driver's own files live outside the scratch listing's interest: put them in a subfolder walk skips
    try:
        subprocess.run([sys.executable, "-c", DRIVER, str(tmp_path / "inputs.json"), str(log)],
                       cwd=tmp_path, env=env, timeout=BATCH_TIMEOUT, capture_output=True, text=True)
    except subprocess.TimeoutExpired:
        started = [json.loads(line) for line in log.read_text().splitlines() if "start" in line]
        pytest.fail(f"hang: no answer within {BATCH_TIMEOUT} s; last input started: {started[-1]['start']}")
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    return [r for r in rows if "argv" in r]


def _problems(r, expect_rc):
    lines = r["stderr"].splitlines()
    bad = []
    if r["traceback"] or "Traceback" in r["stderr"]:
        bad.append("traceback: " + (r["traceback"] or r["stderr"]).strip().splitlines()[-1])
    if r["rc"] != expect_rc:
        bad.append(f"exit {r['rc']}, expected {expect_rc}")
    if expect_rc == 2 and (len(lines) != 1 or not lines[0].startswith("gpubench: error: ")):
        bad.append(f"stderr is not one 'gpubench: error:' line: {r['stderr'][:300]!r}")
    # files the scratch folder held before are not listed; the driver's log is its own
    stray = [f for f in r["new_files"] if not f.startswith("./log.jsonl")]
    if stray:
        bad.append(f"left {stray}")
    return bad


def test_bad_inputs_one_line_exit_2_no_traceback_no_stray_file(tmp_path):
    rows = _run_batch(tmp_path, BAD + GOOD)
    assert len(rows) == len(BAD) + len(GOOD)
    failures = []
    counts = {"tried": len(BAD), "one_line": 0, "traceback": 0}
    for r in rows[:len(BAD)]:
        bad = _problems(r, 2)
        counts["one_line"] += not bad
        counts["traceback"] += any(b.startswith("traceback") for b in bad)
        if bad:
            failures.append(f"gpubench {' '.join(r['argv'])}: {'; '.join(bad)}")
    for r in rows[len(BAD):]:
        bad = _problems(r, 0)
        if bad:
            failures.append(f"gpubench {' '.join(r['argv'])} (must work): {'; '.join(bad)}")
    print(f"bad inputs: {counts['tried']} tried, {counts['one_line']} one line and exit 2, "
          f"{counts['traceback']} tracebacks, 0 hangs")
    assert not failures, "\n".join(failures)


def test_battery_catches_a_traceback(tmp_path, monkeypatch):
    """The checker fails on an escaped exception, a second stderr line and a stray file."""
    r = {"argv": ["x"], "rc": None, "stderr": "", "traceback": "Traceback...\nKeyError: 'k'", "new_files": []}
    assert any(b.startswith("traceback") for b in _problems(r, 2))
    r = {"argv": ["x"], "rc": 2, "stderr": "gpubench: error: a\nmore\n", "traceback": None, "new_files": []}
    assert _problems(r, 2)
    r = {"argv": ["x"], "rc": 2, "stderr": "gpubench: error: a\n", "traceback": None, "new_files": ["./x.tmp"]}
    assert _problems(r, 2)
    r = {"argv": ["x"], "rc": 2, "stderr": "gpubench: error: a\n", "traceback": None, "new_files": []}
    assert not _problems(r, 2)


@pytest.mark.parametrize("argv", [
    ["solve", "levy", "--dim", "3", "--backend", "cpu", "--split-dims", "3", "--checkpoint", "adir"],
    SOLVE + ["--tol", "1e-300"],
    ["solve", "partial.py:SQ", "--dim", "2", "--backend", "cpu", "--split-dims", "4"],
    ["report", "--all", "--experiments", "/nonexistent"],
])
def test_true_subprocess(tmp_path, argv):
    """A handful through ``python -m gpubench`` itself: the installed entry point, exit code and stderr."""
    env = _scratch(tmp_path)
    before = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*"))
    p = subprocess.run([sys.executable, "-m", "gpubench", *argv], cwd=tmp_path, env=env, timeout=300,
                       capture_output=True, text=True)
    after = sorted(p_.relative_to(tmp_path).as_posix() for p_ in tmp_path.rglob("*") if "__pycache__" not in p_.parts)
    assert p.returncode == 2, p.stderr
    assert "Traceback" not in p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gpubench: error: "), p.stderr
    assert [a for a in after if a not in before] == []


def test_api_unknown_keyword_is_one_line():
    from gpubench.errors import InputError
    from gpubench.methods import minimize
    with pytest.raises(InputError) as e:
        minimize("levy", 2, method="interval", bogus=1)
    assert "bogus" in str(e.value) and "\n" not in str(e.value)
