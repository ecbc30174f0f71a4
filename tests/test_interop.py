"""Other tools read the comparison's data: cocopp (COCO's post-processor) runs on our COCO files."""
import math
import shutil

import pytest

from gpubench.reports import coco_data, compare
from gpubench.workflow import runner
from gpubench.cli import main

pytest.importorskip("cocopp")

TINY = """
id = "tiny"
title = "A tiny comparison"
source = "tests/test_interop.py"
layout = "compare"
functions = ["levy", "rastrigin"]
dims = [2, 3]
repetitions = 2

[methods.bfgs]
runs = 3
time_limit = 10.0

[methods.nelder_mead]
runs = 2
time_limit = 10.0

[methods.differential_evolution]
maxiter = 30
popsize = 5
time_limit = 10.0

[quick]
"""


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """Records of a real (tiny) comparison, and its COCO data sets as the report writes them."""
    root = tmp_path_factory.mktemp("interop")
    (root / "tiny.toml").write_text(TINY)
    assert main(["reproduce", str(root / "tiny.toml"), "--results", str(root / "res")]) == 0
    recs = runner.load_records(root / "res" / "tiny")
    folders = coco_data.write_coco(recs, compare._fstars(recs), root / "coco")
    return root, recs, folders


@pytest.fixture(scope="module")
def processed(tiny, tmp_path_factory):
    """cocopp.main run once on every method's data set: (its main page, its output folder)."""
    from gpubench.reports.interop import coco
    root, recs, folders = tiny
    page = coco.run(folders, tmp_path_factory.mktemp("pp"))
    (out,) = [p for p in page.parent.iterdir() if p.is_dir()]
    return page, out


def _ours(recs, key):
    """{(function, dim): [record, ...] in repetition order}: the runs of one data set."""
    out = {}
    for r in sorted((r for r in recs if r["key"] == key), key=lambda r: r.get("repetition", 0)):
        out.setdefault((r["function"], int(r["dim"])), []).append(r)
    return out


def test_cocopp_reads_runtimes_equal_to_ours(tiny, tmp_path):
    """cocopp's own reader gives, for every target f* + 10^k, the runs' first evaluation counts at
    the target (and their ERT) that gpubench.reports.compare computes from the same records."""
    from gpubench.reports.interop import coco
    root, recs, folders = tiny
    assert len(folders) == 3
    names = sorted({r["function"] for r in recs})
    fstars = compare._fstars(recs)
    reached = 0
    for folder in folders:
        dsl = coco.load(folder, tmp_path / folder.name)
        ours = _ours(recs, folder.name)
        assert sorted((ds.funcId, ds.dim) for ds in dsl) == sorted((names.index(f) + 1, d) for f, d in ours)
        for ds in dsl:
            assert ds.algId == folder.name and ds.suite_name == coco.SUITE
            runs = ours[(names[ds.funcId - 1], ds.dim)]
            assert ds.instancenumbers == list(range(1, len(runs) + 1))
            fstar = fstars[(runs[0]["function"], ds.dim)]
            ends = [compare.trace_of(r)[-1][0] for r in runs]
            assert list(ds.readmaxevals) == ends  # the .info file's evaluations of each run
            for k in coco_data.TARGET_EXPONENTS:
                mine = [dict((j, e) for j, e, _ in coco_data.runtimes(r, fstar))[k] for r in runs]
                (theirs,) = ds.detEvals([10.0 ** k])
                assert [None if math.isnan(v) else v for v in theirs] == mine, (folder.name, ds, k)
                reached += sum(v is not None for v in mine)
                hits = [e for e in mine if e is not None]
                ert = (sum(hits) + sum(e for e, m in zip(ends, mine) if m is None)) / len(hits) if hits else math.inf
                assert ds.detERT([10.0 ** k])[0] == pytest.approx(ert)
    assert reached > 0  # some targets were reached: the comparison is not vacuous


