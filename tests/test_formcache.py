"""A second process finds a function's forms through its card and imports no sympy; a changed
definition is never served from the cache (issue 25, item 1; gpubench/forms/cards.py)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

# modules a typed-in CPU run of a method that needs none of them must not import: each costs a
# second process tenths of a second (issue 42, item 4: SciPy's optimize 0.2 s and its linalg 0.15 s
# here, numba-cuda 0.17 s)
HEAVY = ("sympy", "scipy.linalg", "scipy.optimize", "scipy.stats", "pandas", "matplotlib", "numba.cuda")

# the command line, then whether sympy was imported, which of HEAVY were, and the commands it started
# (a git or nvidia-smi call is a process start on the way to the answer), as the last line of stdout
RUN = ("import subprocess, sys\nspawned = []\n_init = subprocess.Popen.__init__\n"
       "def _spy(self, args, *a, **k):\n    spawned.append(str(args))\n    return _init(self, args, *a, **k)\n"
       "subprocess.Popen.__init__ = _spy\n"
       "from gpubench import cli\nrc = cli.main(sys.argv[1:])\n"
       "print(json.dumps({'rc': rc, 'sympy': 'sympy' in sys.modules, "
       f"'heavy': [m for m in {HEAVY!r} if m in sys.modules], 'spawned': spawned}}))")


def _gpubench(args, cache, **env):
    e = dict(os.environ, GPUBENCH_CACHE=str(cache), **env)
    e.pop("NUMBA_CACHE_DIR", None)
    e.pop("GPUBENCH_NO_CARDS", None)
    e.pop("GPUBENCH_METHOD_PATH", None)   # a caller's plug-in folder (test_runner's, while its tests run)
    p = subprocess.run([sys.executable, "-c", "import json\n" + RUN, *args], cwd=ROOT, env=e,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    lines = p.stdout.strip().splitlines()
    return json.loads(lines[-2]), json.loads(lines[-1])


def test_a_second_de_gpu_process_imports_no_sympy(tmp_path, monkeypatch):
    args = ["minimize", "levy", "--dim", "10", "--method", "de-gpu", "--backend", "cpu", "--json",
            "--set", "cpu_variant=sde", "--set", "max_evaluations=2000"]
    first, how = _gpubench(args, tmp_path)
    assert how["sympy"]  # the first process derives the forms
    assert list((tmp_path / "generated" / "cards").glob("levy-*.json"))
    from gpubench.forms import cache
    monkeypatch.setenv("GPUBENCH_CACHE", str(tmp_path))
    assert cache.summary()["kinds"]["function cards"] == 1   # `gpubench cache` counts it
    second, how = _gpubench(args, tmp_path)
    assert not how["sympy"], "the second process imported sympy"
    assert how["heavy"] == [], f"a second CPU de-gpu process imported {how['heavy']}"
    assert how["spawned"] == [], f"a second CPU de-gpu process started {how['spawned']}"
    # the same answer from the cached card and module
    assert second["fun"] == first["fun"] and second["x"] == first["x"] and second["nfev"] == first["nfev"]


BOWL = '''
import numpy as np
from gpubench.forms.definition import Definition, Sum, x, symbols
S = symbols("S")
BOWL = Definition(name="bowl", title="Bowl", source="a test", terms={S: Sum(%s * x**2)}, expr=S,
                  domain=(-%d, %d), xstar=lambda dim: np.zeros(dim), fstar=lambda dim: 0.0)
'''


def test_a_changed_definition_is_never_served_from_the_cache(tmp_path):
    path = tmp_path / "bowl.py"
    cache = tmp_path / "cache"
    args = ["eval", f"{path}:BOWL", "--dim", "2", "--x", "1", "--json"]
    path.write_text(BOWL % ("1", 3, 3))
    out, how = _gpubench(args, cache)
    assert how["sympy"] and out["value"] == 2.0
    out, how = _gpubench(args, cache)
    assert not how["sympy"] and out["value"] == 2.0   # served from the card
    path.write_text(BOWL % ("3", 3, 3))                # the same name, another definition
    out, how = _gpubench(args, cache)
    assert how["sympy"] and out["value"] == 6.0        # derived again, not the old forms


def test_the_card_holds_what_the_definition_gives_and_the_key_follows_the_text(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUBENCH_CACHE", str(tmp_path / "cache"))
    from gpubench.forms import cards as formcache
    from gpubench.forms.function import TestFunction
    path = tmp_path / "bowl.py"
    path.write_text(BOWL % ("1", 3, 4))
    key = formcache.source_key(path)
    from gpubench import functions
    fn = functions.load_file(str(path), "BOWL")
    assert fn._definition is not None and fn.bounds(3)[1].tolist() == [4.0] * 3
    fn.fstar(3), fn.params(3)            # recorded on the card as the definition gives them
    card = formcache.Card("BOWL", path, None)
    assert card.meta["name"] == "bowl" and card.at(3, "bounds") == [[-3.0] * 3, [4.0] * 3]
    light = TestFunction(card=card)
    assert light._definition is None
    lo, hi = light.bounds(3)
    assert lo.tolist() == [-3.0] * 3 and light.fstar(3) == 0.0 and light.params(3).shape == (0, 3)
    assert light._definition is None   # all of it from the card
    # a dimension the card does not hold: the definition is imported and the card completed
    card.loader = lambda: fn.definition
    assert np.array_equal(light.xstar(5), np.zeros(5)) and light._definition is not None
    assert formcache.Card("BOWL", path, None).at(5, "xstar") == [0.0] * 5
    # any change of the text is a new key, so a new (empty) card
    formcache._KEYS.clear()
    path.write_text(BOWL % ("1", 3, 4) + "\n# a comment\n")
    assert formcache.source_key(path) != key
    assert formcache.Card("BOWL", path, None).meta is None


def test_a_method_is_found_without_importing_the_others():
    code = ("import sys\nfrom gpubench import methods\nm = methods.get('de-gpu')\n"
            "print(m.name, 'gpubench.methods.lbfgsb_gpu' in sys.modules, 'gpubench.methods.scipy_methods' in sys.modules)")
    env = {k: v for k, v in os.environ.items() if k != "GPUBENCH_METHOD_PATH"}   # a caller's plug-in folder
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert p.stdout.split() == ["de-gpu", "False", "False"], p.stderr[-2000:]


# every method's way to its generated modules, as a second process takes it: loading imports the
# modules (numba compiles on a first call, which this does not make), so it costs no compile
LOADS = r"""
import json, sys
from gpubench import functions
from gpubench.forms import carded
from gpubench.methods import tron
from gpubench.methods.lbfgsb import batch
from gpubench.methods.solver import kernels, uncut
from gpubench.methods.tron.loader import load_core
fn = functions.get("levy")
forms = tron.forms_for(fn, "cpu")
hess = tron.hessian_for(fn, 3, "cpu")
load_core("cpu", "symbolic", forms, hess)                 # tron-gpu's CPU twin
batch.module(fn, "cpu")                                   # lbfgsb-gpu
defn = fn.lazy_definition()                               # the interval solver's forms
names = [carded.load(defn, "cpu", kernels.extensions("cpu")).__name__,
         carded.load(defn.negated(), "cpu", (uncut.HOST_BASES,)).__name__]
