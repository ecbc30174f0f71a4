"""Checkpoints of long runs: the one file format, and the saver a run calls between its steps.

A checkpoint is one ``.npz`` file: the run's arrays, and ``meta``, a JSON text with its
fingerprint (what the run is: a resume made with another is refused), the rest of its state and
its segments (which process did which part of the run: its iterations, seconds and environment).
It is written to a temporary file in the same folder and moved into place with ``os.replace``
(:func:`gpubench.device.gpu.atomic_write`), so a kill at any moment leaves either the old or the
new checkpoint, never a part; a temporary file left by a killed writer is removed on the next
read.  The interval solver's checkpoints (``gpubench solve --checkpoint/--resume``,
:mod:`gpubench.methods.solver.checkpoint`) and those of a case of ``gpubench reproduce``
(:class:`Checkpoint`, made by the runner for a resumable procedure) are both this format.
"""
import json
import os

import numpy as np

from ..device.gpu import atomic_write, remove_stale_temporaries
from ..errors import InputError
from .monitor import clock, interrupted


def write(path, meta, arrays, compress=True):
    """``meta`` (JSON-ready) and ``arrays`` (name -> numpy array) to ``path``, atomically.  Deflate
    pays where arrays repeat (the solver's boxes); a dense iterate of doubles barely shrinks and is
    written faster as it is (a last checkpoint after Ctrl-C or SIGTERM has seconds)."""
    text = np.array(json.dumps(meta))
    save = np.savez_compressed if compress else np.savez
    atomic_write(path, lambda fh: save(fh, meta=text, **arrays))


