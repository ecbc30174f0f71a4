"""No test changes the process for the tests after it (issue 39: the suite failed only after other
tests had run in the same process).  tests/conftest.py's autouse guard checks every test; these
check the guard, and what the guard cannot see: a test module's own import."""
import ast
from pathlib import Path

HERE = Path(__file__).resolve().parent
_MUTATORS = {("environ", "update"), ("environ", "setdefault"), ("environ", "pop"), ("os", "chdir"),
             ("os", "putenv"), ("os", "unsetenv")}


def _module_level_mutations(path):
    """Statements run at import (outside any def or class) that change os.environ or the cwd."""
    found = []
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for sub in ast.walk(node):
            targets = sub.targets if isinstance(sub, ast.Assign) else []
            for t in targets:
                if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Attribute) and t.value.attr == "environ":
                    found.append(f"{path.name}:{sub.lineno}")
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute):
                owner = sub.func.value
                name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", None)
                if (name, sub.func.attr) in _MUTATORS:
                    found.append(f"{path.name}:{sub.lineno}")
    return found


def test_no_test_module_changes_the_environment_when_imported():
    """tests/test_runner.py set GPUBENCH_METHOD_PATH at import: every test of a session that had
    collected it ran with its plug-in folder (and two modules removed it by hand).  Only conftest.py
    sets the session's variables; a module's own go in a fixture that undoes them."""
    found = [hit for p in sorted(HERE.glob("test_*.py")) for hit in _module_level_mutations(p)]
    assert not found, f"module-level changes of the environment or the cwd: {found}"


def test_the_guard_sees_what_a_test_leaves(monkeypatch, tmp_path):
    from conftest import _process_state
    from gpubench.methods import monitor
    before = _process_state()
    monkeypatch.setenv("GPUBENCH_LEFT_BEHIND", "1")
    assert _process_state()["environment"] != before["environment"]
    monkeypatch.undo()
    monkeypatch.chdir(tmp_path)
    assert _process_state()["cwd"] != before["cwd"]
    monkeypatch.undo()
    monkeypatch.setitem(monitor._INTERRUPT, "seen", True)
    assert _process_state()["Ctrl-C flags"] != before["Ctrl-C flags"]
    monkeypatch.undo()
    assert _process_state() == before
