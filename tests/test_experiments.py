"""The experiment files: one per published table of the five papers, and one-line errors for bad ones."""
import textwrap

import pytest

from gpubench.workflow import experiments_loader as loader
from gpubench.cli import main
from gpubench.forms.function import InputError

TABLES = ["1", "2"] + [f"S{k}" for k in range(2, 15)]

GOOD = textwrap.dedent('''
    id = "mine"
    title = "a test"
    source = "nowhere"
    layout = "scaling"
    functions = ["ackley"]
    dims = [3]

    [methods.bfgs]
    runs = 2

    [quick]
    dims = [2]
    [quick.methods.bfgs]
    runs = 1
''')


def write(tmp_path, text, name="mine"):
    p = tmp_path / f"{name}.toml"
    p.write_text(text)
    return p


def test_every_shipped_experiment_loads():
    exps = loader.load_all()
    ids = [e.id for e in exps]
    assert ids == loader.names()
    covered = {t for e in exps if e.paper == "000" for t in e.published_tables}
    assert set(TABLES) <= covered          # Tables 1, 2 and S2-S14 all have an experiment
    for e in exps:
        assert e.paper in loader.PAPERS, e.id
        if e.not_implemented:
            assert e.quick is None and e.full is None and e.published_file
            continue
        assert e.quick is not None and e.full is not None
        assert e.quick.note, f"{e.id}: the quick variant must say what it changes"
        if (e.layout in ("compare", "certify", "rigorous") or (e.paper == "all" and e.id.startswith("device_peers_"))
                or "_triangulate_" in e.id):
            # gpubench's own comparisons (methods; device kernels against their peers) and the
            # independent implementations a table's differing rows are triangulated with: no
            # published table, by design
            assert not e.published_file
            continue
        pub = e.published()
        assert pub is not None and len(pub) > 0


@pytest.mark.parametrize("eid", [e for e in loader.names() if e.startswith("table") and e not in ("tableS12", "tableS13")])
def test_solver_tables_compare_every_full_case_with_a_published_row(eid):
    e = loader.load(eid)
    pub = e.published()
    for f in e.full.functions:
        for n in e.full.dims:
            assert ((pub["function"] == f) & (pub["dimension"] == n)).any(), (eid, f, n)
    spec, *beside = e.full.methods
    paper = {"split_dims": 10, "parts": 4, "tol": 1e-4, "samples": 10}
    assert spec.method == "interval" and spec.label == "Proposed method"
    assert {k: spec.settings[k] for k in paper} == paper
    # the one entry beside the paper's: the same search with the iteration on the GPU, GPU only
    assert [(b.key, b.method, b.settings["loop"], b.settings["backend"]) for b in beside] == \
        [("interval_device", "interval", "device", "cuda")]
    assert {k: beside[0].settings[k] for k in paper} == paper
    assert [m.key for m in e.quick.methods] == ["interval"]


# every table the five papers print, as (paper, table): run, or listed as not implemented yet
PAPER_TABLES = ([("000", t) for t in TABLES] + [("001", t) for t in "1234"] + [("002", t) for t in "123"]
                + [("003", t) for t in "12345"] + [("004", t) for t in "1234"])


def test_every_table_of_the_five_papers_is_listed_with_its_counts_or_why_not(capsys, tmp_path):
    exps = loader.load_all()
    have = {(e.paper, t) for e in exps for t in ([e.table] if e.table and e.paper != "000" else e.published_tables)}
    assert set(PAPER_TABLES) <= have
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    for e in exps:
        line = next(ln for ln in out if ln.split()[1:2] == [e.id])
        assert line.split()[0] == e.paper
        if e.not_implemented:
            assert "not implemented yet: " + e.not_implemented in line
        else:
            full, quick = line.split()[4:6]
            assert full.endswith(f"/{len(__import__('gpubench.workflow.runner').workflow.runner.plan(e))}") and "/" in quick
    listed = {ln.split()[1] for ln in out[1:-1]}
    assert {e.id for e in exps if e.not_implemented} <= listed
    # paper 001's Table 2 runs since MAiNGO is a method (issue 38)
    assert "maingo_gpu_table2" in listed and not loader.load("maingo_gpu_table2").not_implemented
    # a table that cannot run is refused in one line
    mine = tmp_path / "mine.toml"
    mine.write_text('id = "mine"\ntitle = "t"\nsource = "s"\nnot_implemented = "why"\n')
    capsys.readouterr()
    assert main(["reproduce", str(mine)]) == 2
    assert "not implemented yet" in capsys.readouterr().err


