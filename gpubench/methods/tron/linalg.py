"""TRON's linear algebra (paper 003, Figure 2): block reductions, left- and right-looking
Cholesky, forward and backward substitution, cooperative over the ``nt`` threads of a block.
Not imported as a module: a part of TRON's core text (see :mod:`gpubench.methods.tron.core`).

The cooperative loops of the core are ``while`` loops (``i = start; while i < stop: ...; i += nt``): numba
counts the trips of a ``range`` whose step is known only at run time with a 64-bit division where the loop is
entered, which was most of the hs45 kernel's instructions (docs/tron.md)."""
# ruff: noqa: F821  (device, sync, OBJECTIVE, point, gradient, hessian and the other parts, _u of core.py among them, are injected)
import math


# --------------------------------------------------------------------- reductions
@device
def reduce_sum(v, red, tid, nt):
    """Sum of ``v`` over the block: a tree in shared memory, across warps."""
    red[_u(tid)] = v
    sync()
    s = nt
    while s > 1:
        h = (s + 1) // 2
        if tid < s - h:
            red[_u(tid)] += red[_u(tid + h)]
        sync()
        s = h
    r = red[0]
    sync()
    return r


@device
def reduce_max(v, red, tid, nt):
    red[_u(tid)] = v
    sync()
    s = nt
    while s > 1:
        h = (s + 1) // 2
        if tid < s - h:
            if red[_u(tid + h)] > red[_u(tid)]:
                red[_u(tid)] = red[_u(tid + h)]
        sync()
        s = h
    r = red[0]
    sync()
    return r


@device
def dot(a, b, m, red, tid, nt):
    acc = 0.0
    i = tid
    while i < m:
        acc += a[_u(i)] * b[_u(i)]
        i += nt
    return reduce_sum(acc, red, tid, nt)


@device
def nrm2(a, m, red, tid, nt):
    return math.sqrt(dot(a, a, m, red, tid, nt))


# --------------------------------------------------------------------- Cholesky
@device
def _scale_column(M, m, ld, j, tid, nt):
    """Column j of a Cholesky factor from its updated entries: the pivot's square root, the rest
    divided by it.  False, in every thread, if the pivot is not positive."""
    d = M[_u(j + j * ld)]
    sync()
    if not (d > 0.0) or not math.isfinite(d):
        return False
    d = math.sqrt(d)
    i = j + tid
    while i < m:
        if i == j:
            M[_u(i + j * ld)] = d
        else:
            M[_u(i + j * ld)] = M[_u(i + j * ld)] / d
        i += nt
    sync()
    return True


@device
def chol_left(M, m, ld, tid, nt):
    """Left-looking (lazy) Cholesky of the lower triangle of ``M``, in place.

    Column j receives all earlier updates just before it is scaled (Section 4.3).
    Returns False, in every thread, if a pivot is not positive.
    """
    j = 0
    while j < m:
        i = j + tid
        while i < m:
            acc = M[_u(i + j * ld)]
            k = 0
            while k < j:
                acc -= M[_u(i + k * ld)] * M[_u(j + k * ld)]
                k += 1
            M[_u(i + j * ld)] = acc
            i += nt
        sync()
        if not _scale_column(M, m, ld, j, tid, nt):
            return False
        j += 1
    return True


@device
def chol_right(M, m, ld, tid, nt, c0, cs, r0, rs):
    """Right-looking (eager) Cholesky: the trailing submatrix takes column j's rank-one update
    right after column j is scaled.  Returns False, in every thread, if a pivot is not positive.

    Threads are mapped as in :func:`chol_left`: rows over (r0, rs) (1-D: every thread of the
    block), each thread holding its l_ij in a register and walking its own row of the trailing
    triangle, so at each step a warp touches consecutive rows of one column (no bank conflict)
    and reads l_kj as a broadcast; in 2-D a row's columns are split over (c0, cs) as well.
    Each loop is set up once per row and column j, never per element: a range whose step is
    known only at run time costs a 64-bit division to count its trips, which the former
    loop order (rows inside the loop over columns) paid at every entry of the update, 2.3x
    the left-looking time on the H200 against the paper's 1.2.  What remains is the
    algorithm's own cost: each trailing entry is read and written back at every column
    before it (about n^3/6 shared stores, the left-looking n^2/2)."""
    j = 0
    while j < m:
        if not _scale_column(M, m, ld, j, tid, nt):
            return False
        i = j + 1 + r0
        while i < m:
            lij = M[_u(i + j * ld)]
            k = j + 1 + c0
            while k < i + 1:
                M[_u(i + k * ld)] -= lij * M[_u(k + j * ld)]
                k += cs
            i += rs
        sync()
        j += 1
    return True


@device
def store_transpose(M, m, ld, c0, cs, r0, rs):
    """Copy L into the strict upper triangle (U = L^T): the explicit back substitution."""
    j = c0
    while j < m:
        i = j + 1 + r0
        while i < m:
            M[_u(j + i * ld)] = M[_u(i + j * ld)]
            i += rs
        j += cs
    sync()


# --------------------------------------------------------------------- triangular solves
@device
def forward(M, b, m, ld, tid, nt):
    """b <- L^{-1} b, column by column (threads over the rows of a column)."""
    j = 0
    while j < m:
        yj = b[_u(j)] / M[_u(j + j * ld)]
        sync()
        i = j + tid
        while i < m:
            if i == j:
                b[_u(i)] = yj
            else:
                b[_u(i)] -= M[_u(i + j * ld)] * yj
            i += nt
        sync()
        j += 1


@device
def backward(M, b, m, ld, explicit, tid, nt):
    """b <- L^{-T} b.  Explicit: read L^T from the upper triangle (consecutive addresses);
    implicit: read row j of L (stride ``ld``, bank conflicts; Section 4.4, Table 2)."""
    for j in range(m - 1, -1, -1):
        zj = b[_u(j)] / M[_u(j + j * ld)]
        sync()
        if explicit:
            i = tid
            while i < j + 1:
                if i == j:
                    b[_u(i)] = zj
                else:
                    b[_u(i)] -= M[_u(i + j * ld)] * zj
                i += nt
        else:
            i = tid
            while i < j + 1:
                if i == j:
                    b[_u(i)] = zj
                else:
                    b[_u(i)] -= M[_u(j + i * ld)] * zj
                i += nt
        sync()
