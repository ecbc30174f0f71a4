"""The chain's cells enclosed by compiled code (issue 41: :mod:`gpubench.forms.chain`).

``chain.lower_ends`` encloses a window-2 term on every pair of cells (a, b) of (x_i, x_{i+1}): its
natural form, its value at the cells' centres, and the mean value form with both partials.  Walked
in numpy (:func:`gpubench.forms.levelset._forward`) that took 43-70 ms a call at n = 10 with 64
cells (EggHolder, Rana: 36,864 cells, four trees), 76 % of a strong search's time with the chain on.
Here the same trees (the level set's plain trees, :mod:`gpubench.forms.exprtree`: no sympy) are
written as one numba kernel, a loop over i, a, b with each node computed in the outermost loop it
depends on (a node of x_i alone once per cell a, not once per pair), over the compiled interval
operations every generated form uses (:mod:`gpubench.interval.ops` on the CPU primitives: outward
rounded, tested against exact oracles there).  The kernel's text is written to the cache folder
under the hash of its text (``gpubench_generated_chain_*.py``), so numba's disk cache keeps the
compiled code for the next process.

Not bit for bit the numpy walk: the compiled operations are the sweep's (``isin``'s peaks from
enclosures of pi/2 and 1/(2 pi), ``idiv``'s half-lines where 0 ends the divisor, ``ipow`` by
squaring), each an enclosure; rational powers (the derivatives' |u|^(-1/2)) follow
``interval.arrays.rpow`` here (libm's pow ``ULPS`` ulps outward).  Where any cell's natural form
is undefined (NaN: a square root or log of a negative range, inf - inf) the chain is not applied,
as the numpy walk's ``Undefined``; an undefined centre or mean value form leaves that cell's
natural form.  ``tests/test_chain.py`` checks the result against exact values (Fraction, mpmath)
and catches a kernel compiled over a sine without its peaks.
"""
import hashlib
import math
import threading

import numpy as np

from ..interval.arrays import ULPS
from .exprtree import to_json

UNARY_OPS = {"tanh": "itanh", "exp": "iexp", "log": "ilog", "sin": "isin", "cos": "icos", "abs": "iabs",
             "floor": "ifloor", "trunc": "itrunc", "rint": "irint",
             # sign(u), in the derivative of |u|: -1, 1, or [-1, 1] where u can be 0 (Clarke's gradient
             # of |u|, which the mean value form of a Lipschitz function admits, as the sweep's forms)
             "sign": "isign"}

# a rational power of a >= 0 (arrays.rpow): libm's pow ULPS ulps outward, decreasing for r < 0;
# no real value below 0 (empty: the chain is not applied where the natural form meets it)
_RPOW = f'''
def irpow(alo, ahi, r):
    if alo != alo or ahi != ahi or ahi < 0.0:
        return math.nan, math.nan
    lo = max(alo, 0.0)
    plo = math.pow(lo, r)
    phi = math.pow(ahi, r)
    if r < 0.0:
        plo, phi = phi, plo
    for _ in range({ULPS}):
        plo = next_dn(plo)
        phi = next_up(phi)
    return max(plo, 0.0), phi
'''


class Unsupported(Exception):
    """A tree holds a symbol or operation the kernel does not write (the numpy walk runs instead)."""


def _float(v):
    return repr(float(v))


