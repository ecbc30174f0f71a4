"""Where SciPy's statement does not hold at face value: its stated f* differs from f at its
own stated minimiser (relative 1e-6, the value computed in 30-digit mpmath from an independent
transcription of the formula), or the stated minimiser does not fit the dimension or the domain.

Keyed by (class name, n); ``tests/test_scipy_go.py`` recomputes the list and requires it to
equal this table.  Whether the stated value is the true minimum is a separate question, which
:mod:`gpubench.workflow.certify` settles with a rigorous method.
"""
FINDINGS = {
    ('Alpine02', 5): 'stated minimiser has 2 coordinates',
    ('Alpine02', 10): 'stated minimiser has 2 coordinates',
    ('DeVilliersGlasser02', 5): 'stated minimiser outside the domain',
    ('Deb01', 5): 'stated minimiser has 2 coordinates',
    ('Deb01', 10): 'stated minimiser has 2 coordinates',
    ('Deb03', 5): 'stated minimiser has 2 coordinates',
    ('Deb03', 10): 'stated minimiser has 2 coordinates',
    ('EggHolder', 5): 'stated minimiser has 2 coordinates',
    ('EggHolder', 10): 'stated minimiser has 2 coordinates',
    ('Meyer', 3): 'stated minimiser outside the domain',
    ('Michalewicz', 2): 'f(x*) = -1.80130341009, stated -1.8013',
    ('Mishra04', 2): 'f(x*) = -0.177713888064, stated -0.177715264826',
    ('Rana', 5): 'stated minimiser has 2 coordinates',
    ('Rana', 10): 'stated minimiser has 2 coordinates',
    ('Schwefel26', 5): 'f(x*) = -1.36216844962e-6, stated 0.0',
    ('Schwefel26', 10): 'f(x*) = -2.72433689923e-6, stated 0.0',
    ('Shubert01', 5): 'stated minimiser has 2 coordinates',
    ('Shubert01', 10): 'stated minimiser has 2 coordinates',
    ('Shubert03', 5): 'stated minimiser has 2 coordinates',
    ('Shubert03', 10): 'stated minimiser has 2 coordinates',
    ('Shubert04', 5): 'stated minimiser has 2 coordinates',
    ('Shubert04', 10): 'stated minimiser has 2 coordinates',
    ('Step2', 5): 'f(x*) = 1.25, stated 0.5',
    ('Step2', 10): 'f(x*) = 2.5, stated 0.5',
    ('StretchedV', 5): 'stated minimiser has 2 coordinates',
    ('StretchedV', 10): 'stated minimiser has 2 coordinates',
    ('Trid', 2): 'stated minimiser has 6 coordinates',
    ('Trid', 5): 'stated minimiser has 6 coordinates',
    ('Trid', 10): 'stated minimiser has 6 coordinates',
    ('Watson', 6): 'f(x*) = 0.00229734761075, stated 0.002288',
    ('ZeroSum', 2): 'stated minimiser has 0 coordinates',
    ('ZeroSum', 5): 'stated minimiser has 0 coordinates',
    ('ZeroSum', 10): 'stated minimiser has 0 coordinates',
}
