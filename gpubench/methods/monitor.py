"""One vocabulary for why a run stopped, and one time limit (issue 25, item 3; EvoX's split).

A method's algorithm never owns a clock of its own.  The one interface, which every method
(interval, subdomain-bnb, de-gpu, tron-gpu, lbfgsb-gpu, SciPy's seven) follows:

1. **Declare** the limit with the shared setting, never a ``setting(...)`` of its own::

       from gpubench.methods.base import time_limit_setting
       time_limit: Optional[float] = time_limit_setting()          # or (3600.0): the paper's default

   (same name, type, help and check in every method; ``gpubench minimize`` gives a typed-in run
   ``INTERACTIVE_TIME_LIMIT`` through it).
2. **Start** a :class:`Deadline` where the method's own solve clock starts (after compiling, where
   the method times its solve apart): ``deadline = Deadline.of(settings)``; a resumed run passes
   the seconds it had spent, ``Deadline.of(settings, spent=state.seconds)``.
3. **Check** at the method's natural stopping points (between launches, rounds, runs, iterations,
   nodes or evaluations): ``why = deadline.check()`` is None while the run may go on, else the stop
   word, ``"interrupted"`` (Ctrl-C asked, :func:`interrupted`) or ``"time_limit"``.  The method
   then returns its best point so far (and its bounds, if rigorous) as usual.
4. **Say why** in ``OptimizeResult.stop``: ``deadline.reason`` (the word the check gave), or the
   method's own word from :data:`STOPS` when no check fired.

A launch or evaluation in progress is never cut, so the wall time is bounded by the limit plus one
step between checks (each method's docstring says what its step is).  ``tests/test_time_limit.py``
holds every registered method to this, with a real clock.
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


def clock():
    """The clock of every :class:`Deadline` (seconds, monotonic; the same in forked workers)."""
    return time.perf_counter()


class Deadline:
    """``time_limit`` seconds (None: no limit) from now, or from ``start`` (a :func:`clock` time);
    ``spent`` seconds already used count against it (a resumed run)."""

    def __init__(self, time_limit, start=None, spent=0.0):
        self.time_limit = time_limit
        self.start = (clock() if start is None else start) - spent
        self.reason = None   # the stop word of the check that ended the run, if one did

    @classmethod
    def of(cls, settings, **kwargs):
        """The deadline of a run with these settings (its ``time_limit``; none without one)."""
        return cls(getattr(settings, "time_limit", None), **kwargs)

    def elapsed(self):
        return clock() - self.start

    def left(self):
        """Seconds left (may be negative), or None without a limit."""
        return None if self.time_limit is None else self.time_limit - self.elapsed()

    def expired(self):
        return self.time_limit is not None and self.elapsed() >= self.time_limit

    def check(self):
        """None while the run may go on; else why it must stop now: ``"interrupted"`` (Ctrl-C asked)
        or ``"time_limit"``, also kept in :attr:`reason`."""
        why = "interrupted" if interrupted() else "time_limit" if self.expired() else None
        if why:
            self.reason = why
        return why


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