def test_cocopp_writes_its_html_and_ecdf_figures(processed):
    """cocopp.main on every method's data set: its main page, the runtime ECDF of all functions in
    each n (the figure on its main page) and per function, and the comparison tables."""
    page, out = processed
    assert page.name == "index.html" and out.name in page.read_text()
    html = (out / "index.html").read_text()
    for d in (2, 3):
        fig = out / f"pprldmany_{d:02d}D_noiselessall.svg"
        assert fig.stat().st_size > 1000 and fig.name in html
    assert sorted(p.name for p in (out / "pprldmany-single-functions").glob("pprldmany_f00*_02D.svg")) == \
        ["pprldmany_f001_02D.svg", "pprldmany_f002_02D.svg"]
    # the functions by their names (our testbed's), in the per-function ECDF titles
    assert "levy" in (out / "pprldmany-single-functions" / "pprldmany_f001_02D.svg").read_text()
    assert "rastrigin" in (out / "pprldmany-single-functions" / "pprldmany_f002_03D.svg").read_text()


PPTABLE_TARGETS = (1e1, 1e0, 1e-1, 1e-2, 1e-3, 1e-5, 1e-7)  # the columns of cocopp's bbob tables


def _pptables(html):
    """{(funcId, dim, algorithm as cocopp shows it): ([ERT sort key of each target], "succ/runs")}
    read from cocopp's pptables.html."""
    import re
    out = {}
    for block in re.split(r"<b>f(?=\d+, \d+-D</b>)", html)[1:]:
        fid, dim = map(int, re.match(r"(\d+), (\d+)-D", block).groups())
        for alg, cells in re.findall(r'<th style="width:250px">([^<]*)</th>(.*?)(?=<tr>|</table>)', block, re.S):
            keys = re.findall(r'<td[^>]*sorttable_customkey="([^"]*)"[^>]*>(.*?)</td>', cells, re.S)
            out[(fid, dim, alg)] = ([float(k) for k, _ in keys[:-1]], keys[-1][1].strip())
    return out


def test_cocopp_tables_report_our_expected_runtimes(tiny, processed):
    """The expected runtimes (ERT) cocopp prints in its tables, for each function, n, method and
    target, are those of the runs as gpubench reads them from its records; #succ too."""
    root, recs, folders = tiny
    page, out = processed
    tables = _pptables((out / "pptables.html").read_text())
    names = sorted({r["function"] for r in recs})
    fstars = compare._fstars(recs)
    checked = finite = 0
    for folder in folders:
        for (f, dim), runs in _ours(recs, folder.name).items():
            ert_keys, succ = tables[(names.index(f) + 1, dim, folder.name.replace("_", " "))]
            ends = [compare.trace_of(r)[-1][0] for r in runs]
            per_run = [dict((k, e) for k, e, _ in coco_data.runtimes(r, fstars[(f, dim)])) for r in runs]
            for j, target in enumerate(PPTABLE_TARGETS):
                k = round(math.log10(target))
                hits = [rt[k] for rt in per_run]
                if any(h is not None for h in hits):
                    ert = sum(h if h is not None else e for h, e in zip(hits, ends)) / sum(h is not None for h in hits)
                    assert ert_keys[j] == pytest.approx(ert, abs=1e-6), (folder.name, f, dim, target)
                    finite += 1
                elif j < len(PPTABLE_TARGETS) - 1:  # (the last column then shows the median length)
                    assert ert_keys[j] == 2.0 ** 63, (folder.name, f, dim, target)
                checked += 1
            assert succ == f"{sum(rt[-8] is not None for rt in per_run)}/{len(runs)}"
    assert checked == 3 * 4 * len(PPTABLE_TARGETS) and finite > 0


def test_the_seconds_column_is_kept(tiny):
    """The comparison's wall-clock seconds travel as a sixth column of .dat/.tdat (docs/interop.md),
    which cocopp ignores: each row's seconds are the trace's."""
    root, recs, folders = tiny
    (bfgs,) = [f for f in folders if f.name == "bfgs"]
    data = coco_data.read_coco(bfgs)
    ours = _ours(recs, "bfgs")
    names = sorted({r["function"] for r in recs})
    for (fid, dim), d in data.items():
        for run, r in zip(d["runs"], ours[(names[fid - 1], dim)]):
            assert [s for _, _, s in run] == pytest.approx([row[1] for row in compare.trace_of(r)], rel=1e-6)


