"""cocopp, COCO's post-processor, on gpubench's COCO data (docs/interop.md).

:func:`gpubench.reports.coco_data.write_coco` writes one bbob-new2 data set per method, with the suite
name ``gpubench``.  cocopp knows its own suites only (``bbob``, ``bbob-largescale``, ...): it
maps a suite name to a *testbed*, a class that states the functions, dimensions and targets
to show.  :func:`register_testbed` adds that class for our suite, from our side, through
cocopp's module-level registry (``cocopp.testbedsettings.suite_to_testbed``); no cocopp file
is changed.  Its functions and dimensions are read from the data sets themselves (the ``%
function K = NAME`` lines and ``DIM`` fields of the ``.info`` files), its targets are COCO's
bbob targets (f* + 10^k, k = 2 ... -8, the targets of :mod:`gpubench.reports.compare`).  There is no
reference algorithm (COCO's "best 2009" is of other functions).

cocopp 2.9.1 imports ``six`` without declaring it (the ``test`` extra installs it).  On import
it tries to list its online data archive (and keeps going, with a warning, when that fails);
:func:`cocopp` imports it with every network connection refused at once, so that an offline
host neither waits for a timeout nor connects anywhere.  Only local folders are passed to it.
"""
import contextlib
import io
import re
from pathlib import Path

from ...errors import InputError

SUITE = "gpubench"
TESTBED = "GpubenchTestbed"
_FUNCTION_LINE = re.compile(r"^%\s*function\s+(\d+)\s*=\s*(\S+)")
_FIELD = re.compile(r"(\w+)\s*=\s*'?([^',]*)'?")


def cocopp():
    """The ``cocopp`` module, imported without network access (see the module's docstring)."""
    import sys
    if "cocopp" in sys.modules:
        return sys.modules["cocopp"]
    import socket
    import warnings

    import matplotlib
    matplotlib.use("Agg")

    def refuse(*args, **kwargs):
        raise OSError("gpubench: no network for cocopp's online archive")

    saved = socket.socket.connect, socket.create_connection, socket.getaddrinfo
    socket.socket.connect, socket.create_connection, socket.getaddrinfo = refuse, refuse, refuse
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*(failed to connect|Failed fo find workable URL|exists).*")
            with contextlib.redirect_stdout(io.StringIO()):
                import cocopp as module
    finally:
        socket.socket.connect, socket.create_connection, socket.getaddrinfo = saved
    return module


def describe(folders):
    """({funcId: function name}, sorted dimensions, sorted instance numbers) stated by the
    ``.info`` files of ``folders``."""
    names, dims, instances = {}, set(), set()
    for folder in folders:
        infos = sorted(Path(folder).glob("*.info"))
        if not infos:
            raise InputError(f"{folder}: no COCO .info file (not a data set written by gpubench)")
        for info in infos:
            for line in info.read_text().splitlines():
                m = _FUNCTION_LINE.match(line)
                if m:
                    names[int(m.group(1))] = m.group(2)
                elif line.startswith("suite") or line.startswith("funcId"):
                    fields = dict(_FIELD.findall(line))
                    if fields.get("suite", SUITE) != SUITE:
                        raise InputError(f"{info}: suite {fields['suite']!r}, not {SUITE!r}")
                    dims.add(int(fields["DIM"]))
                elif line.strip() and not line.startswith("%"):  # "file.dat, 1:evals|error, 2:..."
                    instances.update(int(run.split(":")[0]) for run in line.split(",")[1:] if ":" in run)
    if not names or not dims:
        raise InputError(f"{', '.join(map(str, folders))}: no function or dimension stated")
    return names, sorted(dims), sorted(instances)


