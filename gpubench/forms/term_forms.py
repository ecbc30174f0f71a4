"""The per-coordinate point forms of a definition (``term_fold``, ``outer_value`` ...), which
DE on the GPU appends to a function's generated module for evaluation shared by many threads."""
from .emitters import PointEmitter
from .structure import _names_point, _Structure


def term_forms(defn):
    """Source of the per-coordinate point forms, for evaluation shared by many threads.

    A definition is ``expr(A_0, ..., x1, xn, n)`` with every ``A_k`` a sum or
    product of terms over coordinates, so threads may each fold the terms of
    some coordinates into partial aggregates, combine the partials (a block
    reduction), and one thread applies the outer expression.  This writes, for
    the generated module it is appended to (as an ``extensions`` text of
    :func:`load`):

    - ``COOP_SLOTS``: ``max(N_AGGREGATES, 1)``, the size of a partials array;
    - ``TERM_WINDOW``: 1 when every term reads its own coordinate only (a kernel may then fold a
      term as soon as its coordinate is known), 2 when some term reads the next one too;
    - ``agg_identity(a)`` and ``agg_combine(a, u, v)``: 0 and ``+`` for a sum, 1 and ``*``
      for a product;
    - ``term_fold(x, off, p, k, nn, acc)``: ``acc[a]`` combined with aggregate a's term at
      0-based coordinate ``k`` of the vector ``x[off:off + nn]`` (a two-coordinate term
      only for ``k < nn - 1``);
    - ``outer_value(acc, x_first, x_last, nn)``: the expression applied to full aggregates;
    - ``in_spike_at(x, off, nn)``: whether the vector lies in the definition's spike.

    ``point_raw`` equals ``outer_value`` of the folded terms up to the order of
    the floating-point additions.
    """
    st = _Structure(defn)
    names = _names_point(defn)
    pe = PointEmitter(names)
    nparams = len(defn.param_names)
    window = max([st.window[a] for a in st.aggs], default=1)
    out = [f"COOP_SLOTS = {max(len(st.aggs), 1)}", f"TERM_WINDOW = {window}", "", "", "@device",
           "def agg_identity(a):"]
    for k, a in enumerate(st.aggs):
        if st.kind[a] == "prod":
            out.append(f"    if a == {k}:")
            out.append("        return 1.0")
    out += ["    return 0.0", "", "", "@device", "def agg_combine(a, u, v):"]
    for k, a in enumerate(st.aggs):
        if st.kind[a] == "prod":
            out.append(f"    if a == {k}:")
            out.append("        return u * v")
    out += ["    return u + v", "", "", "@device", "def term_fold(x, off, p, k, nn, acc):",
            "    fn = float(nn)", "    xi = x[off + k]", "    fi = k + 1.0"]
    out += [f"    p{q}_i = p[{q}, k]" for q in range(nparams)]
    body1, body2 = [], []
    for k, a in enumerate(st.aggs):
        lines = body1 if st.window[a] == 1 else body2
        t = pe(st.term[a], lines)
        op = "*" if st.kind[a] == "prod" else "+"
        lines.append(f"acc[{k}] = acc[{k}] {op} ({t})")
    out += ["    " + ln for ln in body1]
    if body2:
        out += ["    if k < nn - 1:", "        xj = x[off + k + 1]"]
        out += [f"        p{q}_j = p[{q}, k + 1]" for q in range(nparams)]
        out += ["        " + ln for ln in body2]
    out += ["    return", "", "", "@device", "def outer_value(acc, x_first, x_last, nn):",
            "    fn = float(nn)"]
    out += [f"    A{k} = acc[{k}]" for k in range(len(st.aggs))]
    body = []
    r = pe(defn.expr, body)
    out += ["    " + ln for ln in body] + [f"    return {r}", "", "", "@device",
                                            "def in_spike_at(x, off, nn):",
                                            "    for k in range(nn):",
                                            "        if not (x[off + k] >= SPIKE_LO and x[off + k] <= SPIKE_HI):",
                                            "            return False",
                                            "    return True", ""]
    return "\n".join(out)
