"""DE's ``mode="auto"`` on a GPU (:mod:`gpubench.methods.de_gpu`): the kernel of many generations a
launch that is faster *on this problem on this device*, by measurement, not by a size typed in.

On first use for a (device, function module, D, members of all runs, F, CR) each candidate kernel
(``fast``: the cooperative kernel with xoroshiro states; ``stream``: the pipelined kernel with
counter-based numbers and two buffers) runs a short probe on buffers of the real size: one run of a
generation (it compiles and warms), then runs of k and 2k generations (k from 16, grown until k
generations take 5 ms), whose difference over k is its time a generation (the set-up both runs
share, allocation and the initial population, drops out).  The faster is kept for the process and in the cache folder
(``$GPUBENCH_CACHE/generated/de_auto/``, one small JSON a key, named by the function's generated
module, so a changed kernel is a new key), so a second process does not probe again.  A probe at
(100, 10^5) on an H200 costs well under a second beside the compilation it would need anyway.
What was chosen and why is in ``result.options["auto"]``.
"""
import json
import re
from dataclasses import replace
from pathlib import Path

from .de_cuda import CooperativeUnavailable, run_cuda
from .de_run import Plan

CANDIDATES = ("fast", "stream")
PROBE_GENERATIONS = 16   # k at first: the probe's runs are of k and 2k generations
PROBE_SECONDS = 0.005    # ... and k grows until k generations take this long
MAX_PROBE_GENERATIONS = 4096
_CHOSEN = {}             # key -> {"mode", "seconds_per_generation", "source"}


def _device_name():
    from .de_launch import _device_limits
    return _device_limits()["name"]


def _key(plan, mod):
    s = plan.s
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", _device_name())
    module = Path(getattr(mod, "__file__", "") or "module").stem
    return f"{name}-{module}-D{plan.D}-M{plan.R * plan.NP}-F{s.F!r}-CR{s.CR!r}"


def _store():
    from ..forms.cache import cache_dir
    d = cache_dir() / "de_auto"
    d.mkdir(exist_ok=True)
    return d


def probe_seconds(plan, mod, mode):
    """Seconds a generation of ``mode`` takes on ``plan``'s problem (None: the kernel cannot run here).
    k grows (by 4, to at most MAX_PROBE_GENERATIONS) until k generations take PROBE_SECONDS, so that
    a small problem's few microseconds a generation are not lost in the host's jitter."""
    def once(k):
        s = replace(plan.s, mode=mode, max_evaluations=plan.NP * (1 + k), time_limit=None, target_error=None)
        return run_cuda(Plan(plan.fn, plan.D, s), mod).seconds
    try:
        once(1)
        k = PROBE_GENERATIONS
        while True:
            d = once(2 * k) - once(k)
            if d >= PROBE_SECONDS or 4 * k > MAX_PROBE_GENERATIONS:
                return max(d, 1e-12) / k
            k *= 4
    except CooperativeUnavailable:
        return None


def chosen_mode(plan, mod):
    """(mode, what was measured) for ``plan`` with ``mode="auto"``: the candidate of least time a
    generation, from this process's choices, the cache folder's, or a probe now."""
    key = _key(plan, mod)
    if key in _CHOSEN:
        return _CHOSEN[key]["mode"], dict(_CHOSEN[key], source="measured earlier in this process")
    path = None
    try:
        path = _store() / f"{key}.json"
        if path.is_file():
            got = json.loads(path.read_text())
            if got.get("mode") in CANDIDATES:
                _CHOSEN[key] = got
                return got["mode"], dict(got, source=f"measured earlier ({path})")
    except Exception:   # an unreadable cache folder or entry: measured again, not an error
        path = None
    times = {m: probe_seconds(plan, mod, m) for m in CANDIDATES}
    ok = {m: t for m, t in times.items() if t is not None}
    mode = min(ok, key=ok.get) if ok else "fast"
    got = {"mode": mode, "seconds_per_generation": times, "probe_generations": PROBE_GENERATIONS, "key": key}
    _CHOSEN[key] = got
    if path is not None:
        try:
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(got))
            tmp.replace(path)
        except OSError:
            pass
    return mode, dict(got, source="probed now")
