"""``gpubench cache`` shows the cache of generated code and compiled kernels and ``gpubench cache
clear`` clears it (issue 25, item 1)."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _gpubench(args, cache):
    env = dict(os.environ, GPUBENCH_CACHE=str(cache), NUMBA_ENABLE_CUDASIM="1")
    env.pop("NUMBA_CACHE_DIR", None)
    return subprocess.run([sys.executable, "-m", "gpubench", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=900)


def test_show_counts_what_a_run_left_and_clear_removes_it(tmp_path):
    empty = _gpubench(["cache", "--json"], tmp_path)
    assert empty.returncode == 0 and json.loads(empty.stdout)["entries"] == 0
    run = _gpubench(["minimize", "rastrigin", "--dim", "2", "--method", "de-gpu", "--backend", "cpu",
                     "--set", "np=8", "--set", "max_evaluations=16", "--set", "cpu_variant=sde", "--json"], tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    shown = json.loads(_gpubench(["cache", "--json"], tmp_path).stdout)
    assert shown["folder"] == str(tmp_path / "generated")
    files = [p for p in (tmp_path / "generated").rglob("*") if p.is_file()]
    assert shown["entries"] == len(files) > 0
    assert shown["bytes"] == sum(p.stat().st_size for p in files)
    assert shown["kinds"]["forms and kernels"] >= 1 and shown["kinds"]["index entries"] >= 1
    assert shown["kinds"]["compiled (numba index files)"] >= 1  # the CPU twins numba cached
    text = _gpubench(["cache"], tmp_path).stdout
    assert str(tmp_path / "generated") in text and f"{shown['entries']} entries" in text
    cleared = _gpubench(["cache", "clear"], tmp_path)
    assert cleared.returncode == 0 and f"{shown['entries']} entries" in cleared.stdout
    assert not (tmp_path / "generated").exists()
    assert json.loads(_gpubench(["cache", "--json"], tmp_path).stdout)["entries"] == 0


def test_an_unknown_action_is_one_line(tmp_path):
    out = _gpubench(["cache", "purge"], tmp_path)
    assert out.returncode == 2 and out.stderr.strip() == "gpubench: error: cache: unknown action 'purge' (show or clear)"


def test_the_cache_command_imports_neither_sympy_nor_numba(tmp_path):
    code = ("import sys; from gpubench import cli; cli.main(['cache']); "
            "print('sympy' in sys.modules, 'numba' in sys.modules)")
    env = dict(os.environ, GPUBENCH_CACHE=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert out.stdout.strip().splitlines()[-1] == "False False", out.stdout + out.stderr
