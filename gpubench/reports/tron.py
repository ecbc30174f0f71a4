"""Render the record of ``gpubench/problems/tron_rows.py`` beside paper 003's published rows.

``gpubench report --all`` writes it to reports/kim_exatron.md from results/gpu/tron/tron_gpu.json.

A self-contained report (the device measurements of ExaTron are not method runs,
so they do not go through :mod:`gpubench.reports.builder`): Tables 1-3 with the published
V100 values, Figure 3 and the batch scaling as tables, the side-by-side runs, and
the paper's rows that are not reproduced, with the reason.
"""
HS45 = "f = -prod x_i / i on 0 <= x_i <= i (footnote 4's 120 - prod x_i, scaled), x0_i = i/2, x*_i = i"


def _spec():
    """The page's text from the experiments ``kim_exatron_table1`` .. ``table3`` (one loader for all)."""
    from ..workflow import experiments_loader as loader
    t = {k: loader.load(f"kim_exatron_{k}") for k in ("table1", "table2", "table3")}
    return {"title": "ExaTron kernels: batched Cholesky, triangular solves, shared memory, thread layout, batch size",
            "source": "Kim, Pacaud, Kim & Anitescu, ExaTron (seed 003), Section 4, Tables 1-3, Figures 3 and 5",
            "command": "python -m gpubench.problems.tron_rows results/kim_exatron",
            # the first sentence of each table's note says what is measured
            **{k: {"what": t[k].note.split(". ")[0]} for k in ("table1", "table2")},
            "table3": {"what": t["table3"].note.split(". ")[0], "problem": HS45},
            # Tables 4-5 are the experiments kim_exatron_table4/5 (gpubench/problems/opf, reports/kim_exatron_table4.md)
            "not_reproduced": {"rows": ["Figure 6", "Figure 7", "Figure 8"],
                               "reason": "speedups over 1-6 GPUs and 40 CPU cores, and per-GPU times, of concurrent runs "
                                         "on one Summit node; no multi-GPU host was lent (Tables 4-5: the experiments "
                                         "kim_exatron_table4/5, whose records hold each partition's time per iteration, "
                                         "the partitions timed one after another on one GPU)"}}


def _f(v, fmt=".3f"):
    return "-" if v is None else format(v, fmt)


