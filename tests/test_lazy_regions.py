"""A stopped search with many open regions builds their boxes on demand, never all at once.

Ackley at n = 1,000 stopped by a 3 s time limit held 7.5 million open regions; building them as
(lo, hi) arrays took 120 GB of host memory and the GPU host killed the process (the comparison's
missing n = 1,000 cases).  Here the eager threshold is lowered so a small search takes that path.
"""
import numpy as np
import pytest

from gpubench.methods.solver import core, solve
from gpubench.methods.solver.settings import Settings

# Rosenbrock n = 4 after 6 iterations: 10 open regions from 4 iterations (several segments)
SETTINGS = dict(backend="cpu", split_dims=2, parts=4, tol=1e-3, max_iterations=6)


def _solve(monkeypatch, eager_bytes):
    monkeypatch.setattr(core, "EAGER_REGION_BYTES", eager_bytes)
    return solve("rosenbrock", 4, Settings(**SETTINGS))


def test_lazy_boxes_equal_the_eager_ones_and_are_never_built_whole(monkeypatch, tmp_path):
    eager = _solve(monkeypatch, 1 << 40)
    lazy = _solve(monkeypatch, 0)
    assert eager.n_regions >= 8 and not eager.converged
    assert len({tuple(w) for w in np.round(eager.regions_hi - eager.regions_lo, 9)}) >= 3
    assert lazy.regions_lo is None and lazy.has_regions and lazy.n_regions == eager.n_regions
    calls = []
    make = lazy.region_boxes
    lazy.region_boxes = lambda a, b: (calls.append(b - a), make(a, b))[1]
    lo, hi = lazy.boxes()
    np.testing.assert_array_equal(lo, eager.regions_lo)
    np.testing.assert_array_equal(hi, eager.regions_hi)
    assert lazy.regions(5) == eager.regions(5)
    calls.clear()
    lazy.save_regions(tmp_path / "r.npz", chunk=3)
    assert calls and max(calls) <= 3          # written in chunks: memory bounded by the chunk
    with np.load(tmp_path / "r.npz") as z:
        np.testing.assert_array_equal(z["lo"], eager.regions_lo)
        np.testing.assert_array_equal(z["hi"], eager.regions_hi)
    calls.clear()
    d = lazy.to_json(max_regions=3)
    assert d["n_regions"] == eager.n_regions and len(d["regions"]) == 3 and calls == [3]


def test_eager_results_save_the_same_file(monkeypatch, tmp_path):
    eager = _solve(monkeypatch, 1 << 40)
    eager.save_regions(tmp_path / "e.npz", chunk=4)
    with np.load(tmp_path / "e.npz") as z:
        np.testing.assert_array_equal(z["lo"], eager.regions_lo)
        np.testing.assert_array_equal(z["hi"], eager.regions_hi)


def test_a_resumed_search_lists_every_segment(tmp_path):
    """Provenance of a search resumed across commands: each part's iterations, seconds and environment."""
    ck = tmp_path / "run.npz"
    first = solve("rosenbrock", 4, Settings(**{**SETTINGS, "max_iterations": 3}), checkpoint=str(ck),
                  checkpoint_every=0.0)
    assert [s["iterations"] for s in first.history["segments"]] == [[0, 3]]
    second = solve("rosenbrock", 4, Settings(**{**SETTINGS, "max_iterations": 6}), resume=str(ck),
                   checkpoint=str(ck), checkpoint_every=0.0)
    segs = second.history["segments"]
    assert [s["iterations"] for s in segs] == [[0, 3], [3, 6]]
    assert all(s["environment"]["versions"]["numpy"] and s["seconds"] >= 0 for s in segs)
    assert sum(s["seconds"] for s in segs) == pytest.approx(second.seconds, rel=1e-6, abs=1e-9)
    plain = solve("rosenbrock", 4, Settings(**SETTINGS))
    assert "segments" not in plain.history
