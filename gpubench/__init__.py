"""gpubench: benchmarks of GPU global optimizers, led by a rigorous interval solver.

Data flow: a definition (``gpubench.functions``) becomes its forms
(``gpubench.codegen``), then a backend kernel, then a method (``gpubench.solver``,
``gpubench.baselines``), then stored results and reports.
"""
__version__ = "0.1.0"
