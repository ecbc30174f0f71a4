"""The procedure of paper 003's Tables 4-5: the component-wise ADMM for AC OPF on one case
(:mod:`gpubench.problems.opf`), its branch subproblems batched through TRON.

``n`` is the number of partitions G of the branches (Section 6.3: contiguous blocks of branch
indices, one per GPU).  Every case records the statistics of its file (Table 4), the ADMM's
objective, residuals and stop, and the TRON time of every partition's batch at every iteration;
with G >= 2 the percent imbalance (6.3) over the iterations (Table 5).  The partitions are solved
one after another on one device and each batch is timed alone (the paper ran them at once on 6
GPUs of a Summit node).
"""
import numpy as np

from ..device.gpu import resolve_backend


def admm_opf(problem, n, s):
    from .opf import admm, matpower, model
    name = problem.partition(":")[2]
    case = matpower.load(name)
    stats = matpower.statistics(case)
    measured = {**stats, "backend": None, "converged": True, "seconds": 0.0, "iterations": 0,
                "best_f": None}
    result = {"case_file": matpower.path_of(name).name, "partitions": n}
    if s["iterations"] > 0:
        backend = resolve_backend(s["backend"])
        net = model.network(case)
        r = admm.solve(net, admm.Settings(max_iter=s["iterations"], partitions=n, backend=backend))
        t = r.partition_seconds
        baseline = matpower.BASELINE.get(matpower.CASES.get(name, name))
        measured.update(
            backend=backend, iterations=r.iterations, stop=r.stop, converged=r.stop == "converged",
            seconds=r.seconds, objective=r.objective, best_f=r.objective, baseline_objective=baseline,
            objective_rel_diff=None if baseline is None else (r.objective - baseline) / baseline,
            primal_residual=r.primal_residual, dual_residual=r.dual_residual,
            eps_primal=r.eps_primal, eps_dual=r.eps_dual, tron_failures=r.tron_failures,
            batch_ms=float(1e3 * t.sum(axis=1).mean()),
            tron_iterations_mean=float(r.tron_iterations.mean()))
        if n >= 2:
            mx, mn, mean = admm.imbalance(t)
            measured.update(max_percent_imbalance=mx, min_percent_imbalance=mn, mean_percent_imbalance=mean)
        result.update(partition_ms=np.round(1e3 * t, 4).tolist(),
                      partition_sizes=[len(p) for p in admm.partition(net.nbranch, n)],
                      residuals=[[k, a, b] for k, a, b in r.history])
    return measured, result
