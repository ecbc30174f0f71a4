"""One subdomain of paper 001's subdomain-bnb enclosed, by the form the search asks for.

Spliced (after :mod:`.cut`) with :mod:`.subdomain_cpu` or :mod:`.subdomain_gpu` into a function's
generated module by :mod:`gpubench.methods.subdomain_bounds`: ``interval``, ``interval_mv`` and
``interval_best`` are that function's natural, mean-value and best forms.
"""
if __name__ == "gpubench.methods.solver.spliced.subdomain":  # imported as itself: stand-in forms
    from gpubench.methods.solver.spliced.stand_in_cuda import device, interval, interval_best, interval_mv


@device
def _sub_eval(form, blo, bhi, p, c, glo, ghi, wlo, whi):
    # form 0: natural, 1: mean value, 2: the best of both (Settings.form of subdomain-bnb)
    if form == 0:
        return interval(blo, bhi, p)
    if form == 1:
        return interval_mv(blo, bhi, p, c, glo, ghi, wlo, whi)
    return interval_best(blo, bhi, p, c, glo, ghi, wlo, whi)
