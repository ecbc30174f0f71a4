"""Load and check the declarative experiment files ``experiments/*.toml``.

One file per published table of Zhang, Shan & Cagan (2026), PNAS Nexus 5(4)
pgag103 (Tables 1, 2, S2-S14), plus ``functions12`` (the demo's rows).  A file
reads (every key is checked; an unknown key is an error)::

    id = "tableS2"                  # = the file's name
    title = "Ackley function with scalable dimensions"
    source = "Zhang, Shan & Cagan (2026), SI Appendix C, Table S2"
    layout = "scaling"              # "scaling" (solver tables), "methods" (S12/S13) or
                                    # "heuristic" (mean (std) error and success rate of many runs)
    functions = ["ackley"]
    dims = [50, 100, 500, 1000]
    repetitions = 1                 # timed repetitions of each case
    success_tol = 1e-6              # heuristics: success when f - f* <= this (optional)
    note = "..."                    # optional

    [published]                     # the rows the report compares against
    file = "zhang2026_solver.csv"   # in experiments/published/
    tables = ["S2"]

    [methods.interval]              # one table per method entry; the key names the entry
    method = "..."                  # the registered method it runs (default: the key)
    label = "Proposed method"       # its label in the published table (optional)
    backend = "auto"                # everything else is passed to the method as a setting
    split_dims = 10
    parts = 4

    [quick]                         # the --quick variant: what it changes
    dims = [10, 20, 40]
    note = "why and what changes"
    skip = ["some_entry"]           # entries left out of the quick variant (say why in note)
    [quick.methods.interval]
    parts = 2

A malformed file raises :class:`gpubench.forms.InputError` with one line:
the file, the key and what is wrong.
"""
import copy
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .errors import InputError

LAYOUTS = ("scaling", "methods", "compare", "heuristic")
VARIANTS = ("full", "quick")
_TOP_KEYS = {"id", "title", "source", "layout", "functions", "dims", "repetitions", "success_tol",
             "note", "published", "methods", "quick"}
_REQUIRED = ("id", "title", "source", "layout", "functions", "dims", "methods")
_QUICK_KEYS = {"functions", "dims", "repetitions", "methods", "note", "skip"}
_PUBLISHED_KEYS = {"file", "tables"}
_RESERVED = {"method", "label"}


@dataclass(frozen=True)
class MethodSpec:
    key: str           # the entry's name in the experiment (unique)
    method: str        # the registered method it runs
    label: str         # its row label in the published table ("" when none)
    settings: dict     # passed to the method


@dataclass(frozen=True)
class Variant:
    name: str          # "full" or "quick"
    functions: tuple
    dims: tuple
    repetitions: int
    methods: tuple     # of MethodSpec, in file order
    note: str = ""


@dataclass(frozen=True)
class Experiment:
    id: str
    title: str
    source: str
    layout: str
    published_file: str
    published_tables: tuple
    success_tol: float
    note: str
    path: str
    full: Variant
    quick: Variant = field(default=None)

    def variant(self, quick=False):
        return self.quick if quick else self.full

    def published(self):
        """The published rows this experiment compares against, as a DataFrame (or None)."""
        if not self.published_file:
            return None
        import pandas as pd
        path = published_dir() / self.published_file
        df = pd.read_csv(path, dtype={"table": str, "raw": str}, keep_default_na=False,
                         na_values={"seconds": [""], "min_value": [""], "runs": [""]})
        if "table" in df.columns and self.published_tables:
            df = df[df["table"].isin(self.published_tables)]
        return df.reset_index(drop=True)


def experiments_dir():
    """Where the experiment files are: $GPUBENCH_EXPERIMENTS, else the installed package."""
    env = os.environ.get("GPUBENCH_EXPERIMENTS")
    if env:
        return Path(env)
    from . import experiments
    return Path(experiments.__path__[0])


def published_dir():
    """The copies of the published tables (``experiments/published/``, always the package's)."""
    from . import experiments
    return Path(experiments.__path__[0]) / "published"


def names(directory=None):
    d = Path(directory) if directory else experiments_dir()
    return sorted(p.stem for p in d.glob("*.toml"))


