"""The level set without sympy (issue 42, item 4): its program (gpubench.forms.exprtree) made once
from the definition, kept on the function's card, read by a second process that never imports sympy."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from gpubench import functions
from gpubench.forms import exprtree
from gpubench.forms.levelset import LevelSet

# one-coordinate terms with pieces, two-coordinate windows, parameters, a product, Max/Abs, exp/log/sin
NAMES = ["levy", "styblinski_tang", "ackley", "rosenbrock", "griewank", "alpine01", "schwefel"]


@pytest.mark.parametrize("name", [n for n in NAMES if n in functions.names()])
def test_the_program_read_back_from_json_contracts_as_the_definition_does(name):
    fn = functions.get(name)
    n = 4
    prog = json.loads(json.dumps(exprtree.program(fn.definition)))   # as the card keeps it
    a, b = LevelSet(fn.definition, n, fn.params(n)), LevelSet(prog, n, fn.params(n))
    lo, hi = fn.bounds(n)
    rng = np.random.default_rng(1)
    for _ in range(3):
        u = np.sort(rng.uniform(size=(2, n)), axis=0)
        blo, bhi = lo + u[0] * (hi - lo), lo + u[1] * (hi - lo)
        assert a.enclose(blo, bhi) == b.enclose(blo, bhi)
        level = float(np.mean(a.enclose(blo, bhi)))
        ca, cb = a.contract(blo, bhi, level), b.contract(blo, bhi, level)
        assert (ca is None) == (cb is None)
        if ca is not None:
            np.testing.assert_array_equal(ca[0], cb[0])
            np.testing.assert_array_equal(ca[1], cb[1])
    ga, gb = a.guess(lo, hi), b.guess(lo, hi)
    assert (ga is None and gb is None) or np.array_equal(ga, gb)


def test_equal_subexpressions_are_one_node_and_survive_the_round_trip():
    import sympy as sp
    x = sp.Symbol("x", real=True)
    e = sp.sin(x) ** 2 + sp.exp(sp.sin(x)) * sp.Rational(1, 3)
    root = exprtree.from_json(json.loads(json.dumps(exprtree.to_json(exprtree.convert(e)))))
    sins = []

    def walk(node):
        if node.op == "sin":
            sins.append(node)
        for a in node.args:
            walk(a)
    walk(root)
    assert len(sins) == 2 and sins[0] is sins[1]
    third = [c for c in _leaves(root) if c.op == "const" and c.value[0] != c.value[1]]
    assert third and third[0].value[0] < 1 / 3 < third[0].value[1]   # 1/3 enclosed, not rounded


def _leaves(node):
    if not node.args:
        yield node
    for a in node.args:
        yield from _leaves(a)


SECOND = r"""
import sys
from gpubench import functions
from gpubench.methods.solver.contract import levelset
fn = functions.get("styblinski_tang")
lo, hi = fn.bounds(4)
box = levelset(fn, 4).contract(lo, hi, fn.fstar(4) + 1e-3)
print(repr([box[0].tolist(), box[1].tolist()]), "sympy" in sys.modules)
"""


def test_a_second_process_contracts_from_the_card_without_sympy(tmp_path):
    env = {**os.environ, "GPUBENCH_CACHE": str(tmp_path / "cache")}
    runs = [subprocess.run([sys.executable, "-c", SECOND], env=env, capture_output=True, text=True, timeout=120)
            for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
    (box1, first), (box2, second) = (r.stdout.rsplit(" ", 1) for r in runs)
    assert first.strip() == "True" and second.strip() == "False"   # the first derives the card
    assert box1 == box2


BNB = r"""
import sys
from gpubench.cli import main
rc = main(["minimize", "levy", "--dim", "3", "--method", "subdomain-bnb", "--backend", "cpu", "--json"])
print("SYMPY", "sympy" in sys.modules, file=sys.stderr)
sys.exit(rc)
"""


def test_a_second_subdomain_bnb_process_loads_from_the_card_without_sympy():
    """Its objective's forms (TestFunction.load) and its level set through the card: a second process
    of a typed-in subdomain-bnb (local starts, constraint propagation) imports no sympy."""
    runs = [subprocess.run([sys.executable, "-c", BNB], capture_output=True, text=True, timeout=300)
            for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
    assert "SYMPY False" in runs[1].stderr
    assert json.loads(runs[0].stdout[runs[0].stdout.index("{"):])["gub"] == \
        json.loads(runs[1].stdout[runs[1].stdout.index("{"):])["gub"]


def test_every_file_the_conversion_runs_is_in_the_programs_key():
    """A card keeps a program under the card's key (the definition, cards.GENERATOR_FILES) and
    exprtree.version() (exprtree.FILES): code the conversion runs outside those files could change
    the program while a card still served the old one (interval/arrays.py's constant enclosures
    were outside it).  Traced on a definition with inexact constants (1/3, E, pi)."""
    from pathlib import Path

    import sympy as sp

    import gpubench
    from gpubench.forms import cards
    from gpubench.forms.definition import Definition, Sum, symbols, x
    from gpubench.interval import arrays  # noqa: F401  (imported first: only what the conversion calls is traced)
    S = symbols("S")
    d = Definition(name="third", title="Third", source="a test", terms={S: Sum(x**2 / 3 + sp.E * sp.sin(x))},
                   expr=S + sp.pi, domain=(-1, 1), xstar=lambda dim: np.zeros(dim), fstar=lambda dim: 0.0)
    seen = set()

    def see(frame, event, arg):
        if event == "call":
            seen.add(frame.f_code.co_filename)
    sys.setprofile(see)
    try:
        exprtree.program(d)
    finally:
        sys.setprofile(None)
    root = Path(gpubench.__file__).resolve().parent
    ours = {Path(f).resolve() for f in seen if Path(f).resolve().is_relative_to(root)}
    keyed = {Path(f).resolve() for f in exprtree.FILES} | {Path(f).resolve() for f in cards.GENERATOR_FILES}
    assert root / "interval" / "arrays.py" in ours   # the definition's constants went through it
    assert not ours - keyed, f"the conversion runs files outside the program's key: {sorted(ours - keyed)}"
