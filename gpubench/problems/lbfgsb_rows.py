"""The procedures of paper 004's tables: one L-BFGS-B solve of a MINPACK-2 problem (Table 4's
rows), and the approximate-vs-exact Cauchy point comparison (Table 1's).  Each returns what the
record stores: the measured numbers, and the table's own figures under ``result``."""
import numpy as np

from . import minpack2


def _problem(name, n, box=None):
    return minpack2.make(name.partition(":")[2], n, box=box)


def _measured(r, backend):
    return {"iterations": r["iterations"], "seconds": r["seconds"], "best_f": r["fun"],
            "converged": r["status"] == 0 and not r["capped"], "capped": r["capped"], "message": r["message"],
            "ms_per_iteration": r["ms_per_iteration"], "backend": backend}


def lbfgsb_minpack(problem, n, s):
    """One solve to pg <= pg_rel * pg(x0): SciPy's L-BFGS-B, jaxopt's LBFGSB (``solver = "jaxopt"``),
    or ours with the chosen Cauchy point."""
    from ..lbfgsb import reproduce as R
    p = _problem(problem, n)
    if s["solver"] == "scipy":
        r = R._scipy(p, s["m"], s["pg_rel"], s["cap_seconds"])
        return _measured(r, "scipy (cpu)"), {}
    if s["solver"] == "jaxopt":      # a peer (jaxopt's LBFGSB), side by side with ours
        r = R._jaxopt(p, s["m"], s["pg_rel"], s["cap_seconds"])
        return _measured(r, r["backend"]), {}
    xp = R._xp(s["backend"])
    r = R._solve(p, xp, s["cauchy"], s["m"], s["pg_rel"], cap=s["cap_seconds"])
    r.pop("cauchy_log")
    return _measured(r, "cuda" if xp is not np else "cpu"), {"pg0": float(r["pg0"])}


def lbfgsb_cauchy(problem, n, s):
    """L-BFGS-B driven by the approximate point (t_c and t* logged) and by the exact one."""
    from ..lbfgsb import reproduce as R
    p = _problem(problem, n, box=s["box"])
    xp = R._xp(s["backend"])
    a = R._solve(p, xp, "approximate", s["m"], s["pg_rel"], maxiter=s["maxiter"], record=True)
    e = R._solve(p, xp, "exact", s["m"], s["pg_rel"], maxiter=s["maxiter"])
    bins = R.bin_counts(a.pop("cauchy_log"))
    e.pop("cauchy_log")
    diff = (a["fun"] - e["fun"]) / max(abs(e["fun"]), 1e-300) * 100.0
    measured = _measured(a, "cuda" if xp is not np else "cpu")
    measured["seconds"] = a["seconds"] + e["seconds"]
    return measured, {"bins": bins, "energy_diff_percent": diff,
                      "approximate": {k: a[k] for k in ("iterations", "fun", "seconds", "status")},
                      "exact": {k: e[k] for k in ("iterations", "fun", "seconds", "status")}}
