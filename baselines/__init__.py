"""The baselines gpubench's methods are measured against, as registered methods.

Installed as ``gpubench.baselines`` (the folder ``baselines/`` of the checkout, mapped in
pyproject.toml the way ``functions/`` is mapped to ``gpubench.functions``).  Every module here
that defines ``METHOD`` or ``METHODS`` is found by the registry (:mod:`gpubench.methods`) like
a module of ``gpubench/methods/``: SciPy's methods (:mod:`.scipy_methods`) and the peers run as
competitors through their own packages (EvoX, evosax, jaxopt; ``pip install 'gpubench[peers]'``),
never copied.  A peer whose package is missing is still listed, as unavailable, with its
install line.
"""
