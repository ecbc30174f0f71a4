"""gpubench: benchmarks of GPU global optimizers, led by a rigorous interval solver.

Layers as folders, imports running down (docs/architecture.md): a definition
(``gpubench.functions``, ``gpubench.forms.definition``) becomes its forms
(``gpubench.forms``), then a backend kernel (``gpubench.kernels``), then a method
(``gpubench.methods``), run case by case (``gpubench.workflow``) into stored records
(``gpubench.records``) and reports (``gpubench.reports``).  The command line
(``gpubench.commands``) sits on top and nothing below it imports it.
"""
__version__ = "0.1.0"
