"""Hardening as a new user meets it: bounded output of stopped searches, exact region rebuilds,
runs that cannot end refused, services on loopback only, paths, reports' links, the demo's folder."""
import json
import os
import subprocess
import sys
import textwrap
import urllib.error
import urllib.request

import numpy as np
import pytest

from gpubench import functions
from gpubench.errors import InputError
from gpubench.methods.solver import solve
from gpubench.methods.solver.core import Search, Settings
from gpubench.methods.solver.partition import PartitionRule, child_box, child_boxes, cut, cuts


# ------------------------------------------------------------------ regions as arrays
@pytest.mark.parametrize("n,s,p,lo,hi", [
    (20, 10, 4, -10.0, 10.0),
    (7, 3, 5, -0.3, 1.7),          # widths that are not powers of two
    (3, 10, 4, -35.0, 40.0),       # n < s: q parts per coordinate (q**3 <= 4**10)
    (1, 10, 4, 1e-3, 3.0),         # n = 1: about a million parts
    (6, 6, 3, -1e6, 1e-6),
])
def test_child_boxes_equal_child_box_bit_for_bit(n, s, p, lo, hi):
    rng = np.random.default_rng(7 + n)
    rule = PartitionRule(n, s, p)
    sel_lo = lo + (hi - lo) * rng.random(n) * 0.3
    sel_hi = hi - (hi - lo) * rng.random(n) * 0.3
    for cyc in (0, n - 1, n // 2):
        plan = rule.plan(cyc)
        idx = rng.integers(0, plan.count, size=500)
        idx[:2] = (0, plan.count - 1)
        blo, bhi = child_boxes(sel_lo, sel_hi, plan, idx)
        for k, q in enumerate(idx):
            elo, ehi = child_box(sel_lo, sel_hi, plan, int(q))
            # bit-identical: compare the bytes, not the values
            assert blo[k].tobytes() == elo.tobytes() and bhi[k].tobytes() == ehi.tobytes(), (plan, q)


def test_cuts_equal_cut_for_every_index():
    for lo, hi, parts in ((-10.0, 10.0, 4), (0.1, 0.7, 1024), (-3.0, 4.0, 7), (5.0, 5.0, 3)):
        j = np.arange(-1, parts + 2)
        got = cuts(lo, hi, j, parts)
        want = np.array([cut(lo, hi, int(t), parts) for t in j])
        assert got.tobytes() == want.tobytes()


def test_output_regions_are_the_per_region_rebuild():
    """A stopped search with several segments: the arrays equal Search.region, region by region."""
    search = Search(functions.get("griewank"), 4, Settings(backend="cpu", split_dims=2, parts=3, max_iterations=6))
    r = search.run()
    sidx, itr, _, _, _ = search.state.regions.flat()
    order = np.lexsort((sidx, itr))
    assert len(set(itr.tolist())) > 2 and r.n_regions == len(order) > 10
    for row, q in enumerate(order):
        lo, hi = search.region(int(itr[q]), int(sidx[q]))
        assert r.regions_lo[row].tobytes() == lo.tobytes() and r.regions_hi[row].tobytes() == hi.tobytes()


MEMORY_SCRIPT = textwrap.dedent("""
    import json, resource, sys, tracemalloc
    from gpubench import functions
    from gpubench.methods.solver.core import Search, Settings

    def rss():
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * resource.getpagesize()

    search = Search(functions.get("levy"), 20, Settings(backend="cpu", split_dims=8, max_iterations=2))
    search.run()
    regions = len(search.state.regions)
    before = rss()
    tracemalloc.start()
    result = search.result("stopped at max_iterations")
    traced = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    d = result.to_json(max_regions=100)
    print(json.dumps({"regions": regions, "traced_peak": traced, "rss_growth": rss() - before,
                      "json_bytes": len(json.dumps(d)), "shown": d["regions_shown"], "n_regions": d["n_regions"]}))
""")


def test_early_stop_at_n20_stays_within_its_memory_bound():
    """Stopped after two iterations of 4^8 subregions at n = 20 (about 126,000 open regions).

    The bound: the two output arrays (16 n bytes per region) times 1.25, plus 8 MB traced
    (24 MB of resident memory).  Building the regions one Python tuple at a time took
    126 MB traced and 147 MB resident here (the arrays are 40 MB); arrays per segment take 45 MB.
    """
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    p = subprocess.run([sys.executable, "-c", MEMORY_SCRIPT], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    m = json.loads(p.stdout.strip().splitlines()[-1])
    arrays = 16 * 20 * m["regions"]
    assert m["regions"] > 100_000
    assert m["traced_peak"] <= 1.25 * arrays + 8e6, m
    assert m["rss_growth"] <= 1.25 * arrays + 24e6, m
    assert m["shown"] == 100 and m["n_regions"] == m["regions"]
    assert m["json_bytes"] < 200_000, m


# ------------------------------------------------------------------ runs that could never end
def test_tol_below_float_resolution_is_refused():
    with pytest.raises(InputError, match="below what float64 resolves"):
        solve("levy", 2, backend="cpu", split_dims=2, tol=1e-300)
    # levy's domain is [-10, 10]: 8 ulps of 10 is 1.4e-14; just above it is accepted (no run needed)
    Search(functions.get("levy"), 2, Settings(backend="cpu", split_dims=2, tol=1.5e-14))
    with pytest.raises(InputError):
        Search(functions.get("levy"), 2, Settings(backend="cpu", split_dims=2, tol=1.4e-14))


PARTIAL = textwrap.dedent("""
    import numpy as np
    from gpubench.forms.definition import Definition, Sum, log, sqrt, x, symbols
    S = symbols("S")
    SQ = Definition(name="sq", title="sqrt", source="test", terms={S: Sum(sqrt(x))}, expr=S,
                    domain=(-1, 4), xstar=lambda n: np.zeros(n), fstar=lambda n: 0.0)
    LG = Definition(name="lg", title="log", source="test", terms={S: Sum(log(x))}, expr=S,
                    domain=(-1, 4), xstar=lambda n: np.zeros(n), fstar=lambda n: 0.0)
    SQ_OK = Definition(name="sq", title="sqrt", source="test", terms={S: Sum(sqrt(x))}, expr=S,
                       domain=(0, 4), xstar=lambda n: np.zeros(n), fstar=lambda n: 0.0)
""")
# SQ_OK is SQ on a box where it is defined: the same name and terms give the same generated module
# (the domain is an argument of the kernels, not part of their text), so the solver compiles once for
# both (a name of its own cost about 11 s of numba in a fresh clone)


@pytest.fixture(scope="module")
def partial_file(tmp_path_factory):
    p = tmp_path_factory.mktemp("fns") / "partial.py"
    p.write_text(PARTIAL)
    return str(p)


@pytest.mark.parametrize("name", ["SQ", "LG"])
def test_function_undefined_on_part_of_its_box_stops_with_one_line(partial_file, name):
    """An empty enclosure is neither discarded (LG: its gradient [-1, -0.5] would rule the box out)
    nor refined for ever (SQ): the search stops with an InputError naming the box."""
    with pytest.raises(InputError, match="undefined on part of its domain") as e:
        solve(functions.get(f"{partial_file}:{name}"), 2, backend="cpu", split_dims=4)
    assert "\n" not in str(e.value)


def test_function_defined_on_its_box_still_solves(partial_file):
    r = solve(functions.get(f"{partial_file}:SQ_OK"), 2, backend="cpu", split_dims=4, tol=1e-3)
    assert r.converged and r.glb <= 0.0 <= r.gub


# ------------------------------------------------------------------ services
def test_dask_services_listen_on_loopback_only_and_serve_no_dashboard():
    psutil = pytest.importorskip("psutil")
    pytest.importorskip("distributed")
    from gpubench.workflow.runner import start_client
    client, cluster = start_client(workers=1)
    try:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        workers = list(client.scheduler_info()["workers"])
        assert workers and all(w.startswith("tcp://127.0.0.1:") for w in workers)
        me = psutil.Process()
        pids = {me.pid} | {c.pid for c in me.children(recursive=True)}
        listening = [c for c in psutil.net_connections(kind="inet")
                     if c.status == psutil.CONN_LISTEN and c.pid in pids]
        assert len(listening) >= 3  # scheduler, its HTTP server, the worker (and nanny)
        assert all(c.laddr.ip in ("127.0.0.1", "::1") for c in listening), listening
        http_ports = [s.getsockname()[1] for s in cluster.scheduler.http_server._sockets.values()]
        assert http_ports and 8787 not in http_ports
        for port in http_ports:
            for path in ("/", "/status", "/info/main/workers.html", "/metrics", "/json/counts.json"):
                with pytest.raises(urllib.error.HTTPError) as e:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5)
                assert e.value.code == 404, path
    finally:
        client.close()
        cluster.close()


# ------------------------------------------------------------------ folders, reports, demo
def test_default_folders_are_the_checkouts_from_anywhere(tmp_path, monkeypatch):
    from gpubench import paths
    from gpubench.reports.stored import reports_dir
    from gpubench.workflow.runner import results_dir
    monkeypatch.delenv("GPUBENCH_RESULTS", raising=False)
    monkeypatch.delenv("GPUBENCH_REPORTS", raising=False)
    monkeypatch.chdir(tmp_path)
    root = paths.project_root()
    assert root is not None and (root / "pyproject.toml").is_file()
    assert results_dir() == root / "results" and reports_dir() == root / "reports"
    monkeypatch.setenv("GPUBENCH_RESULTS", str(tmp_path / "r"))
    assert results_dir() == tmp_path / "r"
    assert results_dir("x") == tmp_path.__class__("x")


def test_experiment_setting_of_the_wrong_type_names_file_and_key(tmp_path):
    from gpubench.workflow import experiments_loader as loader
    (tmp_path / "wrong.toml").write_text(textwrap.dedent("""
        id = "wrong"
        title = "t"
        source = "s"
        layout = "scaling"
        functions = ["levy"]
        dims = [2]
        repetitions = 1

        [methods.interval]
        label = "x"
        split_dims = "ten"
    """))
    with pytest.raises(InputError) as e:
        loader.load("wrong", str(tmp_path))
    msg = str(e.value)
    assert str(tmp_path / "wrong.toml") in msg and "methods.interval" in msg and "split_dims" in msg


def test_html_reports_have_working_links(tmp_path):
    import pandas as pd
    from gpubench.reports.document import Doc
    from gpubench.reports.index import write_index
    d = Doc()
    d.p("see [the S12 report](tableS12.md) and [docs](../docs/reproduction.md)")
    d.table(pd.DataFrame([{"Experiment": "[table2](table2.md)", "HTML": "[html](table2.html)"}]))
    html = d.html("t")
    assert "<a href='tableS12.html'>the S12 report</a>" in html
    assert "<a href='../docs/reproduction.md'>docs</a>" in html
    assert "<td><a href='table2.html'>table2</a></td>" in html and "[table2]" not in html
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "table2.md").write_text("x")
    write_index(tmp_path / "reports", tmp_path / "results")
    index = (tmp_path / "reports" / "index.html").read_text()
    assert "href='table2.html'" in index and "](" not in index


