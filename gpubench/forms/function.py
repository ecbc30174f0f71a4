"""A test function with all its forms: what ``gpubench.functions.get`` returns.

Compiled code is made lazily, on first use of a form, per backend.  A function whose card is in
the cache (:mod:`gpubench.forms.cards`) imports its definition, and with it sympy, only for what the
card does not hold.
"""
import numpy as np

from ..errors import InputError, _as_vector, check_box, check_dim  # noqa: F401  (re-exported)


class TestFunction:
    """Every form of one scalable test function, derived from its :class:`Definition`.

    Point and interval forms take arrays of any length ``n >= 1``.  Intervals are
    given and returned as ``(lo, hi)`` pairs; ``interval`` returns floats,
    ``interval_gradient`` arrays.
    """

    __test__ = False  # not a pytest class

    def __init__(self, definition=None, card=None):
        """From a :class:`~gpubench.forms.definition.Definition`, or from a filled
        :class:`~gpubench.forms.cards.Card` alone (the definition is then imported on first need)."""
        if definition is None and (card is None or card.meta is None):
            raise ValueError("a TestFunction needs a definition or a filled card")
        self._definition = definition
        self._card = card
        if definition is not None and card is not None:
            card.fill(definition)
        self._modules = {}
        self._params = {}

    @property
    def definition(self):
        """The :class:`~gpubench.forms.definition.Definition` (imported now if only the card was read)."""
        if self._definition is None:
            self._definition = self._card.loader()
            self._card.fill(self._definition)
        return self._definition

    def _meta(self, key):
        if self._definition is None:
            return self._card.meta[key]
        return getattr(self._definition, key)

    def _cached(self, n, what, compute):
        """``compute()`` (a list, a number or None), read from the card when it holds it at ``n``."""
        if self._card is not None:
            v = self._card.at(n, what)
            if v is not None:
                return v
        v = compute()
        if self._card is not None:
            self._card.record_at(n, what, v)
        return v

    # ------------------------------------------------------------ metadata
    @property
    def name(self):
        return self._meta("name")

    @property
    def title(self):
        return self._meta("title")

    @property
    def source(self):
        return self._meta("source")

    @property
    def sense(self):
        return self._meta("sense")

    @property
    def fixed_dim(self):
        """The one dimension of a fixed-dimension definition; None for a scalable one."""
        return self._meta("dim")

    @property
    def continuous(self):
        return self._meta("continuous")

    def _dim(self, n):
        n = check_dim(n)
        d = self._meta("dim")
        if d is not None and n != d:
            raise InputError(f"{self.name} is defined in dimension {d} only, not {n}")
        return n

    def bounds(self, n):
        """The domain at ``n``: lo < hi and finite in every coordinate (every method samples or
        splits it), else one line naming the function and the coordinate."""
        n = self._dim(n)
        lo, hi = (np.array(v, dtype=np.float64) for v in self._cached(n, "bounds", lambda: [
            self._numbers("domain", v, n).tolist() for v in self._pair(self._user("domain", self.definition.bounds, n))]))
        for k in range(n):
            if not (np.isfinite(lo[k]) and np.isfinite(hi[k])):
                raise InputError(f"{self.name}: its domain is not finite in coordinate {k + 1} "
                                 f"({float(lo[k])!r}, {float(hi[k])!r}); the methods need a bounded box")
            if not lo[k] < hi[k]:
                raise InputError(f"{self.name}: its domain is empty in coordinate {k + 1}: "
                                 f"lo={float(lo[k])!r} is not below hi={float(hi[k])!r}")
        return lo, hi

    def xstar(self, n):
        n = self._dim(n)
        return np.array(self._cached(n, "xstar", lambda: self._numbers(
            "xstar(n)", self._user("xstar(n)", self.definition.xstar, n), None).tolist()), dtype=np.float64)

    def fstar(self, n):
        n = self._dim(n)
        return float(self._cached(n, "fstar", lambda: self._fstar(n)))

    def _fstar(self, n):
        """f* as the definition gives it: a finite number, or NaN only where the definition says
        the minimum is unknown (``fstar=UNKNOWN``; a NaN typed in would make every run "fail")."""
        from .definition import UNKNOWN
        f = self.definition.fstar
        v = float(self._numbers("fstar(n)", self._user("fstar(n)", f, n), ()))
        if np.isnan(v) and f is not UNKNOWN:
            raise InputError(f"{self.name}: fstar({n}) is NaN; give the known minimum, or "
                             "fstar=gpubench.forms.definition.UNKNOWN when it is not known")
        if np.isinf(v):
            raise InputError(f"{self.name}: fstar({n}) is {v!r}, not a finite number")
        return v

    def _user(self, what, f, n):
        """Call a user's ``domain``, ``xstar`` or ``fstar``: what it raises is the user's error (one
        line naming the function), not gpubench's."""
        if not callable(f):
            raise InputError(f"{self.name}: {what} is {f!r}, not a pair (lo, hi) or a function of n")
        try:
            return f(n)
        except MemoryError:  # a dimension too large: the resource checks' business, not the user's file
            raise
        except Exception as exc:
            raise InputError(f"{self.name}: {what} raised {type(exc).__name__}: {exc}".splitlines()[0]) from None

    def _pair(self, v):
        try:
            lo, hi = v
        except (TypeError, ValueError):
            raise InputError(f"{self.name}: domain gave {v!r}, not a pair (lo, hi)") from None
        return lo, hi

    def _numbers(self, what, value, n):
        """A user's ``domain``, ``xstar`` or ``fstar`` as float64 (shape ``(n,)``, or a scalar for ``()``)."""
        try:
            a = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError(f"{self.name}: {what} returned {value!r}, not numbers") from None
        if n == ():
            if a.shape != ():
                raise InputError(f"{self.name}: {what} returned shape {a.shape}, not one number")
            return a
        if n is not None:
            a = np.broadcast_to(a, (n,)) if a.ndim == 0 else a
            if a.shape != (n,):
                raise InputError(f"{self.name}: {what} has shape {a.shape}, not ({n},)")
            a = np.array(a)
        return a

    def params(self, n):
        """Per-coordinate parameters as a ``(len(params), n)`` float64 array."""
        n = self._dim(n)
        if n not in self._params:
            rows = self._cached(n, "params", lambda: [np.asarray(f(n), dtype=np.float64).tolist()
                                                      for f in self.definition.params.values()])
            p = np.array(rows, dtype=np.float64).reshape(len(rows), n)
            p.setflags(write=False)
            self._params[n] = p
        return self._params[n]

    # ------------------------------------------------------------ compiled code
    def module(self, backend="cpu"):
        """The generated module of this function on ``backend`` ('cpu' or 'cuda')."""
        if backend not in self._modules:
            self._modules[backend] = self.load(backend)
        return self._modules[backend]

    def load(self, backend, extensions=(), negate=False):
        """The generated module of this function (of -f with ``negate``) on ``backend`` with
        ``extensions`` appended (:func:`gpubench.forms.codegen.load`): found through the card when a
        process has loaded it before (no sympy), else derived and recorded on the card."""
        from . import cards as formcache

        def derive(defn):
            from . import codegen
            return codegen.load(defn, backend, extensions)
        return self.carded(formcache.extensions_key(backend, extensions, negate), backend, derive, negate)

    def carded(self, key, backend, derive, negate=False):
        """A generated module of this function (of -f with ``negate``): the one the card names
        under ``key`` when its file is intact (no sympy), else ``derive(definition)`` (a module
        written into the cache folder, named by the hash of its text), recorded on the card."""
        from . import cards as formcache
        if self._card is not None:
            modname = self._card.module(key)
            if modname is not None and formcache.intact(modname):
                return formcache.import_generated(modname, backend)
        module = derive(self.definition.negated() if negate else self.definition)
        if self._card is not None:
            self._card.record_module(key, module.__name__)
        return module

    def fact(self, name, compute):
        """``compute(definition)`` (a JSON value that does not depend on n or the sign), read from
        the card when a process recorded it there (no sympy)."""
        return self._cached("any", name, lambda: compute(self.definition))

    def lazy_definition(self, negate=False):
        """The definition (of -f with ``negate``) as a :class:`~gpubench.forms.carded.CardDefinition`:
        what loads its generated modules through the card, importing the definition only when a
        caller reads more of it."""
        from .carded import CardDefinition
        return CardDefinition(self, negate)

    def source_code(self, backend="cpu"):
        from . import codegen
        return codegen.source(self.definition, backend)

    # ------------------------------------------------------------ CPU forms
    def point(self, x):
        x = _as_vector("x", x)
        return float(self.module().point(x, self.params(x.size)))

    def points(self, X):
        X = np.ascontiguousarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] < 1:
            raise InputError(f"X must have shape (N, n) with n >= 1, got {X.shape}")
        out = np.empty(X.shape[0])
        self.module().points(X, self.params(X.shape[1]), out)
        return out

    def interval(self, lo, hi):
        lo, hi = check_box(lo, hi)
        flo, fhi = self.module().interval(lo, hi, self.params(lo.size))
        return float(flo), float(fhi)

    def gradient(self, x):
        x = _as_vector("x", x)
        g = np.empty_like(x)
        self.module().gradient(x, self.params(x.size), g, np.empty_like(x))
        return g

    def interval_gradient(self, lo, hi):
        lo, hi = check_box(lo, hi)
        glo, ghi = np.empty_like(lo), np.empty_like(lo)
        self.module().interval_gradient(lo, hi, self.params(lo.size), glo, ghi,
                                        np.empty_like(lo), np.empty_like(lo))
        return glo, ghi

    def interval_mv(self, lo, hi):
        """The mean value form ``f(c) + G(X).(X - c)``, c the box's midpoint (paper 001, Sec. 2.2).

        Its overestimation shrinks quadratically with the box width where f is
        smooth, the natural form's (:meth:`interval`) only linearly; on wide boxes
        it is usually the worse of the two.  Rigorous like :meth:`interval`.
        """
        return self._mv("intervals_mv", lo, hi)

    def interval_best(self, lo, hi):
        """The intersection of :meth:`interval` and :meth:`interval_mv` (both enclose the range)."""
        return self._mv("intervals_best", lo, hi)

    def _mv(self, driver, lo, hi):
        lo, hi = check_box(lo, hi)
        LO, HI = lo[None, :], hi[None, :]
        out_lo, out_hi = np.empty(1), np.empty(1)
        scratch = [np.empty_like(LO) for _ in range(5)]
        getattr(self.module(), driver)(LO, HI, self.params(lo.size), out_lo, out_hi, *scratch)
        return float(out_lo[0]), float(out_hi[0])

    def __repr__(self):
        return f"<TestFunction {self.name}: {self.title}, {self.sense}imise, {self.source}>"


