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
import os
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


# the words of a method's own message for a run the deadline ended ("stopped at time_limit" after a
# Ctrl-C was de-gpu's headline): every method says it through :func:`stopped`
STOPPED = {"time_limit": "stopped at time_limit", "interrupted": "stopped by Ctrl-C"}


def stopped(reason):
    """``"stopped at time_limit"`` or ``"stopped by Ctrl-C"`` for a deadline's ``reason``."""
    return STOPPED[stop_word(reason)]


def describe_stop(result):
    """The reason of ``result.stop`` that applied to this run, in words: a rigorous method's gap, a
    multi-start's starts, another method's tolerances (STOPS lists every case a word covers)."""
    word = result.stop
    rigorous = result.glb is not None and result.gub is not None
    starts = (result.options or {}).get("starts")
    if word == "converged":
        if rigorous:
            return "the gap between the bounds GLB and GUB closed to the tolerance"
        if starts:
            return f"every start converged ({starts} start(s))"
        return "the method's convergence tolerances were met"
    if word == "iterations":
        return "a start reached its iteration limit" if starts else "the iteration limit was reached"
    return STOPS.get(word, "")


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
_INTERRUPT = {"requested": False, "seen": False}
GRACE = 1.5  # seconds a run that checks has to reach a check after Ctrl-C, before the process ends
EXIT_INTERRUPTED = 130


def interrupted():
    """Whether Ctrl-C asked the run to stop (only inside :func:`catch_interrupts`).  A True answer
    is the run's acknowledgement: it is stopping (saving its checkpoint, printing its best), and
    the guard lets it finish instead of ending the process."""
    if _INTERRUPT["requested"] and _GUARD:  # only a command's guard reads it (no state left to a library call)
        _INTERRUPT["seen"] = True
    return _INTERRUPT["requested"]


class _Guard:
    """Ctrl-C for a whole command (:func:`guard_interrupts`).

    Python runs a signal handler only between bytecodes of the main thread: during a numba compile
    (LLVM, 12-13 s cold) it waited for the compile, and a KeyboardInterrupt raised inside numba's
    Python pipeline left its dispatchers half built ("no compiled object yet", or "double free
    detected" at exit).  So the handler raises nothing: the C-level handler writes the signal to a
    wakeup pipe at once, and a watcher thread reading it decides.  Inside :func:`catch_interrupts`
    (a run that checks) the first Ctrl-C asks the run to stop at its next check and gives it
    :data:`GRACE` seconds to reach one; a run that has seen it is let finish (its checkpoint and its
    best point).  Otherwise, or on a second Ctrl-C, the process ends by ``os._exit`` with one line:
    no interpreter teardown, no code of numba's run after it.  What is stored is kept: records and
    checkpoints are written to a temporary file and moved into place (a kill leaves the old or the
    new file, never a part; a left temporary is removed by the next run).  Callbacks registered with
    :func:`on_interrupt` say what was stored and release what the process held.  SIGTERM (what a
    batch system or ``timeout`` sends before SIGKILL) is taken as Ctrl-C: a run that checks stops at
    its next check with its checkpoint saved, instead of dying where it stands."""

    def __init__(self):
        self.soft = False
        self.callbacks = []
        self.done = threading.Event()
        self.r, self.w = os.pipe()
        os.set_blocking(self.w, False)
        self.old_fd = signal.set_wakeup_fd(self.w, warn_on_full_buffer=False)
        self.old_handler = signal.signal(signal.SIGINT, lambda signum, frame: None)
        self.old_term = signal.signal(signal.SIGTERM, lambda signum, frame: None)
        self.thread = threading.Thread(target=self._watch, name="gpubench-ctrl-c", daemon=True)
        self.thread.start()

    def close(self):
        self.done.set()
        signal.signal(signal.SIGINT, self.old_handler)
        signal.signal(signal.SIGTERM, self.old_term)
        signal.set_wakeup_fd(self.old_fd)
        os.write(self.w, b"\0")  # wakes the watcher, which sees done and returns
        self.thread.join()
        os.close(self.r)
        os.close(self.w)

    def _signals(self):
        """SIGINT and SIGTERM bytes from the pipe, one at a time (other signals' bytes are skipped);
        None once the command ended."""
        while True:
            for b in os.read(self.r, 64):
                if self.done.is_set():
                    return
                if b in (signal.SIGINT, signal.SIGTERM):
                    yield True

    def _watch(self):
        count = 0
        for _ in self._signals():
            count += 1
            if count == 1 and self.soft:
                _INTERRUPT["requested"] = True
                print("gpubench: stopping at the next check with the best so far (Ctrl-C again to abort)",
                      file=sys.stderr, flush=True)
                if self.done.wait(GRACE) or _INTERRUPT["seen"]:
                    continue  # finished, or stopping: a second Ctrl-C still ends it at once
                self._exit("the run reached no check within "
                           f"{GRACE:g} s (compiling?); what was stored is kept")
            else:
                self._exit("what was stored is kept" if count == 1 else "aborted")

    def _exit(self, why):
        for callback in list(self.callbacks):
            try:
                callback()
            except Exception:  # an exit must not be stopped by what it says on the way
                pass
        mp = sys.modules.get("multiprocessing")
        for child in (mp.active_children() if mp else []):
            child.terminate()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        try:
            print(f"gpubench: interrupted ({why})", file=sys.stderr, flush=True)
        except (OSError, ValueError):
            pass
        os._exit(EXIT_INTERRUPTED)


_GUARD = []


@contextmanager
def guard_interrupts():
    """Ctrl-C during a command (the command line enters it around every command): see :class:`_Guard`.
    Only in the main thread; elsewhere Python's default KeyboardInterrupt is left as it is."""
    if threading.current_thread() is not threading.main_thread() or _GUARD:
        yield
        return
    guard = _Guard()
    _GUARD.append(guard)
    try:
        yield
    finally:
        _GUARD.remove(guard)
        guard.close()


@contextmanager
def on_interrupt(callback):
    """While inside, ``callback()`` runs (in the watcher thread) before Ctrl-C ends the process:
    to say what was stored, or to release a claim."""
    guard = _GUARD[0] if _GUARD else None
    if guard is None:
        yield
        return
    guard.callbacks.append(callback)
    try:
        yield
    finally:
        guard.callbacks.remove(callback)


@contextmanager
def catch_interrupts():
    """While a typed-in run is inside: the first Ctrl-C (SIGINT) asks it to stop at its next check
    (a method that checks returns its best so far, ``stop='interrupted'``, and saves its checkpoint
    where it keeps one); under :func:`guard_interrupts` a run that reaches no check within
    :data:`GRACE` seconds, or a second Ctrl-C, ends the process; without the guard a second Ctrl-C
    raises KeyboardInterrupt as usual.  Library calls never enter it, so their runs are not changed."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _INTERRUPT.update(requested=False, seen=False)
    _LATEST.clear()
    if _GUARD:
        _GUARD[0].soft = True
        try:
            yield
        finally:
            _GUARD[0].soft = False
            _INTERRUPT.update(requested=False, seen=False)
        return

    def handler(signum, frame):
        if _INTERRUPT["requested"]:
            raise KeyboardInterrupt
        _INTERRUPT["requested"] = True
        print("gpubench: stopping at the next check with the best so far (Ctrl-C again to abort)",
              file=sys.stderr, flush=True)

    old = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
        _INTERRUPT.update(requested=False, seen=False)


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
