"""The layout of the fused L-BFGS-B kernels' arrays (:mod:`gpubench.kernels.lbfgsb_fused`): the rows of
``VEC``, the slots of the device scalars ``st``, and the block reductions that the vector passes
fold into ``st`` (a block tree, then one atomic per block)."""
import math

from numba import cuda

TPB = 256                  # threads per block of the vector passes (a power of two)
MMAX = 8                   # largest history the fused path takes
NACC = 2 * MMAX + MMAX * (2 * MMAX + 1)     # accumulators of the widest pass (YS r and the gram)
M2MAX = 2 * MMAX
EPS = 2.220446049250313e-16
X, G, LO, HI, XC, FR, R, DU, D, XA, GN = range(11)     # rows of VEC (XA: unused, trial points are arrays of their own)
NVEC = 11

# ---- st: the device scalars
K, THETA, TC, STPMAX, STP, ACCEPT, SLOT, SUBOK, CHOICE, ALPHA, DESCENT = range(11)
U_SY, U_YY, U_SS = 12, 13, 14
U_YSS = 15                       # YS @ s: 2 MMAX
# the next Cauchy point's products at the trial (x = xa, g = gn), summed by lf_pair beside the update's so
# that lf_move reads no history: YS @ d for d = -gn off the fixed set (the slots as they were), y.d, s.d
# (the new pair's, for its slot), d.d; then the smallest positive breakpoint (min) and ||P(xa - gn) - xa||
U_YSD = U_YSS + 2 * MMAX
U_YD, U_SD, U_DD = U_YSD + 2 * MMAX, U_YSD + 2 * MMAX + 1, U_YSD + 2 * MMAX + 2
U_T1, U_PG = U_DD + 1, U_DD + 2
U_END = U_PG + 1                 # past the update's sums (S y is not summed: M reads only L and D of S^T Y)
C_T1 = U_END                     # smallest positive breakpoint (min)
C_DD = C_T1 + 1
C_PG = C_T1 + 2                  # ||P(x - g) - x||_inf (max)
C_P = C_T1 + 3                   # YS @ d: 2 MMAX
V1_R = C_P + 2 * MMAX            # YS @ r (2m), then the packed gram of the free rows
V2_GD = V1_R + NACC              # g.(P(x_c + du) - x)
V2_AMIN = V2_GD + 1              # largest step along du (min)
V3_GD = V2_GD + 2
V3_DD = V2_GD + 3
V3_RATIO = V2_GD + 4             # largest step along d from x (min)
W1 = V2_GD + 5                   # coefficients of W (M c) over the YS rows: 2 MMAX
W2 = W1 + 2 * MMAX               # coefficients of W v: 2 MMAX
# the device-side control of the batched driver (gpubench.methods.lbfgsb.fused, ``sync_every`` > 1):
# RUN 1 while the iteration goes on on the device (every pass a no-op at 0); CODE why it stopped
# (GATE_*); F_CUR/F_OLD f now and before the last step, PEND 1 while that step's stop test is due;
# NIT/NFEV the counts; A_ACC the accepted step; FA/SLOPE the first trial's f and g.d (host-written)
RUN = W2 + 2 * MMAX
CODE, F_CUR, F_OLD, PEND, NIT, NFEV, A_ACC, FA, SLOPE = range(RUN + 1, RUN + 10)
NST = RUN + 10
GATE_GOING, GATE_PGTOL, GATE_FDEC, GATE_FACTR, GATE_MAXITER, GATE_MAXFUN, GATE_HOST = range(7)


@cuda.jit(device=True)
def _tree(sh, v, op):
    # the block's reduction of v (op 0 sum, 1 min, 2 max), returned to every thread
    tid = cuda.threadIdx.x
    sh[tid] = v
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            a = sh[tid]
            b = sh[tid + s]
            if op == 0:
                sh[tid] = a + b
            elif op == 1:
                sh[tid] = b if b < a else a
            else:
                sh[tid] = b if b > a else a
        cuda.syncthreads()
        s //= 2
    r = sh[0]
    cuda.syncthreads()
    return r


@cuda.jit(device=True)
def _into(st, idx, sh, v, op):
    r = _tree(sh, v, op)
    if cuda.threadIdx.x == 0:
        if op == 0:
            cuda.atomic.add(st, idx, r)
        elif op == 1:
            cuda.atomic.min(st, idx, r)
        else:
            cuda.atomic.max(st, idx, r)


# the vector passes' shared rows (NTILE x TPB doubles): lf_reduced's tile (rows 0..2m: YS and r, 4 x 4 blocks
# of its gram reading up to row NTILE - 1; gpubench.kernels.lbfgsb_fused_tile), the register sums' warp rows
# of lf_pair and lf_move; the cooperative kernel's other passes' arrays are views of the rows after the tile
# (TILE_SUMS: _step's staged sums; TILE_SWAP: the trees' row)
TILE_SUMS = M2MAX + 1
TILE_SWAP = M2MAX + 2
NTILE = M2MAX + 3


@cuda.jit(device=True)
def packed(a, b, m2):
    """Entry (a, b), a <= b < m2, of the packed upper triangle of a symmetric m2 x m2 matrix stored row by
    row (the gram's order in st[V1_R + m2:]): row a starts at a (2 m2 - a + 1) / 2."""
    return a * (2 * m2 - a + 1) // 2 + (b - a)


@cuda.jit(device=True)
def _box_step(lo, hi, x, d):
    # the largest a with x + a d in [lo, hi] for one coordinate (inf where d = 0): lf_step's and lf_direction's
    if d < 0.0:
        return (lo - x) / d
    if d > 0.0:
        return (hi - x) / d
    return math.inf


@cuda.jit(device=True)
def _clear(st, lo, hi):
    for q in range(lo, hi):
        st[q] = 0.0


@cuda.jit(device=True)
def _clear_update(st):
    # lf_pair's sums, its breakpoint minimum at infinity
    _clear(st, U_SY, U_END)
    st[U_T1] = math.inf