def load_all(directory=None):
    return [load(name, directory) for name in names(directory)]


def load(name, directory=None):
    """The experiment called ``name`` (or a path to a ``.toml`` file)."""
    d = Path(directory) if directory else experiments_dir()
    p = Path(name)
    if p.suffix == ".toml" and p.is_file():
        path = p
    else:
        path = d / f"{name}.toml"
        if not path.is_file():
            known = ", ".join(names(d)) or "none"
            raise InputError(f"unknown experiment {name!r}; known: {known} (`gpubench reproduce --list`)")
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    return parse(data, str(path))


# ---------------------------------------------------------------- checking
def setting_names(method):
    """The settings ``method`` accepts, as its settings dataclass declares them."""
    from . import methods as registry
    return set(registry.get(method).settings.names())


def _check_setting_names(path, where, method, settings):
    from . import methods as registry
    for k, v in settings.items():
        if isinstance(v, dict):
            _fail(path, f"{where}.{k}: a setting must be a value or a list, not a table")
    try:
        registry.get(method).make_settings(settings)
    except InputError as exc:
        _fail(path, f"{where}: {exc}")


def _fail(path, msg):
    raise InputError(f"{path}: {msg}")


def _str(path, key, v, empty_ok=False):
    if not isinstance(v, str) or (not empty_ok and not v.strip()):
        _fail(path, f"{key} must be a non-empty string, got {v!r}")
    return v


def _int_list(path, key, v):
    if not isinstance(v, list) or not v:
        _fail(path, f"{key} must be a non-empty list of positive integers, got {v!r}")
    for x in v:
        if isinstance(x, bool) or not isinstance(x, int) or x < 1:
            _fail(path, f"{key} must be a non-empty list of positive integers, got {v!r}")
    if len(set(v)) != len(v):
        _fail(path, f"{key} lists a value twice: {v!r}")
    return tuple(v)


def _functions(path, key, v):
    if not isinstance(v, list) or not v or not all(isinstance(x, str) and x for x in v):
        _fail(path, f"{key} must be a non-empty list of function names, got {v!r}")
    from . import functions
    known = set(functions.names())
    for f in v:
        if f not in known:
            _fail(path, f"{key}: unknown function {f!r} (`gpubench functions` lists them)")
    if len(set(v)) != len(v):
        _fail(path, f"{key} lists a function twice")
    return tuple(v)


def _positive_int(path, key, v):
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        _fail(path, f"{key} must be a positive integer, got {v!r}")
    return v


def _methods(path, key, table, known_methods):
    if not isinstance(table, dict) or not table:
        _fail(path, f"{key} must hold at least one [{key}.NAME] table")
    specs = []
    for name, entry in table.items():
        if not isinstance(entry, dict):
            _fail(path, f"{key}.{name} must be a table of settings, got {entry!r}")
        method = entry.get("method", name)
        if not isinstance(method, str) or method not in known_methods:
            _fail(path, f"{key}.{name}: unknown method {method!r}; known: {', '.join(sorted(known_methods))}")
        label = entry.get("label", "")
        _str(path, f"{key}.{name}.label", label, empty_ok=True)
        settings = {k: v for k, v in entry.items() if k not in _RESERVED}
        _check_setting_names(path, f"{key}.{name}", method, settings)
        specs.append(MethodSpec(key=name, method=method, label=label, settings=settings))
    return tuple(specs)