class _Writer:
    """Lines of the kernel by what they read (a bit mask: 1 x_i's cell, 2 x_{i+1}'s): 0 once per i,
    1 once per cell a of x_i, 2 once per cell b of x_{i+1} (kept in arrays over b before the pairs'
    loop), 3 once per pair (a, b)."""

    def __init__(self, params):
        self.lines = ([], [], [], [])
        self.params = params      # {name: (row, 0 for p[row, i] or 1 for p[row, i + 1])}
        self.count = 0
        # an enclosure already written, by its expression and bindings: the trees of the term and its
        # partials share sub-expressions (|u|, sqrt|u|, ...), each written once; a later section
        # (guarded by a condition an earlier one's implies) may read an earlier one's, never the reverse
        self.memo = {}

    def tree(self, root, x, y):
        """Emit ``root`` with x, y bound to the names' pairs (x read at mask 1, y at 2); returns
        (lo, hi, mask) of the root."""
        out, keys = [], []
        for op, args, name, value in to_json(root):
            key = (op, tuple(keys[k] for k in args), name, repr(value),
                   x[:2] if name == "x" else y[:2] if name == "y" else None)
            if key not in self.memo:
                self.memo[key] = self._node(op, [out[k] for k in args], name, value, x, y)
            out.append(self.memo[key])
            keys.append(key)
        return out[-1]

    def _new(self, mask, rhs):
        self.count += 1
        lo, hi = f"v{self.count}lo", f"v{self.count}hi"
        self.lines[mask].append(f"{lo}, {hi} = {rhs}")
        return lo, hi, mask

    def _node(self, op, args, name, value, x, y):
        if op == "sym":
            if name == "x":
                return x
            if name == "y":
                return y
            if name == "i":
                return "fi", "fi", 0
            if name == "n":
                return "fn", "fn", 0
            if name in self.params:
                row, off = self.params[name]
                return self._new(0, f"p[{row}, i + {off}], p[{row}, i + {off}]")
            raise Unsupported(name)
        if op == "const":
            return _float(value[0]), _float(value[1]), 0
        mask = 0
        for a in args:
            mask |= a[2]
        if op in ("add", "mul", "max", "min"):
            fn = {"add": "iadd", "mul": "imul", "max": "imax", "min": "imin"}[op]
            acc = args[0]
            for a in args[1:]:
                acc = self._new(acc[2] | a[2], f"{fn}({acc[0]}, {acc[1]}, {a[0]}, {a[1]})")
            return acc
        if op == "pow":
            (b,) = args
            kind = value[0]
            if kind == "int":
                return self._new(mask, f"ipow({b[0]}, {b[1]}, {int(value[1])})")
            if kind == "inv":
                q = self._new(mask, f"ipow({b[0]}, {b[1]}, {int(value[1])})")
                return self._new(mask, f"idiv(1.0, 1.0, {q[0]}, {q[1]})")
            if kind == "sqrt":
                return self._new(mask, f"isqrt({b[0]}, {b[1]})")
            if kind == "rat":
                return self._new(mask, f"irpow({b[0]}, {b[1]}, {_float(value[1])})")
            return "-math.inf", "math.inf", 0
        if op in UNARY_OPS:
            (a,) = args
            return self._new(mask, f"{UNARY_OPS[op]}({a[0]}, {a[1]})")
        if op == "any":
            return "-math.inf", "math.inf", 0
        raise Unsupported(op)


