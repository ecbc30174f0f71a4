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
    assert v.kind == V.DIFFERS and v.reason.startswith("explained: ") and "--entries admm_one" in v.reason
    del rec["result"]["partition_ms"]
    [(_, v, _)] = RFA.judge_admm(exp, [rec], pub)
    assert v.kind == V.DIFFERS and v.reason == f"{V.NOT_EXPLAINED}: the record holds no per-iteration block times"