has2 = carded.fact(defn, "has_window2", lambda d: any(d.window(a) == 2 for a in d.terms))
print(json.dumps({"sympy": "sympy" in sys.modules, "cuda": "numba.cuda" in sys.modules,
                  "names": names + [forms.__name__, hess.__name__], "has_window2": has2}))
"""


def test_every_methods_modules_load_through_the_card_without_sympy(tmp_path):
    """tron-gpu (forms, symbolic Hessian, core), lbfgsb-gpu and the interval solver find their
    generated modules through the card in a second process: no sympy, no numba.cuda on the CPU,
    the same modules as the first process derived (issue 42, item 4)."""
    env = dict(os.environ, GPUBENCH_CACHE=str(tmp_path))
    for k in ("NUMBA_CACHE_DIR", "GPUBENCH_NO_CARDS", "NUMBA_ENABLE_CUDASIM"):
        env.pop(k, None)
    runs = []
    for _ in range(2):
        p = subprocess.run([sys.executable, "-c", LOADS], cwd=ROOT, env=env, capture_output=True,
                           text=True, timeout=600)
        assert p.returncode == 0, p.stderr[-3000:]
        runs.append(json.loads(p.stdout.strip().splitlines()[-1]))
    first, second = runs
    assert first["sympy"]   # the first process derives
    assert not second["sympy"], "a second process imported sympy"
    assert not second["cuda"], "a CPU run imported numba.cuda"
    assert second["names"] == first["names"] and second["has_window2"] == first["has_window2"] is True


def test_two_processes_writing_one_card_keep_each_others_facts(tmp_path, monkeypatch):
    """Cards are shared by concurrent processes (a test run's workers, a queue's shares): each
    reads the card, records its own facts and writes; neither write may drop the other's."""
    monkeypatch.setenv("GPUBENCH_CACHE", str(tmp_path / "cache"))
    from gpubench import functions
    from gpubench.forms import cards as formcache
    path = tmp_path / "bowl.py"
    path.write_text(BOWL % ("1", 3, 4))
    definition = functions.load_file(str(path), "BOWL").definition
    first, second = formcache.Card("BOWL", path, None), formcache.Card("BOWL", path, None)
    first.fill(definition)
    second.fill(definition)            # both read the card before either recorded a fact
    first.record_at("any", "levelset", [1, 2])
    second.record_at(3, "fstar", 0.0)  # its in-memory card lacks the first's fact
    second.record_module("k", "mod_k")
    third = formcache.Card("BOWL", path, None)
    assert third.at("any", "levelset") == [1, 2] and third.at(3, "fstar") == 0.0
    assert third.module("k") == "mod_k"


def test_a_second_typed_in_interval_solve_imports_no_sympy():
    """`gpubench solve` (the interval solver, variant strong: local starts from the level set's guess,
    the root's contraction, the convexity floor) reads its forms and its level set's program from
    the card in a second process (issue 42, item 4).  In the suite's shared cache (conftest), where
    other tests compile Levy's CPU kernels, so the second process costs no compile."""
    args = ["solve", "levy", "--dim", "3", "--backend", "cpu", "--json"]
    cache = os.environ["GPUBENCH_CACHE"]
    first, _ = _gpubench(args, cache)
    second, how = _gpubench(args, cache)
    assert not how["sympy"], "a second interval solve imported sympy"
    assert (second["glb"], second["gub"]) == (first["glb"], first["gub"])
