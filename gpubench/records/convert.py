"""Records of the papers' earlier runners' formats, and stored records renamed to today's case ids.

The papers' own runners stored other formats: ``gpubench.problems.fei2014``'s former command's
``results/fei2014_*/records.json``, ``gpubench/problems/bnb_rows.py``'s ``results/paper001/*/rows/``,
``gpubench/problems/tron_rows.py``'s ``results/gpu/tron/tron_gpu.json``.  :func:`convert_papers` makes
records of their tables from them (the source file and commit in ``provenance``), and
:func:`rename_records` renames every record whose stored case id is not the id its case has
today (ids once hashed the backend, so a GPU record of a case was "another setting"; the old id
stays in ``provenance.renamed_from``).  Running them again changes nothing.  The command is
``python -m gpubench.workflow.convert [RESULTS]``: an experiment's entries (method, label,
settings) come from its experiment file, which the caller loads (``load``: id -> experiment).
"""
from pathlib import Path
from types import SimpleNamespace

from .read import document, read_record
from .schema import case_id
from .write import procedure_record, write_record


def _current_id(rec):
    return case_id(rec["key"], rec["function"], rec["dim"], rec["variant"],
                          rec.get("repetition", 0), rec["method"], rec.get("settings") or {})


def _provenance(rec):
    # host_s12's convention: a record's provenance is a dict (an older one held a sentence)
    prov = rec.get("provenance")
    return dict(prov) if isinstance(prov, dict) else ({"source": prov} if prov else {})


def rename_records(folder):
    """Rename the records of one experiment folder to their current case ids.

    Returns (renamed, clashes): a clash is a record whose current id another
    record in the folder already holds (the same case stored twice); it is left as it is.
    """
    folder = Path(folder)
    records = {}
    for p in sorted(folder.glob("*.json")):
        rec = read_record(p)
        if rec is not None and all(k in rec for k in ("key", "variant")):
            records[p] = rec
    taken = {rec["case"] for rec in records.values()}
    renamed, clashes = [], []
    for p, rec in records.items():
        new = _current_id(rec)
        if new == rec["case"]:
            continue
        if new in taken:
            clashes.append(p.name)
            continue
        old = rec["case"]
        out = {}
        for k, v in rec.items():
            out[k] = new if k == "case" else v
        prov = _provenance(rec)
        prov["renamed_from"] = old
        out["provenance"] = prov
        write_record(folder, out)
        p.unlink()
        taken.discard(old)
        taken.add(new)
        renamed.append((old, new))
    return renamed, clashes


# ---------------------------------------------------------------- the papers' own formats, once
def _record(load, exp, variant, key, function, dim, settings, measured, env, source, result=None):
    e = load(exp)
    spec = next(m for m in e.variant(variant == "quick").methods if m.key == key)
    case = SimpleNamespace(experiment=e.id, variant=variant, key=key, method=spec.method, label=spec.label,
                           function=function, dim=dim, repetition=0, settings=settings,
                           case_id=case_id(key, function, dim, variant, 0, spec.method, settings))
    return procedure_record(case, settings, measured, result, env, sense="min" if "P3_" not in function else "max",
                            provenance={"converted_from": _where(source), "commit": (env or {}).get("commit")})


def _where(source):
    """``results/...`` for a file under a results folder (the record names its source, not this machine)."""
    parts = Path(source).resolve().parts
    return "/".join(parts[len(parts) - 1 - parts[::-1].index("results"):]) if "results" in parts else str(source)


def _lbfgsb_measured(r, backend, seconds=None):
    return {"iterations": r["iterations"], "seconds": r["seconds"] if seconds is None else seconds,
            "fun": r["fun"], "converged": r["status"] == 0 and not r["capped"], "capped": r["capped"],
            "message": r["message"], "ms_per_iteration": r["ms_per_iteration"], "backend": backend}


def from_fei2014(path, load):
    """The records of ``gpubench.problems.fei2014``'s former command (one file per table and variant)."""
    old = document(path)
    table = old["id"].split("_")[-1]
    backend = old["result"]["backend"]
    out = []
    for row in old["result"]["rows"]:
        if table == "table1":
            a, e = row["approximate"], row["exact"]
            settings = {"m": old["m"], "pg_rel": float(old["pg_rel"]), "maxiter": old["maxiter"],
                        "box": float(old["box"]), "backend": old["backend"]}
            out.append(_record(load, old["id"], old["variant"], "cauchy", "minpack2:" + row["problem"], row["n"],
                               settings, _lbfgsb_measured(a, backend, a["seconds"] + e["seconds"]),
                               row.get("environment") or old["environment"],
                               str(path), {"bins": row["bins"], "energy_diff_percent": row["energy_diff_percent"],
                                           **{k: {x: row[k][x] for x in ("iterations", "fun", "seconds", "status")}
                                              for k in ("approximate", "exact")}}))
            continue
        for solver in old["solvers"]:
            r = row[solver]
            settings = {"m": old["m"], "pg_rel": float(old["pg_rel"]), "cap_seconds": float(old["cap_seconds"])}
            settings = ({"solver": "scipy", **settings} if solver == "scipy"
                        else {"cauchy": solver, **settings, "backend": old["backend"]})
            m = _lbfgsb_measured(r, "scipy (cpu)" if solver == "scipy" else backend)
            out.append(_record(load, old["id"], old["variant"], solver, "minpack2:" + old["problem"], row["n"],
                               settings, m, old["environment"], str(path),
                               {"pg0": r["pg0"]} if "pg0" in r else {}))
    return out


