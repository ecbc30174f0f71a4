"""What a stored record says of its run: whether its method is rigorous, and its trace.

Read alike by the comparison's pages (:mod:`gpubench.reports.compare`) and the exporters to other
tools' formats (:mod:`gpubench.reports.interop`), which therefore import it from here, not from
each other."""


def rigorous(method, record=None):
    """Whether ``method`` declares itself rigorous; for a method no longer registered, whether its
    stored ``record`` carries an enclosure."""
    from ..methods import is_rigorous
    declared = is_rigorous(method)
    if declared is None:
        m = (record or {}).get("measured") or {}
        declared = m.get("glb") is not None and m.get("gub") is not None
    return bool(declared)


def trace_of(record):
    """The record's trace rows ``[nfev, seconds, best]``; a traceless record gives its end point."""
    h = record.get("history") or {}
    tr = h.get("trace")
    m = record["measured"]
    if tr:
        return [[float(a), float(b), float(c)] for a, b, c in tr]
    best = m.get("fun")
    if rigorous(record.get("method"), record) and m.get("gub") is not None:
        best = m["gub"] if record.get("sense", "min") == "min" else m["glb"]
    if best is None:
        return []
    return [[float(m.get("evaluations") or 0), float(m.get("seconds") or 0.0), float(best)]]
