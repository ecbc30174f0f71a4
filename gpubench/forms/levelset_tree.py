"""The level set's walks over a definition's expression tree (HC4-revise: :mod:`gpubench.forms.levelset`).

``_forward`` encloses every node of a plain tree (:mod:`gpubench.forms.exprtree`) on a box and
``_backward`` projects a node's target enclosure onto its arguments, narrowing the coordinates it
reaches; an empty projection raises ``_Empty``.  Their rigor (outward rounding, no rule = no
narrowing) is the one :mod:`gpubench.forms.levelset`'s docstring states; :class:`~gpubench.forms.levelset.LevelSet`
drives them.
"""
import threading

import numpy as np

from ..interval.arrays import (INF, ULPS, Undefined as _Undefined, _dn, _monotone, _pow_nonneg, _root, _up,
                               abs_, add, div, exp_, ipow, log_, mul, rpow, sin_, sqrt_, sub)


class _Empty(Exception):
    """A projection is empty: no point of the box meets the level set."""


# the steps (forms/definition.py): each nondecreasing; u with r(u) in [a, b] lies in the hull below
STEPS = {"floor": np.floor, "trunc": np.trunc, "rint": np.rint}
STEP_PREIMAGE = {"floor": (0.0, 1.0), "rint": (-0.5, 0.5), "trunc": (-1.0, 1.0)}


# a batched walk's empty mask (forms/levelset_batch.py), set while one runs on this thread: an empty
# projection then marks its boxes and leaves them their enclosure instead of ending the walk for every
# box.  Per thread, because a one-box walk of another search (a GPU thread's beside a host chunk's,
# workflow/chunks.py) must still raise _Empty, not mark boxes of a batch it is not walking.
LOCAL = threading.local()


def _meet(a, b):
    lo = np.maximum(a[0], b[0])
    hi = np.minimum(a[1], b[1])
    if np.any(lo > hi):
        batch = getattr(LOCAL, "batch", None)
        if batch is None:
            raise _Empty
        return batch.mark(a, lo, hi)
    return lo, hi


# ---------------------------------------------------------------- the tree
def _forward(e, env, vals):
    """Enclosure of the expression tree e (:class:`~gpubench.forms.exprtree.Node`); every
    sub-expression's enclosure is stored in vals."""
    if e in vals:
        return vals[e]
    op = e.op
    if op == "sym":
        v = env[e.name]
    elif op == "const":
        v = tuple(e.value)
    elif op == "add":
        v = _forward(e.args[0], env, vals)
        for a in e.args[1:]:
            v = add(v, _forward(a, env, vals))
    elif op == "mul":
        v = _forward(e.args[0], env, vals)
        for a in e.args[1:]:
            v = mul(v, _forward(a, env, vals))
    elif op == "pow":
        b = _forward(e.args[0], env, vals)
        kind = e.value[0]
        if kind == "int":
            v = ipow(b, e.value[1])
        elif kind == "inv":
            v = div((1.0, 1.0), ipow(b, e.value[1]))
        elif kind == "sqrt":
            v = sqrt_(b)
        elif kind == "rat":
            v = rpow(b, e.value[1])
        else:
            v = (-INF, INF)
    elif op in ("max", "min"):
        args = [_forward(a, env, vals) for a in e.args]
        pick = np.maximum if op == "max" else np.minimum
        lo, hi = args[0]
        for a in args[1:]:
            lo, hi = pick(lo, a[0]), pick(hi, a[1])
        v = (lo, hi)
    elif op in STEPS:  # nondecreasing and exact in floating point: [r(lo), r(hi)]
        r = STEPS[op]
        a = _forward(e.args[0], env, vals)
        v = (r(a[0]), r(a[1]))
    elif op == "tanh":
        lo, hi = _monotone(np.tanh, _forward(e.args[0], env, vals), ULPS + 1)
        v = (np.maximum(lo, -1.0), np.minimum(hi, 1.0))
    elif op == "exp":
        v = exp_(_forward(e.args[0], env, vals))
    elif op == "log":
        v = log_(_forward(e.args[0], env, vals))
    elif op == "sin":
        v = sin_(_forward(e.args[0], env, vals))
    elif op == "cos":
        v = sin_(_forward(e.args[0], env, vals), shift=1.0)
    elif op == "abs":
        v = abs_(_forward(e.args[0], env, vals))
    elif op == "sign":   # nondecreasing and exact: [sign(lo), sign(hi)]
        v = _sign(e.args[0], env, vals)
    elif op == "any" and e.value == ["delta"] and len(e.args) == 1:
        v = _delta(e.args[0], env, vals)
    else:  # no rule here ("any"): any real value
        v = (-INF, INF)
    lo, hi = np.broadcast_arrays(*(np.asarray(t, dtype=np.float64) for t in v))
    if np.isnan(lo).any() or np.isnan(hi).any():
        raise _Undefined
    vals[e] = (lo, hi)
    return vals[e]


