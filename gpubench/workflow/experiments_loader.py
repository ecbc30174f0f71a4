"""Load and check the declarative experiment files: one per published table of the five papers.

``experiments/<name>.toml`` has the id ``<name>``; ``experiments/<folder>/<name>.toml`` the id
``<folder>_<name>`` (``experiments/fei2014/table4.toml`` is ``fei2014_table4``).  Paper 000's
tables (Zhang, Shan & Cagan (2026), PNAS Nexus 5(4) pgag103: Tables 1, 2, S2-S14), paper 002's
(``qin2012_*``), the comparison and ``functions12`` (the demo's rows) are at the top; papers
001 (``maingo_gpu/``), 003 (``kim_exatron/``) and 004 (``fei2014/``) in folders.  A file
reads (every key is checked; an unknown key is an error)::

    id = "tableS2"                  # as above
    paper = "000"                   # 000 .. 004, or "all" (gpubench's own comparison); optional
    table = "S2"                    # the table's name in the paper (default: published.tables)
    title = "Ackley function with scalable dimensions"
    source = "Zhang, Shan & Cagan (2026), SI Appendix C, Table S2"
    layout = "scaling"              # "scaling" (solver tables), "methods" (S12/S13), "heuristic"
                                    # (mean (std) error and success rate of many runs), "compare",
                                    # "bnb" (paper 001), "micro" (batched kernels), "lbfgsb" (paper 004),
                                    # "admm" (paper 003's ADMM for AC OPF), "rigorous" (who proves
                                    # what, beside MAiNGO)
    functions = ["ackley"]          # library functions x dims, or [[problems]] below
    dims = [50, 100, 500, 1000]
    repetitions = 1                 # timed repetitions of each case
    success_tol = 1e-6              # heuristics: success when f - f* <= this (optional)
    note = "..."                    # optional

    [published]                     # the rows the report compares against
    file = "zhang2026_solver.csv"   # in experiments/published/
    tables = ["S2"]

    [methods.interval]              # one table per method entry; the key names the entry
    method = "..."                  # a registered method, or a procedure of gpubench.problems.catalog
    label = "Proposed method"       # its label in the published table (optional)
    backend = "auto"                # everything else is passed to the method as a setting
    split_dims = 10
    parts = 4

    [[problems]]                    # instead of functions x dims: fixed problems
    problem = "minpack2:torsion"    # a library function or NAMESPACE:NAME (gpubench.problems.catalog)
    n = [400, 1600]                 # its size (a list: one problem per size)
    subdomains = 1024               # any other key: a setting of every method on this problem

    [verdicts]                      # how the report judges each published row (gpubench.reports.verdict)
    rtol = 0.25                     # relative tolerance for statistics (means, times per iteration)
    triangulate = "qin2012_triangulate_table1"   # an experiment of independent implementations at the
                                    # rows' settings: each row that differs carries what they gave
                                    # (gpubench.reports.triangulation)
    [verdicts.explained]            # a row that differs, with the explanation the suite found
    "levy_delta n=500" = "the paper's sample spacing (docs/reproduction.md)"
    [verdicts.not_reproduced]       # a row not measured, with its reason (data or definition)
    "Kinetic N=512" = "the authors' ODE model and data are unpublished"

    library = "scipy_go"            # functions of a library of their own (gpubench.functions.LIBRARIES):
                                    # functions may then be "all", "small" (fixed n <= 3), "scalable" or names,
                                    # and without dims each function runs at the library's own n
    [certify]                       # layout "certify": how each stated minimum is judged
    ftol = 1e-6                     # (gpubench.workflow.certify.judge: certified width, f* and x* slack)
    stated_atol = 1e-5
    xslack = 1e-6

    [quick]                         # the --quick variant: what it changes
    dims = [10, 20, 40]             # (an experiment of [[problems]] has [[quick.problems]] instead)
    note = "why and what changes"
    skip = ["some_entry"]           # entries left out of the quick variant (say why in note)
    [quick.methods.interval]
    parts = 2

A published table that gpubench cannot run yet has ``not_implemented = "why"`` and only
id, paper, table, title, source, note and published: it is listed, never run.

A malformed file raises :class:`gpubench.forms.function.InputError` with one line:
the file, the key and what is wrong.
"""
import copy
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError, did_you_mean

