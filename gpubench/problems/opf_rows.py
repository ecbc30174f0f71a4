"""The procedure of paper 003's Tables 4-5: the component-wise ADMM for AC OPF on one case
(:mod:`gpubench.problems.opf`), its branch subproblems batched through TRON.

``n`` is the number of partitions G of the branches (Section 6.3: contiguous blocks of branch
indices, one per GPU).  Every case records the statistics of its file (Table 4), the ADMM's
objective, residuals and stop, and the TRON time of every partition's batch at every iteration;
with G >= 2 the percent imbalance (6.3) over the iterations (Table 5).  ``devices`` says on how
many devices the partitions run at once (:mod:`gpubench.problems.opf.devices`; 0: every GPU of the
machine, capped at G); with one device they run one after another and each batch is timed alone.
The record says how many devices ran and the root's wall time of each branch step (the paper's
Figure 6 timing), the penalties, the start (``start``: :data:`gpubench.problems.opf.admm.START`) and
the branch solves' and stop test's settings (``solve``: :func:`gpubench.problems.opf.admm.solve_settings`).
``rho_pq``, ``rho_va`` = 0 take the authors' penalties for the paper's cases
(:data:`~gpubench.problems.opf.admm.AUTHORS_RUNS`), elsewhere the code's defaults.

Resumable within itself (``Procedure.resumable``; issue 37: the authors' runs take up to 41,126
iterations): with the runner's ``checkpoint`` the whole ADMM state is saved every so many seconds
and at Ctrl-C or SIGTERM, and the next command goes on from it to the figures of a run never
stopped (its seconds the sum of the parts', ``segments`` listing them).
"""
import numpy as np

from ..device.gpu import resolve_backend
from ..errors import InputError


def admm_opf(problem, n, s, checkpoint=None):
    from .opf import admm, matpower, model
    name = problem.partition(":")[2]
    case = matpower.load(name)
    stats = matpower.statistics(case)
    measured = {**stats, "backend": None, "converged": True, "seconds": 0.0, "iterations": 0,
                "fun": None}
    result = {"case_file": matpower.path_of(name).name, "partitions": n}
    if s["iterations"] > 0:
        backend = resolve_backend(s["backend"])
        net = model.network(case)
        devices = s["devices"]
        if devices < 0:
            raise InputError(f"admm-opf: devices must be >= 0 (0: every GPU), got {devices}")
        if devices == 0:
            from .opf.devices import available
            devices = min(available(backend), n)
        # the penalties given; 0: the authors' for the paper's cases (admm.AUTHORS_RUNS), else the code's defaults
        rho = dict(zip(("rho_pq", "rho_va"), admm.AUTHORS_RUNS[name][:2])) if name in admm.AUTHORS_RUNS else {}
        rho.update({k: float(s[k]) for k in ("rho_pq", "rho_va") if s.get(k)})
        settings = admm.Settings(max_iter=s["iterations"], partitions=n, devices=devices, backend=backend, **rho)
        st = checkpoint.state if checkpoint is not None else None
        if checkpoint is not None:
            checkpoint.begin(st["iterations"] if st else 0, st["seconds"] if st else 0.0)
        r = admm.solve(net, settings, resume=st, checkpoint=None if checkpoint is None else _saver(checkpoint))
        if checkpoint is not None:
            checkpoint.end(r.iterations, r.seconds)
        t = r.partition_seconds
        baseline = matpower.BASELINE.get(matpower.CASES.get(name, name))
        measured.update(
            backend=backend, iterations=r.iterations, stop=r.stop, converged=r.stop == "converged",
            seconds=r.seconds, objective=r.objective, fun=r.objective, baseline_objective=baseline,
            objective_rel_diff=None if baseline is None else (r.objective - baseline) / baseline,
            primal_residual=r.primal_residual, dual_residual=r.dual_residual,
            eps_primal=r.eps_primal, eps_dual=r.eps_dual, tron_failures=r.tron_failures,
            batch_ms=float(1e3 * t.sum(axis=1).mean()), devices=r.devices,
            branch_step_ms=float(1e3 * r.branch_seconds.mean()),
            tron_iterations_mean=float(r.tron_iterations.mean()),
            rho_pq=r.rho_pq, rho_va=r.rho_va, start=admm.START, solve=admm.solve_settings(settings))
        if n >= 2:
            mx, mn, mean = admm.imbalance(t)
            measured.update(max_percent_imbalance=mx, min_percent_imbalance=mn, mean_percent_imbalance=mean)
        result.update(partition_ms=np.round(1e3 * t, 4).tolist(),
                      branch_step_ms=np.round(1e3 * r.branch_seconds, 4).tolist(),
                      partition_sizes=[len(p) for p in admm.partition(net.nbranch, n)],
                      residuals=[[k, a, b] for k, a, b in r.history])
    return measured, result


def _saver(checkpoint):
    """What the ADMM calls after each iteration: its state handed to the runner's checkpoint (saved
    when due, and at Ctrl-C or SIGTERM, which then stops the case)."""
    def tick(take):
        def whole():
            st = take()
            return st, st["iterations"], st["seconds"]
        checkpoint.tick(whole)
    return tick
