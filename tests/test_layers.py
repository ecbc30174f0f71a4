"""The package's layers (docs/architecture.md): imports run down, and no modules import each other
in a circle.  Read from the source (every import statement, at module level or inside a function),
so nothing is imported or run."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# bottom to top; a module may import its own layer or one below
LAYERS = [
    ("gpubench.errors", "gpubench.paths"),
    ("gpubench.interval",),
    ("gpubench.device",),
    ("gpubench.forms", "gpubench.result"),
    ("gpubench.functions",),
    ("gpubench.kernels",),
    ("gpubench.methods", "gpubench.baselines"),
    ("gpubench.records",),
    ("gpubench.problems",),
    ("gpubench.workflow",),
    ("gpubench.reports",),
    ("gpubench.commands", "gpubench.cli", "gpubench.__main__"),
]
# the imports that still run up, each for the reason docs/architecture.md states
UPWARD = {
    ("gpubench.kernels.tron_cpu", "gpubench.methods.tron.loader"),
    ("gpubench.kernels.tron_gpu", "gpubench.methods.tron.loader"),
    ("gpubench.problems.fei2014", "gpubench.workflow.experiments_loader"),
}
TOP_LEVEL = {"__init__", "__main__", "cli", "errors", "paths", "result"}
FOLDERS = {"gpubench": "gpubench", "gpubench.functions": "functions", "gpubench.baselines": "baselines"}


def _modules():
    """{module name: (path, is_package)} of the package's source, the installed folders included."""
    out = {}
    for prefix, folder in FOLDERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            pkg = parts[-1] == "__init__"
            name = ".".join((prefix, *(parts[:-1] if pkg else parts)))
            if prefix == "gpubench" and name.startswith(("gpubench.functions", "gpubench.baselines")):
                continue
            out[name] = (path, pkg)
    return out


def _target(name, modules):
    """The module ``name`` names: itself, or its longest prefix that is a module."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _imports(modules):
    """{(importer, imported)} over every import statement of every module."""
    edges = set()
    for name, (path, pkg) in modules.items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".") if pkg else name.split(".")[:-1]
                    base = base[: len(base) - node.level + 1]
                    mod = ".".join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module or ""
                found = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in modules else mod for a in node.names]
            else:
                continue
            for f in found:
                t = _target(f, modules) if f.startswith("gpubench") else None
                if t is not None and t != name:
                    edges.add((name, t))
    return edges


def _layer(name):
    if name == "gpubench":  # the package's face: its version alone
        return 0
    for i, prefixes in enumerate(LAYERS):
        if any(name == p or name.startswith(p + ".") for p in prefixes):
            return i
    raise AssertionError(f"{name} is in no layer of docs/architecture.md")


def test_imports_run_down_the_layers():
    modules = _modules()
    up = sorted((a, b) for a, b in _imports(modules) if _layer(b) > _layer(a) and (a, b) not in UPWARD)
    assert not up, f"imports running up the layers: {up}"


def test_no_modules_import_each_other_in_a_circle():
    modules = _modules()
    graph = {}
    for a, b in _imports(modules):
        # a package's __init__ that only hands names on ties nothing: skip edges into a package
        if not modules[b][1]:
            graph.setdefault(a, set()).add(b)
    seen, stack, circles = {}, [], []

    def visit(v, path):
        seen[v] = "open"
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if seen.get(w) == "open":
                circles.append(stack[stack.index(w):] + [w])
            elif w not in seen:
                visit(w, path)
        stack.pop()
        seen[v] = "done"

    for v in sorted(graph):
        if v not in seen:
            visit(v, [])
    assert not circles, f"import circles: {circles}"


def test_the_top_level_holds_the_layer_folders_and_six_modules():
    assert {p.stem for p in (ROOT / "gpubench").glob("*.py")} == TOP_LEVEL
