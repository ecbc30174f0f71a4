"""The AC optimal power flow data of a MATPOWER case in per unit, as paper 003's ADMM uses it
(Section 6.1, formulation (6.1), after Mhanna, Verbic & Chapman [24]).

Only in-service generators and branches are kept.  Branch admittances follow MATPOWER's
``makeYbr`` (series admittance y = 1/(r + jx), charging b, off-nominal tap t = ratio e^{j shift}):
Ytt = y + jb/2, Yff = Ytt/|t|^2, Yft = -y/conj(t), Ytf = -y/t, so that the flows of (6.1i)-(6.1l),
with w_i = v_i^2, w^R = v_i v_j cos(theta_i - theta_j), w^I = v_i v_j sin(theta_i - theta_j), are

    p_ij =  Gff v_i^2 + v_i v_j (Gft cos + Bft sin)     q_ij = -Bff v_i^2 + v_i v_j (Gft sin - Bft cos)
    p_ji =  Gtt v_j^2 + v_i v_j (Gtf cos - Btf sin)     q_ji = -Btt v_j^2 - v_i v_j (Gtf sin + Btf cos)

(cos, sin of theta_i - theta_j).  Generator costs are MATPOWER polynomials (model 2) of degree
<= 2 in MW, converted to per unit: c2 baseMVA^2 pg^2 + c1 baseMVA pg + c0.
"""
from dataclasses import dataclass

import numpy as np

from ...errors import InputError


@dataclass
class Network:
    name: str
    baseMVA: float
    # buses (index 0..nbus-1)
    pd: np.ndarray
    qd: np.ndarray
    gs: np.ndarray
    bs: np.ndarray
    vmin: np.ndarray
    vmax: np.ndarray
    # generators
    gbus: np.ndarray
    pmin: np.ndarray
    pmax: np.ndarray
    qmin: np.ndarray
    qmax: np.ndarray
    c2: np.ndarray
    c1: np.ndarray
    c0: np.ndarray
    # branches
    fbus: np.ndarray
    tbus: np.ndarray
    Y: np.ndarray       # (nbranch, 8): Gff Bff Gft Bft Gtf Btf Gtt Btt
    rate: np.ndarray    # rate_a (per unit, 0 = unlimited)

    @property
    def nbus(self):
        return self.pd.size

    @property
    def ngen(self):
        return self.gbus.size

    @property
    def nbranch(self):
        return self.fbus.size

    def cost(self, pg):
        """Generation cost ($/h) of per-unit outputs ``pg``."""
        return float(np.sum(self.c2 * pg ** 2 + self.c1 * pg + self.c0))


def admittances(branch):
    """(nbranch, 8) array Gff Bff Gft Bft Gtf Btf Gtt Btt of MATPOWER branch rows."""
    r, x, b = branch[:, 2], branch[:, 3], branch[:, 4]
    ratio = np.where(branch[:, 8] == 0.0, 1.0, branch[:, 8])
    tap = ratio * np.exp(1j * np.deg2rad(branch[:, 9]))
    if np.any(r * r + x * x == 0.0):
        raise InputError("a branch has zero impedance (r = x = 0)")
    ys = 1.0 / (r + 1j * x)
    ytt = ys + 0.5j * b
    yff = ytt / (tap * np.conj(tap))
    yft = -ys / np.conj(tap)
    ytf = -ys / tap
    return np.stack([yff.real, yff.imag, yft.real, yft.imag, ytf.real, ytf.imag,
                     ytt.real, ytt.imag], axis=1)


def flows(Y, vi, vj, ti, tj):
    """(p_ij, q_ij, p_ji, q_ji) of branches with admittances ``Y`` (see the module docstring)."""
    Gff, Bff, Gft, Bft, Gtf, Btf, Gtt, Btt = Y.T
    c, s = np.cos(ti - tj), np.sin(ti - tj)
    vv = vi * vj
    return (Gff * vi ** 2 + vv * (Gft * c + Bft * s),
            -Bff * vi ** 2 + vv * (Gft * s - Bft * c),
            Gtt * vj ** 2 + vv * (Gtf * c - Btf * s),
            -Btt * vj ** 2 - vv * (Gtf * s + Btf * c))


def network(case):
    """The per-unit :class:`Network` of a :class:`gpubench.problems.opf.matpower.Case`."""
    base = case.baseMVA
    bus, gen, gc, br = case.bus, case.gen, case.gencost, case.branch
    index = {int(b): k for k, b in enumerate(bus[:, 0])}
    try:
        on_g = gen[:, 7] > 0
        gbus = np.array([index[int(b)] for b in gen[on_g, 0]], dtype=np.int64)
        on_b = br[:, 10] > 0
        fbus = np.array([index[int(b)] for b in br[on_b, 0]], dtype=np.int64)
        tbus = np.array([index[int(b)] for b in br[on_b, 1]], dtype=np.int64)
    except KeyError as e:
        raise InputError(f"{case.name}: a generator or branch names bus {e.args[0]}, which is not in mpc.bus") from None
    gc = gc[:gen.shape[0]][on_g]
    if np.any(gc[:, 0] != 2) or np.any(gc[:, 3] > 3):
        raise InputError(f"{case.name}: only polynomial costs (model 2) of degree <= 2 are supported")
    ncoef = gc[:, 3].astype(int)
    coef = np.zeros((gc.shape[0], 3))  # c2 c1 c0
    for k, m in enumerate(ncoef):
        if m > 0:
            coef[k, 3 - m:] = gc[k, 4:4 + m]
    return Network(
        name=case.name, baseMVA=base,
        pd=bus[:, 2] / base, qd=bus[:, 3] / base, gs=bus[:, 4] / base, bs=bus[:, 5] / base,
        vmin=bus[:, 12].copy(), vmax=bus[:, 11].copy(),
        gbus=gbus, pmin=gen[on_g, 9] / base, pmax=gen[on_g, 8] / base,
        qmin=gen[on_g, 4] / base, qmax=gen[on_g, 3] / base,
        c2=coef[:, 0] * base ** 2, c1=coef[:, 1] * base, c0=coef[:, 2],
        fbus=fbus, tbus=tbus, Y=admittances(br[on_b]), rate=br[on_b, 5] / base)