def test_demo_writes_only_to_its_own_folder(tmp_path, monkeypatch):
    """The demo's records and reports go under $GPUBENCH_DEMO (.demo/ of the checkout by default)."""
    from gpubench.reports import demo, builder as report, index as report_index
    from gpubench.workflow import runner
    seen = []
    monkeypatch.setenv("GPUBENCH_DEMO", str(tmp_path / "demo"))
    monkeypatch.setattr(runner, "sweep", lambda e, **kw: seen.append(("results", kw["results"])))
    monkeypatch.setattr(report, "build", lambda e, results, reports: (seen.append(("reports", reports))
                                                                      or tmp_path / "x.md"))
    monkeypatch.setattr(report_index, "write_index", lambda reports, results: tmp_path / "index.md")
    demo.run(gpu=False, parallel=False, stream=open(os.devnull, "w"))
    assert seen and all(str(p).startswith(str(tmp_path / "demo")) for _, p in seen), seen


# ------------------------------------------------------------------ Abs, Min, Max
KINKS = textwrap.dedent("""
    import numpy as np
    import sympy
    from gpubench.forms.definition import Definition, Sum, x, y, symbols
    S = symbols("S")
    KINK = Definition(name="kink", title="kinks", source="test",
                      terms={S: Sum(sympy.Abs(x - 1) + sympy.Max(x, y) - sympy.Min(x, 2 * y))}, expr=S,
                      domain=(-3, 4), xstar=lambda n: np.ones(n), fstar=lambda n: 0.0)
""")


