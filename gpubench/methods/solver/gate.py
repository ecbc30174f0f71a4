"""What a host-side bound of a sweep's survivors has cost, kept on the search: the seconds and calls
that its cost gate weighs against the sweeps' (the coupled least-squares bound, :mod:`.lsq_floor`; the
batched contraction, :mod:`.child_contract`).  Each gate states its own rule; the bookkeeping is one."""
import numpy as np


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


def lowest_first(lb, cap, first=None):
    """Index arrays of ``lb`` in chunks, the lowest bounds first (a stable sort): ``first`` of them (default
    ``cap``: the chunk a single call of ``cap`` boxes bounded), then each chunk twice the last, at most
    ``cap``; :func:`chunk_paid` says whether to go on to the next."""
    size = cap if first is None else first
    if lb.size <= size:
        yield np.arange(lb.size)
        return
    order = np.argsort(lb, kind="stable")
    a = 0
    while a < order.size:
        yield order[a:a + size]
        a, size = a + size, min(2 * size, cap)


def chunk_paid(search, seconds, dropped):
    """Whether the chunk just bounded paid for itself, so that the next chunk of the same sweep's
    survivors is bounded too: its drops, each valued at a mean sweep of this search (a subregion left in
    the list is selected and swept later, or holds GLB), cover its seconds; and the search's time is not
    up.  Why: with split_dims 10 at n = 4 (the certify experiment on the H200) a sweep cuts the selected
    box into 32^4 subregions and Kowalik's root keeps 5,547 of them; with one chunk of 1,024 contracted
    the other 3,727 went into the list, and each later iteration swept one of them (32^4 subregions,
    ~140 ms on the H200) to drop all its children, where the batched contraction empties 5,031 of the
    5,547 in 0.24 s on the CPU (docs/scipy_go.md, cert41e).  A chunk that drops nothing (Xor, Cola) ends it."""
    late = getattr(search, "_late", None)
    if late is not None and late():
        return False
    swept, sweeps = getattr(search, "sweep_cost", (0.0, 0))
    return sweeps > 0 and dropped * (swept / sweeps) >= seconds
