"""Paper 003, Table 5: what carries a run's imbalance (gpubench/reports/admm_timing.py), each rule on
both sides of its boundary, on batch times made here (no GPU, no ADMM run)."""
import numpy as np
import pandas as pd
import pytest

from gpubench.problems.opf.admm import TRON_AUTHORS
from gpubench.reports import admm_timing as T
from gpubench.reports import fixed_admm as RFA
from gpubench.reports import verdict as V


def _quiet(n=400, seed=1):
    """n iterations of 6 blocks: 0.40 ms batches with 10 us of jitter, block 2 3 % slower (work)."""
    rng = np.random.default_rng(seed)
    t = 0.40 + 0.01 * rng.standard_normal((n, 6))
    t[:, 2] *= 1.03
    return t


def _stalled(t, every=5, ticks=(1, 2)):
    """Every ``every``-th iteration one block (in turn) waits whole scheduler ticks."""
    t = t.copy()
    for k, i in enumerate(range(0, len(t), every)):
        t[i, k % 6] += T.TICK_MS * ticks[k % len(ticks)] + (0.1 if k % 4 < 2 else -0.1)   # both sides of a tick
    return t


def test_a_stall_is_a_batch_over_a_ms_above_its_block_median():
    t = np.full((9, 6), 0.5)              # binary fractions: the excesses below are exact
    t[::2, 1] = 0.25
    at, over = t.copy(), t.copy()
    at[7, 3] = 0.5 + T.STALL_MS           # on the boundary: not a stall
    over[7, 3] = 0.5 + T.STALL_MS + 2 ** -10
    assert T.anatomy(at)["stalled_batches"] == 0
    a = T.anatomy(over)
    assert a["stalls_per_block"] == [0, 0, 0, 1, 0, 0] and a["stalled_iterations"] == pytest.approx(1 / len(t))


def test_anatomy_separates_the_stalls_from_the_quiet_iterations():
    q = _quiet()
    a = T.anatomy(_stalled(q))
    assert a["stalled_iterations"] == pytest.approx(0.2) and sum(a["stalls_per_block"]) == 80
    assert a["on_tick"] == 1.0                        # every excess a whole number of ticks, +-0.1 ms
    keep = np.ones(len(q), bool)
    keep[::5] = False
    assert a["quiet_mean"] == pytest.approx(T.nu(q[keep]).mean())
    assert a["mean"] > 3 * a["quiet_mean"] and a["stall_share"] > 0.8 and a["max_stalled"]
    # the least nu the quiet batches' jitter gives: without jitter, the blocks' steady imbalance itself
    steady = np.tile([0.4, 0.4, 0.412, 0.4, 0.4, 0.4], (50, 1))
    assert T.anatomy(steady)["jitter_min"] == pytest.approx((T.nu(steady[:1])[0],) * 2)
    lo, hi = T.anatomy(q)["jitter_min"]
    assert 0 < lo <= hi < T.nu(steady[:1])[0] + 10
    assert T.anatomy(q[:1]) is None and T.anatomy(q[:, :1]) is None


def _figures(t):
    v = T.nu(t)
    return {"max": float(v.max()), "min": float(v.min()), "mean": float(v.mean())}


@pytest.mark.parametrize("scale, explained", [(0.999, True), (1.001, False)])
def test_a_high_mean_is_explained_only_when_the_quiet_iterations_are_within_the_tolerance(scale, explained):
    t = _stalled(_quiet())
    a = T.anatomy(t)
    got = _figures(t)
    # the published mean set so that the quiet mean sits just inside the tolerance's edge or just past it
    pub = {"max": got["max"], "min": got["min"], "mean": a["quiet_mean"] / 1.5 / scale}
    ok, why = T.explain(a, got, pub, 0.5)
    assert ok is explained and why.startswith("mean ") and "scheduler ticks" in why


