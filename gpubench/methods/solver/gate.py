"""What a host-side bound of a sweep's survivors has cost, kept on the search: the seconds and calls
that its cost gate weighs against the sweeps' (the coupled least-squares bound, :mod:`.lsq_floor`; the
batched contraction, :mod:`.child_contract`).  Each gate states its own rule; the bookkeeping is one."""


def spent(search, key):
    """``[seconds, calls]`` of the bound named ``key`` on ``search`` so far (started at zero)."""
    return search.__dict__.setdefault(key, [0.0, 0])


def account(search, key, seconds):
    """One call of ``key`` that took ``seconds`` of host time (the search's host seconds too)."""
    cost = spent(search, key)
    cost[0] += seconds
    cost[1] += 1
    search.host_seconds += seconds


def skipped(search, stat):
    """The gate said no this iteration: counted in the search's contraction statistics as ``stat``."""
    search.contract_stats[stat] = search.contract_stats.get(stat, 0) + 1
