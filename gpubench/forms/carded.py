"""A function's definition as a method that loads generated modules needs it, through the
function's card (:mod:`gpubench.forms.cards`): a second process finds the modules without
importing the definition, and with it sympy (issue 42, item 4).  Light: no sympy, no numba at
import; codegen is imported only to derive what the card lacks.
"""


class CardDefinition:
    """A function's definition (of -f with ``negate``) as a method that loads generated modules
    needs it, without importing it: :func:`load` finds its modules through the card, ``dim``
    is the card's, and :meth:`fact` reads a recorded property.  Any other attribute is the
    definition's own (imported then, with sympy): code that reads terms or expressions still works."""

    def __init__(self, fn, negate=False):
        self.fn, self.negate = fn, bool(negate)

    @property
    def dim(self):
        return self.fn.fixed_dim

    @property
    def name(self):
        return self.fn.name

    def negated(self):
        return CardDefinition(self.fn, not self.negate)

    def fact(self, name, compute):
        """``compute(definition)``, recorded on the card (see TestFunction.fact); the definition's
        sign does not change a structural fact, so it is shared by f and -f."""
        return self.fn.fact(name, compute)

    @property
    def real(self):
        """The definition itself (imported now if only the card was read)."""
        d = self.fn.definition
        return d.negated() if self.negate else d

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return getattr(self.real, attr)

    def __repr__(self):
        return f"<CardDefinition {self.fn.name}{' (negated)' if self.negate else ''}>"


def load(defn, backend, extensions=()):
    """:func:`gpubench.forms.codegen.load` of ``defn``, through the card where ``defn`` is a
    :class:`CardDefinition` (no sympy once a process has loaded the module)."""
    if isinstance(defn, CardDefinition):
        return defn.fn.load(backend, tuple(extensions), defn.negate)
    from . import codegen
    return codegen.load(defn, backend, extensions)


def fact(defn, name, compute):
    """``compute(defn)``, read from the card where ``defn`` is a :class:`CardDefinition`."""
    if isinstance(defn, CardDefinition):
        return defn.fact(name, compute)
    return compute(defn)