def test_fixed_problems_expand_into_cases_with_their_own_settings():
    from gpubench.workflow import runner
    t3 = loader.load("maingo_gpu_table3")
    cases = runner.plan(t3)
    assert len(cases) == 18 and {c.function for c in cases} == {f"paper001:P3_{d}" for d in range(2, 7)}
    c = next(c for c in cases if c.function == "paper001:P3_5" and c.settings["subdomains"] == 2500)
    assert c.dim == 5 and c.settings["partition"] == "adaptive" and ":" not in c.case_id
    assert len({c.case_id for c in cases}) == 18
    t4 = loader.load("fei2014_table4")
    assert [p.n for p in t4.quick.problems] == [400, 1600, 3600, 10000]
    assert len(runner.plan(t4)) == 13 * 3 and len(runner.plan(t4, quick=True)) == 4 * 3
    assert {c.settings["cap_seconds"] for c in runner.plan(t4, quick=True)} == {20.0}
    # the full setting: the paper's stop rule (section 5) and no cap, in both columns
    assert {(c.settings["stop"], c.settings["energy_tol"], c.settings["cap_seconds"])
            for c in runner.plan(t4)} == {("energy_decrease", 1e-64, 0.0)}
    assert {c.settings["time_limit"] for c in cases} == {7200.0}


FIXED = textwrap.dedent('''
    id = "mine"
    paper = "004"
    title = "a test"
    source = "nowhere"
    layout = "lbfgsb"

    [methods.ours]
    method = "lbfgsb-minpack"
    cap_seconds = 5.0

    [[problems]]
    problem = "minpack2:torsion"
    n = [100, 400]

    [quick]
    note = "smaller"
    [[quick.problems]]
    problem = "minpack2:torsion"
    n = [100]
''')


CERTIFY = textwrap.dedent('''
    id = "mine"
    title = "a test"
    source = "nowhere"
    layout = "certify"
    library = "scipy_go"
    functions = ["small"]

    [certify]
    ftol = 1e-6
    stated_atol = 1e-5
    xslack = 1e-6

    [methods.interval]
    method = "interval"
    tol = 1e-7

    [quick]
    functions = ["scipy_go.Beale", "scipy_go.Ackley01"]
    dims = [2]
    note = "two"
''')


def test_a_library_experiment_runs_each_function_at_its_own_dimensions(tmp_path):
    """library + functions = ["all"] or ["small"] (fixed n <= 3), no dims: each function at the
    library's own n (scalable: 2, 5, 10); dims, when given, replace them."""
    from gpubench.workflow import runner
    from gpubench.workflow.certify import quick_names
    from gpubench.functions import scipy_go
    e = loader.load(str(write(tmp_path, CERTIFY)))
    assert e.library == "scipy_go" and e.full.functions == tuple(quick_names()) and e.full.dims == ()
    assert e.certify == {"ftol": 1e-6, "stated_atol": 1e-5, "xslack": 1e-6}
    cases = runner.plan(e)
    assert [(c.function, c.dim) for c in cases] == [(f, scipy_go.entry(f).dims[0]) for f in quick_names()]
    assert dict(cases[0].certify) == e.certify
    assert [(c.function, c.dim) for c in runner.plan(e, quick=True)] == [("scipy_go.Beale", 2), ("scipy_go.Ackley01", 2)]
    full = loader.load("scipy_go_certify")
    dims = {(c.function, c.dim) for c in runner.plan(full)}
    assert {("scipy_go.Ackley01", n) for n in (2, 5, 10)} <= dims and ("scipy_go.Hartmann6", 6) in dims
    assert len(dims) == sum(len(en.dims) for en in scipy_go.ENTRIES.values())


def test_s12_has_the_seven_methods_with_the_papers_run_counts():
    e = loader.load("tableS12")
    # the published rows (an entry without a label, such as a user's budget, has none)
    # (DIRECT's published row is the SciPy-defaults entry; the vol_tol = 0 entry has no label)
    runs = {m.label: m.settings.get("runs") for m in e.full.methods if m.label}
    assert runs == {"Basin-hopping": 1000, "BFGS": 50000, "Differential evolution": 100, "DIRECT": 1,
                    "Interior-point": 50000, "Nelder-Mead": 10000, "Trust region": 50000,
                    "Proposed method": None}
    de = next(m for m in e.full.methods if m.key == "differential_evolution")
    assert de.settings["tol"] == 0 and de.settings["atol"] == 0
    direct = next(m for m in e.full.methods if m.key == "direct")
    assert direct.settings["vol_tol"] == 0
    quick = {m.key: m.settings.get("runs") for m in e.quick.methods}
    assert all(quick[k] <= runs for k, runs in
               {m.key: m.settings.get("runs") for m in e.full.methods}.items() if runs)
    assert e.published()["method"].tolist()[:7] == ["Basin-hopping", "BFGS", "Differential evolution", "DIRECT",
                                                     "Interior-point", "Nelder-Mead", "Trust region"]