def _sign(u, env, vals):
    """sign(u): [sign(lo), sign(hi)] of u's enclosure; the whole line where u has none (as before u was
    read here: a sign in a derivative never makes a walk undefined that its function leaves defined)."""
    try:
        lo, hi = _forward(u, env, vals)
    except _Undefined:
        return (-INF, INF)
    return (np.sign(lo), np.sign(hi))


def _delta(u, env, vals):
    """DiracDelta(u) (the derivative of sign(u)): 0 where u's enclosure excludes 0, the whole line
    where it may hold 0 or where u has no enclosure (a kink may be there)."""
    try:
        lo, hi = _forward(u, env, vals)
    except _Undefined:
        return (-INF, INF)
    away = (lo > 0) | (hi < 0)
    return (np.where(away, 0.0, -INF), np.where(away, 0.0, INF))


def _quotient(t, r, u):
    """The hull of {u in U : u r in T for some r in R}: T / R where 0 is not in R; where it is and T
    excludes 0, the extended division (E. Hansen, G. W. Walster, *Global Optimization Using Interval
    Analysis*, 2nd ed., 2004, Sec. 4.8), each of its two half-lines met with U before the hull
    (XinSheYang03's -2 e^(-S2) P <= -1 with P in [0, 1]: e^(-S2) >= 1/2, which plain division
    by -2 P = [-2, 0] concluded nothing about); the whole line where T holds 0 too."""
    tlo, thi = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in t))
    rlo, rhi = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in r))
    ulo, uhi = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in u))
    plain = div((tlo, thi), (rlo, rhi))
    zero = (rlo <= 0) & (rhi >= 0)
    if not zero.any():   # no extended division anywhere: the plain quotient, met with nothing (as below)
        return plain
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # r in (0, rhi]: T > 0 gives u >= tlo/rhi, T < 0 gives u <= thi/rhi
        pos_lo = np.where(tlo > 0, _dn(tlo / rhi), -INF)
        pos_hi = np.where(thi < 0, _up(thi / rhi), INF)
        # r in [rlo, 0): T > 0 gives u <= tlo/rlo, T < 0 gives u >= thi/rlo
        neg_lo = np.where(thi < 0, _dn(thi / rlo), -INF)
        neg_hi = np.where(tlo > 0, _up(tlo / rlo), INF)
    pos_lo = np.maximum(np.where(np.isnan(pos_lo), -INF, pos_lo), ulo)   # each half-line met with U
    pos_hi = np.minimum(np.where(np.isnan(pos_hi), INF, pos_hi), uhi)
    neg_lo = np.maximum(np.where(np.isnan(neg_lo), -INF, neg_lo), ulo)
    neg_hi = np.minimum(np.where(np.isnan(neg_hi), INF, neg_hi), uhi)
    has_pos = (rhi > 0) & (pos_lo <= pos_hi)
    has_neg = (rlo < 0) & (neg_lo <= neg_hi)
    ext_lo = np.minimum(np.where(has_pos, pos_lo, INF), np.where(has_neg, neg_lo, INF))
    ext_hi = np.maximum(np.where(has_pos, pos_hi, -INF), np.where(has_neg, neg_hi, -INF))
    # T holds 0: any u (r = 0 reaches it); neither half-line meets U: empty (lo > hi)
    holds0 = (tlo <= 0) & (thi >= 0)
    ext_lo = np.where(holds0, -INF, ext_lo)
    ext_hi = np.where(holds0, INF, ext_hi)
    return np.where(zero, ext_lo, plain[0]), np.where(zero, ext_hi, plain[1])