@pytest.mark.parametrize("factor, explained", [(1.5 - 2 ** -20, True), (1.5 + 2 ** -20, False)])
def test_a_stalled_high_mean_with_the_work_beside_it_names_the_work_s_mean_and_fails_when_the_work_takes_ours(
        factor, explained):
    t = _stalled(_quiet())
    a = T.anatomy(t)
    got = _figures(t)
    pub = {"max": got["max"], "min": got["min"], "mean": a["quiet_mean"] / 1.2}   # the quiet mean within the tolerance
    # the work's mean just inside 1.5 x the paper's (the tolerance's edge: the paper's side) or just past it (ours)
    w = {"iterations": len(t), "a_ms": 0.29, "b_ms": 0.066, "mean": factor * pub["mean"], "min": -1e-15,
         "max": 100.0, "file": "results/opf_branch_work/x.json", "with_ours": (5.0, 6.0),
         "work_to_paper": {"delay_ms": 0.167, "min": 1.3, "max": 160.0}}
    ok, why = T.explain(a, got, pub, 0.5, w)
    assert ok is explained and "scheduler ticks" in why and "the branch work predicts a mean nu of" in why
    assert "min 0.00," in why and "resampled per block, 5.00-6.00" in why and "needs 167 us" in why
    assert T.explain(a, got, pub, 0.5)[0]             # without the work: the stalls alone explain it


def test_a_low_mean_is_never_explained_by_stalls():
    t = _stalled(_quiet())
    got = _figures(t)
    ok, why = T.explain(T.anatomy(t), got, {**got, "mean": 4 * got["mean"]}, 0.5)
    assert not ok and why.startswith("mean ")


def test_the_min_is_explained_within_the_jitter_s_range_only():
    t = _quiet()
    a = T.anatomy(t)
    lo, hi = a["jitter_min"]
    for measured, explained in ((lo, True), (hi, True), (0.99 * lo, False), (1.01 * hi, False)):
        got = {"max": 10.0, "min": measured, "mean": 5.0}
        ok, why = T.explain(a, got, {"max": 10.0, "min": 10 * hi, "mean": 5.0}, 0.5)
        assert ok is explained and why.startswith("min "), (measured, why)


def test_the_max_is_explained_when_its_iteration_stalled():
    q = _quiet()
    got = {"max": 1.0, "min": 1.0, "mean": 1.0}
    ok, why = T.explain(T.anatomy(_stalled(q)), got, {**got, "max": 400.0}, 0.5)
    assert ok and "one batch stalled" in why
    ok, why = T.explain(T.anatomy(q), got, {**got, "max": 400.0}, 0.5)     # no stall anywhere
    assert not ok and "no stall in it" in why
    # nothing off the tolerance: nothing to explain
    assert T.explain(T.anatomy(q), got, got, 0.5) == (False, "")


def _rec(partition_ms):
    t = np.asarray(partition_ms)
    f = _figures(t)
    measured = {"backend": "cuda", "devices": 6, "stop": "converged", "start": "authors", "solve": TRON_AUTHORS,
                "max_percent_imbalance": f["max"], "min_percent_imbalance": f["min"],
                "mean_percent_imbalance": f["mean"]}
    return {"case": "x", "variant": "full", "function": "opf:2868rte", "dim": 6, "key": "admm",
            "settings": {"iterations": 6000, "rho_pq": 10.0, "rho_va": 1000.0, "devices": 0},
            "result": {"partition_ms": t.tolist()}, "measured": measured}


def test_table5_differs_explained_by_stalls_and_not_without_the_batch_times():
    import types
    t = _stalled(_quiet())
    rec = _rec(t)
    a = T.anatomy(t)
    pub = pd.DataFrame([{"data": "2868rte", "max_percent_imbalance": rec["measured"]["max_percent_imbalance"],
                         "min_percent_imbalance": rec["measured"]["min_percent_imbalance"],
                         "mean_percent_imbalance": a["quiet_mean"]}])
    exp = types.SimpleNamespace(verdicts={})
    [(_, v, _)] = RFA.judge_admm(exp, [rec], pub)
    assert v.kind == V.DIFFERS and v.reason.startswith("explained: ") and "with no other job on the host" in v.reason
    assert "other runs" not in v.reason and "the evidence sides with neither" in v.reason
    # with the twin's branch work beside it: its figures, and what it says of both sides
    S, _ = _work(n=len(t))
    t2 = _stalled(0.3 + 0.02 * S + 0.005 * _quiet(len(t)))
    rec2 = _rec(t2)
    pub2 = pub.assign(mean_percent_imbalance=T.anatomy(t2)["quiet_mean"],
                      **{k: rec2["measured"][k] for k in ("max_percent_imbalance", "min_percent_imbalance")})
    [(_, w, _)] = RFA.judge_admm(exp, [rec2], pub2, work={"2868rte": (S, "results/opf_branch_work/2868rte.json")})
    assert "the branch work predicts a mean nu of" in w.reason and "the branch work sides with neither figure" in w.reason
    assert "the evidence sides with neither" not in w.reason and "with no other job on the host" in w.reason
    # beside a stall-free run of the table, the stalled row cites its stall share and where it ran
    quiet = _rec(_quiet())
    quiet.update(function="opf:6515rte", case="y", settings={"iterations": 15000, "rho_pq": 20.0, "rho_va": 2000.0},
                 environment={"cpu_count": 16})
    quiet["measured"]["devices"] = 1
    both = pd.concat([pub, _pub(quiet).assign(data="6515rte")], ignore_index=True)
    [(_, v, _), (_, q, _)] = RFA.judge_admm(exp, [rec, quiet], both)
    assert "the table's other runs stalled in: 6515rte 0.0 % (record y, 1 GPU(s) at once on a host of 16 CPUs)" \
        in v.reason and q.kind == V.MATCHES
    del rec["result"]["partition_ms"]
    [(_, v, _)] = RFA.judge_admm(exp, [rec], pub)
    assert v.kind == V.DIFFERS and v.reason == f"{V.NOT_EXPLAINED}: the record holds no per-iteration block times"


