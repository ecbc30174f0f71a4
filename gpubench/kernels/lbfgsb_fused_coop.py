"""A batched L-BFGS-B iteration's kernels in one cooperative launch (issue 43; opt-in:
``gpubench.methods.lbfgsb.fused.COOPERATIVE``).

Between two evaluations of the user's f and g, the batched driver launches seven kernels
(:mod:`gpubench.kernels.lbfgsb_fused`, :mod:`gpubench.kernels.lbfgsb_fused_gate`): the memory update's
sums, the gate with the update's one-block part, the move, then the next iteration's Cauchy point,
subspace step, direction and first trial.  Each waits on the one before through a grid-wide
reduction (block sums folded into ``st`` by atomics), so fewer separate launches would need a
grid-wide barrier: here one cooperative launch runs the same device functions, in the same order,
with ``grid.sync()`` where a launch boundary was (``update`` 0: the first trial only, at a batch's
start).  Every thread of every block reaches every sync: a pass that the gate stopped returns from
its device function, not from the kernel.  The grid must be resident at once (a cooperative launch):
the driver caps its blocks by the occupancy query.
"""
from numba import cuda, float64

from gpubench.kernels.lbfgsb_fused import _pair, _move, _reduced, _step, _direction, _trial
from gpubench.kernels.lbfgsb_fused_push import _push
from gpubench.kernels.lbfgsb_fused_gate import _gate
from gpubench.kernels.lbfgsb_fused_layout import TPB, NTILE, TILE_SUMS, TILE_SWAP, M2MAX, RUN


@cuda.jit(cache=True)
def lf_iterate(VEC, xa, YS, m, st, SMB, project, constrained, boxed, pgtol, factr_eps, ftol_abs, maxiter, maxfun,
               update):
    """``update``: lf_pair, lf_gate_push, lf_move (move 1) for the first trial in ``xa`` just
    evaluated; then lf_reduced, lf_step, lf_direction and lf_trial (first, the device's iteration
    count) for the next iteration's first trial into ``xa``."""
    grid = cuda.cg.this_grid()
    # the tile's rows (lf_pair, lf_move, lf_reduced); the other passes' arrays are views of rows it uses only inside its own pass, so
    # that the block's static shared memory stays under 48 KB (_push's arrays come on top)
    sh2 = cuda.shared.array((NTILE, TPB), float64)
    sh = sh2[TILE_SWAP]
    vs = sh2[TILE_SUMS]                 # NACC <= TPB entries
    Ms = sh2[0:M2MAX, 0:M2MAX]          # the tile's rows, which no other pass uses while _step holds them
    w1 = cuda.shared.array(M2MAX, float64)
    p = cuda.shared.array(M2MAX, float64)
    tcs = cuda.shared.array(1, float64)
    A = cuda.shared.array((M2MAX, M2MAX), float64)
    q = cuda.shared.array(M2MAX, float64)
    w2 = cuda.shared.array(M2MAX, float64)
    ok = cuda.shared.array(1, float64)
    if update != 0:
        _pair(VEC, xa, YS, m, st, sh2)
        grid.sync()
        if cuda.blockIdx.x == 0:      # block 0 alone: _push's block (its loops stride over any block size)
            if cuda.threadIdx.x == 0:
                _gate(st, pgtol, factr_eps, ftol_abs, maxiter, maxfun)
            cuda.syncthreads()
            if st[RUN] != 0.0:
                _push(st, m, -1.0, SMB)
        grid.sync()
        _move(VEC, xa, YS, m, 1, st, sh, sh2)
        grid.sync()
    _reduced(VEC, YS, m, st, SMB, sh2, w1, p, tcs)
    grid.sync()
    _step(VEC, YS, m, project, st, SMB, sh, A, q, w2, ok, Ms, vs)
    grid.sync()
    _direction(VEC, project, constrained, st, sh)
    grid.sync()
    _trial(VEC, xa, 0.0, 1, constrained, boxed, -1, st)