def _fold_but(vals_list, j, op, start, skip=()):
    """``op``-fold from ``start`` of every argument but the j-th and those in ``skip``, in their order: the
    enclosure of the sum (op = add, start 0) or product (op = mul, start 1) of the others."""
    acc = (start, start)
    for k, v in enumerate(vals_list):
        if k != j and k not in skip:
            acc = op(acc, v)
    return acc


def _all_but_each(vals_list, op, start, skip=()):
    """``[_fold_but(vals_list, j, op, start, skip) for j in range(k)]``, made at once for k > 2: the same
    steps in the same order as the loop over j (op elementwise, so each entry's values are the loop's, bit
    for bit), one op a term on (k, ...) arrays instead of k - 1 ops for each of the k entries: Kowalik's
    level set sums 11 residuals, whose backward walk took 110 additions for the 11 sums of the others, now
    11 on stacked arrays.  Two arguments take the loop (one op an entry: nothing to stack)."""
    k = len(vals_list)
    if k <= 2:
        return [_fold_but(vals_list, j, op, start, skip) for j in range(k)]
    shape = np.broadcast_shapes(*(np.shape(e) for v in vals_list for e in v))
    lo = np.full((k,) + shape, start)
    hi = np.full((k,) + shape, start)
    for m, v in enumerate(vals_list):
        if m in skip:
            continue
        nlo, nhi = op((lo, hi), v)
        lo = np.concatenate([nlo[:m], lo[m:m + 1], nlo[m + 1:]])
        hi = np.concatenate([nhi[:m], hi[m:m + 1], nhi[m + 1:]])
    return [(lo[j], hi[j]) for j in range(k)]


def _is_inv(node):
    return node.op == "pow" and node.value[0] == "inv"


def _denominator_target(rest, t, w):
    """The hull of {v in W : P / v in T for some P in ``rest``} = {v : v t = P}: the enclosure of a
    denominator D^m (W = ``w``, its forward enclosure) where P / D^m lies in T."""
    return _quotient(rest, t, w)


def _int_preimage(t, k, base):
    """The hull of {u in the enclosure ``base`` : u^k in T} (k >= 1, T = ``t``), outward."""
    tlo, thi = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in t))
    if k % 2:
        lo = np.where(tlo >= 0, _root(np.maximum(tlo, 0), k, False), -_root(np.abs(np.minimum(tlo, 0)), k, True))
        hi = np.where(thi >= 0, _root(np.maximum(thi, 0), k, True), -_root(np.abs(np.minimum(thi, 0)), k, False))
        return lo, hi
    r_hi = _root(np.maximum(thi, 0.0), k, True)
    r_lo = _root(np.maximum(tlo, 0.0), k, False)
    blo, bhi = base
    # |base| in [r_lo, r_hi]: base in [-r_hi, -r_lo] u [r_lo, r_hi]; keep a sign's piece
    # only where it meets the base's enclosure (Deceptive: -(S/n)^2 <= -1 with S/n in
    # [-0.03, 1.05] gives S/n in [1, 1.05], where the hull [-1.05, 1.05] kept all)
    neg = (blo <= -r_lo) & (blo < 0)
    pos = (bhi >= r_lo) & (bhi > 0)
    return np.where(neg, -r_hi, r_lo), np.where(pos, r_hi, -r_lo)


