"""The fixed problems an experiment can name, and the procedures that measure them.

A case of an experiment is a method on a library function at n, or one of these
on a fixed problem (a library function's name is one too, at a size of its own).
A fixed problem is written ``NAMESPACE:NAME``:

    minpack2:torsion    a MINPACK-2 problem (:mod:`gpubench.problems.minpack2`), n variables
    paper001:P4_3       a problem of paper 001 (``functions/_paper001.py``), run by any method
    hs45:batch          the batch of hs45-type problems of paper 003 (:mod:`gpubench.methods.tron`)
    device:cholesky     a device micro-benchmark of paper 003 on a batch of n x n matrices
    device:triangular
    device:de           DE generations on the shifted Rastrigin function at D = n (de-gpu or EvoX)
    cvt:2048            the CVT energy of paper 004 (:mod:`gpubench.problems.cvt`) at resolution
                        2048 x 2048 (any power of two from 8 to 4096), n sites
    opf:2868rte         a MATPOWER/PGLib power grid of paper 003's Tables 4-5 (:mod:`gpubench.problems.opf`)

A procedure is what measures a fixed problem when no registered method does (an
L-BFGS-B table row, a batched kernel): its settings are declared here with their
defaults, so the experiment loader checks them like a method's.
"""
import re
from dataclasses import dataclass

from ..errors import InputError

_PAPER001 = re.compile(r"^(P1|P2|PEAKS|P3_[2-7]|P4_[1-6])$")
_DEVICE = ("cholesky", "triangular", "de")
_CVT = tuple(str(2 ** k) for k in range(3, 13))     # resolutions


def _minpack2_names():
    from . import minpack2
    return tuple(minpack2.PROBLEMS)


def _opf_names():
    from .opf.matpower import CASES
    return tuple(CASES)


def check_problem(name):
    """The namespace of ``name`` (a fixed problem); an InputError when there is no such problem."""
    if not isinstance(name, str) or not name:
        raise InputError(f"problem {name!r} is not a library function or NAMESPACE:NAME")
    if ":" not in name:
        from .. import functions
        if name not in functions.names():
            raise InputError(f"problem {name!r}: no such library function (`gpubench functions`), and not "
                             "NAMESPACE:NAME (minpack2, paper001, hs45, device, cvt or opf)")
        return "library"
    space, _, rest = name.partition(":")
    known = {"minpack2": _minpack2_names, "paper001": None, "hs45": lambda: ("batch",), "device": lambda: _DEVICE,
             "cvt": lambda: _CVT, "opf": _opf_names}
    if space not in known:
        raise InputError(f"problem {name!r}: unknown namespace {space!r}; known: {', '.join(known)}")
    ok = bool(_PAPER001.match(rest)) if space == "paper001" else rest in known[space]()
    if not ok:
        listed = "P1, P2, P3_2..P3_7, P4_1..P4_6" if space == "paper001" else ", ".join(known[space]())
        raise InputError(f"problem {name!r}: no such {space} problem; known: {listed}")
    return space


def function_of(name):
    """What a method runs on for the case's ``name``: a library function or a problem of paper 001."""
    from .. import functions
    space, _, rest = name.rpartition(":")
    if space == "paper001":
        import importlib
        from ..forms.function import TestFunction
        obj = importlib.import_module("gpubench.functions._paper001").get(rest)
        return functions.get(obj) if hasattr(obj, "objective") else TestFunction(obj)
    return functions.get(name)


@dataclass(frozen=True)
class Procedure:
    name: str
    namespace: str      # the fixed problems it measures
    summary: str
    settings: dict      # name -> default (a setting must have one)
    run: str = ""       # "module:function" that measures one case, (measured, result); "" = not yet
    # the function takes checkpoint= (a gpubench.methods.checkpoints.Checkpoint): a case of hours
    # goes on across commands (the runner's resume hook, gpubench.workflow.runner)
    resumable: bool = False

    def runner(self):
        import importlib
        module, _, fn = self.run.partition(":")
        return getattr(importlib.import_module(module), fn)