def source(spec, param_names):
    """The kernel's text for the term of ``spec`` (natural form, centre value, and the mean value
    form when ``spec.second`` holds the partial by y); ``param_names``: the definition's
    per-coordinate parameters, pairs (name at i, name at i + 1)."""
    params = {}
    for row, (p0, p1) in enumerate(param_names):
        params[p0], params[p1] = (row, 0), (row, 1)
    w = _Writer(params)
    cell_x, cell_y = ("alo", "ahi", 1), ("blo", "bhi", 2)
    nat = w.tree(spec.term, cell_x, cell_y)
    sections = [(w.lines, None)]
    # the centres' values where either the centres (``ctf``: only the guess reads them) or the mean
    # value form (``mvf``: not the children's pass) is asked for
    w.lines = ([], [], [], [])
    fc = w.tree(spec.term, ("cx", "cx", 1), ("cy", "cy", 2))
    w.lines[3].append(f"if ctf:\n    ctr[i, a, b] = 0.5 * {fc[0]} + 0.5 * {fc[1]}")
    sections.append((w.lines, "mvf or ctf"))
    if spec.second is not None and not (_holds_any(spec.dterm) or _holds_any(spec.second[0])):
        w.lines = ([], [], [], [])
        gx = w.tree(spec.dterm, cell_x, cell_y)
        gy = w.tree(spec.second[0], cell_x, cell_y)
        w.lines[3].extend([
            "dxlo, dxhi = isub(alo, ahi, cx, cx)",
            "dylo, dyhi = isub(blo, bhi, cy, cy)",
            f"txlo, txhi = imul({gx[0]}, {gx[1]}, dxlo, dxhi)",
            f"tylo, tyhi = imul({gy[0]}, {gy[1]}, dylo, dyhi)",
            f"s1lo, s1hi = iadd({fc[0]}, {fc[1]}, txlo, txhi)",
            "mvlo, mvhi = iadd(s1lo, s1hi, tylo, tyhi)",
            "mvl[i, a, b] = mvlo"])
        sections.append((w.lines, "mvf"))

    def names(lines):
        return [s.split(" = ")[0].split(", ") for s in lines]

    def block(mask, pad):
        """Each section's lines at ``mask`` under its guard; mask 2: stored over b, and mask 3
        preceded by reading them back."""
        out = []
        for part, guard in sections:
            lines = list(part[mask])
            if mask == 2:
                lines += [f"Y{v}[b] = {v}" for pair in names(part[2]) for v in pair]
            if mask == 3:
                lines = [f"{v} = Y{v}[b]" for pair in names(part[2]) for v in pair] + lines
            lines = [t for line in lines for t in line.split("\n")]
            if lines and guard:
                out += [pad + f"if {guard}:"] + [pad + "    " + t for t in lines]
            else:
                out += [pad + t for t in lines]
        return out
    stored = [v for part, _ in sections for pair in names(part[2]) for v in pair]
    body = ["def cells(ea, eb, p, m, k, fn, mvf, ctf, nat, ctr, mvl):"]
    body += [f"    Y{v} = np.empty(k)" for v in stored]
    body += ["    for i in range(m):",
             "        fi = i + 1.0"]
    body += block(0, "        ")
    def loop(pad, v, row, c):
        # a loop over one coordinate's cells: its ends and its centre, clamped into the cell
        return [f"{pad}for {v} in range(k):",
                f"{pad}    {v}lo = ea[{row}, {v}]",
                f"{pad}    {v}hi = eb[{row}, {v}]",
                f"{pad}    {c} = min(max(0.5 * {v}lo + 0.5 * {v}hi, {v}lo), {v}hi)"]
    body += loop("        ", "b", "i + 1", "cy")
    body += block(2, "            ")
    body += loop("        ", "a", "i", "cx")
    body += block(1, "            ")
    body += loop("            ", "b", "i + 1", "cy")
    body += block(3, "                ")
    body += [f"                nat[i, a, b] = {nat[0]}"]
    return _RPOW + "\n\n" + "\n".join(body) + "\n"


def _holds_any(root):
    """Whether a tree holds an operation without a rule ("any": the whole line, as a kink's sign in
    the derivative of |u|): its enclosure is then the whole line but where another factor is exactly
    0, so the mean value form built on it is not worth its cost (the natural form alone encloses)."""
    return any(row[0] == "any" or (row[0] == "pow" and row[3][0] == "any") for row in to_json(root))


_LOCK = threading.Lock()
_KERNELS = {}


def _module_text(body):
    return ("\"\"\"Generated by gpubench.forms.chain_cells: the chain's cells of one term. Do not edit.\"\"\"\n"
            "import math\n"
            "import numpy as np\n"
            "from gpubench.interval.backends import namespace as _namespace\n"
            "from gpubench.forms.cards import decorators as _decorators\n"
            "globals().update(_namespace('cpu'))\n"
            "_device, _kernel = _decorators('cpu')\n"
            + body.replace("\ndef irpow", "\n@_device\ndef irpow").replace("\ndef cells", "\n@_kernel\ndef cells"))


