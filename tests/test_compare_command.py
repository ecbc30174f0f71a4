"""`gpubench compare FUNCTION --dim N`: every method of the comparison on one function, resumable."""
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from gpubench.reports import coco_data
from gpubench.workflow import runner
from gpubench.cli import main

import shared


@pytest.fixture(scope="module")
def levy(tmp_path_factory):
    """`gpubench compare levy --dim 10 --quick` for real, on the CPU."""
    def build(out):
        assert main(["compare", "levy", "--dim", "10", "--quick", "--out", str(out)]) == 0
    # once a session, not once a worker (tests/shared.py); each worker gets a copy of its own, which
    # test_rerun_resumes_and_runs_only_what_is_missing changes
    return shared.folder(tmp_path_factory, "levy", build)


def _table(text):
    """{method: [cells]} of the summary's method table."""
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 7 and cells[0] != "Method":
            rows[cells[0]] = cells
    return rows


def test_levy_every_method_certified_summary(levy):
    from gpubench.workflow import experiments_loader as loader
    recs = runner.load_records(levy / "records" / "compare-levy-n10")
    keys = sorted(m.key for m in loader.load("compare").quick.methods)
    assert sorted({r["key"] for r in recs}) == keys and len(recs) == 2 * len(keys)
    text = (levy / "summary.md").read_text()
    solver = [r for r in recs if r["method"] == "interval" and r["measured"]["converged"]]
    assert solver, "the quick solver certifies levy at n = 10 within its budget"
    glb = min(r["measured"]["glb"] for r in solver)
    m = re.search(r"\[GLB, GUB\] = \[(\S+), (\S+)\]", text)
    assert m and float(m.group(1)) <= 0.0 <= float(m.group(2))  # levy's f* = 0 lies inside
    table = _table(text)
    assert sorted(table) == keys
    target = float(m.group(1)) + 1e-8
    fastest = None
    for key, cells in table.items():
        mine = [r for r in recs if r["key"] == key]
        reach = [coco_data.first_reach(r, target) for r in mine]
        ok = [s for _, s in reach if s is not None]
        assert cells[2] == f"{len(ok)}/{len(mine)}", key
        # the report's median (numpy's: the mean of the middle two of an even count), not the upper
        # middle one: with two runs each, the two rules can name different methods when close
        if ok and (fastest is None or float(np.median(ok)) < fastest[1]):
            fastest = (key, float(np.median(ok)))
    assert glb <= target
    assert f"**Fastest to the target**: {fastest[0]} " in text
    # the runs for cocopp and IOHanalyzer
    assert sorted(p.name for p in (levy / "coco").iterdir()) == keys
    assert sorted(p.name for p in (levy / "ioh").iterdir()) == keys


def test_rerun_resumes_and_runs_only_what_is_missing(levy, capsys):
    folder = levy / "records" / "compare-levy-n10"
    gone = sorted(folder.glob("bfgs-*.json"))[0]
    gone.unlink()
    capsys.readouterr()
    assert main(["compare", "levy", "--dim", "10", "--quick", "--out", str(levy), "--methods", "bfgs"]) == 0
    out = capsys.readouterr().out
    assert "1 run(s) now, 1 already stored" in out and gone.exists()
    assert main(["compare", "levy", "--dim", "10", "--quick", "--out", str(levy)]) == 0
    from gpubench.workflow import experiments_loader as loader
    cases = 2 * len(loader.load("compare").quick.methods)  # two repetitions of every quick entry
    assert f"0 run(s) now, {cases} already stored" in capsys.readouterr().out


USER = """
    import numpy as np
    from gpubench.forms.definition import Definition, Sum, cos, pi, x, symbols
    S = symbols("S")
    F = Definition(name="levy", title="a user's function", source="test",
                   terms={S: Sum((x - 1) ** 2 + 1 - cos(2 * pi * (x - 1)))}, expr=S,
                   domain=(-3, 4), xstar=lambda n: np.ones(n), fstar=lambda n: 0.0)
"""


def test_a_users_file_from_another_folder(tmp_path):
    """`gpubench compare path/to/mine.py:F --dim 8` from another working folder: the file is loaded by
    its path, registered under its own name (its Definition's name may be a library function's)."""
    (tmp_path / "mine.py").write_text(textwrap.dedent(USER))
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = dict(os.environ, PYTHONPATH="")
    cmd = [sys.executable, "-m", "gpubench", "compare", "../mine.py:F", "--dim", "8", "--quick",
           "--repetitions", "1", "--methods", "bfgs,interval"]
    p = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    out = work / "compare-mine_F-n8-quick"
    text = (out / "summary.md").read_text()
    assert "# Which method for mine_F at n = 8?" in text and str(tmp_path / "mine.py") in text
    recs = runner.load_records(out / "records" / "compare-mine_F-n8")
    assert sorted(r["key"] for r in recs) == ["bfgs", "interval"]
    assert all(r["function"] == "mine_F" for r in recs)
    (solver,) = [r for r in recs if r["key"] == "interval"]
    if solver["measured"]["converged"]:
        assert solver["measured"]["glb"] <= 0.0 <= solver["measured"]["gub"]
        assert "**Certified minimum**" in text and "no certificate" not in text
    assert set(_table(text)) == {"bfgs", "interval"}


@pytest.mark.parametrize("argv, words", [
    (["compare", "nosuch", "--dim", "3"], "unknown function 'nosuch'"),
    (["compare", "levy", "--dim", "3", "--methods", "bfgs,nope"], "no method entry 'nope'"),
    (["compare", "levy", "--dim", "3", "--methods", ","], "--methods names no method entry"),
    (["compare", "levy", "--dim", "3", "--quick", "--methods", "tron_gpu"], "none of tron_gpu runs in the quick"),
    (["compare", "missing.py:F", "--dim", "3"], "cannot read function file"),
    (["compare", "levy", "--dim", "0"], "not a positive integer"),
])
def test_bad_input_is_one_line(argv, words, tmp_path, capsys):
    assert main(argv + ["--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("gpubench: error: ") and words in err[0], err
    assert not (tmp_path / "o").exists()
