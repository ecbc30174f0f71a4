"""gpubench: benchmarks of GPU global optimizers, led by a rigorous interval solver.

Data flow: a definition (``gpubench.functions``) becomes its forms
(``gpubench.codegen``), then a backend kernel, then a method (``gpubench.solver``,
``gpubench.methods``), then stored results (``gpubench.runner``) and reports
(``gpubench.report``).  The command line (``gpubench.commands``) sits on top and
nothing below it imports it.
"""
__version__ = "0.1.0"