def parse(data, path="<experiment>"):
    """Check a parsed TOML document and build the :class:`Experiment`."""
    from . import methods as registry
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        _fail(path, f"unknown key {unknown[0]!r}; allowed: {', '.join(sorted(_TOP_KEYS))}")
    for k in _REQUIRED:
        if k not in data:
            _fail(path, f"missing required key {k!r}")
    eid = _str(path, "id", data["id"])
    stem = Path(path).stem
    if path.endswith(".toml") and eid != stem:
        _fail(path, f"id {eid!r} differs from the file name {stem!r}")
    layout = data["layout"]
    if layout not in LAYOUTS:
        _fail(path, f"layout must be one of {', '.join(LAYOUTS)}, got {layout!r}")
    known_methods = set(registry.names())
    functions = _functions(path, "functions", data["functions"])
    dims = _int_list(path, "dims", data["dims"])
    reps = _positive_int(path, "repetitions", data.get("repetitions", 1))
    tol = data.get("success_tol", 1e-6)
    if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not tol >= 0:
        _fail(path, f"success_tol must be a non-negative number, got {tol!r}")
    note = _str(path, "note", data.get("note", ""), empty_ok=True)
    full_methods = _methods(path, "methods", data["methods"], known_methods)
    published = data.get("published", {})
    if not isinstance(published, dict):
        _fail(path, "published must be a table with file and tables")
    bad = sorted(set(published) - _PUBLISHED_KEYS)
    if bad:
        _fail(path, f"published: unknown key {bad[0]!r}; allowed: file, tables")
    pfile = _str(path, "published.file", published.get("file", ""), empty_ok=True)
    if pfile and not (published_dir() / pfile).is_file():
        _fail(path, f"published.file {pfile!r} is not in {published_dir()}")
    ptables = published.get("tables", [])
    if not isinstance(ptables, list) or not all(isinstance(t, str) for t in ptables):
        _fail(path, f"published.tables must be a list of table names, got {ptables!r}")
    full = Variant("full", functions, dims, reps, full_methods, "")

    quick = data.get("quick")
    if quick is None:
        _fail(path, "missing [quick]: every experiment needs a quick variant that runs on a CPU in minutes")
    if not isinstance(quick, dict):
        _fail(path, "quick must be a table")
    bad = sorted(set(quick) - _QUICK_KEYS)
    if bad:
        _fail(path, f"quick: unknown key {bad[0]!r}; allowed: {', '.join(sorted(_QUICK_KEYS))}")
    q_functions = _functions(path, "quick.functions", quick["functions"]) if "functions" in quick else functions
    q_dims = _int_list(path, "quick.dims", quick["dims"]) if "dims" in quick else dims
    q_reps = _positive_int(path, "quick.repetitions", quick.get("repetitions", reps))
    q_methods = list(copy.deepcopy(full_methods))
    overrides = quick.get("methods", {})
    if not isinstance(overrides, dict):
        _fail(path, "quick.methods must hold [quick.methods.NAME] tables")
    index = {m.key: i for i, m in enumerate(q_methods)}
    for name, entry in overrides.items():
        if name not in index:
            _fail(path, f"quick.methods.{name}: no [methods.{name}] to change")
        if not isinstance(entry, dict):
            _fail(path, f"quick.methods.{name} must be a table of settings")
        if set(entry) & _RESERVED:
            _fail(path, f"quick.methods.{name}: method and label cannot change in the quick variant")
        old = q_methods[index[name]]
        _check_setting_names(path, f"quick.methods.{name}", old.method, {**old.settings, **entry})
        q_methods[index[name]] = MethodSpec(old.key, old.method, old.label, {**old.settings, **entry})
    skip = quick.get("skip", [])
    if not isinstance(skip, list) or not all(isinstance(k, str) for k in skip):
        _fail(path, f"quick.skip must be a list of method entry names, got {skip!r}")
    for name in skip:
        if name not in index:
            _fail(path, f"quick.skip: no [methods.{name}] to leave out")
    # an entry too slow for a CPU in minutes (say why in quick.note) runs in the full variant only
    q_methods = [m for m in q_methods if m.key not in skip]
    if not q_methods:
        _fail(path, "quick.skip leaves the quick variant without methods")
    q_note = _str(path, "quick.note", quick.get("note", ""), empty_ok=True)
    qv = Variant("quick", q_functions, q_dims, q_reps, tuple(q_methods), q_note)
    return Experiment(id=eid, title=_str(path, "title", data["title"]),
                      source=_str(path, "source", data["source"]), layout=layout,
                      published_file=pfile, published_tables=tuple(ptables), success_tol=float(tol),
                      note=note, path=path, full=full, quick=qv)
