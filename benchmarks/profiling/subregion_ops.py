"""Count the interval operations one subregion of the split sweep calls, and an iteration's cut tables (simulator).

    NUMBA_ENABLE_CUDASIM=1 .venv/bin/python benchmarks/profiling/subregion_ops.py [FUNCTION] [N] [S] [P]

One sweep of the selected region = the whole domain (GUB = inf, so every subregion runs the
gradient test too), cut as the first iteration cuts it (s coordinates into p parts, 10 samples), on
the simulated GPU forms (gpubench/methods/solver/simcount.py: ``subregion_operations``).  Counts, not
times: what an operation costs is the GPU's (docs/solver-scaling.md, "The kernel: work per
subregion").
"""
import sys


def main(function="levy", n=50, s=10, p=4):
    from gpubench.methods.solver.simcount import subregion_operations
    each, tables, plan, tb = subregion_operations(function, n, s, p)
    print(f"{function}, n = {n}, {plan.count:,} subregions ({len(plan.dims)} coordinates cut into {plan.parts}), "
          f"10 samples, GUB = inf")
    print(f"a subregion: {sum(each.values()):g} interval operations  "
          + ", ".join(f"{k} {v:g}" for k, v in each.most_common()))
    print(f"the cut tables, once an iteration ({tb.samp.shape[0] * tb.vtotal + tb.dtotal} values): "
          f"{sum(tables.values()):g} interval operations  " + ", ".join(f"{k} {v:g}" for k, v in tables.most_common()))


if __name__ == "__main__":
    a = sys.argv[1:]
    main(a[0] if a else "levy", *(int(v) for v in a[1:4]))