_BNB_TABLES = {"table1": "maingo_gpu_table1", "table3": "maingo_gpu_table3", "table4": "maingo_gpu_table4"}


def from_gpu_bnb(path, load):
    """A row of ``gpubench/problems/bnb_rows.py`` of paper 001's Tables 1, 3 or 4 (the figures' rows have no table)."""
    row = document(path)
    exp = _BNB_TABLES.get(row.get("section"))
    if exp is None or "error" in row:
        return []
    quick = (row.get("settings") or {}).get("max_nodes") == 3
    spec = load(exp).variant(quick).methods[0]
    fn = row["problem"] if not row["problem"].startswith("P") else "paper001:" + row["problem"]
    # the settings an experiment file names, in its order (the case's id hashes them)
    # (the first rows recorded no settings: their row fields and limit say what they ran with)
    ran = row.get("settings") or {"backend": row["backend"], "partition": row.get("partition"),
                                  "subdomains": row["subdomains"], "time_limit": row["limit_s"]}
    settings = {k: ran[k] for k in [*spec.settings, "subdomains"] if k in ran}
    conv = row["status"] == "converged"
    measured = {"iterations": row["iterations"], "regions": None, "glb": row["glb"], "gub": row["gub"],
                "fun": row["fun"], "seconds": row["seconds"], "wall_seconds": row.get("row_wall_s"),
                "warmup_seconds": row.get("compile_s"), "converged": conv, "message": row["status"],
                "backend": row["backend"], "lower_bounding_seconds": row.get("lower_bounding_seconds"),
                "root_lower_bound": row.get("root_lower_bound"), "abs_gap": row.get("abs_gap"),
                "subdomains": row.get("subdomains"), "counts_root": row.get("counts_root")}
    return [_record(load, exp, "quick" if quick else "full", spec.key, fn, row["dim"], settings, measured,
                    row.get("environment"), str(path), {"x": row.get("x")})]


def from_gpu_tron(path, load):
    """``gpubench/problems/tron_rows.py``'s record: Tables 1-3 of paper 003, one record per (table, n, variant)."""
    old = document(path)
    if old.get("tiny") or old.get("simulator"):
        return []          # a check of the mechanics, not a measurement of the tables
    env, out = old.get("environment"), []
    for table, cols in (("table1", ("left", "right")), ("table2", ("explicit", "implicit")),
                        ("table3", ("shared", "global"))):
        t = old.get(table)
        if not t:
            continue
        e = load(f"kim_exatron_{table}")
        specs = {m.key: m for m in e.full.methods}
        for row in t["rows"]:
            for key in cols:
                if table == "table3":
                    r = row[key]
                    measured = {"iterations": r["mean_iterations"], "seconds": r["ms"] / 1e3,
                                "fun": None, "converged": r["converged"] == r["batch"], "ms": r["ms"],
                                "backend": "cuda", "max_abs_err": r["max_abs_err"]}
                    result = {"batch": r["batch"], "converged": r["converged"], "ms_all": r["ms_all"],
                              "options": r["options"]}
                else:
                    ms = row[f"{key}_ms" if table == "table1" else f"{key}_rhs1_ms"]
                    measured = {"iterations": t["reps"], "seconds": ms / 1e3, "fun": None,
                                "converged": row.get("all_factored", True), "ms": ms, "backend": "cuda",
                                "max_err_vs_numpy": row.get("max_err_vs_numpy")}
                    result = {"batch": t["batch"], "reps": t["reps"], "torch_ms": row.get("torch_ms")}
                    if table == "table1":
                        result["right_2d_ms"] = row.get("right_2d_ms")
                    else:
                        result["rhs_n_ms"] = row.get(f"{key}_rhsn_ms")
                out.append(_record(load, e.id, "full", key, e.full.problems[0].problem, row["n"],
                                   dict(specs[key].settings), measured, env, str(path), result))
    return out


def convert_papers(root, load):
    """Write the papers' old records (paper 004's tables, paper 001's rows) in the one format, those
    not stored yet (returned);
    ``load``: an experiment id -> its experiment (:func:`gpubench.workflow.experiments_loader.load`)."""
    root = Path(root)
    recs = []
    # (gpubench.problems.fei2014's former command's own files; the full run of Table 1 kept apart from its records)
    for p in sorted(root.glob("fei2014_table*_*/records.json")):
        recs += from_fei2014(p, load)
    for p in sorted(root.glob("paper001/*/rows/*.json")):
        recs += from_gpu_bnb(p, load)
    for p in sorted(root.glob("gpu/lbfgsb/fei2014_table1_gpu.json")):
        recs += from_fei2014(p, load)
    for p in sorted(root.glob("gpu/tron/tron_gpu.json")):
        recs += from_gpu_tron(p, load)
    # a record already stored is kept as it is (stored records are never rewritten)
    recs = [rec for rec in recs if not (root / rec["experiment"] / f"{rec['case']}.json").exists()]
    for rec in recs:
        write_record(root / rec["experiment"], rec)
    return recs
