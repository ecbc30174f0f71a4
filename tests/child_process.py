"""A gpubench command run as a child process, signalled at a chosen moment: the block the
interruption tests share (wait for a file the child writes, send a signal, time the exit)."""
import contextlib
import subprocess
import time


@contextlib.contextmanager
def child(cmd, **popen):
    """``subprocess.Popen(cmd)`` with text pipes for stdout and stderr; killed on leaving the block
    if still running (a failed assertion must not leave the child behind)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)
    try:
        yield p
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()


def wait_for(p, ready, limit, poll=0.01):
    """``ready()`` once it is true, or once ``p`` has ended or ``limit`` seconds have passed (the
    caller asserts on what it returns: a child that died early fails there, not by a timeout)."""
    deadline = time.time() + limit
    while p.poll() is None and time.time() < deadline:
        found = ready()
        if found:
            return found
        time.sleep(poll)
    return ready()


def signal_and_time(p, sig, timeout=60):
    """Send ``sig`` to ``p`` and wait for its exit: (stdout, stderr, seconds from the signal to the exit)."""
    t0 = time.monotonic()
    p.send_signal(sig)
    out, err = p.communicate(timeout=timeout)
    return out, err, time.monotonic() - t0