def test_cocopp_refuses_data_of_another_suite(tiny, tmp_path):
    """Our data with another suite's name is not silently read as ours."""
    from gpubench.errors import InputError
    from gpubench.reports.interop import coco
    root, recs, folders = tiny
    copy = tmp_path / "bfgs"
    shutil.copytree(folders[0], copy)
    info = next(copy.glob("*.info"))
    info.write_text(info.read_text().replace("suite = 'gpubench'", "suite = 'bbob'"))
    with pytest.raises(InputError, match="suite 'bbob'"):
        coco.run([copy], tmp_path / "pp")


def test_cocopp_is_imported_without_network():
    """cocopp lists its online archive when imported: gpubench imports it with no network call
    reaching the socket layer (an audit hook sees every real lookup or connection)."""
    import subprocess
    import sys
    code = ("import sys\n"
            "seen = []\n"
            "sys.addaudithook(lambda e, a: seen.append(e) if e.startswith(('socket.connect', 'socket.getaddrinfo')) else None)\n"
            "from gpubench.reports.interop import coco\n"
            "m = coco.cocopp()\n"
            "import socket\n"
            "assert socket.getaddrinfo.__module__ == 'socket' and m.main\n"  # restored afterwards
            "print(seen)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stdout + out.stderr[-2000:]


# ---------------------------------------------------------------- IOHprofiler (IOHanalyzer)
@pytest.fixture(scope="module")
def ioh_data(tiny):
    """The tiny comparison in IOHprofiler's format, read back by iohinspector's DataManager."""
    iohinspector = pytest.importorskip("iohinspector")
    from gpubench.reports.interop import ioh
    root, recs, _ = tiny
    folders = ioh.write_ioh(recs, compare._fstars(recs), root / "ioh")
    dm = iohinspector.DataManager()
    dm.add_folders([str(f) for f in folders])
    return recs, folders, dm


def test_iohinspector_reads_every_run(ioh_data):
    """One run per record, each with its method, function, n, repetition (instance), evaluations
    and best value."""
    recs, folders, dm = ioh_data
    assert sorted(f.name for f in folders) == ["bfgs", "differential_evolution", "nelder_mead"]
    ov = dm.overview
    assert len(ov) == len(recs) and set(ov["suite"]) == {"gpubench"}
    seen = set()
    for row in ov.iter_rows(named=True):
        runs = _ours(recs, row["algorithm_name"])[(row["function_name"], row["dimension"])]
        r = runs[row["instance"] - 1]
        last = compare.trace_of(r)[-1]
        assert row["evals"] == last[0] and row["best_y"] == last[2]
        seen.add((row["algorithm_name"], row["function_name"], row["dimension"], row["instance"]))
    assert len(seen) == len(recs)


def test_iohinspector_fixed_target_runtimes_equal_ours(ioh_data):
    """Aligned at the targets f* + 10^k by iohinspector, each run's evaluations and seconds to the
    target are those gpubench.reports.compare reads from the record's trace."""
    from iohinspector import align_data
    recs, folders, dm = ioh_data
    data = dm.load(monotonic=True, include_meta_data=True)
    assert {"evaluations", "raw_y", "seconds"} <= set(data.columns)
    fstars = compare._fstars(recs)
    reached = 0
    for (key, f, dim, inst), run in data.group_by(["algorithm_name", "function_name", "dimension", "instance"]):
        r = _ours(recs, key)[(f, dim)][inst - 1]
        ks = sorted(coco_data.TARGET_EXPONENTS)  # ascending targets, as the alignment needs them
        aligned = align_data(run, [fstars[(f, dim)] + 10.0 ** k for k in ks], group_cols=["data_id"],
                             x_col="raw_y", y_col="evaluations", silence_warning=True).sort("raw_y")
        mine = sorted(coco_data.runtimes(r, fstars[(f, dim)]))
        for (k, e, s), ev, sec in zip(mine, aligned["evaluations"], aligned["seconds"]):
            if e is None:
                assert ev is None or not math.isfinite(ev), (key, f, dim, inst, k)
            else:
                assert (ev, sec) == (e, pytest.approx(s, rel=1e-12)), (key, f, dim, inst, k)
                reached += 1
    assert reached > 0


def test_ioh_run_starting_after_its_first_evaluation(tmp_path):
    """A batch method's trace starts at its first batch: the run still starts at evaluation 1 (the
    readers split runs there) with no value claimed before its first trace point."""
    iohinspector = pytest.importorskip("iohinspector")
    from gpubench.reports.interop import ioh
    recs = [{"key": "batch", "method": "de-gpu", "function": "levy", "dim": 2, "sense": "min",
             "repetition": rep, "x": [1.0, 1.0], "measured": {"fun": 1e-3, "evaluations": 40, "seconds": 0.4},
             "history": {"trace": [[20, 0.2, 5.0 + rep], [40, 0.4, 1e-3]]}} for rep in (0, 1)]
    (folder,) = ioh.write_ioh(recs, {("levy", 2): 0.0}, tmp_path)
    dm = iohinspector.DataManager()
    dm.add_folder(str(folder))
    data = dm.load(monotonic=True, include_meta_data=True).sort(["instance", "evaluations"])
    assert data["instance"].to_list() == [1, 1, 1, 2, 2, 2]
    assert data["evaluations"].to_list() == [1, 20, 40] * 2
    assert data["raw_y"].to_list() == [math.inf, 5.0, 1e-3, math.inf, 6.0, 1e-3]
    assert data["seconds"].to_list() == [0.2, 0.2, 0.4] * 2


def test_cocopp_reads_a_run_that_starts_at_the_optimum_after_its_first_batch(tmp_path):
    """A batch method whose first trace point (its first batch) is already within 1e-8 of f*: COCO's
    files still start at evaluation 1 (best - f* = inf there), cocopp reads them, and its runtime
    to every target is the batch's evaluation count, as gpubench.reports.compare credits it."""
    from gpubench.reports.interop import coco
    recs = [{"key": "batch", "method": "de-gpu", "function": "levy", "dim": 2, "sense": "min",
             "repetition": rep, "measured": {"fun": 0.0, "evaluations": 40, "seconds": 0.4},
             "history": {"trace": [[20, 0.2, 1e-12 * rep], [40, 0.4, 0.0]]}} for rep in (0, 1)]
    (folder,) = coco_data.write_coco(recs, {("levy", 2): 0.0}, tmp_path / "coco")
    (ds,) = coco.load(folder, tmp_path / "work")
    for k in coco_data.TARGET_EXPONENTS:
        assert list(ds.detEvals([10.0 ** k])[0]) == [20.0, 20.0]
        assert [e for j, e, _ in coco_data.runtimes(recs[0], 0.0) if j == k] == [20.0]


def test_cocopp_command_and_the_index_link(tiny, tmp_path, capsys):
    """`python -m gpubench.reports.interop.coco DATA OUT` on a comparison's COCO folder (or its zip) writes
    cocopp's pages; reports/index.md links every reports/cocopp/*/index.html."""
    from gpubench.reports.interop import coco
    root, recs, folders = tiny
    assert coco.main([str(tmp_path / "nothing.zip"), str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("gpubench: error: ") and "neither" in err[0]
    archive = coco_data.zip_folder(folders[0].parent)
    reports = tmp_path / "reports"
    assert coco.main([str(archive), str(reports / "cocopp" / "tiny")]) == 0
    assert "cocopp on 3 data set(s)" in capsys.readouterr().out
    assert (reports / "cocopp" / "tiny" / "index.html").is_file()
    from gpubench.reports.index import write_index
    index = write_index(reports, root / "res").read_text()
    assert "[cocopp/tiny/index.html](cocopp/tiny/index.html)" in index
