"""The experiment files: one per published table of paper 000, and one-line errors for bad ones."""
import textwrap

import pytest

from gpubench import experiments_loader as loader
from gpubench.cli import main
from gpubench.forms import InputError

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
    covered = {t for e in exps for t in e.published_tables}
    assert set(TABLES) <= covered          # Tables 1, 2 and S2-S14 all have an experiment
    for e in exps:
        assert e.quick is not None and e.full is not None
        assert e.quick.note, f"{e.id}: the quick variant must say what it changes"
        if e.layout == "compare":  # gpubench's own comparison: no published table, by design
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
    (spec,) = e.full.methods
    assert spec.method == "interval"
    assert {k: spec.settings[k] for k in ("split_dims", "parts", "tol", "samples")} == \
        {"split_dims": 10, "parts": 4, "tol": 1e-4, "samples": 10}


def test_s12_has_the_seven_methods_with_the_papers_run_counts():
    e = loader.load("tableS12")
    # the published rows (an entry without a label, such as a user's budget, has none)
    runs = {m.label: m.settings.get("runs") for m in e.full.methods if m.key != "direct_scipy_defaults" and m.label}
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