LAYOUTS = ("scaling", "methods", "compare", "heuristic", "bnb", "lbfgsb", "micro", "admm", "certify", "rigorous")
VARIANTS = ("full", "quick")
PAPERS = ("000", "001", "002", "003", "004", "all")
_TOP_KEYS = {"id", "paper", "table", "title", "source", "layout", "functions", "dims", "problems", "repetitions",
             "success_tol", "note", "published", "methods", "quick", "not_implemented", "verdicts",
             "library", "certify"}
_REQUIRED = ("id", "title", "source", "layout", "methods")
_QUICK_KEYS = {"functions", "dims", "problems", "repetitions", "methods", "note", "skip"}
_PUBLISHED_KEYS = {"file", "tables"}
_RESERVED = {"method", "label"}


@dataclass(frozen=True)
class MethodSpec:
    key: str           # the entry's name in the experiment (unique)
    method: str        # the registered method it runs
    label: str         # its row label in the published table ("" when none)
    settings: dict     # passed to the method


@dataclass(frozen=True)
class ProblemSpec:
    problem: str       # a fixed problem, NAMESPACE:NAME (gpubench.problems.catalog)
    n: int             # its size
    settings: dict     # given to every method on it (they win over the method entry's)


@dataclass(frozen=True)
class Variant:
    name: str          # "full" or "quick"
    functions: tuple   # library functions x dims, or else
    dims: tuple
    repetitions: int
    methods: tuple     # of MethodSpec, in file order
    note: str = ""
    problems: tuple = ()   # of ProblemSpec: fixed problems (then functions and dims are empty)


@dataclass(frozen=True)
class Experiment:
    id: str
    paper: str
    table: str         # the table's name in the paper ("S2", "1")
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
    not_implemented: str = ""   # why the table cannot be run yet (then it has no variants)
    verdicts: dict = field(default_factory=dict)   # [verdicts]: rtol, explained, not_reproduced
    library: str = ""           # the functions' library ("" for the default one)
    certify: dict = field(default_factory=dict)    # [certify]: ftol, stated_atol, xslack

    def variant(self, quick=False):
        return self.quick if quick else self.full

    def published(self, as_printed=False):
        """The published rows this experiment compares against, as a DataFrame (or None);
        ``as_printed``: every cell as the text the CSV holds (a figure's printed digits, which a
        number loses: '0.000' is read 0.0), the rows the same as without it."""
        if not self.published_file:
            return None
        import pandas as pd
        path = published_dir() / self.published_file
        df = pd.read_csv(path, dtype=str if as_printed else {"table": str, "raw": str}, keep_default_na=False,
                         na_values={} if as_printed else {"seconds": [""], "min_value": [""], "runs": [""]})
        if "table" in df.columns and self.published_tables:
            df = df[df["table"].isin(self.published_tables)]
        return df.reset_index(drop=True)


def experiments_dir():
    """Where the experiment files are: $GPUBENCH_EXPERIMENTS, else the installed package."""
    env = os.environ.get("GPUBENCH_EXPERIMENTS")
    if env:
        return Path(env)
    from .. import experiments
    return Path(experiments.__path__[0])


def published_dir():
    """The copies of the published tables (``experiments/published/``, always the package's)."""
    from .. import experiments
    return Path(experiments.__path__[0]) / "published"


def _id_of(path, root):
    """``table1`` for ``root/table1.toml``; ``fei2014_table1`` for ``root/fei2014/table1.toml``."""
    rel = Path(path).relative_to(root)
    return "_".join(rel.parts[:-1] + (rel.stem,))


def _files(d):
    return {_id_of(p, d): p for p in d.rglob("*.toml") if "published" not in p.relative_to(d).parts}


def names(directory=None):
    return sorted(_files(Path(directory) if directory else experiments_dir()))


def load_all(directory=None):
    return [load(name, directory) for name in names(directory)]