class ConstrainedProblem:
    """A :class:`~gpubench.forms.definition.Problem` with every form of each of its functions.

    ``objective``, ``inequalities`` (g <= 0) and ``equalities`` (h = 0) are
    :class:`TestFunction` objects (point, interval, gradients, mean value ...).
    :meth:`box_status` applies the constraints' interval forms to a box, as a
    branch-and-bound does (paper 001, section 3).
    """

    __test__ = False
    constrained = True

    def __init__(self, problem):
        self.problem = problem
        self.objective = TestFunction(problem.objective)
        self.inequalities = [TestFunction(d) for d in problem.inequalities]
        self.equalities = [TestFunction(d) for d in problem.equalities]

    @property
    def name(self):
        return self.problem.name

    @property
    def sense(self):
        return self.objective.sense

    def bounds(self, n):
        return self.objective.bounds(n)

    def describe(self):
        return (f"{self.name}: {len(self.inequalities)} inequality and "
                f"{len(self.equalities)} equality constraint(s)")

    def box_status(self, lo, hi):
        """"infeasible" when a constraint provably fails on the whole box, "feasible" when
        every inequality provably holds on it (and there are no equalities), else "unknown"."""
        sure = True
        for g in self.inequalities:
            a, b = g.interval_best(lo, hi)
            if a > 0.0:
                return "infeasible"
            sure = sure and b <= 0.0
        for h in self.equalities:
            a, b = h.interval_best(lo, hi)
            if a > 0.0 or b < 0.0:
                return "infeasible"
            sure = False
        return "feasible" if sure else "unknown"

    def __repr__(self):
        return f"<ConstrainedProblem {self.describe()}>"


def refuse_constrained(fn, who):
    """One-line InputError for a method that handles box constraints only."""
    if getattr(fn, "constrained", False):
        raise InputError(f"{fn.describe()}; {who} handles box constraints only "
                         f"(the branch-and-bound of paper 001 takes constrained problems)")


__all__ = ["TestFunction", "ConstrainedProblem", "refuse_constrained", "InputError", "check_box", "check_dim"]
