"""Every data file under functions/ and experiments/ is installed with the package.

An editable install reads the checkout, so a file missing from ``package-data`` is
only noticed on a plain install (the GPU host's): the ANN weights of paper 001's
problems once were.  This reads pyproject.toml and checks every non-Python file
against the globs of its package.
"""
import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _installed_files():
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    dirs = conf["package-dir"]
    out = []
    for pkg, globs in conf["package-data"].items():
        # the package's folder: its own entry in package-dir, else its parent's plus the last name
        parts = pkg.split(".")
        for k in range(len(parts), 0, -1):
            base = ".".join(parts[:k])
            if base in dirs:
                folder = ROOT / dirs[base] / Path(*parts[k:])
                break
        out += [(folder, g) for g in globs]
    return out


def _shipped(path, rules):
    for folder, pattern in rules:
        try:
            rel = path.relative_to(folder)
        except ValueError:
            continue
        # fnmatch's * also matches "/", a setuptools glob does not: compare the depth too
        if fnmatch.fnmatch(rel.as_posix(), pattern) and rel.as_posix().count("/") == pattern.count("/"):
            return True
    return False


def test_every_data_file_is_package_data():
    rules = _installed_files()
    missing = [str(p.relative_to(ROOT)) for top in ("functions", "experiments")
               for p in sorted((ROOT / top).rglob("*"))
               if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
               and not _shipped(p, rules)]
    assert not missing, f"not installed by a plain pip install (add to package-data): {missing}"


def test_the_check_sees_a_file_outside_the_globs(tmp_path):
    rules = [(tmp_path, "*.toml")]
    (tmp_path / "sub").mkdir()
    assert _shipped(tmp_path / "a.toml", rules)
    assert not _shipped(tmp_path / "sub" / "a.toml", rules)  # setuptools globs do not descend
    assert not _shipped(tmp_path / "a.npz", rules)


def test_every_data_folder_is_a_declared_package():
    """A folder Python can import (any folder, as a namespace package) but ``packages`` leaves out
    makes setuptools print a 40-line "Package would be ignored" warning on every ``make .venv``."""
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    declared = set(conf["packages"])
    undeclared = []
    for pkg, top in (("gpubench.functions", "functions"), ("gpubench.experiments", "experiments")):
        for d in sorted((ROOT / top).rglob("*")):
            if d.is_dir() and "__pycache__" not in d.parts and any(f.is_file() for f in d.iterdir()):
                name = ".".join([pkg, *d.relative_to(ROOT / top).parts])
                if name not in declared:
                    undeclared.append(name)
    assert not undeclared, f"declare in [tool.setuptools] packages: {undeclared}"


def test_a_plain_install_lists_every_table_and_builds_the_reports(tmp_path):
    """`pip install .` (not editable), run from another folder: nothing may look for the checkout's
    experiments/ or results/ (three modules once read `site-packages/experiments/`)."""
    import os
    import shutil
    import subprocess
    import sys

    from gpubench import experiments_loader as loader
    # a copy of the sources: the build writes build/ and *.egg-info beside pyproject.toml
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for top in ("gpubench", "functions", "experiments"):
        shutil.copytree(ROOT / top, src / top, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    site = tmp_path / "site"
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site),
                          str(src)], capture_output=True, text=True, timeout=300)
    assert pip.returncode == 0, pip.stderr[-2000:]
    run = tmp_path / "elsewhere"
    (run / "results" / "gpu" / "tron").mkdir(parents=True)
    shutil.copy(ROOT / "results" / "gpu" / "tron" / "tron_gpu.json", run / "results" / "gpu" / "tron")
    # the dependencies come from this interpreter's environment, gpubench from the install only
    env = dict(os.environ, PYTHONPATH=str(site), GPUBENCH_RESULTS="", GPUBENCH_REPORTS="")

    def gpubench(*args):
        r = subprocess.run([sys.executable, "-m", "gpubench", *args], capture_output=True, text=True,
                           cwd=run, env=env, timeout=300)
        assert r.returncode == 0, r.stderr[-2000:]
        return r.stdout
    where = subprocess.run([sys.executable, "-c", "import gpubench; print(gpubench.__file__)"],
                           capture_output=True, text=True, cwd=run, env=env).stdout
    assert where.startswith(str(site))
    listed = gpubench("reproduce", "--list")
    ids = {line.split()[1] for line in listed.splitlines()[1:-1]}
    assert ids == set(loader.names()) and str(run / "results") in listed
    gpubench("report", "--all", "--reports", str(run / "out"))
    index = (run / "out" / "index.md").read_text()
    assert all(name in index for name in loader.names())
    assert (run / "out" / "kim_exatron.md").read_text() == (ROOT / "reports" / "kim_exatron.md").read_text()
    assert (run / "out" / "tableS2.md").is_file() and "[kim_exatron_table1](kim_exatron_table1.md)" in index
