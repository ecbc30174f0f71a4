"""Cases claimed before they run, so that processes sharing one results folder compute each once.

A claim is ``<folder>/.<case>.claim``, created with ``O_CREAT | O_EXCL`` (atomic on a local
file system and on NFSv3+), holding the claiming process's pid and host.  A second process
leaves a claimed case to its owner.  A claim whose process is gone (same host, the pid no longer
runs) is stale, the mark of a killed run: it is taken over.  A claim from another host is
respected, since its pid cannot be checked from here; deleting the file releases it by hand.
"""
import json
import os
import socket
import sys
from pathlib import Path

SUFFIX = ".claim"


def _path(folder, case_id):
    return Path(folder) / f".{case_id}{SUFFIX}"


def _me():
    return {"pid": os.getpid(), "host": socket.gethostname()}


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def _read(path):
    try:
        with open(path) as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def _stale(owner):
    # an unreadable claim is a writer killed between create and write: as dead as its pid
    if not isinstance(owner, dict) or not isinstance(owner.get("pid"), int):
        return True
    return owner.get("host") == socket.gethostname() and not _alive(owner["pid"])


def _remove_stale(path, owner):
    """Remove the claim at ``path`` if it still is ``owner``'s; False when a live process holds it."""
    # moved aside under a name of our own first: only one process can, and what it moved is checked
    aside = path.with_name(f"{path.name}.{os.getpid()}.stale")
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        return True
    if _read(aside) != owner:  # another process re-claimed it in between: give it back
        try:
            os.link(aside, path)
        except OSError:
            pass
        os.unlink(aside)
        return False
    os.unlink(aside)
    return True


def _take(path):
    """True when this process now holds the claim at ``path``."""
    for _ in range(3):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            owner = _read(path)
            if not _stale(owner) or not _remove_stale(path, owner):
                return False
            continue
        with os.fdopen(fd, "w") as fh:
            json.dump(_me(), fh)
        return True
    return False


def claim(folder, cases, read_record, stream=None):
    """The cases of ``cases`` this process now holds; those another live process holds are named
    on ``stream`` and left to it.  A case whose whole record (``read_record(path)``, None when
    absent or not whole: :func:`gpubench.records.read.read_record`) another process stored since
    the caller looked is not run again."""
    # a killed run's claims, stored cases' included, are cleared (as clean_partial clears its .tmp)
    for path in Path(folder).glob(f".*{SUFFIX}"):
        owner = _read(path)
        if _stale(owner):
            _remove_stale(path, owner)
    mine, busy = [], []
    for case in cases:
        path = _path(folder, case.case_id)
        if not _take(path):
            busy.append((case, _read(path)))
        elif read_record(Path(folder) / f"{case.case_id}.json") is not None:
            path.unlink(missing_ok=True)
        else:
            mine.append(case)
    if busy:
        owners = sorted({f"pid {o['pid']} on {o.get('host')}" for _, o in busy if isinstance(o, dict)})
        print(f"{len(busy)} case(s) being run by another process ({', '.join(owners) or 'unknown'}) "
              f"in {folder}: left to it", file=stream or sys.stdout, flush=True)
    return mine


def release(folder, cases):
    """Drop this process's claims on ``cases`` (recorded or not: an unrecorded one is free again)."""
    me = _me()
    for case in cases:
        path = _path(folder, case.case_id)
        if _read(path) == me:
            path.unlink(missing_ok=True)