def render(rec, spec=None):
    spec = spec or _spec()
    out = [f"# {spec['title']}", "", f"Source: {spec['source']}.", ""]
    env = rec.get("environment", {})
    # the short commit, as every other page prints it
    out += [f"Measured on {env.get('gpu') or 'no GPU'} ({env.get('cpu', '?')}), commit "
            f"{str(env.get('commit', '?'))[:7]}, {env.get('date', '?')}"
            + (" - CUDA simulator, times meaningless" if rec.get("simulator") else "")
            + (" - tiny sizes" if rec.get("tiny") else "") + ".", ""]
    out += [f"Command: `{spec['command']}`", ""]
    t1 = rec.get("table1")
    if t1:
        pub = t1.get("published_v100_ms", {})
        out += ["## Table 1: batched Cholesky (mean ms over n)", "", spec["table1"]["what"] + ".", "",
                "| factorization | ours (ms) | paper V100 (ms) |", "| --- | --- | --- |",
                f"| Left-looking | {_f(t1.get('mean_left_ms'))} | {_f(pub.get('left'))} |",
                f"| Right-looking | {_f(t1.get('mean_right_ms'))} | {_f(pub.get('right'))} |",
                f"| Right-looking, 2-D layout | {_f(t1.get('mean_right_2d_ms'))} | - |",
                f"| torch.linalg.cholesky | {_f(t1.get('mean_torch_ms'))} | - |", "",
                "| n | left | right | right 2-D | torch | max err vs numpy |", "| --- | --- | --- | --- | --- | --- |"]
        for r in t1["rows"]:
            out.append(f"| {r['n']} | {_f(r.get('left_ms'), '.4f')} | {_f(r.get('right_ms'), '.4f')} | "
                       f"{_f(r.get('right_2d_ms'), '.4f')} | {_f(r.get('torch_ms'), '.4f')} | "
                       f"{_f(r.get('max_err_vs_numpy'), '.1e')} |")
        out.append("")
    t2 = rec.get("table2")
    if t2:
        pub = t2.get("published_v100_ms", {})
        out += ["## Table 2: back substitution L^T x = b (mean ms over n)", "",
                spec["table2"]["what"] + "; the explicit kernel copies L^T into the upper triangle "
                "itself (counted).", "",
                "| backward substitution | 1 rhs (ms) | n rhs (ms) | paper V100 (ms) |", "| --- | --- | --- | --- |",
                f"| Explicit | {_f(t2.get('mean_explicit_rhs1_ms'))} | {_f(t2.get('mean_explicit_rhsn_ms'))} | {_f(pub.get('explicit'))} |",
                f"| Implicit | {_f(t2.get('mean_implicit_rhs1_ms'))} | {_f(t2.get('mean_implicit_rhsn_ms'))} | {_f(pub.get('implicit'))} |",
                f"| torch solve_triangular | {_f(t2.get('mean_torch_ms'))} | - | - |", ""]
    t3 = rec.get("table3")
    if t3:
        pub = t3.get("published_v100_ms", {})
        out += ["## Table 3: TRON with and without shared memory", "",
                f"{spec['table3']['what']}; {spec['table3']['problem']}.  Paper V100: shared "
                f"{_f(pub.get('shared'))} ms, global {_f(pub.get('global'))} ms (n not stated).", "",
                "| n | shared (ms) | global (ms) | converged | max abs err |", "| --- | --- | --- | --- | --- |"]
        for r in t3["rows"]:
            s, g = r["shared"], r["global"]
            out.append(f"| {r['n']} | {_f(s['ms'])} | {_f(g['ms'])} | {s['converged']}/{s['batch']} | "
                       f"{_f(s['max_abs_err'], '.1e')} |")
        out.append("")
    f3 = rec.get("figure3")
    if f3:
        out += ["## Figure 3: 2-D over 1-D layout", "", "| n | 1-D (ms) | 2-D (ms) | ratio 2-D/1-D | 2-D block |",
                "| --- | --- | --- | --- | --- |"]
        for r in f3["rows"]:
            out.append(f"| {r['n']} | {_f(r['ms_1d'])} | {_f(r['ms_2d'])} | {_f(r['ratio_2d_over_1d'], '.2f')} | "
                       f"{r['threads_2d']} |")
        out.append("")
    sc = rec.get("scaling")
    if sc:
        out += ["## Figure 5's shape: time against batch size", "", "| n | batch | ms | converged |",
                "| --- | --- | --- | --- |"]
        for r in sc["rows"]:
            out.append(f"| {r['n']} | {r['batch']} | {_f(r.get('ms'))} | {r.get('converged', r.get('error'))} |")
        out.append("")
    sb = rec.get("side_by_side")
    if sb:
        out += ["## Side by side: hs45-type batches", "",
                f"GPU kernel vs the numba CPU twin ({sb.get('cpu_threads')} threads) vs SciPy in one process.", "",
                "| solver | n | batch | time (ms) | converged | max abs err |", "| --- | --- | --- | --- | --- | --- |"]
        for k, label in (("gpu", "tron-gpu"), ("cpu_twin", "CPU twin")):
            for r in sb.get(k, []):
                out.append(f"| {label} | {r['n']} | {r['batch']} | {_f(r['ms'])} | {r['converged']} | "
                           f"{_f(r['max_abs_err'], '.1e')} |")
        for r in sb.get("scipy", []):
            out.append(f"| SciPy {r['method']} | {r['n']} | {r['batch']} | {_f(1e3 * r['s'], '.1f')} | - | "
                       f"{_f(r['max_abs_err'], '.1e')} |")
        out.append("")
    nr = spec["not_reproduced"]
    out += ["## Not reproduced", ""] + [f"- {row}: not reproduced ({nr['reason']})." for row in nr["rows"]]
    return "\n".join(out) + "\n"