def read(path):
    """(meta, arrays) of the checkpoint at ``path``; one-line InputErrors for a missing or unreadable
    file.  Temporaries a killed writer left beside it are removed first."""
    if os.path.isdir(os.path.dirname(os.path.abspath(path))):
        remove_stale_temporaries(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            arrays = {k: data[k] for k in data.files if k != "meta"}
    except FileNotFoundError:
        raise InputError(f"checkpoint {str(path)!r} does not exist") from None
    except Exception as exc:  # truncated, not an npz, wrong keys ...
        raise InputError(f"checkpoint {str(path)!r} is unreadable ({type(exc).__name__})") from None
    if not isinstance(meta, dict):
        raise InputError(f"checkpoint {str(path)!r} is unreadable (its meta is not an object)")
    return meta, arrays


def is_checkpoint(path):
    """Whether ``path`` holds a checkpoint, told by its content: an npz whose ``meta`` is the JSON
    this module writes, with a fingerprint of a known format (a name ending in .npz proves nothing)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
        return isinstance(meta, dict) and isinstance(meta.get("fingerprint"), dict) \
            and "format" in meta["fingerprint"] and (isinstance(meta.get("scalars"), dict) or "state" in meta)
    except Exception:  # not a zip, no meta, not JSON ...: not ours
        return False


def check_target(path, what="checkpoint"):
    """Refuse, before any work, to write a checkpoint over a file that is not one: the user's file
    is never replaced by ours.  An absent file, or a checkpoint (to be continued or redone), is fine."""
    real = os.path.realpath(path)
    if os.path.isfile(real) and not is_checkpoint(real):
        raise InputError(f"{what} {str(path)!r} exists and is not a gpubench checkpoint; "
                         "refusing to replace it (remove it or name another file)")


def segment(iterations, seconds, environment, wall_seconds=None):
    """One process's part of a run: iterations [from, to), its seconds, where it ran."""
    out = {"iterations": [int(iterations[0]), int(iterations[1])], "seconds": float(seconds)}
    if wall_seconds is not None:
        out["wall_seconds"] = float(wall_seconds)
    out["environment"] = environment
    return out


# ---------------------------------------------------------------- a state of arrays and numbers
def _flatten(value, name, arrays):
    if isinstance(value, np.ndarray):
        arrays[name] = value
        return {"__array__": name}
    if isinstance(value, dict):
        return {str(k): _flatten(v, f"{name}/{k}", arrays) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_flatten(v, f"{name}/{i}", arrays) for i, v in enumerate(value)]
    if isinstance(value, np.generic):
        return value.item()
    return value        # a number (json writes a float's shortest exact repr), a string, None, a bool


def _unflatten(tree, arrays):
    if isinstance(tree, dict):
        if set(tree) == {"__array__"}:
            return arrays[tree["__array__"]]
        return {k: _unflatten(v, arrays) for k, v in tree.items()}
    if isinstance(tree, list):
        return [_unflatten(v, arrays) for v in tree]
    return tree


class Interrupted(Exception):
    """A run stopped at Ctrl-C or SIGTERM after saving its checkpoint (``str``: where)."""


class Checkpoint:
    """The checkpoint of one run at ``path``: its state read back where a file is there, and saved
    (:meth:`tick`) at most every ``every`` seconds, after the first step, and at once when Ctrl-C or
    SIGTERM asks the run to stop (:func:`gpubench.methods.monitor.interrupted`), which then raises
    :class:`Interrupted`.  ``fingerprint`` (JSON-ready) names the run: a file made by another run
    is refused.  The run's state is a dict of numbers, strings, lists and numpy arrays (its arrays
    stored exactly as they are, floats as JSON's exact repr): what it saves is what it resumes."""

    FORMAT = 1

    def __init__(self, path, fingerprint, every=30.0, compress=False):
        check_target(path)
        self.path, self.every, self.compress = str(path), float(every), compress
        self.fingerprint = json.loads(json.dumps({"format": self.FORMAT, **fingerprint}))
        self.state, self.before = None, []
        self._start = self._last = None
        self.finished = None
        if os.path.isfile(self.path):
            meta, arrays = read(self.path)
            got = meta.get("fingerprint")
            if got != self.fingerprint:
                diff = ", ".join(f"{k}={(got or {}).get(k)!r} (this run: {v!r})"
                                 for k, v in self.fingerprint.items() if (got or {}).get(k) != v)
                raise InputError(f"checkpoint {self.path!r} was made by another run: {diff}")
            self.state = _unflatten(meta.get("state"), arrays)
            self.before = list(meta.get("segments", []))

    def begin(self, iterations, seconds):
        """This process's part of the run starts here (after ``iterations`` steps and ``seconds``)."""
        from ..device.environment import capture
        self._start = (int(iterations), float(seconds), clock(), capture())

    def segments(self, iterations, seconds):
        """Every process's part of the run up to now (``iterations`` steps, ``seconds`` in all)."""
        if self._start is None:
            return list(self.before)
        it0, s0, c0, env = self._start
        return self.before + [segment((it0, iterations), seconds - s0, env, wall_seconds=clock() - c0)]

    def end(self, iterations, seconds):
        """The run is finished: :attr:`finished` lists every part of it, this process's the last."""
        self.finished = self.segments(iterations, seconds)

    def due(self):
        return self._last is None or interrupted() or clock() - self._last >= self.every

    def save(self, state, iterations, seconds):
        arrays = {}
        tree = _flatten(state, "state", arrays)
        meta = {"fingerprint": self.fingerprint, "state": tree, "segments": self.segments(iterations, seconds)}
        write(self.path, meta, arrays, compress=self.compress)
        self._last = clock()

    def tick(self, take):
        """At a step's end: save ``take()`` = (state, iterations, seconds) when due; after Ctrl-C or
        SIGTERM, raise :class:`Interrupted` once it is saved."""
        if self.due():
            self.save(*take())
        if interrupted():
            raise Interrupted(self.path)

    def discard(self):
        """Remove the file (its run is finished and stored)."""
        try:
            os.remove(self.path)
        except FileNotFoundError:
            pass
        remove_stale_temporaries(self.path)