PROCEDURES = {p.name: p for p in (
    Procedure("lbfgsb-minpack", "minpack2",
              "one L-BFGS-B solve to its stop rule: pg <= pg_rel * pg(x0) (stop = pg) or an iteration's "
              "decrease of f below energy_tol (stop = energy_decrease, the paper's 1e-64); SciPy's, or ours "
              "with the approximate or exact generalized Cauchy point (paper 004, Table 4); cap_seconds 0: no cap",
              {"solver": "ours", "cauchy": "approximate", "m": 5, "pg_rel": 1e-5, "stop": "pg", "energy_tol": 1e-64,
               "cap_seconds": 120.0, "backend": "auto"}, "gpubench.problems.lbfgsb_rows:lbfgsb_minpack"),
    Procedure("lbfgsb-cauchy", "minpack2",
              "L-BFGS-B driven by the approximate and by the exact Cauchy point; |t_c - t*| / t* binned "
              "(paper 004, Table 1)",
              {"m": 5, "pg_rel": 1e-5, "stop": "pg", "energy_tol": 1e-64, "maxiter": 3000, "box": 1.0,
               "backend": "auto"},
              "gpubench.problems.lbfgsb_rows:lbfgsb_cauchy", resumable=True),
    Procedure("lbfgsb-cauchy-scipy", "minpack2",
              "Table 1's triangulation (paper 004): |t_c - t*| / t* binned along SciPy's L-BFGS-B path, the "
              "approximate and exact Cauchy steps by code independent of ours (gpubench.problems.cauchy_check)",
              {"m": 5, "energy_tol": 1e-64, "maxiter": 100000, "box": 1.0, "backend": "cpu"},
              "gpubench.problems.cauchy_check:scipy_cauchy"),
    Procedure("cvt-lbfgsb", "cvt",
              "CVT energy by jump flooding: SciPy's L-BFGS-B on the host and lbfgsb-gpu on the device from "
              "the same sites, to no further decrease (paper 004, Table 2)",
              {"density": "uniform", "seed": 0, "extra": 1, "m": 5, "maxiter": 2000, "cap_seconds": 60.0,
               "backend": "auto"}, "gpubench.problems.lbfgsb_rows:cvt_lbfgsb"),
    Procedure("cvt-cauchy", "cvt",
              "lbfgsb-gpu on the CVT energy driven by the approximate Cauchy point, |t_c - t*| / t* binned "
              "(paper 004, Table 3)",
              {"density": "uniform", "seed": 0, "extra": 1, "m": 5, "maxiter": 2000, "cap_seconds": 60.0,
               "backend": "auto"}, "gpubench.problems.lbfgsb_rows:cvt_cauchy"),
    Procedure("cholesky-batch", "device",
              "batched Cholesky factorization of random SPD matrices: left- or right-looking (paper 003, Table 1), "
              "warp (a group of one warp's lanes per matrix, n <= 32), thread (a thread per matrix), lanes "
              "(a lane per row, n <= 32), auto (thread or lanes by n) or torch (torch.linalg.cholesky, the peer); "
              "pipeline R > 0 also times R calls back to back (ms_pipelined)",
              {"variant": "left", "batch": 10000, "reps": 10, "pipeline": 0, "backend": "auto"},
              "gpubench.problems.device_rows:cholesky"),
    Procedure("triangular-batch", "device",
              "batched L^T x = b on the same factors, explicit L^T or implicit row access (paper 003, Table 2)",
              {"variant": "implicit", "batch": 10000, "reps": 10, "backend": "auto"},
              "gpubench.problems.device_rows:triangular"),
    Procedure("de-generation", "device",
              "generations of DE/rand/1/bin on shifted Rastrigin at D = n, population np: de-gpu (mode auto, fast or "
              "stream) or "
              "EvoX's DE (compiled or eager) timed side by side; FE/s, ms per generation, bytes per generation",
              {"peer": "de-gpu", "np": 100, "F": 0.5, "CR": 0.3, "seconds": 1.0, "max_generations": 2000,
               "chunk": 0, "mode": "auto", "registers": 0, "lanes": 0, "fold": "", "backend": "auto"},
              "gpubench.problems.device_rows:de_generation"),
    Procedure("cholesky-torch", "device",
              "Table 1's triangulation (paper 003): left- or right-looking batched Cholesky in PyTorch, vectorised "
              "over the batch, the column loop in Python, code independent of ours (gpubench.problems.exatron_torch); "
              "ms: one eager call between CUDA events; graph: also its CUDA graph's replay (ms_graph)",
              {"variant": "left", "batch": 10000, "reps": 10, "graph": True, "backend": "auto"},
              "gpubench.problems.exatron_torch:cholesky"),
    Procedure("triangular-torch", "device",
              "Table 2's triangulation (paper 003): L^T x = b with L^T explicit (a transposing copy, counted) or "
              "implicit (strided row access), PyTorch, column loop in Python (gpubench.problems.exatron_torch); "
              "ms and, with graph, ms_graph as cholesky-torch",
              {"variant": "implicit", "batch": 10000, "reps": 10, "graph": True, "backend": "auto"},
              "gpubench.problems.exatron_torch:triangular"),
    Procedure("newton-batch-independent", "hs45",
              "Table 3's triangulation (paper 003): the hs45-type batch solved by a projected Newton kernel written "
              "apart from our TRON (gpubench.problems.newton_smem), one warp per problem, its workspace in shared "
              "or global memory; on a CPU in numba's CUDA simulator",
              {"memory": "shared", "batch": 10000, "reps": 3, "backend": "auto"},
              "gpubench.problems.newton_smem:newton_batch"),
    Procedure("tron-batch", "hs45",
              "TRON on a batch of hs45-type problems, data in shared or global memory (paper 003, Table 3); "
              "registers > 0: the kernel compiled with at most that many registers a thread (0: the compiler's choice); "
              "specialize: compiled for the launch's flags (memory, Cholesky, back substitution, layout) only",
              {"memory": "shared", "batch": 10000, "reps": 3, "backend": "auto", "registers": 0,
               "specialize": False, "shift": "paper"},
              "gpubench.problems.device_rows:tron_batch"),
    Procedure("admm-opf", "opf",
              "component-wise ADMM for AC OPF, branch subproblems batched through TRON, n partitions of the "
              "branches (paper 003, Tables 4-5) solved at once on `devices` devices (0: every GPU of the machine; "
              "1: one after another on one); iterations = 0: the case's statistics only; the run stops at "
              "convergence or after `iterations`; rho_pq, rho_va 0: the authors' penalties for the paper's cases "
              "(admm.AUTHORS_RUNS), else 400 / 40,000; resumable",
              {"iterations": 0, "devices": 1, "rho_pq": 0.0, "rho_va": 0.0, "backend": "auto"},
              "gpubench.problems.opf_rows:admm_opf", resumable=True),
)}


def check_settings(procedure, settings):
    """An InputError naming the first setting ``procedure`` does not have, or of another type."""
    p = PROCEDURES[procedure]
    for k, v in settings.items():
        if k not in p.settings:
            raise InputError(f"unknown setting {k!r} of {procedure}; known: {', '.join(p.settings)}")
        d = p.settings[k]
        if isinstance(d, bool) != isinstance(v, bool) or not isinstance(v, (type(d), int) if isinstance(d, float)
                                                                            else type(d)):
            raise InputError(f"setting {k!r} of {procedure} must be like {d!r}, got {v!r}")
