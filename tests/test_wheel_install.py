"""A plain (non-editable) install, run from another folder, lists every table and builds the reports."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_a_plain_install_lists_every_table_and_builds_the_reports(tmp_path):
    """`pip install .` (not editable), run from another folder: nothing may look for the checkout's
    experiments/ or results/ (three modules once read `site-packages/experiments/`)."""
    import os
    import shutil
    import subprocess
    import sys

    from gpubench.workflow import experiments_loader as loader
    # a copy of the sources: the build writes build/ and *.egg-info beside pyproject.toml
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for top in ("gpubench", "functions", "experiments", "baselines"):
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
    # baselines/ is installed as gpubench.baselines: SciPy's methods and the peers are registered
    methods = gpubench("methods")
    assert all(name in methods for name in ("bfgs", "differential_evolution", "evox-de", "jaxopt-lbfgsb"))
    listed = gpubench("reproduce", "--list")
    ids = {line.split()[1] for line in listed.splitlines()[1:-1]}
    assert ids == set(loader.names()) and str(run / "results") in listed
    gpubench("report", "--all", "--reports", str(run / "out"))
    index = (run / "out" / "index.md").read_text()
    assert all(name in index for name in loader.names())
    assert (run / "out" / "kim_exatron.md").read_text() == (ROOT / "reports" / "kim_exatron.md").read_text()
    assert (run / "out" / "tableS2.md").is_file() and "[kim_exatron_table1](kim_exatron_table1.md)" in index
