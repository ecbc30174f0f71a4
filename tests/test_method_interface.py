"""The method interface: declared methods, the registry, settings, `gpubench minimize` and `methods`,
commands above the library, and a toy method added in one file (the README's example)."""
import ast
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from gpubench import methods
from gpubench.errors import InputError
from gpubench.methods.base import Method, MethodSettings

REPO = Path(__file__).resolve().parents[1]


def readme_method_example():
    text = (REPO / "README.md").read_text()
    m = re.search(r"```python\n# random_search.py\n(.*?)```", text, re.S)
    assert m, "the README's 'Adding a method' example is missing"
    return m.group(1)


@pytest.fixture
def toy_folder(tmp_path, monkeypatch):
    folder = tmp_path / "my_methods"
    folder.mkdir()
    (folder / "random_search.py").write_text(readme_method_example())
    monkeypatch.setenv("GPUBENCH_METHOD_PATH", str(folder))
    return folder


def cli(*args, env_extra=None, timeout=300):
    env = dict(os.environ, **(env_extra or {}))
    return subprocess.run([sys.executable, "-m", "gpubench", *args], capture_output=True, text=True,
                          env=env, timeout=timeout, cwd=REPO)


def test_every_method_declares_itself():
    names = methods.names()
    assert "interval" in names and "bfgs" in names
    for m in methods.all_methods():
        assert isinstance(m, Method) and issubclass(m.settings, MethodSettings)
        assert set(m.backends) <= {"cpu", "cuda"} and m.backends
        assert m.summary and m.module
        m.make_settings()  # the defaults are valid
    assert methods.get("interval").rigorous and not methods.get("bfgs").rigorous


def test_toy_method_in_one_file_is_listed_run_and_reported(toy_folder, tmp_path):
    # listed and runnable from Python
    assert "random-search" in methods.names()
    r = methods.minimize("shifted_sphere", 3, method="random-search", samples=500, seed=4)
    assert r.method == "random-search" and r.nfev == 500 and r.iterations == 1 and r.converged
    from gpubench import functions
    fn = functions.get("shifted_sphere")
    X = np.random.default_rng(4).uniform(*fn.bounds(3), size=(500, 3))
    assert r.fun == pytest.approx(float(np.min(fn.points(X))))
    with pytest.raises(InputError, match="has no setting 'colour'"):
        methods.minimize("shifted_sphere", 3, method="random-search", colour=1)
    env = {"GPUBENCH_METHOD_PATH": str(toy_folder)}
    # listed and runnable from the shell, with the JSON shape of `gpubench solve`
    out = cli("methods", env_extra=env)
    assert out.returncode == 0 and "random-search" in out.stdout and "heuristic" in out.stdout
    out = cli("minimize", "shifted_sphere", "--dim", "3", "--method", "random-search", "--set", "samples=50",
              "--seed", "2", "--json", env_extra=env)
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["method"] == "random-search" and d["nfev"] == 50 and d["options"]["seed"] == 2
    for key in ("function", "dim", "backend", "x", "fun", "iterations", "nfev", "converged", "message", "regions"):
        assert key in d
    bad = cli("minimize", "shifted_sphere", "--dim", "3", "--method", "random-search", "--set", "samples=lots",
              env_extra=env)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "samples must be an integer" in bad.stderr
    # an experiment file runs it through the runner and the report shows it beside the others
    exp = tmp_path / "toy.toml"
    exp.write_text(textwrap.dedent('''
        id = "toy"
        title = "random search against BFGS"
        source = "the tests"
        layout = "methods"
        functions = ["shifted_sphere"]
        dims = [3]
        success_tol = 10.0
        [methods.random]
        method = "random-search"
        samples = 200
        [methods.bfgs]
        runs = 2
        [quick]
        note = "the same"
    '''))
    res, rep = tmp_path / "res", tmp_path / "rep"
    out = cli("reproduce", str(exp), "--quick", "--results", str(res), env_extra=env)
    assert out.returncode == 0, out.stderr
    recs = [json.loads(p.read_text()) for p in (res / "toy").glob("*.json")]
    assert sorted(r["method"] for r in recs) == ["bfgs", "random-search"]
    from gpubench.workflow import experiments_loader as loader
    from gpubench.reports import builder as report
    md = report.build(loader.load(str(exp)), res, rep).read_text()
    assert "random" in md and "bfgs" in md


