"""DE's ``mode="auto"`` on a GPU (:mod:`gpubench.methods.de_gpu`): the kernel of many generations a
launch that is faster *on this problem on this device*, by measurement, not by a size typed in.

On first use for a (device, function module, D, members of all runs, F, CR) each candidate kernel
(``fast``: the cooperative kernel with xoroshiro states; ``stream``: the pipelined kernel with
counter-based numbers and two buffers), each with its own group of lanes a member and, where that is a
whole warp (D > 16) and the user set no ``threads_per_member``, with groups of 16 lanes too (two
members a warp: a member's own steps, its indices, reduction and selection, take half the warp
instructions; on an H200 at a89fb72 16 lanes took 0.300 against 0.368 ms a generation at
(D, NP) = (100, 10^5), 0.035 against 0.038 at (100, 10^4), but 0.45 against 0.31 at (1000, 10^4)),
runs a short probe on buffers of the real size: one run of a
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
HALF_WARP = 16           # the narrower group probed beside a whole warp's
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
    lanes = "" if s.threads_per_member is None else f"-T{s.threads_per_member}"
    # v2: the choice names its lanes (a v1 entry was probed without the narrower groups)
    return f"{name}-{module}-D{plan.D}-M{plan.R * plan.NP}-F{s.F!r}-CR{s.CR!r}{lanes}-v2"


def candidates(plan):
    """(mode, lanes) pairs to probe; lanes None: the kernel's own group (a user's threads_per_member
    is kept as it is, not probed)."""
    from .de_launch import _group_width
    pairs = [(m, None) for m in CANDIDATES]
    if plan.s.threads_per_member is None and _group_width(plan.D) > HALF_WARP:
        pairs += [(m, HALF_WARP) for m in CANDIDATES]
    return pairs


def _name(mode, lanes):
    return mode if lanes is None else f"{mode}/{lanes}"


def _store():
    from ..forms.cache import cache_dir
    d = cache_dir() / "de_auto"
    d.mkdir(exist_ok=True)
    return d


def probe_seconds(plan, mod, mode, lanes=None):
    """Seconds a generation of ``mode`` (groups of ``lanes`` lanes a member; None: the kernel's own)
    takes on ``plan``'s problem (None: the kernel cannot run here).
    k grows (by 4, to at most MAX_PROBE_GENERATIONS) until k generations take PROBE_SECONDS, so that
    a small problem's few microseconds a generation are not lost in the host's jitter."""
    def once(k):
        s = replace(plan.s, mode=mode, max_evaluations=plan.NP * (1 + k), time_limit=None, target_error=None,
                    threads_per_member=plan.s.threads_per_member if lanes is None else lanes)
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
    generation, from this process's choices, the cache folder's, or a probe now; what was measured
    names the candidate's ``lanes`` (None: the kernel's own group), which the run must take."""
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
    pairs = candidates(plan)
    times = {_name(m, t): probe_seconds(plan, mod, m, t) for m, t in pairs}
    ok = [(times[_name(m, t)], i) for i, (m, t) in enumerate(pairs) if times[_name(m, t)] is not None]
    mode, lanes = pairs[min(ok)[1]] if ok else ("fast", None)   # a tie: the earlier candidate
    got = {"mode": mode, "lanes": lanes, "seconds_per_generation": times, "probe_generations": PROBE_GENERATIONS,
           "key": key}
    _CHOSEN[key] = got
    if path is not None:
        try:
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(got))
            tmp.replace(path)
        except OSError:
            pass
    return mode, dict(got, source="probed now")