def test_quick_overrides_merge(tmp_path):
    e = loader.load(str(write(tmp_path, GOOD)))
    assert e.full.dims == (3,) and e.quick.dims == (2,)
    assert e.full.methods[0].settings == {"runs": 2}
    assert e.quick.methods[0].settings == {"runs": 1}


BAD = [
    ("id = [", "not valid TOML"),
    (GOOD.replace('title = "a test"', 'title = "a test"\ncolour = 1'), "unknown key 'colour'"),
    (GOOD.replace('title = "a test"\n', ""), "missing required key 'title'"),
    (GOOD.replace('id = "mine"', 'id = "other"'), "differs from the file name"),
    (GOOD.replace("dims = [3]", "dims = [0]"), "dims must be a non-empty list of positive integers"),
    (GOOD.replace("dims = [3]", 'dims = "3"'), "dims must be"),
    (GOOD.replace('functions = ["ackley"]', 'functions = ["nosuch"]'), "unknown function 'nosuch'"),
    (GOOD.replace("[methods.bfgs]", "[methods.nosuch]").replace("[quick.methods.bfgs]", "[quick.methods.x]"),
     "unknown method 'nosuch'"),
    (GOOD.replace("runs = 2", "runs = 2\ncolour = 3"), "has no setting 'colour'"),
    (GOOD.replace("[quick.methods.bfgs]", "[quick.methods.lbfgs]"), "no [methods.lbfgs] to change"),
    (GOOD.split("[quick]")[0], "missing [quick]"),
    (GOOD.replace('layout = "scaling"', 'layout = "pie"'), "layout must be one of"),
    (GOOD + '\n[published]\nfile = "nope.csv"\n', "is not in"),
    (GOOD + '\n[published]\nfile = "zhang2026_solver.csv"\nrows = 1\n', "published: unknown key 'rows'"),
    (GOOD.replace("repetitions", "x").replace('dims = [3]', 'dims = [3]\nrepetitions = -1'), "repetitions"),
    (GOOD.replace('id = "mine"', 'id = "mine"\npaper = "007"'), "paper must be one of"),
    (FIXED.replace("minpack2:torsion", "minpack2:nosuch", 1), "no such minpack2 problem"),
    (FIXED.replace("minpack2:torsion", "cfd:wing", 1), "unknown namespace 'cfd'"),
    (FIXED.replace("cap_seconds = 5.0", "cap_seconds = 5.0\ncolour = 1"), "unknown setting 'colour' of lbfgsb-minpack"),
    (FIXED.replace('"lbfgsb-minpack"\ncap_seconds = 5.0', '"cholesky-batch"'), "does not measure minpack2 problems"),
    (FIXED.replace('layout = "lbfgsb"', 'layout = "lbfgsb"\ndims = [3]'), "not both"),
    (GOOD.replace("[methods.bfgs]", '[methods.bfgs]\nmethod = "lbfgsb-cauchy"'), "measures fixed problems"),
    ('id = "mine"\ntitle = "t"\nsource = "s"\nnot_implemented = "why"\ndims = [2]\n', "a table that cannot run"),
    (CERTIFY.replace('library = "scipy_go"', 'library = "nosuch"'), "library must be one of"),
    (CERTIFY.replace("xslack = 1e-6", ""), "certify: missing xslack"),
    (CERTIFY.replace("xslack = 1e-6", "xslack = -1"), "certify.xslack must be a non-negative number"),
    (CERTIFY.replace("xslack = 1e-6", "xslack = 1e-6\ncolour = 1"), "certify: unknown key 'colour'"),
    (CERTIFY.replace('layout = "certify"', 'layout = "scaling"'), "goes with a library"),
    (CERTIFY.replace('"small"', '"scipy_go.Nosuch"'), "unknown function 'scipy_go.Nosuch'"),
]


@pytest.mark.parametrize("text, words", BAD)
def test_malformed_files_give_one_line(tmp_path, text, words):
    p = write(tmp_path, text)
    with pytest.raises(InputError) as exc:
        loader.load(str(p))
    msg = str(exc.value)
    assert words in msg and str(p) in msg and "\n" not in msg


def test_cli_prints_one_line_and_exits_2(tmp_path, capsys):
    p = write(tmp_path, GOOD.replace("dims = [3]", "dims = [-3]"))
    assert main(["reproduce", str(p), "--results", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("gpubench: error: ") and "dims" in err
    assert main(["reproduce", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown experiment 'nosuch'" in err
    assert main(["report", "nosuch", "--reports", str(tmp_path / "rep")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_experiments_dir_from_the_environment(tmp_path, monkeypatch):
    write(tmp_path, GOOD)
    monkeypatch.setenv("GPUBENCH_EXPERIMENTS", str(tmp_path))
    assert loader.names() == ["mine"]
    assert loader.load("mine").id == "mine"
