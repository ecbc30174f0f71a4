"""Where records and reports live when no folder is named.

``--results DIR`` (or ``--reports DIR``) wins; then ``$GPUBENCH_RESULTS``
(``$GPUBENCH_REPORTS``); then the ``results/`` (``reports/``) folder of the
project checkout that gpubench runs from (an editable install, as ``make``
makes), so that ``gpubench reproduce --list`` run from any folder sees the
checkout's records; then ``results/`` (``reports/``) in the current folder
(an installed package has no checkout).  The demo keeps its own output in
``.demo/`` of the same place (ignored by git), so it never touches tracked files.
"""
import os
from pathlib import Path


def project_root():
    """The checkout this gpubench is imported from (it has pyproject.toml), or None."""
    root = Path(__file__).resolve().parent.parent
    return root if (root / "pyproject.toml").is_file() and (root / "gpubench").is_dir() else None


def _default(env, name, path=None):
    if path:
        return Path(path)
    if os.environ.get(env):
        return Path(os.environ[env])
    root = project_root()
    if root is not None and (root / name).is_dir():
        return root / name
    return Path(name)


def results_dir(path=None):
    return _default("GPUBENCH_RESULTS", "results", path)


def reports_dir(path=None):
    return _default("GPUBENCH_REPORTS", "reports", path)


def demo_dir():
    """The demo's own folder: $GPUBENCH_DEMO, else .demo/ in the checkout (or the current folder)."""
    if os.environ.get("GPUBENCH_DEMO"):
        return Path(os.environ["GPUBENCH_DEMO"])
    return (project_root() or Path(".")) / ".demo"
