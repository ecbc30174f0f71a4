"""One library function per construct of the interval forms, for the per-function checks that
compile each function's CPU sweep (10-12 s on 2 cores with a cold cache): these run in `make test`,
the others, which repeat one of their constructs, in `make test-slow` (marked slow).

The constructs: exp of an aggregate over n (ackley), a product with sqrt and the sense max
(alpine02), an aggregate inside a nonlinear outer expression (belegundu), powers of sines (fu), a
product with the index i (griewank), a two-coordinate window with x_1 and x_n (levy), pieces
(levy_delta), a cosine sum with n outside (rastrigin), a neighbour's coordinate (rosenbrock),
parameters (shifted_griewank), a neighbour's parameter (shifted_rosenbrock, the only one), a quartic
(styblinski_tang).  The others repeat one of these: breiman and shifted_rastrigin rastrigin's cosine
sum (with shifted_griewank's parameters), salomon belegundu's sqrt of an aggregate under a cosine,
shifted_sphere shifted_griewank's parameters, styblinski and zabinsky the products of cosines and
sines of griewank and alpine02.  The kept ones are compiled by other tests of `make test` anyway.
"""
import pytest

CONSTRUCTS = frozenset({"ackley", "alpine02", "belegundu", "fu", "griewank", "levy", "levy_delta", "rastrigin",
                        "rosenbrock", "shifted_griewank", "shifted_rosenbrock", "styblinski_tang"})


def one_per_construct(names):
    """``names`` as pytest parameters, those outside :data:`CONSTRUCTS` marked slow."""
    return [n if n in CONSTRUCTS else pytest.param(n, marks=pytest.mark.slow) for n in names]
