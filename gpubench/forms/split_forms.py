"""The forms of the interval solver's n-independent sweep, generated from a function's definition:
its cut tables' entries, the value and gradient over a subregion from the tables, the host's
uncut tables and the terms of one window (see :func:`_split_forms` and docs/solver-scaling.md)."""
import re

from .definition import n, x1, xn
from .emitters import IntervalEmitter
from .structure import _names_interval, _outer_derivatives


def _branches(branches):
    """``if``/``elif`` lines over (condition, body lines)."""
    out = []
    for j, (cond, lines) in enumerate(branches):
        out += [("if " if j == 0 else "elif ") + cond + ":"] + ["    " + ln for ln in lines]
    return out


def _hoist_side(e):
    """"first" (or "last") for a subexpression of the outer expression that depends on x_first
    (or x_last) alone, besides n and constants: in an iteration it takes one value per part of that
    coordinate and row, so the cut tables hold it; None otherwise."""
    if e.is_Atom:
        return None
    fs = e.free_symbols
    if x1 in fs and fs <= {x1, n}:
        return "first"
    if xn in fs and fs <= {xn, n}:
        return "last"
    return None


class _TableEmitter(IntervalEmitter):
    """Interval code of the outer expression in which every maximal subexpression of x_first alone
    (or x_last alone) is a name (``Hf{j}``, ``Hl{j}``) read from the cut tables, not evaluated.

    ``hoisted[side]`` lists those subexpressions in the order of the tables' columns; it grows as
    code is emitted, so the loads are written after the last function that uses them.  Evaluated
    by ``entry_terms`` with the same emitter code, a hoisted value has the bits it would have here.
    """

    def __init__(self, names, prefix, hoisted):
        super().__init__(names, prefix)
        self.hoisted = hoisted
        self.used = {"first": set(), "last": set()}  # the columns this emitter's code reads

    def emit(self, e, lines):
        side = _hoist_side(e)
        if side is None:
            return super().emit(e, lines)
        listed = self.hoisted[side]
        if e not in listed:
            listed.append(e)
        j = listed.index(e)
        self.used[side].add(j)
        return f"H{side[0]}{j}_lo", f"H{side[0]}{j}_hi"


def _coord_lines(var, idx):
    """Bind ``var`` to coordinate ``idx`` of the subregion: its cut slot, or the uncut row."""
    return [f"s_ = slot[{idx}]", "if s_ >= 0:", f"    {var}_lo = clo[s_]", f"    {var}_hi = chi[s_]",
            "else:", f"    {var}_lo = ulo[{idx}]", f"    {var}_hi = uhi[{idx}]"]


def _bind_window(nparams, need_next):
    """Inside ``entry_terms``/``deriv_terms``: x_k (and x_{k+1}) from the arguments, i, parameters."""
    out = ["xi_lo = a_lo", "xi_hi = a_hi", "fi_lo = k + 1.0", "fi_hi = fi_lo"]
    if need_next:
        out += ["xj_lo = b_lo", "xj_hi = b_hi"]
    for q in range(nparams):
        out += [f"p{q}_i_lo = p[{q}, k]", f"p{q}_i_hi = p{q}_i_lo"]
        if need_next:
            out += [f"p{q}_j_lo = p[{q}, k + 1]", f"p{q}_j_hi = p{q}_j_lo"]
    return out


def _int(v):
    """An integer constant passed to a generated device function, as an int64 value: numba compiles a
    callee once per *literal* argument (entry_terms(1, ...) and entry_terms(2, ...) would be two
    compilations of the whole function), and once for a typed int64 argument."""
    v = str(v)
    return f"np.int64({v})" if re.fullmatch(r"-?\d+", v) else v


def _read_entry(row, entry, combo, inline, count, use):
    """Lines that fold the ``count`` columns of one cut-table entry into the sweep's values: read
    from the tables (``VT*[row, off + combo]`` or ``DT*[off + combo]``), or for an entry the layout
    left inline, evaluated here (``inline``: the call that fills ``tlo/thi``).  ``use(lo, hi, j)``
    gives the lines that consume column j.  ``combo`` None: ``entry`` is the subregion's index into
    the table already, -1 where inline (``cc[e]``, layout.entry_offsets: the same in every row)."""
    table = ("VTlo", "VThi") if row is not None else ("DTlo", "DThi")
    at = f"{row}, c_" if row is not None else "c_"
    out = [f"o_ = {entry}", "if o_ < 0:", f"    {inline}"]
    for j in range(count):
        out += ["    " + ln for ln in use(f"tlo[{j}]", f"thi[{j}]", j)]
    out += ["else:", "    c_ = o_" if combo is None else f"    c_ = o_ + {combo}"]
    for j in range(count):
        out += ["    " + ln for ln in use(f"{table[0]}[{at}, {j}]", f"{table[1]}[{at}, {j}]", j)]
    return out