def test_experiment_settings_are_checked_from_the_dataclass(tmp_path):
    exp = tmp_path / "bad.toml"
    exp.write_text(textwrap.dedent('''
        id = "bad"
        title = "t"
        source = "s"
        layout = "methods"
        functions = ["ackley"]
        dims = [3]
        [methods.bfgs]
        gtol = "small"
        [quick]
    '''))
    from gpubench.workflow import experiments_loader as loader
    with pytest.raises(InputError) as e:
        loader.load(str(exp))
    msg = str(e.value)
    assert "bad.toml" in msg and "methods.bfgs" in msg and "gtol must be a number" in msg


@pytest.mark.parametrize("text, expect", [
    ({"split_dims": "4"}, {"split_dims": 4}),
    ({"tol": "1e-3"}, {"tol": 1e-3}),
    ({"max_iterations": "none"}, {"max_iterations": None}),
    ({"max_iterations": "1e3"}, {"max_iterations": 1000}),
])
def test_settings_parse_typed_text(text, expect):
    s = methods.get("interval").settings.build("interval", text, from_text=True)
    for k, v in expect.items():
        assert getattr(s, k) == v


@pytest.mark.parametrize("values, words", [
    ({"split_dims": "x"}, "split_dims must be an integer"),
    ({"split_dims": "2.5"}, "split_dims must be an integer"),
    ({"parts": "1"}, "parts must be at least 2"),
    ({"tol": "0"}, "tol must be greater than 0"),
    ({"spacing": "middle"}, "spacing must be one of inside, lower, upper"),
    ({"backend": "tpu"}, "backend must be one of auto, cpu, cuda"),
    ({"nosuch": "1"}, "has no setting 'nosuch'"),
])
def test_bad_typed_settings_are_one_line(values, words):
    with pytest.raises(InputError) as e:
        methods.get("interval").settings.build("interval", values, from_text=True)
    assert words in str(e.value) and "\n" not in str(e.value)


def test_unknown_keyword_to_minimize_is_one_line():
    with pytest.raises(InputError, match="method 'interval' has no setting 'colour'"):
        methods.minimize("levy", 2, method="interval", colour=3)


def test_help_imports_neither_sympy_nor_numba():
    # nor numpy: gpubench.errors, which every command imports, imports it where a check needs it
    code = ("import sys; from gpubench.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('sympy', 'numba', 'scipy', 'numpy')]\n"
            "print('MODULES:' + ','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "MODULES:", out.stdout


@pytest.mark.parametrize("dim, ok", [(3, True), (np.int64(3), True), (True, False), (3.0, False), (np.float64(3), False)])
def test_check_dim_takes_python_and_numpy_integers_only(dim, ok):
    from gpubench.errors import check_dim
    if ok:
        assert check_dim(dim) == 3 and type(check_dim(dim)) is int
    else:
        with pytest.raises(InputError, match="dimension must be an integer"):
            check_dim(dim)


def test_no_library_module_imports_the_command_line():
    for path in (REPO / "gpubench").rglob("*.py"):
        rel = path.relative_to(REPO / "gpubench")
        if rel.parts[0] == "commands" or rel.name in ("cli.py", "__main__.py"):
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                mod = ("." * node.level) + (node.module or "")
                names = [a.name for a in node.names]
                assert not re.search(r"(^|\.)(cli|commands)($|\.)", mod) and "cli" not in names \
                    and "commands" not in names, f"{rel} imports the command line ({mod})"
            if isinstance(node, ast.Import):
                for a in node.names:
                    assert not a.name.startswith(("gpubench.cli", "gpubench.commands")), rel


def test_the_interval_method_is_named_only_where_it_declares_itself():
    hits = []
    for path in (REPO / "gpubench").rglob("*.py"):
        for k, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"""["']interval["']""", line) and "s[\"interval\"]" not in line:
                hits.append(f"{path.relative_to(REPO)}:{k}")
    assert hits and all(h.startswith("gpubench/methods/interval.py:") for h in hits), hits
