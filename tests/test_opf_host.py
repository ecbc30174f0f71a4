"""Issue 37: the ADMM's host work cut without changing its iterates.

Each block keeps its parameter rows and an iteration writes only the targets into them
(:class:`gpubench.problems.opf.devices.Blocks`; before, every branch's 24 x 4 rows were built afresh
and each block's copied out of them by index), and the residual norms are summed on the calling
thread (:func:`gpubench.problems.opf.admm.norm`; before, ``np.linalg.norm``, whose BLAS dot spread
over threads).  The run of the code before is rebuilt here and compared, bit for bit."""
import numpy as np
import pytest

from gpubench.problems.opf import admm, devices, matpower, model


@pytest.fixture(scope="module")
def case14():
    return model.network(matpower.load("case14"))


class Rebuilt(devices.Blocks):
    """The branch step before issue 37's cut: the parameter rows of every branch built afresh at
    each iteration (branch.parameters as it was), each block's rows, box and point copied out by
    index."""

    def __init__(self, blocks, Y, rho, lo, hi):
        self.idx, self.Y, self.rho, self.lo_all, self.hi_all = [np.asarray(b) for b in blocks], Y, rho, lo, hi

    def solve(self, x, target, fn, s):
        from gpubench.methods import tron
        par = np.zeros((self.Y.shape[0], 24, 4))
        par[:, :8, 0], par[:, 8:16, 0], par[:, 16:24, 0] = self.Y, self.rho, target
        secs, its, failures = [], 0.0, 0
        for idx in self.idx:
            res = tron.solve_batch(x[idx], self.lo_all[idx], self.hi_all[idx], par[idx], objective="library",
                                   fn=fn, backend=s.backend, hessian="differences", max_iter=s.tron_max_iter,
                                   gtol=s.tron_gtol, gatol=s.tron_gatol, stop=s.tron_stop,
                                   max_feval=s.tron_max_feval)
            x[idx] = res.x
            secs.append(res.seconds)
            its += float(res.iterations.sum())
            failures += int(np.count_nonzero(res.status == 2))
        return secs, its, failures


def run(net, **kw):
    takes = []
    res = admm.solve(net, checkpoint=takes.append, **kw)
    return res, takes[-1]()


def test_the_host_cut_keeps_the_iterates_bit_for_bit(case14, monkeypatch):
    kw = dict(max_iter=15, partitions=3)
    new, st_new = run(case14, **kw)
    with monkeypatch.context() as m:
        m.setattr(devices, "Blocks", Rebuilt)
        m.setattr(admm, "norm", lambda v: float(np.linalg.norm(v)))
        old, st_old = run(case14, **kw)
    assert new.iterations == old.iterations == 15 and new.tron_failures == old.tron_failures
    for k in admm._ARRAYS + ("pg", "qg", "tron_iterations"):
        assert np.array_equal(st_new[k], st_old[k]), k
    assert new.objective == old.objective
    # the norms are the same sums in another order: equal to a few units in the last place
    np.testing.assert_allclose(st_new["history"], st_old["history"], rtol=1e-15, atol=0)
    np.testing.assert_allclose(st_new["residuals"], st_old["residuals"], rtol=1e-15, atol=0)


def test_norm_is_the_2_norm():
    v = np.random.default_rng(3).normal(size=20_001)   # past OpenBLAS's threaded-dot threshold
    assert admm.norm(v) == pytest.approx(np.linalg.norm(v), rel=1e-15)
    assert admm.norm(np.zeros(3)) == 0.0 and admm.norm(np.array([3.0, -4.0])) == 5.0
    assert admm.norm(np.array([1.0, np.inf])) == np.inf and np.isnan(admm.norm(np.array([np.nan, 1.0])))


def test_blocks_write_only_the_targets(case14):
    """A block's parameter rows are branch.parameters of its rows at the latest targets."""
    from gpubench.problems.opf import branch
    nl = case14.nbranch
    rng = np.random.default_rng(0)
    Y, rho = case14.Y, rng.uniform(1, 2, (nl, 8))
    lo, hi = np.zeros((nl, 4)), np.ones((nl, 4))
    parts = admm.partition(nl, 3)
    blocks = devices.Blocks(parts, Y, rho, lo, hi)
    with pytest.raises(ValueError):
        devices.Blocks([np.array([0, 2])], Y, rho, lo, hi)
    for _ in range(2):
        target = rng.normal(size=(nl, 8))
        for r, par in zip(blocks.rows, blocks.par):
            branch.set_targets(par, target[r])
        whole = branch.parameters(Y, rho, target)
        for k, p in enumerate(parts):
            assert np.array_equal(blocks.par[k], whole[p]) and np.array_equal(blocks.lo[k], lo[p])
