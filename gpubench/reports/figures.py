"""The reports' figures (matplotlib, drawn without a display): time against n, GLB/GUB/|L| against
iteration, each method's best value against the rigorous enclosure."""
import math

RESOURCES = ("laptop", "workstation", "local_server", "cloud_server")
RESOURCE_TITLES = {"laptop": "Laptop", "workstation": "Workstation", "local_server": "Local server",
                   "cloud_server": "Cloud server"}


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def fit_exponent(ns, ts):
    """Slope of log t against log n (least squares), or None with fewer than two distinct n."""
    import numpy as np
    pts = [(n, t) for n, t in zip(ns, ts) if n and t and t > 0]
    if len({n for n, _ in pts}) < 2:
        return None
    x = np.log([n for n, _ in pts])
    y = np.log([t for _, t in pts])
    return float(np.polyfit(x, y, 1)[0])


def _adjust(fig, nrows, ncols, right_axis=False):
    """Fixed margins in inches: tight_layout took seconds per figure on log axes."""
    w, h = fig.get_size_inches()
    gap_w = 1.4 if right_axis else 0.75
    fig.subplots_adjust(left=0.75 / w, right=1 - (0.65 if right_axis else 0.15) / w,
                        bottom=0.55 / h, top=1 - 0.95 / h,
                        wspace=gap_w * ncols / (w - gap_w * ncols) if ncols > 1 else 0.2,
                        hspace=0.75 * nrows / (h - 0.75 * nrows) if nrows > 1 else 0.2)


def _grid(count, ncols=3):
    ncols = min(ncols, count)
    nrows = (count + ncols - 1) // ncols
    return nrows, ncols


def _time_figure(path, functions, measured, published, title):
    """Time against n, log-log, per function: measured (filled) and published (hollow) series."""
    plt = _plt()
    nrows, ncols = _grid(len(functions))
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.4 * ncols + 0.4, 3.3 * nrows + 0.6), squeeze=False)
    exps = {}
    for k, f in enumerate(functions):
        ax = axes[k // ncols][k % ncols]
        pts = sorted(measured.get(f, []))
        if pts:
            ns, ts = zip(*pts)
            e = fit_exponent(ns, ts)
            exps[(f, "measured")] = e
            ax.plot(ns, ts, "o-", color="k", label="measured" + (f" (slope {e:.2f})" if e is not None else ""))
        else:
            ax.text(0.5, 0.5, "measured: missing", transform=ax.transAxes, ha="center", va="center",
                    color="k", weight="bold")
        for j, res in enumerate(RESOURCES):
            pp = sorted(published.get((f, res), []))
            if not pp:
                continue
            ns, ts = zip(*pp)
            e = fit_exponent(ns, ts)
            exps[(f, res)] = e
            ax.plot(ns, ts, "s--", mfc="none", color=f"C{j}", alpha=0.8,
                    label=f"published {RESOURCE_TITLES[res]}" + (f" (slope {e:.2f})" if e is not None else ""))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.minorticks_off()  # log minor ticks made each figure 3 times slower to draw
        ax.set_title(f, fontsize=10)
        ax.set_xlabel("n")
        ax.set_ylabel("time (s)")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    for k in range(len(functions), nrows * ncols):
        axes[k // ncols][k % ncols].axis("off")
    fig.suptitle(title, fontsize=11)
    _adjust(fig, nrows, ncols)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return exps


def _history_figure(path, records, title):
    """GLB and GUB (as distances to f*, log scale) and |L| (right axis) against iteration, per solve."""
    plt = _plt()
    floor = 1e-16
    nrows, ncols = _grid(len(records))
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.6 * ncols + 0.6, 3.2 * nrows + 0.6), squeeze=False)
    for k, r in enumerate(records):
        ax = axes[k // ncols][k % ncols]
        h = r.get("history") or {}
        it = h.get("iteration") or list(range(1, len(h.get("glb", [])) + 1))
        fstar = r["fstar"]

        def dist(values, sign):
            return [max(sign * (v - fstar), floor) if v is not None and math.isfinite(v) else float("nan")
                    for v in values]
        ax.step(it, dist(h.get("gub", []), 1), where="post", color="C1", label="GUB − f*")
        ax.step(it, dist(h.get("glb", []), -1), where="post", color="C0", label="f* − GLB")
        ax.set_yscale("log")
        ax.minorticks_off()
        ax.set_ylim(bottom=floor / 3)
        ax.set_xlabel("iteration")
        ax.set_ylabel("distance to f*")
        ax.set_title(f"{r['function']}, n = {r['dim']}: [{r['measured']['glb']:.3g}, {r['measured']['gub']:.3g}]",
                     fontsize=9)
        ax2 = ax.twinx()
        ax2.step(it, h.get("list_size", []), where="post", color="C2", lw=0.8, alpha=0.8, label="|L|")
        ax2.set_yscale("log")
        ax2.minorticks_off()
        ax2.set_ylabel("|L|", color="C2")
        lines = ax.get_legend_handles_labels()
        lines2 = ax2.get_legend_handles_labels()
        ax.legend(lines[0] + lines2[0], lines[1] + lines2[1], fontsize=7, loc="upper right")
    for k in range(len(records), nrows * ncols):
        axes[k // ncols][k % ncols].axis("off")
    fig.suptitle(title + f"\n(distances below {floor:g} drawn at {floor:g})", fontsize=9)
    _adjust(fig, nrows, ncols, right_axis=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)


def _methods_figure(path, rows, enclosure, published, title):
    """Each method's best value (bars; measured only), published values (x), the rigorous enclosure."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(rows) + 1.8))
    ys = list(range(len(rows)))
    for y, (name, value, pub) in zip(ys, rows):
        if value is None:
            ax.text(0.02, y, "missing", va="center", color="C3", transform=ax.get_yaxis_transform())
        else:
            ax.barh(y, value, color="C0", height=0.6, label="measured best f" if y == 0 or not ax.patches else None)
        if pub is not None:
            ax.plot([pub], [y], "x", color="k", ms=8)
    ax.plot([], [], "x", color="k", label=f"published ({published})")
    ax.plot([], [], "s", color="C0", label="measured best f")
    if enclosure is not None:
        lo, hi = enclosure
        ax.axvspan(min(lo, 0), max(hi, 0), color="C2", alpha=0.4)
        ax.axvline(hi, color="C2", lw=1.5, label=f"rigorous enclosure [{lo:.3g}, {hi:.3g}]")
    else:
        ax.plot([], [], " ", label="rigorous enclosure: missing")
    ax.axvline(0, color="k", lw=0.6, ls=":")
    ax.set_yticks(ys, [r[0] for r in rows])
    ax.invert_yaxis()
    ax.set_xlabel("best function value found (f* = 0)")
    handles, labels = ax.get_legend_handles_labels()
    uniq = dict(zip(labels, handles))
    ax.legend(uniq.values(), uniq.keys(), fontsize=8, loc="lower right")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
