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
    for pkg, top in (("gpubench.functions", "functions"), ("gpubench.experiments", "experiments"),
                     ("gpubench.baselines", "baselines"), ("gpubench", "gpubench")):
        for d in sorted((ROOT / top).rglob("*")):
            if d.is_dir() and "__pycache__" not in d.parts and any(f.is_file() for f in d.iterdir()):
                name = ".".join([pkg, *d.relative_to(ROOT / top).parts])
                if name not in declared:
                    undeclared.append(name)
    assert not undeclared, f"declare in [tool.setuptools] packages: {undeclared}"


def test_every_code_package_is_declared():
    """A subpackage of gpubench/ left out of ``packages`` works in the editable install and is
    missing from a wheel (gpubench.kernels was: the GPU host's install failed to import it)."""
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "gpubench").rglob("__init__.py")
             if "__pycache__" not in p.parts}
    assert found - set(conf["packages"]) == set()