def _backward(e, target, vals, narrowed):
    """Narrow e's enclosure to ``target`` and project onto its arguments; symbols collect in
    ``narrowed`` (intersected with every projection that reaches them)."""
    cur = _meet(vals[e], target)
    op = e.op
    if op == "sym":
        narrowed[e.name] = _meet(narrowed[e.name], cur) if e.name in narrowed else cur
        return
    if op == "const":
        return
    args = e.args
    if op == "add":
        av = [vals[a] for a in args]
        others = _all_but_each(av, add, 0.0)
        for j, a in enumerate(args):
            _backward(a, sub(cur, others[j]), vals, narrowed)
    elif op == "mul":
        av = [vals[a] for a in args]
        inv = [_is_inv(a) for a in args]
        # the denominators' product prod_k D_k^(m_k) (the bases of the inverse powers): where any is
        # unbounded-free it lets each numerator factor be projected through T * den instead of through
        # 1/D's enclosure, the whole line on a box across a pole (below)
        den = (1.0, 1.0)
        powers = {}   # D^m of each inverse power, made once (the same values where it is used again below)
        for j, (a, is_inv) in enumerate(zip(args, inv)):
            if is_inv:
                powers[j] = ipow(vals[a.args[0]], a.value[1])
                den = mul(den, powers[j])
        # the product of the others for each argument (and of the other numerator factors): the loops'
        # products, each the same steps in the same order (_all_but_each)
        rests = _all_but_each(av, mul, 1.0)
        if any(inv):
            skip = {k for k in range(len(av)) if inv[k]}
            nums = _all_but_each(av, mul, 1.0, skip)
            scaled = mul(cur, den)   # T * den, the same for every numerator factor
        tlo, thi = np.broadcast_arrays(*cur)
        for j, a in enumerate(args):
            rest = rests[j]
            if inv[j]:
                # u = P / D^m in T (P the product of the others, D != 0 where f is defined) gives
                # D^m in {w : w t = P, t in T}: a finite interval wherever T excludes 0, even where D's
                # enclosure holds 0 and 1/D's is the whole line (Kowalik's and Thurber's rational models
                # across their poles: the extended quotient's two half-lines, met with D^m's enclosure)
                base, m = a.args[0], a.value[1]
                w = _denominator_target(rest, cur, powers[j])
                _backward(base, _int_preimage(w, m, vals[base]), vals, narrowed)
                continue
            target = None
            if np.any((rest[0] > 0) | (rest[1] < 0) | (tlo > 0) | (thi < 0)):
                target = _quotient(cur, rest, vals[a])
            if any(inv):
                # u * (the other numerator factors) = t * den, t in T: a second projection, met with the first
                num = nums[j]
                second = _quotient(scaled, num, vals[a])
                target = second if target is None else _meet(target, second)
            if target is not None:
                _backward(a, target, vals, narrowed)
    elif op == "pow":
        base, kind = args[0], e.value[0]
        if kind == "int":
            _backward(base, _int_preimage(cur, e.value[1], vals[base]), vals, narrowed)
        elif kind == "inv":   # D^-m in T: D^m in 1/T (extended where T holds 0), then its m-th roots
            m = e.value[1]
            w = _denominator_target((1.0, 1.0), cur, ipow(vals[base], m))
            _backward(base, _int_preimage(w, m, vals[base]), vals, narrowed)
        elif kind == "sqrt":
            tlo, thi = np.broadcast_arrays(*cur)
            _backward(base, (np.where(tlo > 0, _pow_nonneg(np.maximum(tlo, 0), 2, False), -INF),
                             _pow_nonneg(np.maximum(thi, 0.0), 2, True)), vals, narrowed)
    elif op == "exp":
        tlo, thi = np.broadcast_arrays(*cur)
        with np.errstate(all="ignore"):
            lo = np.where(tlo > 0, _dn(np.log(np.maximum(tlo, 1e-320)), ULPS), -INF)
            hi = np.where(np.isfinite(thi), _up(np.log(np.maximum(thi, 1e-320)), ULPS), INF)
        _backward(args[0], (lo, hi), vals, narrowed)
    elif op == "log":
        tlo, thi = np.broadcast_arrays(*cur)
        with np.errstate(all="ignore"):
            lo = np.maximum(_dn(np.exp(tlo), ULPS), 0.0)
            hi = _up(np.exp(thi), ULPS)
        _backward(args[0], (lo, hi), vals, narrowed)
    elif op == "abs":
        thi = np.broadcast_arrays(*cur)[1]
        _backward(args[0], (-thi, thi), vals, narrowed)
    elif op == "max":   # max(a, b, ...) <= T.hi: every argument is
        for a in args:
            _backward(a, (-INF, cur[1]), vals, narrowed)
    elif op == "min":   # min(...) >= T.lo: every argument is
        for a in args:
            _backward(a, (cur[0], INF), vals, narrowed)
    elif op in STEPS:
        # r(u) is an integer in [ceil(T.lo), floor(T.hi)]; u lies within the offsets below of it
        d0, d1 = STEP_PREIMAGE[op]
        tlo, thi = np.broadcast_arrays(*cur)
        with np.errstate(invalid="ignore"):
            lo = np.where(np.isfinite(tlo), np.ceil(tlo) + d0 - 1.0, -INF)
            hi = np.where(np.isfinite(thi), np.floor(thi) + d1 + 1.0, INF)
        _backward(args[0], (_dn(lo), _up(hi)), vals, narrowed)
    # any other operation: not projected (valid; nothing narrowed through it)