def load(name, directory=None):
    """The experiment called ``name`` (or a path to a ``.toml`` file)."""
    d = Path(directory) if directory else experiments_dir()
    p = Path(name)
    if p.suffix == ".toml" and p.is_file():
        path = p
    else:
        path = _files(d).get(name) if d.is_dir() else None
        if path is None:
            known = ", ".join(names(d)) if d.is_dir() else "none"
            hint = did_you_mean(name, names(d)) if d.is_dir() else ""
            raise InputError(f"unknown experiment {name!r}{hint}; known: {known or 'none'} "
                             "(`gpubench reproduce --list`)")
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: not valid TOML: {exc}") from None
    except UnicodeDecodeError as exc:  # TOML is UTF-8: a Latin-1 or binary file is the user's error
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start}: {exc.object[exc.start:exc.start + 1]!r}); "
                         "TOML files are UTF-8") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    return parse(data, str(path))


# ---------------------------------------------------------------- checking
def setting_names(method):
    """The settings ``method`` accepts, as its settings dataclass declares them."""
    from .. import methods as registry
    return set(registry.get(method).settings.names())


def _check_setting_names(path, where, method, settings):
    from .. import methods as registry
    from ..problems import catalog
    for k, v in settings.items():
        if isinstance(v, dict):
            _fail(path, f"{where}.{k}: a setting must be a value or a list, not a table")
    try:
        if method in catalog.PROCEDURES:
            catalog.check_settings(method, settings)
        else:
            registry.get(method).make_settings(settings)
    except InputError as exc:
        _fail(path, f"{where}: {exc}")


def _known_methods():
    from .. import methods as registry
    from ..problems import catalog
    return set(registry.names()) | set(catalog.PROCEDURES)


def _problems(path, key, v, methods):
    """``[[problems]]``: fixed problems, each ``problem``, ``n`` (a list: one problem per n) and
    settings given to every method on it; each method must be able to measure it."""
    from ..problems import catalog
    if not isinstance(v, list) or not v or not all(isinstance(e, dict) for e in v):
        _fail(path, f"{key} must hold at least one [[{key}]] table")
    out = []
    for i, e in enumerate(v):
        where = f"{key}[{i}]"
        if "problem" not in e or "n" not in e:
            _fail(path, f"{where} needs problem and n")
        try:
            space = catalog.check_problem(e["problem"])
        except InputError as exc:
            _fail(path, f"{where}: {exc}")
        ns = e["n"] if isinstance(e["n"], list) else [e["n"]]
        ns = _int_list(path, f"{where}.n", ns)
        settings = {k: x for k, x in e.items() if k not in ("problem", "n")}
        for m in methods:
            takes = ((catalog.PROCEDURES[m.method].namespace,) if m.method in catalog.PROCEDURES
                     else ("library", "paper001"))     # a registered method takes any TestFunction
            if space not in takes:
                _fail(path, f"{where}: {m.key} ({m.method}) does not measure {space} problems")
            _check_setting_names(path, where, m.method, {**m.settings, **settings})
        out += [ProblemSpec(e["problem"], n, settings) for n in ns]
    seen = [(p.problem, p.n, repr(sorted(p.settings.items()))) for p in out]
    if len(set(seen)) != len(seen):
        _fail(path, f"{key} lists a problem twice")
    return tuple(out)


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


def _functions(path, key, v, library=""):
    if not isinstance(v, list) or not v or not all(isinstance(x, str) and x for x in v):
        _fail(path, f"{key} must be a non-empty list of function names, got {v!r}")
    from .. import functions
    if library:
        from .certify import select
        v = [g for f in v for g in (select(library, f) if f in SELECTORS else [f])]
    known = set(functions.names(library or None))
    for f in v:
        if f not in known:
            _fail(path, f"{key}: unknown function {f!r} (`gpubench functions{' --library ' + library if library else ''}` lists them)")
    if len(set(v)) != len(v):
        _fail(path, f"{key} lists a function twice")
    return tuple(v)


# what "functions" may name in an experiment of a library (gpubench.workflow.certify.select)
SELECTORS = ("all", "small", "scalable")
_CERTIFY_KEYS = ("ftol", "stated_atol", "xslack")