def register_testbed(names, dims, instances, folder):
    """Make cocopp process suite ``gpubench`` with functions ``names`` ({funcId: name}) in ``dims``,
    run as ``instances`` (the repetitions; cocopp expects them on every function and n).

    ``folder`` receives the one-line-per-function description cocopp shows (its
    "benchmarkinfos" file).  Returns the testbed class.  Registering again replaces it.
    """
    cocopp()
    from cocopp import genericsettings, testbedsettings as tbs

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    info = folder / f"{SUITE}-benchmarkinfos.txt"
    info.write_text("".join(f"{k} {names[k]} (gpubench library)\n" for k in sorted(names)))
    fids = sorted(names)
    settings = dict(tbs.GECCOBBOBTestbed.settings)
    settings.update(
        name=SUITE,
        info_filename=str(info.resolve()),  # cocopp joins it to its folder: an absolute path stays
        shortinfo_filename=str(info.resolve()),
        flex_navigation_json_file="",  # no interactive ECDF page (it describes bbob's 24 functions)
        short_names={k: names[k] for k in fids},
        dimensions_to_display=tuple(dims),
        goto_dimension=dims[-1],
        rldDimsOfInterest=tuple(dims[:2]),
        tabDimsOfInterest=tuple(dims[:2]),
        functions_with_legend=(fids[0], fids[-1]),
        first_function_number=fids[0],
        last_function_number=fids[-1],
        reference_algorithm_filename=None,
        reference_algorithm_displayname=None,
        instancesOfInterest={i: 1 for i in instances},
        plots_on_main_html_page=[f"pprldmany_{d:02d}D_noiselessall.svg" for d in dims],
    )

    class GpubenchTestbed(tbs.GECCOBBOBTestbed):
        """gpubench's library functions (the comparison's), targets f* + 10^k, k = 2 ... -8."""

        def __init__(self, target_values):
            for key, val in settings.items():
                setattr(self, key, val)
            self.instantiate_attributes(target_values)

        def filter(self, dsl):
            for ds in dsl:
                if ds.suite_name != SUITE:
                    raise ValueError(f"data of suite {ds.suite_name} mixed with suite {SUITE}")
            return dsl

    if settings["instancesOfInterest"] not in genericsettings.instancesOfInterest:
        genericsettings.instancesOfInterest.append(settings["instancesOfInterest"])
    GpubenchTestbed.settings = settings
    GpubenchTestbed.dimsOfInterest = tuple(dims[:2])
    setattr(tbs, TESTBED, GpubenchTestbed)  # cocopp looks the class up by name in its module
    tbs.suite_to_testbed[SUITE] = TESTBED
    return GpubenchTestbed


def run(folders, output, quiet=True):
    """Run ``cocopp.main`` on the data sets ``folders`` (one per method) into ``output``.

    Returns the path of cocopp's main page, ``output/index.html``.  ``quiet``: cocopp's
    own printing goes to a buffer (returned as ``.log`` beside the page).
    """
    module = cocopp()
    folders = [Path(f).resolve() for f in folders]
    for f in folders:
        if not f.is_dir():
            raise InputError(f"{f}: not a folder")
    output = Path(output).resolve()
    register_testbed(*describe(folders), output)
    from cocopp import genericsettings, testbedsettings
    testbedsettings.reset_current_testbed()
    genericsettings.interactive_mode = False
    argv = ["-o", str(output), "--no-svg", *map(str, folders)]
    import warnings
    log = io.StringIO()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with contextlib.redirect_stdout(log) if quiet else contextlib.nullcontext():
            module.main(argv)
    # cocopp's warnings (e.g. a run whose first evaluation is not in its trace) go to its log
    log.write("".join(f"warning: {w.message}\n" for w in caught))
    output.mkdir(parents=True, exist_ok=True)
    (output / "cocopp.log").write_text(log.getvalue())
    page = output / "index.html"
    if not page.is_file():
        raise RuntimeError(f"cocopp wrote no {page}; its output:\n{log.getvalue()[-2000:]}")
    return page


def load(folder, workdir):
    """cocopp's own reading of one data set (a ``cocopp.pproc.DataSetList``), the suite registered
    first; ``workdir`` receives the testbed's description file."""
    cocopp()
    from cocopp import pproc, testbedsettings
    folder = Path(folder).resolve()
    register_testbed(*describe([folder]), workdir)
    testbedsettings.reset_current_testbed()
    with contextlib.redirect_stdout(io.StringIO()):
        return pproc.DataSetList(str(folder))


def main(argv=None):
    """``python -m gpubench.reports.interop.coco ARCHIVE_OR_FOLDER OUT``: cocopp on every method's data set
    of a comparison's COCO output (``reports/coco/<experiment>-<variant>.zip`` or its folder)."""
    import argparse
    import sys
    import tempfile
    import time
    import zipfile
    p = argparse.ArgumentParser(prog="python -m gpubench.reports.interop.coco", description=main.__doc__)
    p.add_argument("data", help="reports/coco/<experiment>-<variant>.zip, or a folder of data sets")
    p.add_argument("out", help="cocopp's output folder (its index.html)")
    args = p.parse_args(argv)
    try:
        src = Path(args.data)
        with tempfile.TemporaryDirectory() as tmp:
            if src.suffix == ".zip" and src.is_file():
                with zipfile.ZipFile(src) as z:
                    z.extractall(tmp)
                src = next(Path(tmp).iterdir())
            if not src.is_dir():
                raise InputError(f"{args.data}: neither a .zip archive nor a folder")
            folders = sorted(f for f in src.iterdir() if f.is_dir() and any(f.glob("*.info")))
            if not folders:
                raise InputError(f"{args.data}: no COCO data set (a folder with a .info file)")
            t0 = time.perf_counter()
            page = run(folders, args.out)
        print(f"cocopp on {len(folders)} data set(s) in {time.perf_counter() - t0:.0f} s: {page}")
        return 0
    except InputError as exc:
        print(f"gpubench: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