# ---------------------------------------------------------------- what the branch work predicts (issue 37)

def _work(n=300, seed=2, a=0.25, b=2 ** -4):
    """Slowest-branch TRON steps of 6 blocks (block 2 busier) and batch times exactly a + b x steps."""
    rng = np.random.default_rng(seed)
    S = rng.integers(1, 4, (n, 6)).astype(float)
    S[:, 2] += rng.integers(0, 2, n)
    return S, a + b * S


def test_the_work_fit_recovers_the_line_and_leaves_the_stalls_out():
    S, t = _work()
    w = T.work(t, S)
    assert w["a_ms"] == pytest.approx(0.25) and w["b_ms"] == pytest.approx(2 ** -4)
    assert w["mean"] == pytest.approx(T.nu(t).mean()) and w["min"] == pytest.approx(T.nu(t).min())
    stalled = t.copy()
    stalled[::7, 3] += 8.0                     # host waits: out of the fit, and not in the work's nu
    assert T.work(stalled, S)["mean"] == pytest.approx(w["mean"])
    assert T.work(t, S[:50])["iterations"] == 50 and T.work(t, np.ones_like(S)) is None
    assert T.work(t, S[:, :5]) is None


@pytest.mark.parametrize("predicted, taken", [(20.0, "the paper"), (20.0 - 2 ** -20, "ours"), (60.0, "the paper"),
                                              (60.0 + 2 ** -20, "neither")])
def test_the_work_takes_our_side_only_off_the_paper_s_tolerance_on_our_side(predicted, taken):
    assert T.side(predicted, 10.0, 40.0, 0.5) == taken        # ours 10 under the paper's 40; rtol 0.5: 20 .. 60


def test_the_delay_that_brings_a_run_to_a_mean():
    S, t = _work()
    base = T.nu(t).mean()
    d = T.delays_for(t, 40.0)
    assert d["mean"] == pytest.approx(40.0, abs=1e-6) and d["delay_ms"] > 0 and d["min"] < 40.0 < d["max"]
    assert T.delays_for(t, 2 * base)["delay_ms"] < d["delay_ms"]       # a smaller gap needs less delay
    assert T.delays_for(t, base) is None and T.delays_for(t, 1000.0) is None


def _low(predicted_mean, predicted_min=0.0):
    """A stall-free run whose mean and min are under the paper's, and the branch work's figures."""
    t = _quiet()
    a = T.anatomy(t)
    got = {"max": 10.0, "min": 0.5, "mean": 10.0}
    w = {"iterations": len(t), "a_ms": 0.29, "b_ms": 0.066, "mean": predicted_mean, "min": predicted_min,
         "max": 100.0, "file": "results/opf_branch_work/x.json", "to_ours": {"delay_ms": 0.02},
         "to_paper": {"delay_ms": 0.2, "min": 3.0, "max": 300.0}}
    return a, got, w


@pytest.mark.parametrize("predicted, explained", [(20.0 - 2 ** -20, True), (20.0, False), (80.0, False)])
def test_a_low_mean_is_explained_only_when_the_work_predicts_under_the_paper_s_tolerance(predicted, explained):
    a, got, w = _low(predicted)
    pub = {"max": 10.0, "min": 0.5, "mean": 40.0}
    ok, why = T.explain(a, got, pub, 0.5, w)
    assert ok is explained and why.startswith("mean 10.00 vs 40.00") and "the branch work predicts" in why
    assert "needs 200 us of per-batch delay" in why and "x.json" in why
    ok, why = T.explain(a, got, pub, 0.5)            # without the work: never explained
    assert not ok and "not measured" in why