def kernel(spec, param_names, namespace=None):
    """The compiled kernel of ``spec``'s term (cached per process, and on disk by its text's hash),
    or None where a tree holds what the kernel does not write.  ``namespace``: interval operations
    to compile it over instead of the CPU's (a test's broken variant; compiled here, not cached)."""
    try:
        body = source(spec, param_names)
    except Unsupported:
        return None
    if namespace is not None:
        from numba import njit
        glb = dict(namespace, math=math, np=np)
        exec(compile(body, "<chain_cells>", "exec"), glb)
        glb["irpow"] = njit(error_model="numpy")(glb["irpow"])
        return njit(error_model="numpy")(glb["cells"])
    with _LOCK:
        if body in _KERNELS:
            return _KERNELS[body]
        from .cache import import_text
        text = _module_text(body)
        module = import_text("gpubench_generated_chain_" + hashlib.sha256(text.encode()).hexdigest()[:16], text)
        _KERNELS[body] = module.cells
        return module.cells


def enclose(cells, ea, eb, params, m, dim, mean_value=True, centres=True):
    """(natural lower ends, centre values, mean value lower ends), each (m, k, k), of the term on the
    cells whose ends are ``ea``, ``eb`` (arrays (m + 1, k)); NaN where not asked for or not found."""
    k = ea.shape[1]
    nat, ctr, mvl = (np.full((m, k, k), np.nan) for _ in range(3))
    p = np.ascontiguousarray(params, dtype=np.float64)
    if p.shape[0] == 0:
        p = np.zeros((0, dim))
    cells(np.ascontiguousarray(ea), np.ascontiguousarray(eb), p, m, k, float(dim), bool(mean_value), bool(centres),
          nat, ctr, mvl)
    return nat, ctr, mvl


from numba import njit  # noqa: E402  (this module is imported only where the chain is on)

from ..interval.rounding_cpu import next_dn  # noqa: E402


@njit(cache=True, error_model="numpy")
def _children_run(Lm, ma, mb, clo, chi, out):
    m, g = Lm.shape[0], Lm.shape[1]
    F = np.empty(g)
    G = np.empty(g)
    for c in range(clo.shape[0]):
        for j in range(g):
            F[j] = 0.0 if (mb[0, j] >= clo[c, 0] and ma[0, j] <= chi[c, 0]) else np.inf
        for i in range(m):
            for b in range(g):
                G[b] = np.inf
                if not (mb[i + 1, b] >= clo[c, i + 1] and ma[i + 1, b] <= chi[c, i + 1]):
                    continue
                best = np.inf
                for a in range(g):
                    if F[a] == np.inf:
                        continue
                    v = F[a] + Lm[i, a, b]
                    if v != v:
                        continue
                    v = next_dn(v)
                    if v < best:
                        best = v
                G[b] = best
            F, G = G, F
        least = np.inf
        for j in range(g):
            if F[j] < least:
                least = F[j]
        out[c] = least


def children_pass(Lm, ma, mb, clo, chi):
    """chain.children's forward pass per child, compiled (the same sums, each rounded down one ulp as
    ``_dn``, NaN as inf): F_0 = 0 on the merged cells meeting the child's interval, F_{i+1}[b] =
    min_a F_i[a] + Lm[i, a, b] on the cells b meeting it; the least F_m.  A cell a the child does not
    meet has F_i[a] = inf, whose sums (the largest double, or inf) never undercut those of a cell it
    meets (finite or -inf: the lower ends are never +inf), so only those are summed."""
    out = np.empty(clo.shape[0])
    _children_run(np.ascontiguousarray(Lm, dtype=np.float64), np.ascontiguousarray(ma, dtype=np.float64),
                  np.ascontiguousarray(mb, dtype=np.float64), np.ascontiguousarray(clo, dtype=np.float64),
                  np.ascontiguousarray(chi, dtype=np.float64), out)
    return out
