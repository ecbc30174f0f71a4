"""gpubench: benchmarks of GPU global optimizers, led by a rigorous interval solver.

Data flow: a definition (``gpubench.functions``) becomes its forms
(``gpubench.forms.codegen``), then a backend kernel, then a method (``gpubench.methods.solver``,
``gpubench.methods``), then stored results (``gpubench.workflow.runner``) and reports
(``gpubench.reports.builder``).  The command line (``gpubench.commands``) sits on top and
nothing below it imports it.
"""
__version__ = "0.1.0"
