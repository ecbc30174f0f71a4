"""Test problems that are not library functions: the MINPACK-2 collection (``minpack2``)."""