def _table_aggregates(st, row):
    """Lines folding the cut windows' terms of row ``row`` into the aggregates ``A_k`` (which start
    from ``base``), in the order ``interval_partial`` folds them, so with the same bits."""
    out = []
    for cls, window, wins in ((0, 1, "win1"), (1, 2, "win2")):
        members = [a for a in st.aggs if st.window[a] == window]
        if not members:
            continue

        def use(lo, hi, j, members=members):
            k = st.aggs.index(members[j])
            op = "imul" if st.kind[members[j]] == "prod" else "iadd"
            return [f"A{k}_lo, A{k}_hi = {op}(A{k}_lo, A{k}_hi, {lo}, {hi})"]
        # the window's coordinate k is read only where its entry is evaluated in place
        if window == 1:
            read = _read_entry(row, "cc[q]", None,
                               f"entry_terms({_int(0)}, k, clo[q], chi[q], 0.0, 0.0, p, nn, tlo, thi)",
                               len(members), use)
            inline = ["    k = win1[q]"]
        else:
            inline = ["    " + ln for ln in ["k = win2[q]"] + _coord_lines("xa", "k") + _coord_lines("xb", "k + 1")]
            read = _read_entry(row, "cc[ncut + q]", None,
                               f"entry_terms({_int(1)}, k, xa_lo, xa_hi, xb_lo, xb_hi, p, nn, tlo, thi)",
                               len(members), use)
        body = read[:2] + inline + read[2:]
        out += [f"for q in range({wins}.shape[0]):"] + ["    " + ln for ln in body]
    return out


def _hoisted_loads(emitter, row):
    """Lines binding the hoisted subexpressions of x_first and x_last that ``emitter``'s code reads,
    for ``row``.  x_first and x_last themselves are bound only where an entry is evaluated in place
    (never at the paper's settings): bound up front, they would hold four registers across the
    window loops (docs/solver-scaling.md, issue 42)."""
    out = []
    for cls, side, entry, coord in ((2, "first", "ncut + win2.shape[0]", "0"),
                                    (3, "last", "ncut + win2.shape[0] + 1", "nn - 1")):
        count = len(emitter.hoisted[side])
        if not emitter.used[side]:
            continue

        def use(lo, hi, j, side=side):
            if j not in emitter.used[side]:
                return []
            return [f"H{side[0]}{j}_lo = {lo}", f"H{side[0]}{j}_hi = {hi}"]
        call = (f"entry_terms({_int(cls)}, {_int(coord)}, x_{side}_lo, x_{side}_hi, 0.0, 0.0, p, nn, "
                "tlo, thi)")
        read = _read_entry(row, f"cc[{entry}]", None, call, count, use)
        out += read[:2] + ["    " + ln for ln in _coord_lines(f"x_{side}", coord)] + read[2:]
    return out


def _bind_ends(lines):
    """Lines binding x_first and x_last for code ``lines`` that reads them outside the hoisted
    entries (an atom x_first of the outer expression, or its derivative): the same reads the
    prologue made, after the window loops (which write none of clo, chi, ulo, uhi)."""
    out = []
    for name, idx in (("x_first", "0"), ("x_last", "nn - 1")):
        if any(re.search(rf"\b{name}_(lo|hi)\b", ln) for ln in lines):
            out += _coord_lines(name, idx)
    return out


def _entry_function(name, selector, emit, classes):
    """``name(selector, k, a, b, p, nn, out)``: for the class (value of ``selector``) of each
    (value, expressions, binding lines), their enclosures into ``out_lo/out_hi[j]``, each class in a
    block of its own (so no common subexpression is shared across bindings)."""
    branches = []
    for value, exprs, bind in classes:
        if exprs:
            lines = list(bind)
            for j, e in enumerate(exprs):
                v = emit(e, lines)
                lines += [f"out_lo[{j}] = {v[0]}", f"out_hi[{j}] = {v[1]}"]
            branches.append((f"{selector} == {value}", lines))
    body = ["fn_lo = float(nn)", "fn_hi = fn_lo"] + _branches(branches) + ["return"]
    return (["@device", f"def {name}({selector}, k, a_lo, a_hi, b_lo, b_hi, p, nn, out_lo, out_hi):"]
            + ["    " + ln for ln in body] + [""])


