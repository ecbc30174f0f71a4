# Source this on the GPU host (bash): installs the carried wheels and gpubench without touching
# the host's numba/numba-cuda, and exports the paths.  numpy 2.5 there breaks numba-cuda 0.30, so
# a numpy 2.4 wheel travels in .whl/ (with the peers missing there, pure-Python wheels: evox,
# evosax, jaxopt, dotmap; docs/peers.md); see ../shared/notes/gpu.md and docs/reproduction.md.
# Set GPUBENCH_COMMIT before sourcing.
if [ "$(cat /tmp/site/.wheels 2>/dev/null)" != "$(ls .whl/*.whl)" ]; then
    # compiled to bytecode at the install, as a user's pip install does: without it every process
    # compiled numpy's modules from source again (0.21 s of a second process's 1.6 s, cProfile at
    # ac54d57: 133 modules; where PYTHONDONTWRITEBYTECODE is set an import never writes them)
    python3 -m pip install -q --no-index --no-deps --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || return 1
    ls .whl/*.whl > /tmp/site/.wheels
fi
export PYTHONPATH=/tmp/site
# gpubench goes to a folder of its own commit (/tmp/gpb/<commit>): a warm machine may hold another
# commit's, and a process still running from it (a setsid queue) must not lose its files
GPB=/tmp/gpb/${GPUBENCH_COMMIT:-unknown}
if [ ! -e $GPB/.done ] || [ "${GPUBENCH_COMMIT:-unknown}" = unknown ]; then
    rm -rf $GPB; python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-cache-dir --target $GPB . >/dev/null 2>&1 || return 1
    touch $GPB/.done
fi
export PYTHONPATH=$GPB:/tmp/site PYTHONUNBUFFERED=1
export GPUBENCH_CACHE=${GPUBENCH_CACHE:-/tmp/gpubench-cache}
python3 -c "import numpy, numba, numba_cuda; from numba import cuda; print('numpy', numpy.__version__, 'numba', numba.__version__, 'gpu', cuda.get_current_device().name)"
echo "PYTHONDONTWRITEBYTECODE=${PYTHONDONTWRITEBYTECODE-unset}"
# the repository's own gpubench/ folder would shadow the installed package (functions/ and
# experiments/ are mapped into it only by the install): run from elsewhere
export REPO=$PWD
mkdir -p /tmp/run && cd /tmp/run
