"""Time to target and COCO data files of the comparison (gpubench.reports.compare).

Time to target (COCO's runtime, Hansen et al., "COCO: performance assessment", 2021): for targets
``f* + 10^k``, k = 2 ... -8, the first evaluation count and the first wall-clock second at which a
run's best value reached the target, read from the run's trace.  COCO data: ``.info``/``.dat``/
``.tdat`` files in the bbob-new2 layout that cocopp and IOHanalyzer read, with one added last
column: seconds; :func:`read_coco` reads them back.
"""
import math
from pathlib import Path


from ..records.trace import trace_of

TARGET_EXPONENTS = tuple(range(2, -9, -1))  # 10^2 ... 10^-8, as COCO's bbob targets


def targets(fstar, sense="min"):
    return [(k, fstar + 10.0 ** k if sense == "min" else fstar - 10.0 ** k) for k in TARGET_EXPONENTS]


def _reached(value, target, sense):
    return value <= target if sense == "min" else value >= target


def first_reach(record, target):
    """(evaluations, seconds) of the first trace row at or beyond ``target``; (None, None) if none."""
    sense = record.get("sense", "min")
    hit = next((row for row in trace_of(record) if _reached(row[2], target, sense)), None)
    return (None, None) if hit is None else (hit[0], hit[1])


def runtimes(record, fstar):
    """[(k, evaluations or None, seconds or None)] for each target f* + 10^k."""
    sense = record.get("sense", "min")
    rows = trace_of(record)
    out = []
    for k, t in targets(fstar, sense):
        hit = next((row for row in rows if _reached(row[2], t, sense)), None)
        out.append((k, None if hit is None else hit[0], None if hit is None else hit[1]))
    return out


# ---------------------------------------------------------------- COCO files
def _safe(name):
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)


def write_coco(records, fstars, folder, suite="gpubench"):
    """Write one COCO data set per method key under ``folder/<key>/``; returns the folders.

    Function ids are the library's functions in sorted order (1-based), so the
    numbering is stable; ``%`` comment lines name them.  Columns of ``.dat`` and
    ``.tdat``: evaluations, g-evaluations (0), best f - f*, f, best f, seconds.  A run whose trace
    starts after evaluation 1 gets a first row at evaluation 1 whose best f - f* is a placeholder
    above every target: max(1e3, 10 x that of its first point).
    """
    from ..device.gpu import atomic_write
    folder = Path(folder)
    names = sorted({r["function"] for r in records})
    fid = {f: k + 1 for k, f in enumerate(names)}
    out = []
    by_key = {}
    for r in records:
        by_key.setdefault(r["key"], []).append(r)
    for key, recs in sorted(by_key.items()):
        alg = folder / _safe(key)
        info_lines = []
        groups = {}
        for r in recs:
            groups.setdefault((r["function"], int(r["dim"])), []).append(r)
        for (f, dim), rs in sorted(groups.items()):
            fstar = fstars.get((f, dim))
            if fstar is None:
                continue
            sense = rs[0].get("sense", "min")
            sign = 1.0 if sense == "min" else -1.0
            stem = f"data_f{fid[f]}/bbobexp_f{fid[f]}_DIM{dim}"
            dat, tdat, runs = [], [], []
            for inst, r in enumerate(sorted(rs, key=lambda r: r.get("repetition", 0)), start=1):
                rows = trace_of(r)
                head = (f"%% f evaluations | g evaluations | best noise-free fitness - Fopt ({fstar:.12e}) "
                        f"+ sum g_i+ | measured fitness | best measured fitness or single-digit g-values "
                        f"| seconds")
                dat.append(head)
                tdat.append(head)
                if rows and rows[0][0] > 1:
                    # COCO logs evaluation 1; a trace that starts later (a batch) reaches no target
                    # before its first point: a placeholder above every target (10^2) and above that
                    # point (cocopp loops forever on inf)
                    err0 = max(1e3, 10.0 * max(sign * (rows[0][2] - fstar), 0.0))
                    val0 = fstar + sign * err0
                    first = f"1 0 {err0:.12e} {val0:.12e} {val0:.12e} {rows[0][1]:.6e}"
                    dat.append(first)
                    tdat.append(first)
                for nfev, sec, best in rows:
                    err = max(sign * (best - fstar), 0.0)
                    line = f"{int(nfev)} 0 {err:.12e} {best:.12e} {best:.12e} {sec:.6e}"
                    dat.append(line)
                    tdat.append(line)
                final = rows[-1] if rows else [0, 0.0, math.nan]
                runs.append(f"{inst}:{int(final[0])}|{max(sign * (final[2] - fstar), 0.0):.1e}")
            atomic_write(alg / f"{stem}.dat", "\n".join(dat) + "\n", fsync=False)
            atomic_write(alg / f"{stem}.tdat", "\n".join(tdat) + "\n", fsync=False)
            info_lines += [
                f"suite = '{suite}', funcId = {fid[f]}, DIM = {dim}, Precision = 1.000e-08, "
                f"algId = '{key}', coco_version = 'gpubench', logger = 'bbob', data_format = 'bbob-new2'",
                f"% function {fid[f]} = {f} (gpubench library), f* = {fstar!r}, sense = {sense}; "
                f"last column of .dat/.tdat: wall-clock seconds",
                f"{stem}.dat, " + ", ".join(runs),
            ]
        if info_lines:
            atomic_write(alg / f"bbobexp_{_safe(key)}.info", "\n".join(info_lines) + "\n", fsync=False)
            out.append(alg)
    return out


def zip_folder(folder):
    """``folder`` as ``folder.zip`` (the form IOHanalyzer uploads), byte-for-byte reproducible:
    members in sorted order with a fixed date, so the same records give the same archive.
    Written atomically; returns its path."""
    import io
    import zipfile
    from ..device.gpu import atomic_write
    folder = Path(folder)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for p in sorted(q for q in folder.rglob("*") if q.is_file()):
            info = zipfile.ZipInfo(f"{folder.name}/{p.relative_to(folder).as_posix()}", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, p.read_bytes())
    out = folder.with_name(folder.name + ".zip")
    atomic_write(out, buf.getvalue(), fsync=False)
    return out


def read_coco(folder):
    """Read a data set written by :func:`write_coco` (or COCO's own bbob-new2 files).

    Returns ``{(funcId, DIM): {"algId", "files", "runs": [[(evals, best - f*, seconds|None), ...], ...]}}``.
    """
    folder = Path(folder)
    out = {}
    for info in sorted(folder.glob("*.info")):
        lines = [ln for ln in info.read_text().splitlines() if ln.strip()]
        k = 0
        while k < len(lines):
            head = lines[k]
            if not head.startswith("suite") and not head.startswith("funcId"):
                k += 1
                continue
            fields = dict(p.strip().split(" = ", 1) for p in head.split(", ") if " = " in p)
            fid, dim = int(fields["funcId"]), int(fields["DIM"])
            k += 1
            while k < len(lines) and lines[k].startswith("%"):
                k += 1
            datfile = lines[k].split(",")[0].strip()
            k += 1
            runs = []
            for line in (folder / datfile).read_text().splitlines():
                if line.startswith("%"):
                    runs.append([])
                    continue
                cols = line.split()
                if cols:
                    runs[-1].append((int(float(cols[0])), float(cols[2]), float(cols[5]) if len(cols) > 5 else None))
            out[(fid, dim)] = {"algId": fields["algId"].strip("'"), "files": datfile, "runs": runs}
    return out


# ---------------------------------------------------------------- the report layout "compare"
