"""A batched multi-start run as consecutive launches ("rounds"), shared by the batched methods.

A batched method's answer exists only when its launch ends, so a multi-start split into
``rounds`` launches gives time-to-target a finer grain (the trace notes the best after each)
and lets ``time_limit`` bound the case: its :class:`~gpubench.methods.monitor.Deadline` is checked
between rounds, and past it no further round is launched (a launch in progress finishes).
Start k is the same start however the starts are split.
"""
import numpy as np

from ..errors import InputError
from .monitor import Deadline, interrupted, stop_word
from .base import setting, time_limit_setting  # noqa: F401  (time_limit_setting: the shared one)


def rounds_setting():
    return setting(1, "consecutive launches sharing the starts; the trace notes the best after each", minimum=1)


def check(name, s):
    """One-line error for more rounds than starts (a round would launch nothing)."""
    if s.rounds > s.starts:
        raise InputError(f"{name}: rounds ({s.rounds}) must be at most starts ({s.starts})")


def launches(s, deadline=None):
    """The start indices of each round to launch, until ``deadline`` (default: one from
    ``s.time_limit``, started now) says stop; the first round always runs."""
    deadline = Deadline.of(s) if deadline is None else deadline
    for k, rows in enumerate(np.array_split(np.arange(s.starts), s.rounds)):
        if k and deadline.check():
            return
        yield rows


def stop(s, starts_done, status, deadline=None):
    """The stop word of a multi-start: the deadline's reason (time_limit or interrupted) when rounds
    were left out, else converged when every start converged (status 0), iterations when some
    stopped at a limit, failed otherwise."""
    status = np.asarray(status)
    if starts_done < s.starts:
        if deadline is not None and deadline.reason:
            return stop_word(deadline.reason)
        return stop_word("interrupted" if interrupted() else "time_limit")
    if (status == 0).all():
        return stop_word("converged")
    return stop_word("iterations" if (status == 1).any() else "failed")


def summary(s, rounds_done, starts_done):
    """(message suffix, history entries) of a multi-start that ran ``rounds_done`` rounds."""
    suffix = "" if starts_done == s.starts else (
        f"; stopped at time_limit after {rounds_done} of {s.rounds} rounds ({starts_done} of {s.starts} starts)")
    return suffix, {"rounds_completed": rounds_done, "starts_completed": starts_done}
