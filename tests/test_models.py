"""Fixed-dimension models: named variables x1..xd and dense tanh layers from weight arrays.

A small network (and a hand-written model in x1, x2, x3) gets every form, checked against
the arb oracle of ``tests/oracles.py`` (which substitutes the coordinates into the sympy
expression and differentiates it itself).  Weights enter as the exact binary64 numbers
they are.  The 2-10-8-1 and 7-60-1 networks of issue 14 compile in about 20 s and
1.5 min on one busy CPU core (``results/gpu/funclang/`` holds their GPU timings).
"""
import json
import zlib

import numpy as np
import pytest
import sympy as sp

from gpubench.forms import models
from gpubench.forms.definition import Abs, Definition, DefinitionError, Max, Rational, sin, tanh, variables
from gpubench.errors import InputError
from gpubench.forms.function import TestFunction

import oracles as O
from test_nonsmooth import MeanValue


def _rng(*key):
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def _layers(sizes, rng):
    return [(rng.normal(0, 1, (b, a)) / np.sqrt(a), rng.normal(0, 0.5, b))
            for a, b in zip(sizes[:-1], sizes[1:])]


X1, X2, X3 = variables(3)
NAMED = TestFunction(Definition(
    name="named3", title="a model in x1, x2, x3", source="tests/test_models.py",
    expr=(X1 - 1) ** 2 + Rational(1, 10) * X2 * sin(X3) + Abs(X1 - X3) + Max(X2, X3) ** 2,
    domain=(-2, 2), dim=3, xstar=lambda n: np.zeros(n), fstar=lambda n: 0.0))
NET = TestFunction(models.network("net_3_4_3", _layers([3, 4, 3, 1], _rng("net")), (-2, 2)))


@pytest.mark.parametrize("fn", [NAMED, NET], ids=lambda f: f.name)
def test_every_form_encloses_the_model(fn):
    n = 3
    module = fn.module("cpu")
    rng = _rng("models", fn.name)
    checked = 0
    for lo, hi in (O.tiny_boxes(fn, n, 80, rng, centers=[np.zeros(n)]), O.medium_boxes(fn, n, 80, rng),
                   O.wide_boxes(fn, n, 40, rng)):
        for form in (module, MeanValue(module), MeanValue(module, "intervals_best")):
            misses, c = O.interval_misses(fn, form, lo, hi, rng, 3)
            assert misses == [], O.format_misses(misses)
            checked += c
        misses, _, und = O.interval_gradient_misses(fn, module, lo, hi, rng, 3)
        assert misses == [], O.format_misses(misses)
    assert checked >= 3 * 3 * 200
    orc = O.oracle(fn, n)
    for x in rng.uniform(-2, 2, (20, n)):
        assert abs(fn.point(x) - orc.value_float(x)) <= 1e-13 * max(1.0, abs(orc.value_float(x)))
        assert np.allclose(fn.gradient(x), orc.gradient_float(x), rtol=1e-11, atol=1e-13)


def test_weights_are_the_exact_doubles():
    """0.1 as a weight is the double 0.1 (3602879701896397/2^55), not the decimal 1/10."""
    d = models.network("tenth", [(np.array([[0.1]]), np.array([0.0]))], (-1, 1))
    assert d.expr == sp.Rational(3602879701896397, 2**55) * variables(1)[0]
    fn = TestFunction(d)
    lo, hi = fn.interval([3.0], [3.0])
    from fractions import Fraction
    assert Fraction(lo) <= Fraction(0.1) * 3 <= Fraction(hi) and hi - lo < 1e-15


def test_network_from_a_weights_file(tmp_path):
    layers = _layers([2, 3, 1], _rng("file"))
    p = tmp_path / "w.npz"
    np.savez(p, W1=layers[0][0], b1=layers[0][1], W2=layers[1][0], b2=layers[1][1])
    a = TestFunction(models.network_from_file("from_npz", p, (-1, 1)))
    q = tmp_path / "w.json"
    q.write_text(json.dumps({"W1": layers[0][0].tolist(), "b1": layers[0][1].tolist(),
                             "W2": layers[1][0].tolist(), "b2": layers[1][1].tolist()}))
    b = TestFunction(models.network_from_file("from_json", q, (-1, 1)))
    x = np.array([0.25, -0.5])
    h = np.tanh(layers[0][0] @ x + layers[0][1])
    ref = float((layers[1][0] @ h + layers[1][1])[0])
    assert a.point(x) == b.point(x) == pytest.approx(ref, rel=1e-14)
    assert a.definition.dim == 2 and a.bounds(2)[0].tolist() == [-1.0, -1.0]


def test_fixed_dimension_is_enforced():
    with pytest.raises(InputError, match="dimension 3 only"):
        NAMED.point([0.0, 0.0])
    with pytest.raises(InputError, match="dimension 3 only"):
        NAMED.bounds(4)
    with pytest.raises(DefinitionError, match="undefined symbols"):
        Definition(name="bad", title="", source="", expr=variables(4)[3], domain=(-1, 1), dim=3,
                   xstar=lambda n: np.zeros(n), fstar=lambda n: 0.0)


@pytest.mark.parametrize("layers,message", [
    ([(np.ones((3, 2)), np.ones(3)), (np.ones((1, 2)), np.ones(1))], "needs W of shape"),
    ([(np.ones((2, 2)), np.ones(2))], "one output"),
    ([(np.array([[np.nan, 1.0]]), np.ones(1))], "not a finite number"),
])
def test_bad_networks_are_refused(layers, message):
    with pytest.raises(DefinitionError, match=message):
        models.network("bad", layers, (-1, 1))


def test_gpu_forms_of_a_network():
    from test_nonsmooth import GpuForms, GpuMeanValue
    fn = NET
    lo, hi = O.medium_boxes(fn, 3, 6, _rng("gpu-net"))
    for forms in (GpuForms(fn), GpuMeanValue(fn, "intervals_mv")):
        misses, checked = O.interval_misses(fn, forms, lo, hi, _rng("gpu-net-pts"), 2)
        assert checked == 12 and misses == [], O.format_misses(misses)
    misses, _, _ = O.interval_gradient_misses(fn, GpuForms(fn), lo, hi, _rng("gpu-net-g"), 2)
    assert misses == [], O.format_misses(misses)