def _subregion_prologue(st):
    out = ["nn = ulo.shape[0]", "fn_lo = float(nn)", "fn_hi = fn_lo", "ncut = win1.shape[0]"]
    for k, a in enumerate(st.aggs):
        out += [f"A{k}_lo = base_lo[{k}]", f"A{k}_hi = base_hi[{k}]"]
    return out


def _split_forms(st, nparams):
    """Forms of the solver's n-independent sweep (see docs/solver-scaling.md).

    A subregion differs from its siblings only in the parts of its s cut coordinates, so a term of a
    window touching them takes one value per combination of its coordinates' parts and per row (the
    box, or sample m): the iteration's *cut tables* hold them, and a subregion folds table entries
    instead of evaluating terms (same operations, same order, so the bits of ``interval_partial``).

    - ``entry_terms(cls, k, a, b, ...)``: the values of one table entry: the terms of the
      one-coordinate (cls 0) or two-coordinate (cls 1) window at k, or the hoisted subexpressions of
      x_first (2) or x_last (3) (``_TableEmitter``); ``deriv_terms(kind, k, a, b, ...)``: the
      derivative terms that the gradient at a special coordinate d reads (kind 0: x_d's window,
      products then one-coordinate sums; 1: dterm_y of the window d - 1; 2: dterm_x of window d);
    - ``value_split_raw``: f over a subregion (or at a sample) from ``base``, the cut tables and
      the cut coordinates: O(s) table reads; an entry the layout left inline (``tab[e, 0] < 0``:
      its table would be no smaller than the sweep) is evaluated in place by ``entry_terms``;
    - ``gradient_split_raw``: the gradient at the *special* coordinates (the cut ones, their
      neighbours in two-coordinate windows, the first and last) over the subregion, with the
      monotonicity test there, and the per-subregion factors ``C_a`` of every other coordinate's
      derivative (g_d = sum_a C_a K_{a,d}); O(s^2) work;
    - ``uncut_tables`` (host, once per iteration): K_{a,d} over the selected box and, for products,
      the product R_{a,d} of the uncut terms other than d's at the special coordinates.
    """
    names = _names_interval(st.defn)
    prods = [a for a in st.aggs if st.kind[a] == "prod"]
    sums1 = [a for a in st.aggs if st.kind[a] == "sum" and st.window[a] == 1]
    sums2 = [a for a in st.aggs if st.kind[a] == "sum" and st.window[a] == 2]
    members1 = [a for a in st.aggs if st.window[a] == 1]
    members2 = [a for a in st.aggs if st.window[a] == 2]
    kind0 = prods + sums1  # derivative columns of x_d's own window: products, then sums
    hoisted = {"first": [], "last": []}
    out = []

    # ---- value
    vemit = _TableEmitter(names, "v", hoisted)
    value = _subregion_prologue(st) + _table_aggregates(st, "m")
    outer = []
    r = vemit(st.defn.expr, outer)
    value_tail = outer + [f"return {r[0]}, {r[1]}"]

    # ---- gradient at the special coordinates, and the factors C_a
    gemit = _TableEmitter(names, "h", hoisted)
    grad = _subregion_prologue(st) + _table_aggregates(st, "0")
    col1 = {a: j for j, a in enumerate(members1)}
    for pi, a in enumerate(prods):
        # products of the cut terms: all of them (PC) and all but the q-th (w[pi*ncut + q])
        def take(lo, hi, j, a=a):
            return [f"t_lo = {lo}", f"t_hi = {hi}"] if j == col1[a] else []
        term = _read_entry("0", "cc[q]", None,
                           f"entry_terms({_int(0)}, k, clo[q], chi[q], 0.0, 0.0, p, nn, tlo, thi)", len(members1), take)
        grad += ["run_lo = 1.0", "run_hi = 1.0", "for q in range(ncut):", "    k = win1[q]",
                 f"    wlo[{pi} * ncut + q] = run_lo", f"    whi[{pi} * ncut + q] = run_hi"]
        grad += ["    " + ln for ln in term + ["run_lo, run_hi = imul(run_lo, run_hi, t_lo, t_hi)"]]
        grad += [f"PC{pi}_lo = run_lo", f"PC{pi}_hi = run_hi",
                 "run_lo = 1.0", "run_hi = 1.0", "for q in range(ncut - 1, -1, -1):", "    k = win1[q]"]
        grad += ["    " + ln for ln in term + [
            f"wlo[{pi} * ncut + q], whi[{pi} * ncut + q] = imul(wlo[{pi} * ncut + q], "
            f"whi[{pi} * ncut + q], run_lo, run_hi)",
            "run_lo, run_hi = imul(run_lo, run_hi, t_lo, t_hi)"]]
    derivs = _outer_derivatives("enclosure", gemit, st)
    loop = ["d = special[qq]", "g_lo = 0.0", "g_hi = 0.0"]

    def fold(dname, factor=None):
        def use(lo, hi, j):
            if factor is not None:
                return [f"c_lo, c_hi = imul({factor[0]}, {factor[1]}, {lo}, {hi})",
                        f"c_lo, c_hi = imul({dname(j)}_lo, {dname(j)}_hi, c_lo, c_hi)",
                        "g_lo, g_hi = iadd(g_lo, g_hi, c_lo, c_hi)"]
            return [f"c_lo, c_hi = imul({dname(j)}_lo, {dname(j)}_hi, {lo}, {hi})",
                    "g_lo, g_hi = iadd(g_lo, g_hi, c_lo, c_hi)"]
        return use

    # the same order of terms as interval_gradient: products, one-coordinate sums, two-coordinate sums
    if kind0:
        loop += ["sd = slot[d]"]
        for pi, a in enumerate(prods):
            loop += ["if sd >= 0:", f"    cp_lo = wlo[{pi} * ncut + sd]", f"    cp_hi = whi[{pi} * ncut + sd]",
                     "else:", f"    cp_lo = PC{pi}_lo", f"    cp_hi = PC{pi}_hi",
                     f"r{pi}_lo, r{pi}_hi = imul(Rlo[{pi}, qq], Rhi[{pi}, qq], cp_lo, cp_hi)"]

        def use0(lo, hi, j):
            a = kind0[j]
            k = st.aggs.index(a)
            if a in prods:
                pi = prods.index(a)
                return fold(lambda _: f"D{k}", (f"r{pi}_lo", f"r{pi}_hi"))(lo, hi, j)
            return fold(lambda _: f"D{k}")(lo, hi, j)
        read = _read_entry(None, "dtab[3 * qq, 0]", f"_cut_combo(lp, slot, d, {_int(-1)}, parts)",
                           f"deriv_terms({_int(0)}, d, xa_lo, xa_hi, 0.0, 0.0, p, nn, tlo, thi)", len(kind0), use0)
        loop += read[:2] + ["    " + ln for ln in _coord_lines("xa", "d")] + read[2:]
    if sums2:
        dname = (lambda j: f"D{st.aggs.index(sums2[j])}")
        for kind, cond, ka, kb in ((1, "d >= 1", "d - 1", "d"), (2, "d <= nn - 2", "d", "d + 1")):
            read = _read_entry(None, f"dtab[3 * qq + {kind}, 0]", f"_cut_combo(lp, slot, {ka}, {kb}, parts)",
                               f"deriv_terms({_int(kind)}, {ka}, xa_lo, xa_hi, xb_lo, xb_hi, p, nn, tlo, thi)",
                               len(sums2), fold(dname))
            inline = ["    " + ln for ln in _coord_lines("xa", ka) + _coord_lines("xb", kb)]
            loop += [f"if {cond}:"] + ["    " + ln for ln in read[:2] + inline + read[2:]]
    loop += ["if d == 0:", "    g_lo, g_hi = iadd(g_lo, g_hi, Dfirst_lo, Dfirst_hi)",
             "if d == nn - 1:", "    g_lo, g_hi = iadd(g_lo, g_hi, Dlast_lo, Dlast_hi)",
             "sd = slot[d]", "if sd >= 0:", "    e_lo = clo[sd]", "    e_hi = chi[sd]",
             "else:", "    e_lo = ulo[d]", "    e_hi = uhi[d]",
             # f is monotone in x_d over the subregion, which does not reach the domain's edge there
             "if g_lo > 0.0 and e_lo != dom_lo[d]:", "    return 1",
             "if g_hi < 0.0 and e_hi != dom_hi[d]:", "    return 1"]
    grad_tail = derivs + ["for qq in range(special.shape[0]):"] + ["    " + ln for ln in loop]
    pi_of = {a: q for q, a in enumerate(prods)}
    for k, a in enumerate(st.aggs):
        if st.kind[a] == "prod":
            grad_tail.append(f"Clo[{k}], Chi[{k}] = imul(D{k}_lo, D{k}_hi, PC{pi_of[a]}_lo, PC{pi_of[a]}_hi)")
        else:
            grad_tail.append(f"Clo[{k}], Chi[{k}] = D{k}_lo, D{k}_hi")
    grad_tail.append("return 0")

    # ---- the entries' values: the same emitter code as the inline forms had, one block per class
    ncols = max(len(members1), len(members2), len(hoisted["first"]), len(hoisted["last"]), 1)
    dcols = max(len(kind0), len(sums2), 1)
    out += ["# the cut tables' columns (gpubench/methods/solver/kernels.py: cut_layout, fill_cut_tables)",
            f"CUT_COLS = {ncols}", f"DERIV_COLS = {dcols}",
            f"CUT_USES = ({len(members1)}, {len(members2)}, {len(hoisted['first'])}, {len(hoisted['last'])})",
            f"DERIV_USES = ({len(kind0)}, {len(sums2)})",
            "# the value form reads x_first or x_last outside their entries (so a cut coordinate in every row)",
            f"SPLIT_READS_ENDS = {bool(_bind_ends(value_tail))}", "", ""]
    out += _entry_function("entry_terms", "cls", IntervalEmitter(names, prefix="e"), (
        (0, [st.term[a] for a in members1], _bind_window(nparams, False)),
        (1, [st.term[a] for a in members2], _bind_window(nparams, True)),
        (2, hoisted["first"], ["x_first_lo = a_lo", "x_first_hi = a_hi"]),
        (3, hoisted["last"], ["x_last_lo = a_lo", "x_last_hi = a_hi"])))
    out += _entry_function("deriv_terms", "kind", IntervalEmitter(names, prefix="g"), (
        (0, [st.dterm_x[a] for a in kind0], _bind_window(nparams, False)),
        (1, [st.dterm_y[a] for a in sums2], _bind_window(nparams, True)),
        (2, [st.dterm_x[a] for a in sums2], _bind_window(nparams, True))))

    args = "clo, chi, ulo, uhi, slot, p, win1, win2, base_lo, base_hi, tab, VTlo, VThi, tlo, thi"
    out += ["@device", f"def value_split_raw(m, cc, {args}):"]
    out += ["    " + ln for ln in value + _hoisted_loads(vemit, "m") + _bind_ends(value_tail) + value_tail] + [""]
    out += ["@device",
            f"def gradient_split_raw(cc, lp, parts, {args}, special, Rlo, Rhi, dom_lo, dom_hi, Clo, Chi, wlo, whi,",
            "                       dtab, DTlo, DThi):"]
    out += ["    " + ln for ln in grad + _hoisted_loads(gemit, "0") + _bind_ends(grad_tail) + grad_tail] + [""]

    # ---- host tables over the selected box: K_{a,d} and R_{a,special}
    emit = IntervalEmitter(names, prefix="k")

    def load_box(need_next):
        lines = ["xi_lo = lo[k]", "xi_hi = hi[k]"]
        if need_next:
            lines += ["xj_lo = lo[k + 1]", "xj_hi = hi[k + 1]"]
        lines += ["fi_lo = k + 1.0", "fi_hi = fi_lo"]
        for q in range(nparams):
            lines += [f"p{q}_i_lo = p[{q}, k]", f"p{q}_i_hi = p{q}_i_lo"]
            if need_next:
                lines += [f"p{q}_j_lo = p[{q}, k + 1]", f"p{q}_j_hi = p{q}_j_lo"]
        return lines

    out += ["@device", "def uncut_tables(lo, hi, p, skip1, special, Klo, Khi, Rlo, Rhi, wlo, whi):"]
    body = ["nn = lo.shape[0]", "fn_lo = float(nn)", "fn_hi = fn_lo",
            "for a in range(Klo.shape[0]):", "    for k in range(nn):", "        Klo[a, k] = 0.0",
            "        Khi[a, k] = 0.0"]
    for pi, a in enumerate(prods):
        k = st.aggs.index(a)
        # R: product over the uncut terms but d's, from prefix (w) and suffix (run) products
        body += ["run_lo = 1.0", "run_hi = 1.0", "for k in range(nn):", "    wlo[k] = run_lo", "    whi[k] = run_hi",
                 "    if not skip1[k]:"]
        inner = load_box(False)
        t = emit(st.term[a], inner)
        inner.append(f"run_lo, run_hi = imul(run_lo, run_hi, {t[0]}, {t[1]})")
        body += ["        " + ln for ln in inner]
        body += ["run_lo = 1.0", "run_hi = 1.0", "for k in range(nn - 1, -1, -1):"]
        inner = load_box(False)
        dt = emit(st.dterm_x[a], inner)
        inner += ["wlo[k], whi[k] = imul(wlo[k], whi[k], run_lo, run_hi)",
                  f"Klo[{k}, k], Khi[{k}, k] = imul(wlo[k], whi[k], {dt[0]}, {dt[1]})"]
        guarded = []
        t = emit(st.term[a], guarded)
        guarded.append(f"run_lo, run_hi = imul(run_lo, run_hi, {t[0]}, {t[1]})")
        inner += ["if not skip1[k]:"] + ["    " + ln for ln in guarded]
        body += ["    " + ln for ln in inner]
        body += ["for qq in range(special.shape[0]):", f"    Rlo[{pi}, qq] = wlo[special[qq]]",
                 f"    Rhi[{pi}, qq] = whi[special[qq]]"]
    if sums1:
        body.append("for k in range(nn):")
        inner = load_box(False)
        for a in sums1:
            k = st.aggs.index(a)
            v = emit(st.dterm_x[a], inner)
            inner.append(f"Klo[{k}, k], Khi[{k}, k] = iadd(Klo[{k}, k], Khi[{k}, k], {v[0]}, {v[1]})")
        body += ["    " + ln for ln in inner]
    if sums2:
        body.append("for k in range(nn - 1):")
        inner = load_box(True)
        for a in sums2:
            k = st.aggs.index(a)
            v = emit(st.dterm_x[a], inner)
            inner.append(f"Klo[{k}, k], Khi[{k}, k] = iadd(Klo[{k}, k], Khi[{k}, k], {v[0]}, {v[1]})")
            v = emit(st.dterm_y[a], inner)
            inner.append(f"Klo[{k}, k + 1], Khi[{k}, k + 1] = iadd(Klo[{k}, k + 1], Khi[{k}, k + 1], "
                         f"{v[0]}, {v[1]})")
        body += ["    " + ln for ln in inner]
    body.append("return")
    out += ["    " + ln for ln in body] + [""]

    # ---- the terms of one window, and their derivatives on a box: the device loop evaluates
    # them one thread a window and folds them in index order, as aggregates_rest and uncut_tables
    # do serially (so with the same bits)
    codes = [str(2 if st.kind[a] == "prod" else st.window[a] - 1) for a in st.aggs]
    out += ["# per aggregate: 0 a sum of one-coordinate terms, 1 of two-coordinate terms, 2 a product",
            f"AGG_FOLD = ({', '.join(codes or ['0'])},)", ""]
    emit = IntervalEmitter(names, prefix="u")
    out += ["@device", "def window_terms(lo, hi, p, k, deriv, tlo, thi, dxlo, dxhi, dylo, dyhi):"]
    body = ["nn = lo.shape[0]", "fn_lo = float(nn)", "fn_hi = fn_lo"]
    for window in (1, 2):
        members = [a for a in st.aggs if st.window[a] == window]
        if not members:
            continue
        inner = load_box(window == 2)
        for a in members:
            i = st.aggs.index(a)
            t = emit(st.term[a], inner)
            inner += [f"tlo[{i}] = {t[0]}", f"thi[{i}] = {t[1]}"]
        dinner = []
        for a in members:
            i = st.aggs.index(a)
            v = emit(st.dterm_x[a], dinner)
            dinner += [f"dxlo[{i}] = {v[0]}", f"dxhi[{i}] = {v[1]}"]
            if window == 2:
                v = emit(st.dterm_y[a], dinner)
                dinner += [f"dylo[{i}] = {v[0]}", f"dyhi[{i}] = {v[1]}"]
        inner += ["if deriv:"] + ["    " + ln for ln in dinner]
        if window == 2:
            inner = ["if k <= nn - 2:"] + ["    " + ln for ln in inner]
        body += inner
    body.append("return")
    out += ["    " + ln for ln in body] + [""]
    return out
