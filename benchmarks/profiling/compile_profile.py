"""CPU seconds numba spends compiling each jitted function of a cold interval solve.

    GPUBENCH_CACHE=$(mktemp -d) NUMBA_NUM_THREADS=1 python benchmarks/profiling/compile_profile.py FUNCTION N [KEY=VALUE ...]

Runs the ``interval`` method on FUNCTION in N dimensions on the CPU with split_dims = N, once (the
KEY=VALUE pairs are further settings, as ``gpubench minimize --set``, e.g. ``evaluation=full``), and
lists the functions numba compiled, the slowest first, with their CPU seconds and how many
signatures each got.  The times are inclusive: a function's compilation includes that of the callees
it compiles first.  Run it with an empty ``GPUBENCH_CACHE`` (else numba loads the cached code and
compiles nothing).  A function listed with more than one signature was compiled again for each (a
literal argument, a uint64 loop index): see
tests/test_solver_split.py::test_generated_device_functions_get_no_literal_integer_arguments.
"""
import sys
import time

from numba.core import event


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    name, n = argv[0], int(argv[1])
    from gpubench.commands.minimize import parse_sets
    settings = {"split_dims": str(n), "backend": "cpu", **parse_sets(argv[2:])}
    spent = {}

    class Listener(event.Listener):
        def on_start(self, ev):
            row = spent.setdefault(id(ev.data["dispatcher"]), [ev.data["dispatcher"].py_func.__qualname__, 0.0, 0, 0.0])
            row[3] = time.process_time()

        def on_end(self, ev):
            row = spent[id(ev.data["dispatcher"])]
            row[1] += time.process_time() - row[3]
            row[2] += 1

    event.register("numba:compile", Listener())
    from gpubench import functions, methods
    start = time.process_time()
    method = methods.get("interval")
    result = method.run(functions.get(name), n, method.make_settings(settings, from_text=True))
    print(f"{name} n = {n}: {time.process_time() - start:.2f} CPU s in all, f = {result.fun:.10g}")
    for qualname, seconds, count, _ in sorted(spent.values(), key=lambda r: -r[1])[:30]:
        print(f"{seconds:8.2f} s  {count} signature(s)  {qualname}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
