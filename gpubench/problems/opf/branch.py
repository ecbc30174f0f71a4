"""The branch subproblem (6.2) of paper 003 as a 4-variable function for batched TRON.

Kim, Pacaud, Kim & Anitescu, ExaTron (seed 003), Section 6.1, problem (6.2): for branch (i, j),
over x = (v_i, v_j, theta_i, theta_j) in the box (6.2a)-(6.2c),

    sum_{lm in {ij, ji}} lam_p (p_lm - p~_lm) + lam_q (q_lm - q~_lm)
                         + rho_p/2 (p_lm - p~_lm)^2 + rho_q/2 (q_lm - q~_lm)^2
  + sum_{l in {i, j}}    lam_w (v_l^2 - w~_l) + lam_t (theta_l - theta~_l)
                         + rho_w/2 (v_l^2 - w~_l)^2 + rho_t/2 (theta_l - theta~_l)^2,

with p_lm, q_lm of (6.1i)-(6.1l) (:mod:`gpubench.problems.opf.model`).  Each pair of terms
lam (u - c) + rho/2 (u - c)^2 is written rho/2 (u - t)^2 with t = c - lam/rho, which differs by a
constant (-lam^2/(2 rho)) only: the same minimiser, gradient and Hessian.

The function is a fixed-dimension :class:`gpubench.forms.definition.Definition` (dim 4) whose
per-problem data (8 admittances, 8 penalties, 8 targets) are parameter rows: row k holds the
k-th datum in its first coordinate and zeros elsewhere, and the aggregate ``Sum(row)`` reads
it.  So TRON's public API (``gpubench.methods.tron.solve_batch(objective="library")``) solves every
branch of a network in one batch, each problem with its own ``par[b]`` (24 x 4).
"""
import functools

import numpy as np
import sympy as sp

from ...forms.definition import UNKNOWN, Definition, Sum, cos, param, sin, variables

ADMITTANCE = ("Gff", "Bff", "Gft", "Bft", "Gtf", "Btf", "Gtt", "Btt")
# the 8 coupled quantities of a branch, in this order everywhere (u-side of the ADMM)
COUPLED = ("pij", "qij", "pji", "qji", "wi", "wj", "ti", "tj")
NAMES = ADMITTANCE + tuple(f"rho_{c}" for c in COUPLED) + tuple(f"t_{c}" for c in COUPLED)
NPAR = len(NAMES)


def _zeros(n):
    return np.zeros(n)


@functools.lru_cache(maxsize=None)
def definition():
    vi, vj, ti, tj = variables(4)
    terms = {sp.Symbol(f"S_{k}", real=True): Sum(param(k)[0]) for k in NAMES}
    s = {k: sp.Symbol(f"S_{k}", real=True) for k in NAMES}
    c, sn, vv = cos(ti - tj), sin(ti - tj), vi * vj
    quantity = {
        "pij": s["Gff"] * vi ** 2 + vv * (s["Gft"] * c + s["Bft"] * sn),
        "qij": -s["Bff"] * vi ** 2 + vv * (s["Gft"] * sn - s["Bft"] * c),
        "pji": s["Gtt"] * vj ** 2 + vv * (s["Gtf"] * c - s["Btf"] * sn),
        "qji": -s["Btt"] * vj ** 2 - vv * (s["Gtf"] * sn + s["Btf"] * c),
        "wi": vi ** 2, "wj": vj ** 2, "ti": ti, "tj": tj,
    }
    expr = sum(s[f"rho_{k}"] / 2 * (quantity[k] - s[f"t_{k}"]) ** 2 for k in COUPLED)
    return Definition(
        name="opf_branch", title="ADMM branch subproblem (6.2) of AC OPF",
        source="Kim, Pacaud, Kim & Anitescu, ExaTron (paper 003), Section 6.1, problem (6.2)",
        expr=expr, domain=(-7, 7), dim=4, terms=terms,
        params={k: _zeros for k in NAMES},
        xstar=lambda n: np.full(n, np.nan), fstar=UNKNOWN)


@functools.lru_cache(maxsize=None)
def function():
    """The :class:`gpubench.forms.function.TestFunction` of :func:`definition`."""
    from ...forms.function import TestFunction
    return TestFunction(definition())


def parameters(Y, rho, target):
    """``par`` (nbranch, 24, 4) for :func:`gpubench.methods.tron.solve_batch`: admittances ``Y``
    (nbranch, 8), penalties ``rho`` and targets ``target`` (nbranch, 8, in :data:`COUPLED` order)."""
    nb = Y.shape[0]
    par = np.zeros((nb, NPAR, 4))
    par[:, :8, 0] = Y
    par[:, 8:16, 0] = rho
    set_targets(par, target)
    return par


def set_targets(par, target):
    """Write the targets ``target`` (nbranch, 8) into parameter rows ``par`` of :func:`parameters`
    (in place): what changes between two ADMM iterations."""
    par[:, 16:24, 0] = target