def _library(path, data):
    from .. import functions
    lib = data.get("library", "")
    if lib and lib not in functions.LIBRARIES:
        _fail(path, f"library must be one of {', '.join(functions.LIBRARIES)}, got {lib!r}")
    certify = data.get("certify", {})
    if (data["layout"] == "certify") != bool(lib and "certify" in data):
        _fail(path, "layout \"certify\" goes with a library and a [certify] table, and they with it")
    if not isinstance(certify, dict):
        _fail(path, "certify must be a table")
    bad = sorted(set(certify) - set(_CERTIFY_KEYS))
    if bad:
        _fail(path, f"certify: unknown key {bad[0]!r}; allowed: {', '.join(_CERTIFY_KEYS)}")
    out = {}
    for k in _CERTIFY_KEYS:
        if lib and k not in certify and data["layout"] == "certify":
            _fail(path, f"certify: missing {k}")
        if k in certify:
            v = certify[k]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0:
                _fail(path, f"certify.{k} must be a non-negative number, got {v!r}")
            out[k] = float(v)
    return lib, out


def _positive_int(path, key, v):
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        _fail(path, f"{key} must be a positive integer, got {v!r}")
    return v


def _methods(path, key, table, known_methods, fixed=False):
    if not isinstance(table, dict) or not table:
        _fail(path, f"{key} must hold at least one [{key}.NAME] table")
    specs = []
    for name, entry in table.items():
        if not isinstance(entry, dict):
            _fail(path, f"{key}.{name} must be a table of settings, got {entry!r}")
        method = entry.get("method", name)
        if not isinstance(method, str) or method not in known_methods:
            _fail(path, f"{key}.{name}: unknown method {method!r}; known: {', '.join(sorted(known_methods))}")
        from ..problems import catalog
        if method in catalog.PROCEDURES and not fixed:
            _fail(path, f"{key}.{name}: {method} measures fixed problems ([[problems]]), not functions x dims")
        label = entry.get("label", "")
        _str(path, f"{key}.{name}.label", label, empty_ok=True)
        settings = {k: v for k, v in entry.items() if k not in _RESERVED}
        _check_setting_names(path, f"{key}.{name}", method, settings)
        specs.append(MethodSpec(key=name, method=method, label=label, settings=settings))
    return tuple(specs)


def _published(path, data):
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
    return pfile, tuple(ptables)


def _header(path, data):
    eid = _str(path, "id", data["id"])
    p = Path(path)
    if path.endswith(".toml") and eid not in (p.stem, f"{p.parent.name}_{p.stem}"):
        _fail(path, f"id {eid!r} differs from the file name {p.stem!r} "
                    f"(in a folder: FOLDER_NAME, here {p.parent.name}_{p.stem})")
    paper = data.get("paper", "")
    if paper and paper not in PAPERS:
        _fail(path, f"paper must be one of {', '.join(PAPERS)}, got {paper!r}")
    table = _str(path, "table", data.get("table", ""), empty_ok=True)
    return eid, paper, table


def _verdicts(path, v):
    """[verdicts]: rtol (a number >= 0), explained and not_reproduced (tables of row -> text)."""
    if not isinstance(v, dict):
        _fail(path, "verdicts must be a table")
    bad = sorted(set(v) - {"rtol", "explained", "not_reproduced", "triangulate"})
    if bad:
        _fail(path, f"verdicts: unknown key {bad[0]!r}; allowed: explained, not_reproduced, rtol, triangulate")
    out = {}
    if "triangulate" in v:
        # the experiment of independent implementations at the rows' settings (gpubench.reports.triangulation)
        out["triangulate"] = _str(path, "verdicts.triangulate", v["triangulate"])
    if "rtol" in v:
        r = v["rtol"]
        if isinstance(r, bool) or not isinstance(r, (int, float)) or not r >= 0:
            _fail(path, f"verdicts.rtol must be a non-negative number, got {r!r}")
        out["rtol"] = float(r)
    for k in ("explained", "not_reproduced"):
        t = v.get(k, {})
        if not isinstance(t, dict) or not all(isinstance(x, str) and x.strip() for x in t.values()):
            _fail(path, f"verdicts.{k} must be a table of row = \"text\"")
        out[k] = dict(t)
    return out


