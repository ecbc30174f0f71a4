"""Checkpoints of a running search: written atomically, verified on resume.

A checkpoint is one ``.npz`` file with the region list, the selected region of
every iteration, GUB, the counters and the history, plus the settings it was
made with.  It is deflated: the selected boxes are O(n) each and share most of
their coordinates, so Rosenbrock n = 1,000 at iteration 16,127 drops from
214 MB to a few MB, small enough to carry between commands on the GPU host.  It is written to a temporary file in the same directory and moved
into place with ``os.replace``, so a kill at any moment leaves either the old
or the new checkpoint, never a partial one; a temporary file left by a killed
writer is removed on resume.
"""
import numpy as np

from ...errors import InputError
# the one checkpoint format (gpubench.methods.checkpoints): is_checkpoint and check_target are this
# module's API too
from ..checkpoints import check_target, is_checkpoint, read, segment, write  # noqa: F401
from .region_list import RegionList

FORMAT = 2  # 2: only the selected boxes L still needs (sel_itr)


def _fingerprint(search):
    s = search.settings
    return {"format": FORMAT, "function": search.fn.name, "dim": search.dim,
            "split_dims": s.split_dims, "parts": s.parts, "tol": s.tol, "samples": s.samples,
            "spacing": s.spacing}


def segment_begins(search):
    _segment_start(search)


def _segment_start(search):
    """Where this process's part of the search began (set on the first save or on restore)."""
    if not hasattr(search, "_segment_start"):
        from ...device.environment import capture
        search._segment_start = {"from_iteration": search.state.iteration, "seconds_before": search.state.seconds,
                                 "environment": capture()}
    return search._segment_start


def segments(search):
    """Every process's part of a search resumed across commands: its iterations, seconds and
    environment (the earlier parts from the checkpoint), or [] for a search never checkpointed."""
    if not hasattr(search, "_segment_start"):
        return list(getattr(search, "_segments_before", []))
    start, st = search._segment_start, search.state
    here = segment((start["from_iteration"], st.iteration), st.seconds - start["seconds_before"], start["environment"])
    return list(getattr(search, "_segments_before", [])) + [here]


def save(path, search):
    _segment_start(search)
    st = search.state
    sidx, itr, cyc, lb, open_ = st.regions.flat()
    arrays = {
        "sidx": sidx, "itr": itr, "cyc": cyc, "lb": lb, "open": open_,
        "sel_itr": np.array(sorted(st.sel_lo), dtype=np.int64),
        "sel_lo": np.array([st.sel_lo[j] for j in sorted(st.sel_lo)]).reshape(len(st.sel_lo), search.dim),
        "sel_hi": np.array([st.sel_hi[j] for j in sorted(st.sel_hi)]).reshape(len(st.sel_hi), search.dim),
        "sel_cyc": np.array(st.sel_cyc, dtype=np.int64),
        "hist_glb": np.array(st.hist_glb), "hist_gub": np.array(st.hist_gub),
        "hist_size": np.array(st.hist_size, dtype=np.int64),
    }
    scalars = {"gub": st.gub, "best_iteration": st.best_iteration, "best_index": st.best_index,
               "iteration": st.iteration, "nfev": st.nfev, "njev": st.njev, "seconds": st.seconds,
               **({"best_x": st.best_x} if st.best_x is not None else {})}
    write(path, {"fingerprint": _fingerprint(search), "scalars": scalars, "segments": segments(search)}, arrays)


_KEYS = ("sidx", "itr", "cyc", "lb", "open", "sel_itr", "sel_lo", "sel_hi", "sel_cyc", "hist_glb", "hist_gub",
         "hist_size")


def _check_consistent(path, arrays, meta, dim):
    """Arrays that agree with each other and with the stored dimension (an edited or mixed file
    would otherwise fail deep in the search with a broadcast error)."""
    def bad(why):
        return InputError(f"checkpoint {path!r} is inconsistent: {why}")
    missing = [k for k in _KEYS if k not in arrays]
    if missing or not isinstance(meta.get("scalars"), dict):
        raise bad(f"it lacks {missing[0] if missing else 'its scalars'}")
    nsel = arrays["sel_itr"].shape
    if len(nsel) != 1:
        raise bad(f"sel_itr has shape {nsel}")
    for k in ("sel_lo", "sel_hi"):
        if arrays[k].shape != (nsel[0], dim):
            raise bad(f"{k} has shape {arrays[k].shape}, not ({nsel[0]}, {dim}) for n = {dim}")
    flat = [arrays[k].shape for k in ("sidx", "itr", "cyc", "lb", "open")]
    if any(len(s) != 1 or s != flat[0] for s in flat):
        raise bad(f"the region arrays differ in shape ({', '.join(map(str, flat))})")
    if not np.isin(arrays["itr"], arrays["sel_itr"]).all():
        raise bad("a region refers to an iteration whose selected box is not stored")
    hist = {len(arrays[k]) for k in ("hist_glb", "hist_gub", "hist_size")}
    if len(hist) != 1:
        raise bad("its history arrays differ in length")


def restore(path, search):
    meta, arrays = read(path)
    want = _fingerprint(search)
    got = meta.get("fingerprint", {})
    if got != want:
        diff = ", ".join(f"{k}={got.get(k)!r} (run has {want[k]!r})" for k in want if got.get(k) != want[k])
        raise InputError(f"checkpoint {path!r} was made with other settings: {diff}")
    _check_consistent(path, arrays, meta, search.dim)
    st = search.state
    st.regions = RegionList.from_flat(arrays["sidx"], arrays["itr"], arrays["cyc"], arrays["lb"],
                                      arrays["open"].astype(bool))
    sel_itr = arrays["sel_itr"].tolist()
    st.sel_lo = dict(zip(sel_itr, arrays["sel_lo"]))
    st.sel_hi = dict(zip(sel_itr, arrays["sel_hi"]))
    st.sel_cyc = [int(c) for c in arrays["sel_cyc"]]
    st.hist_glb = arrays["hist_glb"].tolist()
    st.hist_gub = arrays["hist_gub"].tolist()
    st.hist_size = arrays["hist_size"].tolist()
    for k, v in meta["scalars"].items():
        setattr(st, k, v)
    search._segments_before = list(meta.get("segments", []))
    if hasattr(search, "_segment_start"):
        del search._segment_start
    _segment_start(search)
