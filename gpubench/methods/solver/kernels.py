"""The subregion sweeps' device code, as spliced after a function's generated forms.

The code itself lives in real modules, :mod:`gpubench.methods.solver.spliced` (each lints, imports
with stand-in forms and compiles to PTX alone); here it is read as the texts that
:func:`gpubench.forms.codegen.load` appends to a function's generated module, so the kernels call the
function's ``interval``, ``value_split_raw``, ``window_terms`` ... directly and are compiled and cached
on disk with them (one compiled kernel per function and variant).
"""
import os
from functools import lru_cache

from .spliced import text as _text

# the cut points of an interval and a box's sub-boxes (also spliced by methods/subdomain_bnb.py)
CUT = _text("cut")
# the iteration's cut tables laid out (also spliced into the host's CPU forms, uncut.HOST_BASES)
CUT_LAYOUT = _text("layout")
# what every sweep calls: the cut, the layout, one subregion bounded (full or split), the cut tables' values
SHARED = CUT + CUT_LAYOUT + _text("subregion")
CPU_DRIVER = _text("cpu")
GPU_DRIVER = _text("gpu_full")
GPU_SPLIT_DRIVER = _text("gpu_split")
# the whole iteration on the device (Settings.loop = "device", devloop.py): its tables, then its launch
GPU_LOOP_DRIVER = _text("loop_tables") + _text("loop")

# The device loop's register cap (``GPUBENCH_LOOP_REGISTERS`` overrides it): uncapped, the fused
# kernel takes 170 and a cooperative grid holds 2 blocks of 128 an SM.  128 (4 blocks an SM, the sweep
# spill-free by ptxas) beat 64 (8 blocks, spilling) in all three H200 runs at Levy n = 1,000 with the
# same iterations and regions: 1.99 against 2.25 s with the preload (results/gpu/solve-fff6266/loopcaps),
# 3-10 % in two earlier warm-cache runs; docs/solver-scaling.md
LOOP_REGISTERS = 128


def _sized(source, name, value, default):
    """``source`` with its compile-time constant ``name = default`` set to ``value``."""
    old = f"\n{name} = {default}\n"
    if old not in source:
        raise ValueError(f"{name} = {default} not found in a spliced module")
    return source.replace(old, f"\n{name} = {value}\n")


def cut_capacity(s, n, parts, count):
    """(value entries a row, derivative entries) that hold any iteration's cut tables (kernels.CUT_LAYOUT)
    for s cut coordinates of n into ``parts``: an entry is tabulated only while smaller than ``count``."""
    one = parts if parts < count else 1
    two = parts * parts if parts * parts < count else one
    return s * one + min(2 * s, n) * two + 2 * one, 3 * min(3 * s + 2, n) * two


def nmax_for(n):
    """Compile-time size of the per-thread arrays: a power of two >= n, at least 128.

    One size for every n <= 128 means one compilation serves n = 50 and n = 100;
    only the first n entries are ever touched.
    """
    m = 128
    while m < n:
        m *= 2
    return m


def smax_for(s):
    """Compile-time size of the per-thread arrays of the split sweep: a power of two >= s, at least 16."""
    m = 16
    while m < s:
        m *= 2
    return m


def loop_registers():
    """Registers a thread of ``device_loop`` may use.  Uncapped, the fused kernel takes 170 and a
    cooperative grid gets 2 blocks of 128 threads an SM (12.5 % occupancy, measured by ncu on an
    H200), so its sweep phase waits on latency; a cap trades spills for resident warps.
    ``GPUBENCH_LOOP_REGISTERS`` (0: no cap) overrides it for measuring."""
    given = os.environ.get("GPUBENCH_LOOP_REGISTERS", str(LOOP_REGISTERS))
    if not given.isdigit():
        from ...errors import InputError
        raise InputError(f"GPUBENCH_LOOP_REGISTERS={given!r} is not a register count (0: no cap)")
    return int(given)


def loop_carveout():
    """The device loop's preferred shared memory carveout, a percent of the SM's unified L1 and shared
    memory (-1: the driver's choice, the default).  ``GPUBENCH_LOOP_CARVEOUT`` sets it for measuring:
    the kernel's local memory (its per-thread arrays and spills) is cached in the L1 part, which
    ncu found hit 38 % at Levy n = 1,000 with the driver's choice (a 135 KB shared configuration where
    the 8 resident blocks use 57 KB).  Below what the resident blocks need, the occupancy query
    (and so the cooperative grid) shrinks: 25 keeps 8 blocks of 128 threads (64 KB)."""
    given = os.environ.get("GPUBENCH_LOOP_CARVEOUT", "-1")
    if not (given == "-1" or given.isdigit() and int(given) <= 100):
        from ...errors import InputError
        raise InputError(f"GPUBENCH_LOOP_CARVEOUT={given!r} is not a percent 0-100 (-1: the driver's choice)")
    return int(given)


def loop_trace():
    """Where the device loop's phase trace goes (``GPUBENCH_LOOP_TRACE``: a JSON-lines file, one line a
    search: the nanoseconds of each phase between its grid syncs, ``devloop.TRACE_PHASES``), or None.
    The kernel is built with ``TRACE = 1`` then (a kernel of its own, cached apart): one thread reads
    the GPU's clock after every sync; without it the stamps are compiled out."""
    return os.environ.get("GPUBENCH_LOOP_TRACE") or None


@lru_cache(maxsize=None)
def extensions(backend, nmax=None, smax=None, loop=False):
    """The kernels appended to the generated module: the full sweep (``nmax`` given), the split one,
    or with ``loop`` the device-resident iteration (``device_loop``, which runs the split sweep)."""
    if backend == "cpu":
        return (SHARED, CPU_DRIVER)
    if loop:
        driver = _sized(GPU_LOOP_DRIVER, "SMAX", smax, 16)
        driver = _sized(driver, "CARVEOUT", loop_carveout(), -1)
        driver = _sized(driver, "TRACE", 1 if loop_trace() else 0, 0)
        return (SHARED, _sized(driver, "MAX_REGISTERS", loop_registers(), LOOP_REGISTERS))
    if smax is not None:
        return (SHARED, _sized(GPU_SPLIT_DRIVER, "SMAX", smax, 16))
    return (SHARED, _sized(GPU_DRIVER, "NMAX", nmax, 128))