def parse(data, path="<experiment>"):
    """Check a parsed TOML document and build the :class:`Experiment`."""
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        _fail(path, f"unknown key {unknown[0]!r}; allowed: {', '.join(sorted(_TOP_KEYS))}")
    if "not_implemented" in data:
        # a published table gpubench cannot run yet: listed, with the reason, and nothing else
        allowed = {"id", "paper", "table", "title", "source", "note", "published", "not_implemented", "verdicts"}
        bad = sorted(set(data) - allowed)
        if bad:
            _fail(path, f"{bad[0]!r} with not_implemented: a table that cannot run has no cases")
        for k in ("id", "title", "source"):
            if k not in data:
                _fail(path, f"missing required key {k!r}")
        eid, paper, table = _header(path, data)
        pfile, ptables = _published(path, data)
        return Experiment(id=eid, paper=paper, table=table or ", ".join(ptables),
                          title=_str(path, "title", data["title"]), source=_str(path, "source", data["source"]),
                          layout="", published_file=pfile, published_tables=ptables, success_tol=0.0,
                          note=_str(path, "note", data.get("note", ""), empty_ok=True), path=path,
                          full=None, quick=None,
                          not_implemented=_str(path, "not_implemented", data["not_implemented"]),
                          verdicts=_verdicts(path, data.get("verdicts", {})))
    for k in _REQUIRED:
        if k not in data:
            _fail(path, f"missing required key {k!r}")
    eid, paper, table = _header(path, data)
    layout = data["layout"]
    if layout not in LAYOUTS:
        _fail(path, f"layout must be one of {', '.join(LAYOUTS)}, got {layout!r}")
    fixed = "problems" in data
    library, certify = _library(path, data)
    if fixed and library:
        _fail(path, "library goes with functions, not [[problems]]")
    if fixed and ("functions" in data or "dims" in data):
        _fail(path, "an experiment has functions and dims, or [[problems]], not both")
    if not fixed:
        # a library's functions may each run at the library's own dimensions (no dims)
        for k in ("functions",) if library else ("functions", "dims"):
            if k not in data:
                _fail(path, f"missing required key {k!r} (or [[problems]])")
    known_methods = _known_methods()
    full_methods = _methods(path, "methods", data["methods"], known_methods, fixed)
    if fixed:
        functions, dims = (), ()
        problems = _problems(path, "problems", data["problems"], full_methods)
    else:
        functions = _functions(path, "functions", data["functions"], library)
        dims = _int_list(path, "dims", data["dims"]) if "dims" in data else ()
        problems = ()
    reps = _positive_int(path, "repetitions", data.get("repetitions", 1))
    tol = data.get("success_tol", 1e-6)
    if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not tol >= 0:
        _fail(path, f"success_tol must be a non-negative number, got {tol!r}")
    note = _str(path, "note", data.get("note", ""), empty_ok=True)
    pfile, ptables = _published(path, data)
    full = Variant("full", functions, dims, reps, full_methods, "", problems)

    quick = data.get("quick")
    if quick is None:
        _fail(path, "missing [quick]: every experiment needs a quick variant that runs on a CPU in minutes")
    if not isinstance(quick, dict):
        _fail(path, "quick must be a table")
    bad = sorted(set(quick) - _QUICK_KEYS)
    if bad:
        _fail(path, f"quick: unknown key {bad[0]!r}; allowed: {', '.join(sorted(_QUICK_KEYS))}")
    if fixed and ("functions" in quick or "dims" in quick):
        _fail(path, "quick: an experiment of [[problems]] changes them with [[quick.problems]]")
    if not fixed and "problems" in quick:
        _fail(path, "quick.problems: the experiment has functions and dims, not [[problems]]")
    q_functions = (_functions(path, "quick.functions", quick["functions"], library) if "functions" in quick
                   else functions)
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
    q_problems = _problems(path, "quick.problems", quick["problems"], q_methods) if "problems" in quick else problems
    q_note = _str(path, "quick.note", quick.get("note", ""), empty_ok=True)
    qv = Variant("quick", q_functions, q_dims, q_reps, tuple(q_methods), q_note, q_problems)
    return Experiment(id=eid, paper=paper, table=table or ", ".join(ptables),
                      title=_str(path, "title", data["title"]),
                      source=_str(path, "source", data["source"]), layout=layout,
                      published_file=pfile, published_tables=ptables, success_tol=float(tol),
                      note=note, path=path, full=full, quick=qv,
                      verdicts=_verdicts(path, data.get("verdicts", {})), library=library, certify=certify)
