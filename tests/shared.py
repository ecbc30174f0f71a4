"""Expensive set-up made once per test session, also under pytest-xdist.

A module-scoped fixture runs once per worker process, and under ``-n 2`` with ``--dist load``
(and pytest-randomly's order) a module's tests land on both workers, often in several runs of
tests on one worker, so its fixture ran two to four times a session.  :func:`folder` builds
the fixture's folder once in the session's folder that the workers share (the first worker to
ask builds it, the others wait for it) and gives each caller a copy of its own, so a test
that changes its copy changes nobody else's.  tests/test_ptx.py's ``ptx`` fixture does the same
for one file.
"""
import os
import shutil
import time
import traceback

import pytest


def _session_root(tmp_path_factory):
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # shared by the workers of this session
    return root


def folder(tmp_path_factory, name, build, timeout=1800):
    """``build(path)`` run once per session into a fresh folder ``path``; returns a private copy of it
    (a new folder under this worker's temporary folder)."""
    root = _session_root(tmp_path_factory)
    built, done = root / f"shared-{name}", root / f"shared-{name}.done"
    try:
        os.mkdir(root / f"shared-{name}.lock")
        owner = True
    except FileExistsError:
        owner = False
    if owner:
        try:
            built.mkdir()
            build(built)
        except BaseException:
            done.write_text(traceback.format_exc())
            raise
        done.write_text("")
    else:
        deadline = time.monotonic() + timeout
        while not done.exists():
            if time.monotonic() > deadline:
                pytest.fail(f"timed out waiting for another worker's {name}")
            time.sleep(0.2)
        if done.read_text():
            pytest.fail(f"another worker's {name} failed:\n{done.read_text()[-4000:]}")
    copy = tmp_path_factory.mktemp(name) / name
    shutil.copytree(built, copy)
    return copy
