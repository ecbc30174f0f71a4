"""One vocabulary for why a run stopped, and one time limit (issue 25, item 3; EvoX's split).

A method's algorithm never owns a clock of its own: it asks a :class:`Deadline` (made from its
``time_limit`` setting when the run starts) whether time is up, at the points where it can stop
(between launches, rounds, iterations or nodes), and says why it stopped with one of
:data:`STOPS` in ``OptimizeResult.stop``; the command line and the records read that word.
"""
import signal
import sys
import threading
import time
from contextlib import contextmanager

# why a run stopped: the budget or the test that ended it
STOPS = {
    "converged": "the method's convergence test held (tolerances met, gap closed, every start converged)",
    "completed": "every run ran to its own end (its method's test or limit; SciPy's runs)",
    "target": "the target error was reached",
    "evaluations": "the evaluation budget was spent",
    "iterations": "the iteration limit (per start, or of the search) was reached",
    "nodes": "the node limit was reached",
    "time_limit": "the time limit was reached",
    "interrupted": "Ctrl-C (SIGINT) ended the run",
    "failed": "the method could not go on (a numerical failure, or no start converged)",
}


def stop_word(word):
    """``word`` checked against :data:`STOPS` (a method's typo fails loudly, in tests)."""
    if word not in STOPS:
        raise ValueError(f"unknown stop reason {word!r}; one of {', '.join(STOPS)}")
    return word


class Deadline:
    """``time_limit`` seconds (None: no limit) from now, or from ``start`` (a ``perf_counter`` time;
    a resumed run passes the seconds it had already spent)."""

    def __init__(self, time_limit, start=None):
        self.time_limit = time_limit
        self.start = time.perf_counter() if start is None else start

    def elapsed(self):
        return time.perf_counter() - self.start

    def expired(self):
        return self.time_limit is not None and self.elapsed() >= self.time_limit


# ---------------------------------------------------------------- Ctrl-C
_INTERRUPT = {"requested": False}


def interrupted():
    """Whether Ctrl-C asked the run to stop (only inside :func:`catch_interrupts`)."""
    return _INTERRUPT["requested"]


@contextmanager
def catch_interrupts():
    """While a typed-in run is inside: the first Ctrl-C (SIGINT) asks it to stop at its next check
    (a method that checks returns its best so far, ``stop='interrupted'``, and saves its checkpoint
    where it keeps one); a second Ctrl-C raises KeyboardInterrupt as usual.  Library calls never
    enter it, so their runs are not changed."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        if _INTERRUPT["requested"]:
            raise KeyboardInterrupt
        _INTERRUPT["requested"] = True
        print("gpubench: stopping at the next check with the best so far (Ctrl-C again to abort)",
              file=sys.stderr, flush=True)

    old = signal.signal(signal.SIGINT, handler)
    _INTERRUPT["requested"] = False
    _LATEST.clear()
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
        _INTERRUPT["requested"] = False


# ---------------------------------------------------------------- progress
_LATEST = {}


def report(**values):
    """A method's latest figures for the progress line (``best``; ``glb`` and ``gub`` for a rigorous
    method), in f's sense.  Cheap (a dict update): called wherever the method already sees them."""
    _LATEST.update(values)


def latest():
    return dict(_LATEST)


def progress_line(label, seconds):
    """``label: 12.3 s, best 0.25, bounds [0.1, 0.25]`` from what the run reported so far."""
    v = latest()
    parts = [f"{label}: {seconds:7.1f} s"]
    if v.get("best") is not None:
        parts.append(f"best {v['best']:.10g}")
    if v.get("glb") is not None and v.get("gub") is not None:
        parts.append(f"bounds [{v['glb']:.10g}, {v['gub']:.10g}]")
    return ", ".join(parts)
