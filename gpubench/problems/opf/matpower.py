"""Reader of MATPOWER-format case files (``mpc.baseMVA``, ``mpc.bus``, ``mpc.gen``,
``mpc.gencost``, ``mpc.branch``), plain or compressed (``.gz``, ``.xz``).

Paper 003 (Kim, Pacaud, Kim & Anitescu, ExaTron, Section 6.1) runs its ADMM on five cases of
MATPOWER [46] and PGLib-OPF [3]; :data:`CASES` names the files shipped with gpubench
(``gpubench/problems/opf/cases/``, sources in its ``__init__``) and :data:`BASELINE` PGLib's stated AC
baseline objectives (BASELINE.md of PGLib-OPF v23.07, $/h, 5 significant digits as printed).
"""
import gzip
import lzma
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...errors import InputError

DATA = Path(__file__).with_name("cases")

# paper 003's short names (Table 4) -> the shipped file: its first four are MATPOWER's cases
# (the paper: "the first four of them were also used in the literature [24, 40]"), the tiny
# ones of CI PGLib's.
CASES = {
    "case5": "pglib_opf_case5_pjm",
    "case14": "pglib_opf_case14_ieee",
    "2868rte": "case2868rte",
    "6515rte": "case6515rte",
    "9241pegase": "case9241pegase",
    "13659pegase": "case13659pegase",
}
# paper 003's fifth case (PGLib only): not in the stored snapshot of PGLib-OPF this work could
# read (its largest files were not mirrored), so it is not shipped
MISSING = {"19402goc": "pglib_opf_case19402_goc.m was absent from the PGLib-OPF snapshot "
                       "available to gpubench (its largest files were not mirrored), so it is not shipped"}

# AC objective ($/h) of PGLib-OPF v23.07 BASELINE.md (with line limits)
BASELINE = {
    "pglib_opf_case5_pjm": 1.7552e+04,
    "pglib_opf_case14_ieee": 2.1781e+03,
}

_MATRICES = ("bus", "gen", "gencost", "branch")


@dataclass
class Case:
    """The raw MATPOWER matrices of one case (MATPOWER's column order, units as in the file)."""
    name: str
    baseMVA: float
    bus: np.ndarray
    gen: np.ndarray
    gencost: np.ndarray
    branch: np.ndarray


def path_of(name):
    """The shipped file of case ``name`` (a short name of :data:`CASES` or a PGLib file name)."""
    if name in MISSING:
        raise InputError(f"case {name}: {MISSING[name]}")
    stem = CASES.get(name, name)
    for ext in (".m.xz", ".m.gz", ".m"):
        p = DATA / f"{stem}{ext}"
        if p.exists():
            return p
    raise InputError(f"unknown case {name!r}; shipped: {', '.join(CASES)}")


def _text(path):
    path = Path(path)
    opener = lzma.open if path.suffix == ".xz" else gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except (OSError, lzma.LZMAError, EOFError) as e:
        raise InputError(f"cannot read case file {path}: {e}") from None


def _matrix(text, key, path):
    m = re.search(r"mpc\." + key + r"\s*=\s*\[(.*?)\]\s*;", text, re.S)
    if m is None:
        raise InputError(f"{path}: no mpc.{key} matrix")
    rows = []
    for line in m.group(1).splitlines():
        line = line.split("%", 1)[0]
        for part in line.split(";"):
            if part.strip():
                try:
                    rows.append([float(t) for t in part.replace(",", " ").split()])
                except ValueError:
                    raise InputError(f"{path}: mpc.{key} has a non-numeric entry in {part.strip()[:40]!r}") from None
    if not rows:
        raise InputError(f"{path}: mpc.{key} is empty")
    width = max(len(r) for r in rows)
    if key != "gencost" and any(len(r) != width for r in rows):
        raise InputError(f"{path}: mpc.{key} has rows of different lengths")
    out = np.zeros((len(rows), width))
    for k, r in enumerate(rows):
        out[k, :len(r)] = r
    return out


def read(path, name=None):
    """Parse a MATPOWER case file into a :class:`Case`."""
    text = _text(path)
    m = re.search(r"mpc\.baseMVA\s*=\s*([-+0-9.eE]+)\s*;", text)
    if m is None:
        raise InputError(f"{path}: no mpc.baseMVA")
    mats = {k: _matrix(text, k, path) for k in _MATRICES}
    need = {"bus": 13, "gen": 10, "branch": 11, "gencost": 5}
    for k, w in need.items():
        if mats[k].shape[1] < w:
            raise InputError(f"{path}: mpc.{k} has {mats[k].shape[1]} columns, MATPOWER needs {w}")
    if name is None:
        name = Path(path).name.split(".")[0]
    return Case(name=name, baseMVA=float(m.group(1)), **mats)


def load(name):
    """The shipped case ``name`` (short name of paper 003's Table 4, ``case5``, ``case14``, or a
    PGLib file name)."""
    return read(path_of(name), CASES.get(name, name))


def statistics(case):
    """Table 4 of paper 003: generators, branches and buses, the rows of the file's matrices
    (MATPOWER's case2868rte has 600 generator rows, 562 in service: Table 4 prints 600);
    ``*_in_service`` count status 1 (bus type != 4), what the ADMM decomposes."""
    return {"generators": int(case.gen.shape[0]), "branches": int(case.branch.shape[0]),
            "buses": int(case.bus.shape[0]),
            "generators_in_service": int(np.count_nonzero(case.gen[:, 7] > 0)),
            "branches_in_service": int(np.count_nonzero(case.branch[:, 10] > 0)),
            "buses_in_service": int(np.count_nonzero(case.bus[:, 1] != 4))}