@pytest.mark.parametrize("predicted_min, explained", [(1.0 - 2 ** -20, True), (1.0, False)])
def test_a_low_min_is_explained_by_the_work_off_the_paper_s_tolerance(predicted_min, explained):
    a, got, w = _low(5.0, predicted_min)
    lo, _ = a["jitter_min"]
    got = {**got, "min": lo / 2}                     # under what the jitter alone gives
    pub = {"max": 10.0, "min": 2.0, "mean": got["mean"]}
    ok, why = T.explain(a, got, pub, 0.5, w)
    assert ok is explained and why.startswith("min ") and "the branch work's least nu" in why
    assert not T.explain(a, got, pub, 0.5)[0]


def test_stored_work_is_read_from_the_results_folder(tmp_path):
    import json
    (tmp_path / T.WORK_DIR).mkdir()
    (tmp_path / T.WORK_DIR / "2868rte.json").write_text(json.dumps({"case": "2868rte", "slowest_branch_steps": [[1, 2]] * 3}))
    [(case, (steps, where))] = T.stored_work(tmp_path).items()
    assert case == "2868rte" and steps.shape == (3, 2) and where == "results/opf_branch_work/2868rte.json"
    assert T.stored_work(tmp_path / "none") == {}


def _pub(rec, **over):
    m = rec["measured"]
    return pd.DataFrame([{"data": "2868rte", **{k: over.get(k, m[k]) for k in
                                               ("max_percent_imbalance", "min_percent_imbalance", "mean_percent_imbalance")}}])


def test_table5_a_low_mean_explained_by_the_stored_work_and_the_gpu_count_stated():
    import types
    S, t = _work()
    t = t + 0.002 * np.random.default_rng(3).standard_normal(t.shape)
    rec = _rec(t)
    rec["measured"]["devices"] = 6
    exp = types.SimpleNamespace(verdicts={})
    mean = rec["measured"]["mean_percent_imbalance"]
    pub = _pub(rec, mean_percent_imbalance=3 * mean)
    [(_, v, _)] = RFA.judge_admm(exp, [rec], pub, work={"2868rte": (S, "results/opf_branch_work/2868rte.json")})
    assert v.kind == V.DIFFERS and v.reason.startswith("explained: the branch work sides with ours: mean ")
    assert "resampled per block, give" in v.reason and "us of per-batch delay over our batches" in v.reason
    assert "on 6 GPU(s) at once, the paper's on 6; each block's batch timed alone on its GPU either way" in v.rule
    [(_, v, _)] = RFA.judge_admm(exp, [rec], pub)
    assert v.reason.startswith(V.NOT_EXPLAINED)
    [(_, v, _)] = RFA.judge_admm(exp, [rec], _pub(rec))
    assert v.kind == V.MATCHES and "each block's batch timed alone on its GPU either way" in v.rule


def test_table5_a_run_in_progress_is_stated_from_its_checkpoint():
    import types
    from gpubench.problems.opf.admm import AUTHORS_RUNS
    rec = _rec(_quiet())
    rec["measured"]["stop"] = "iterations"           # not the paper's run: stopped at a limit
    exp = types.SimpleNamespace(verdicts={})
    run = {"rho_pq": 10.0, "rho_va": 1000.0, "start": "authors", "partitions": 6, **TRON_AUTHORS}
    state = {"run": run, "iterations": 1234, "residuals": [0.5, 2.0, 0.01, 0.1]}
    [(_, v, _)] = RFA.judge_admm(exp, [rec], _pub(rec), checkpoints={"2868rte": ("admm-opf_2868rte-x", state)})
    assert v.kind == V.NOT_REPRODUCED and v.reason.startswith(
        f"a run at the paper's settings is in progress: checkpoint admm-opf_2868rte-x.checkpoint.npz at iteration "
        f"1,234 of the authors' {AUTHORS_RUNS['2868rte'][3]:,}") and "judged when it converges" in v.reason
    other = {**state, "run": {**run, "rho_pq": 400.0}}           # a checkpoint of another run: not the paper's
    [(_, v, _)] = RFA.judge_admm(exp, [rec], _pub(rec), checkpoints={"2868rte": ("admm-opf_2868rte-x", other)})
    assert v.reason.startswith(V.NOT_YET_RUN)
