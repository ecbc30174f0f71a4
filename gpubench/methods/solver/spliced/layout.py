"""The iteration's cut tables laid out (``codegen._split_forms``; docs/solver-scaling.md).

Every window term that touches a cut coordinate, and the hoisted subexpressions of x_first and
x_last, take one value per combination of the parts of their cut coordinates and per row (the box,
sample m), so they are evaluated once an iteration and each subregion reads them.  ``tab[e] =
(offset, size)`` for the value entries e (the windows of win1, then of win2, then x_first and
x_last); ``dtab[3 qq + kind]`` for the derivative entries of special coordinate qq (kind 0: x_d's
window, 1: window d - 1, 2: window d).  An entry whose table would hold no fewer values than the
sweep evaluates (its size >= count, as for a window of two cut coordinates when only two are cut)
gets offset -1 and is evaluated in place.  Also spliced into the host's CPU forms
(:mod:`gpubench.methods.solver.uncut`), which lay the tables out for both backends.
"""
import numpy as np

from gpubench.kernels.unsigned import u as _u

if __name__ == "gpubench.methods.solver.spliced.layout":  # imported as itself: stand-in forms
    from gpubench.methods.solver.spliced.stand_in_cuda import device


@device
def _cut_combo(lp, slot, ca, cb, parts):
    # the index of a subregion's parts of (x_ca, x_cb) among an entry's combinations (cb < 0: one);
    # ca >= 0 (a value entry's coordinate, or a derivative entry's that has a table)
    sa = slot[_u(ca)]
    c = 0
    if sa >= 0:
        c = lp[_u(sa)]
    if cb >= 0:
        sb = slot[_u(cb)]
        if sb >= 0:
            c = c * parts + lp[_u(sb)]
    return c


@device
def entry_offsets(lp, slot, n, win1, win2, tab, parts, cc):
    """A subregion's index into each value entry's table (its offset plus the combination of the
    subregion's parts, :func:`_cut_combo`), -1 for an entry evaluated in place: the same in every row
    (the box, each sample), so the sweep computes it once a subregion, not once a row.  Returns the
    number of entries evaluated in place."""
    inline = 0
    for e in range(win1.shape[0] + win2.shape[0] + 2):
        o = tab[_u(e), 0]
        if o >= 0:
            cls, ca, cb = _value_entry(e, n, win1, win2)
            o += _cut_combo(lp, slot, ca, cb, parts)
        else:
            inline += 1
        cc[_u(e)] = o
    return inline


@device
def _entry_size(slot, ca, cb, parts):
    # ca >= 0: cut_layout sizes only the entries in use, whose coordinates are
    size = parts if slot[_u(ca)] >= 0 else 1
    if cb >= 0 and slot[_u(cb)] >= 0:
        size *= parts
    return size


@device
def _value_entry(e, n, win1, win2):
    # (class, first coordinate, second coordinate or -1) of value entry e
    ncut = win1.shape[0]
    nw2 = win2.shape[0]
    if e < ncut:
        return 0, win1[_u(e)], -1
    if e < ncut + nw2:
        k = win2[_u(e - ncut)]
        return 1, k, k + 1
    if e == ncut + nw2:
        return 2, 0, -1
    return 3, n - 1, -1


@device
def _deriv_entry(e, special):
    # (kind, first coordinate, second coordinate or -1) of derivative entry e
    qq = e // 3
    kind = e - 3 * qq
    d = special[_u(qq)]
    if kind == 0:
        return 0, d, -1
    if kind == 1:
        return 1, d - 1, d
    return 2, d, d + 1


@device
def _place(tab, e, used, size, count, off):
    # entry e at offset off if used and smaller than the sweep, else evaluated in place; the next offset
    if used and size < count:
        tab[_u(e), 0] = off
        tab[_u(e), 1] = size
        return off + size
    tab[_u(e), 0] = -1
    tab[_u(e), 1] = 0
    return off


@device
def cut_layout(n, win1, win2, special, slot, parts, count, uses, duses, tab, dtab):
    """Lay the cut tables out (``tab``, ``dtab``); returns (values a row, derivative values)."""
    voff = np.int64(0)  # not the literal 0: _place would be compiled for it and for int64
    for e in range(win1.shape[0] + win2.shape[0] + 2):
        cls, ca, cb = _value_entry(e, n, win1, win2)
        voff = _place(tab, e, uses[cls] > 0, _entry_size(slot, ca, cb, parts), count, voff)
    doff = np.int64(0)
    for e in range(3 * special.shape[0]):
        kind, ca, cb = _deriv_entry(e, special)
        used = duses[0] > 0 if kind == 0 else (duses[1] > 0 and ca >= 0 and cb <= n - 1)
        doff = _place(dtab, e, used, _entry_size(slot, ca, cb, parts) if used else 0, count, doff)
    return voff, doff