def test_sign_and_step_enclose_every_point():
    from gpubench.interval.backends import namespace
    ns = namespace("cpu")
    rng = np.random.default_rng(3)
    for _ in range(2000):
        a, b = np.sort(rng.choice([-2.0, -1e-300, 0.0, 1e-300, 3.0], 2) * rng.random())
        pts = np.r_[a, b, a + (b - a) * rng.random(5)]
        # step is d max(a, b)/da for u = a - b; at u = 0 any value in [0, 1] is a subgradient
        for op, ref in (("isign", np.sign), ("istep", lambda t: np.heaviside(t, 0.5))):
            lo, hi = ns[op](a, b)
            assert np.all((lo <= ref(pts)) & (ref(pts) <= hi)), (op, a, b)
    assert ns["isign"](-1.0, 1.0) == (-1.0, 1.0)  # the kink: its generalized gradient, not {0}


def test_user_function_with_abs_min_max_has_sound_gradient_enclosures(tmp_path):
    """Point gradients at random points of random boxes lie in the interval gradient of the box."""
    (tmp_path / "kinks.py").write_text(KINKS)
    fn = functions.get(f"{tmp_path / 'kinks.py'}:KINK")
    rng = np.random.default_rng(5)
    n = 3
    for _ in range(300):
        c = rng.uniform(-3, 4, n)
        w = rng.choice([1e-6, 0.1, 2.0]) * rng.random(n)
        lo, hi = np.maximum(c - w, -3), np.minimum(c + w, 4)
        glo, ghi = fn.interval_gradient(lo, hi)
        flo, fhi = fn.interval(lo, hi)
        for _ in range(5):
            x = lo + (hi - lo) * rng.random(n)
            g = fn.gradient(x)
            assert np.all((glo <= g) & (g <= ghi)), (lo, hi, x, g, glo, ghi)
            assert flo <= fn.point(x) <= fhi
    r = solve(fn, 2, backend="cpu", split_dims=2, tol=1e-3)
    assert r.converged and r.glb <= fn.point(np.ones(2)) and r.glb <= r.gub
