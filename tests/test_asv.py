"""The asv benchmark suite stays runnable: `asv check`, and a quick dry run of a tiny subset.

Both use the existing-environment setting of asv.conf.json (``--python=same``:
this interpreter, nothing built) through a copy of the configuration whose
result folders lie in a temporary directory, so no test writes to results/asv/.
The CUDA benchmarks must skip cleanly here (no GPU; numba's simulator is
switched off for the subprocess, it does not count as a GPU).
"""
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("asv")

ROOT = Path(__file__).resolve().parent.parent


def _load(name, path):
    """Import a file of benchmarks/ without putting the repository on sys.path and without the
    package's thread pins touching this test process."""
    saved = os.environ.get("GPUBENCH_BENCH_NO_PIN")
    os.environ["GPUBENCH_BENCH_NO_PIN"] = "1"
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        if saved is None:
            del os.environ["GPUBENCH_BENCH_NO_PIN"]
        else:
            os.environ["GPUBENCH_BENCH_NO_PIN"] = saved


tools = _load("gpubench_asv_tools", ROOT / "benchmarks" / "tools.py")
pinned_env = _load("gpubench_asv_benchmarks", ROOT / "benchmarks" / "__init__.py").pinned_env

# a tiny subset: two cheap CPU benchmarks at one parameter each, and one CUDA benchmark (skips)
SUBSET = [r"CpuPoints\.time_points\('rosenbrock'\)", r"CpuIteration\.time_iteration\('rosenbrock'\)",
          r"CudaSweep\.time_sweep\('rosenbrock'\)"]


@pytest.fixture(scope="module")
def asv_env(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("asv")
    conf = tools.write_conf(tmp / "asv.conf.json", tmp / "results", tmp / "html", env_dir=str(tmp / "env"))
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_ENABLE_CUDASIM", "GPUBENCH_BENCH_NO_PIN")}
    env["HOME"] = str(tmp)  # asv's machine file (~/.asv-machine.json) goes here
    env.setdefault("GPUBENCH_CACHE", str(ROOT / ".cache"))
    return conf, env


def asv(args, env, timeout=300):
    done = subprocess.run([sys.executable, "-m", "asv", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)
    return done.returncode, done.stdout + done.stderr


def test_configuration_pins_threads_and_uses_this_python():
    conf = tools.load_conf()
    assert conf["environment_type"] == "existing"
    assert conf["results_dir"] == "results/asv" and conf["html_dir"] == "reports/asv"
    assert pinned_env()["NUMBA_NUM_THREADS"] == conf["matrix"]["env"]["NUMBA_NUM_THREADS"]


def test_asv_check(asv_env):
    conf, env = asv_env
    rc, out = asv(["check", "--config", str(conf), "--python=same"], env)
    assert rc == 0, out
    assert "No problems found" in out, out


def test_asv_quick_dry_run(asv_env):
    conf, env = asv_env
    rc, out = asv(["machine", "--yes", "--machine", "ci-test"], env)
    assert rc == 0, out
    bench = sum((["--bench", b] for b in SUBSET), [])
    rc, out = asv(["run", "--config", str(conf), "--python=same", "--quick", "--dry-run", "--show-stderr",
                   "--machine", "ci-test", *bench], env)
    assert rc == 0, out
    assert "Running 3 total benchmarks" in out, out
    assert "failed" not in out, out
    assert "skipped: NotImplementedError('no CUDA GPU here')" in out, out
    for name in ("CpuPoints.time_points", "CpuIteration.time_iteration"):
        line = next(l for l in out.splitlines() if name in l and "···" in l)
        assert line.rstrip().endswith("ok"), line


@pytest.mark.parametrize("machine,gpu_host", [("somecpu", False), ("gpuhost-NVIDIA-H200", True)])
def test_nightly_writes_the_tracked_graphs_only_on_a_gpu_host(tmp_path, machine, gpu_host):
    """`make nightly` on a CPU once rewrote reports/asv/ and results/asv/ (the GPU host's graphs,
    tracked): elsewhere than on a gpuhost-* machine its results and HTML go to .asv/nightly/.
    asv itself is a stand-in that logs its arguments and the folders of the config it is given."""
    import shutil
    if shutil.which("make") is None or not (ROOT / ".venv" / ".installed-stamp").exists():
        pytest.skip("needs make and the checkout's .venv")
    log = tmp_path / "asv.log"
    fake = tmp_path / "asv"
    fake.write_text(f"#!{sys.executable}\n"
                    "import json, re, sys\n"
                    "a = sys.argv[1:]\n"
                    "dirs = ''\n"
                    "if '--config' in a:\n"
                    "    text = open(a[a.index('--config') + 1]).read()\n"
                    "    d = json.loads(re.sub(r'(?m)^\\s*//.*$', '', text))\n"
                    "    dirs = ' results=' + d['results_dir'] + ' html=' + d['html_dir']\n"
                    f"open({str(log)!r}, 'a').write(a[0] + dirs + '\\n')\n")
    fake.chmod(0o755)
    p = subprocess.run(["make", "-s", "-o", ".venv/.installed-stamp", "nightly", f"ASV={fake}", f"ASV_MACHINE={machine}", "WARM=true",
                        "REGRESSIONS=true"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    calls = log.read_text().splitlines()
    writes = [c for c in calls if c.split()[0] in ("run", "publish")]
    assert [c.split()[0] for c in writes] == ["run", "publish"], calls
    for c in writes:
        assert "results=" in c, f"asv {c}: no --config, so asv.conf.json's folders"
        tracked = "results/asv" in c and "reports/asv" in c
        assert tracked == gpu_host, c
