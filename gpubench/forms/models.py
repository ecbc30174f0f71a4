"""Fixed-dimension models: named variables x1..xd and dense layers written as data.

A trained network is a function of a fixed number of inputs, not a scalable one.
:func:`network` turns weight arrays into a :class:`~gpubench.forms.definition.Definition`
with ``dim = d`` whose expression reads the coordinates ``x1 .. xd``
(:func:`gpubench.forms.definition.variables`); every form (point, interval, gradients, mean
value) is then generated as for the library functions, on CPU and GPU.

Weights are taken as the binary64 numbers they are: :func:`exact` converts each double
to the rational it represents, so the interval forms enclose the network that the
arrays define, with no decimal rounding in between.  Paper 001 (section 4) optimizes
such surrogates: dense tanh layers over all inputs.
"""
import json
import sys
from pathlib import Path

import numpy as np
import sympy as sp

from .definition import Definition, DefinitionError, sigmoid, softplus, tanh, variables

ACTIVATIONS = {"tanh": tanh, "sigmoid": sigmoid, "softplus": softplus,
               "relu": lambda u: sp.Max(0, u), "linear": lambda u: u}


def exact(v):
    """The double ``v`` as the exact rational it represents (refuses NaN and infinities)."""
    v = float(v)
    if not np.isfinite(v):
        raise DefinitionError(f"weight {v!r} is not a finite number")
    p, q = v.as_integer_ratio()
    return sp.Rational(p, q)


def dense(inputs, W, b, activation="tanh"):
    """``[act(sum_k W[j, k] * inputs[k] + b[j]) for j]``: one dense layer as sympy expressions."""
    W = np.asarray(W, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64).reshape(-1)
    if W.ndim != 2 or W.shape != (b.size, len(inputs)):
        raise DefinitionError(f"a layer over {len(inputs)} inputs needs W of shape "
                              f"({b.size}, {len(inputs)}) and b of length {b.size}, "
                              f"got W {W.shape} and b {b.shape}")
    act = ACTIVATIONS.get(activation)
    if act is None:
        raise DefinitionError(f"unknown activation {activation!r}; one of {sorted(ACTIVATIONS)}")
    return [act(sp.Add(*[exact(W[j, k]) * u for k, u in enumerate(inputs) if W[j, k] != 0.0])
                + exact(b[j])) for j in range(b.size)]


def load_weights(path):
    """Arrays from an ``.npz`` file or a JSON object of (nested) lists."""
    p = Path(path)
    try:
        if p.suffix == ".npz":
            with np.load(p) as z:
                return {k: np.asarray(z[k], dtype=np.float64) for k in z.files}
        data = json.loads(p.read_text())
    except (OSError, ValueError) as exc:
        raise DefinitionError(f"cannot read weights from {path}: {exc}") from None
    return {k: np.asarray(v, dtype=np.float64) for k, v in data.items()}


def network(name, layers, domain, activation="tanh", title=None, source="user weights",
            xstar=None, fstar=None):
    """A feed-forward network as a fixed-dimension Definition.

    ``layers`` is a list of ``(W, b)`` pairs; hidden layers use ``activation``, the last
    layer is linear and must have one output.  ``domain`` is ``(lo, hi)`` for every
    input, or two arrays of length d.
    """
    if not layers:
        raise DefinitionError(f"{name}: a network needs at least one layer")
    d = np.asarray(layers[0][0]).shape[1]
    h = variables(d)
    for W, b in layers[:-1]:
        h = dense(h, W, b, activation)
    if np.asarray(layers[-1][1]).size != 1:
        raise DefinitionError(f"{name}: the last layer must have one output")
    (out,) = dense(h, *layers[-1], activation="linear")
    if isinstance(domain, tuple) and np.ndim(domain[0]) == 0:
        dom = domain
    else:
        lo, hi = (np.asarray(a, dtype=np.float64) for a in domain)
        dom = lambda n: (lo, hi)  # noqa: E731
    return Definition(name=name, title=title or f"network {d}-" + "-".join(
                          str(np.asarray(b).size) for _, b in layers),
                      source=source, expr=out, domain=dom, dim=d,
                      xstar=xstar or (lambda n: np.full(n, np.nan)),
                      fstar=fstar or (lambda n: float("nan")))


def network_from_file(name, path, domain, activation="tanh", **kw):
    """:func:`network` from weights ``W1, b1, W2, b2, ...`` in ``path`` (npz or JSON).

    A relative ``path`` is read beside the file that calls this (a definition file and its
    weights travel together: ``gpubench eval sub/surrogate.py:S`` works from any folder); from
    an interactive session, against the current folder.
    """
    caller = sys._getframe(1).f_globals.get("__file__")
    if caller and not Path(path).is_absolute():
        path = Path(caller).resolve().parent / path
    w = load_weights(path)
    layers = []
    k = 1
    while f"W{k}" in w:
        if f"b{k}" not in w:
            raise DefinitionError(f"{path}: W{k} without b{k}")
        layers.append((w[f"W{k}"], w[f"b{k}"]))
        k += 1
    if not layers:
        raise DefinitionError(f"{path}: no arrays W1, b1, ...")
    return network(name, layers, domain, activation, **kw)
