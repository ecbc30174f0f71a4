"""AC optimal power flow by component-wise ADMM with batched TRON (paper 003, Section 6).

    from gpubench.problems.opf import matpower, model, admm
    net = model.network(matpower.load("case14"))
    res = admm.solve(net, max_iter=800, backend="cpu")      # or backend="cuda", partitions=6

Modules: :mod:`~gpubench.problems.opf.matpower` (reading MATPOWER case files, Table 4's statistics),
:mod:`~gpubench.problems.opf.model` (per-unit network, branch admittances and flows),
:mod:`~gpubench.problems.opf.branch` (the branch subproblem (6.2) as a function for TRON),
:mod:`~gpubench.problems.opf.admm` (the decomposition, its iteration and Table 5's imbalance metric).
See docs/opf.md.
"""
