"""The ``gpubench`` commands, one module each, on top of the library.

Each module defines ``NAME``, ``HELP``, ``add_arguments(parser)`` and
``run(args)``; :mod:`gpubench.cli` lists them and builds the parser.  A command
module imports the library only inside ``run``, so ``gpubench --help`` imports
neither sympy nor numba.  Nothing in the library imports this package.
"""
