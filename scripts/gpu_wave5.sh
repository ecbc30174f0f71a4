# The fifth wave's runs on the two-GPU host (nvidia-h200-x2), the same command each time:
#     bash scripts/gpu_wave5.sh [SECONDS]        (default 560: what this command waits)
# from the repository root, with .whl carried (numpy 2.4, jaxopt, evox, dask, asv wheels; the
# commit in .whl/COMMIT, the repository as .whl/repo.bundle for asv).
#
# The first call on a machine restores paper 001's stored rows (only the missing ones run) into
# /tmp/o and starts three queues as their own process sessions (setsid), each pinned to its own
# cores (taskset), so that they outlive the command while the machine is held:
#   q0: GPU 0, cores 0-5: paper 001's missing rows (scripts/gpu_bnb.py parts 1 and 2), then
#       share 0 of 2 of the comparison's GPU-capable cases (scripts/gpu_compare.py);
#   q1: GPU 1, cores 6-11: where the host's imports come from; the start-up profile of
#       `gpubench solve levy --dim 50 --backend cuda` once per commit (scripts/startup_profile.py,
#       cold then second processes; the first command, at 410b480, named it startup_cuda.json);
#       the asv GPU benchmarks (the issue-11 set first: second process, large-n solves, cold
#       compile); then share 1 of 2;
#   q2: no GPU, cores 12-31: the comparison's CPU-only cases (SciPy's methods), 20 at a time.
# Every call waits (at most SECONDS) and packs /tmp/o into $OUT/wave5.tgz; a later call on the
# same machine only waits and packs again.  Every step is resumable, so on a fresh machine the
# same command restarts from what the repository carries plus what the last pack held, if
# that pack is carried back as .whl/wave5.tgz.
set -u
export GPUBENCH_COMMIT=${GPUBENCH_COMMIT:-$(cat .whl/COMMIT 2>/dev/null || echo unknown)}
export HOME=/tmp/h
mkdir -p /tmp/o $HOME
T0=$SECONDS
log() { echo "[$(date +%T)] $*" | tee -a /tmp/o/phases.txt; }
show_profile() {  # FILE: each run's total and phases, in seconds
    [ -e "$1" ] && python3 -c "
import json, sys; d = json.load(open(sys.argv[1]))
for r in d['runs']: print(r['total_s'], json.dumps(r['phases_s']), r.get('solver_seconds'))" "$1"
}
pin() { if command -v taskset >/dev/null; then echo "taskset -c $1"; fi; }

compare_share() {  # NAME OPTIONS...: until nothing of the share remains, or three budgets' worth
    local name=$1; shift
    for i in 1 2 3; do
        python3 $REPO/scripts/gpu_compare.py /tmp/o/compare "$@" --budget 900 >> /tmp/o/compare_${name}_log.txt 2>&1
        tail -n 1 /tmp/o/compare_${name}_log.txt | grep -q "; 0 remain" && break
    done
}

q0() {
    for part in 1 2; do
        python3 $REPO/scripts/gpu_bnb.py /tmp/o/paper001 --part $part --budget 540 >> /tmp/o/bnb_log.txt 2>&1
        log "bnb part $part exit $?"
    done
    compare_share gpu0 --gpu-only --share 0/2
    log "compare share 0/2 done"
}

q1() {
    # where the host's imports go (the first profile found sympy's import at 1.8 s, 9x this CPU's)
    python3 -c "import os, sys, sympy, numpy; d = os.path.dirname(sympy.__file__)
print('sympy at', d, 'writable', os.access(d, os.W_OK), 'pycache', os.path.isdir(os.path.join(d, '__pycache__')),
      'dont_write_bytecode', sys.flags.dont_write_bytecode, 'prefix', sys.pycache_prefix, 'numpy at', numpy.__file__)" \
        > /tmp/o/imports_${GPUBENCH_COMMIT}.txt 2>&1
    for prefix in "" /tmp/pyc /tmp/pyc; do
        echo "PYTHONPYCACHEPREFIX=$prefix: $(PYTHONPYCACHEPREFIX=$prefix python3 -X importtime -c 'import sympy' 2>&1 | tail -n 1)" \
            >> /tmp/o/imports_${GPUBENCH_COMMIT}.txt
    done
    [ -e /tmp/o/startup_cuda_$GPUBENCH_COMMIT.json ] || python3 $REPO/scripts/startup_profile.py levy --dim 50 \
        --backend cuda --cold --runs 3 --out /tmp/o/startup_cuda_$GPUBENCH_COMMIT.json > /tmp/o/startup_log.txt 2>&1
    log "startup profile exit $?"
    [ -e /tmp/o/asv_results.tgz ] || ( cd $REPO && git config --global --add safe.directory '*' && rm -rf .git && git init -q \
        && git fetch -q .whl/repo.bundle "+HEAD:refs/heads/main" && git symbolic-ref HEAD refs/heads/main
      export ASV_PYTHONPATH=$PYTHONPATH
      M=$(python3 -m benchmarks.tools machine); H=$(git rev-parse HEAD)
      python3 -m asv machine --yes --machine $M > /dev/null
      R() { timeout $1 python3 -m asv run --python=same --set-commit-hash $H --machine $M --show-stderr \
                --bench "$2" >> /tmp/o/asv_log.txt 2>&1; log "asv '$2' exit $?"; }
      R 330 'SecondProcess|CudaLargeSolve|ColdJitCuda'
      R 330 'CudaSolve|CudaIteration|LbfgsbGpu|TronHs45|DeGpu'
      tar czf /tmp/o/asv_results.tgz results/asv )
    compare_share gpu1 --gpu-only --share 1/2
    log "compare share 1/2 done"
}

q2() {
    compare_share cpu --cpu-only --workers 20
    log "compare cpu-only done"
}

if [ "${1:-}" = q0 ] || [ "${1:-}" = q1 ] || [ "${1:-}" = q2 ]; then
    source scripts/gpu_host_env.sh > /dev/null || exit 1
    "$1"
    touch /tmp/o/$1.done
    exit 0
fi

END=${1:-560}
source scripts/gpu_host_env.sh || exit 1
cd $REPO
if [ ! -e /tmp/o/started ]; then
    touch /tmp/o/started
    [ -e .whl/wave5.tgz ] && tar xzf .whl/wave5.tgz -C /tmp && rm -f /tmp/o/started.* /tmp/o/q?.done && touch /tmp/o/started
    log "start on $(nvidia-smi -L | wc -l) GPU(s), $(nproc) cores, commit $GPUBENCH_COMMIT"
    mkdir -p /tmp/o/paper001/rows /tmp/o/compare && cp -n results/paper001/h200/rows/*.json /tmp/o/paper001/rows/
    CUDA_VISIBLE_DEVICES=0 NUMBA_NUM_THREADS=6 setsid nohup $(pin 0-5) bash scripts/gpu_wave5.sh q0 \
        > /tmp/o/q0.txt 2>&1 < /dev/null &
    CUDA_VISIBLE_DEVICES=1 NUMBA_NUM_THREADS=6 setsid nohup $(pin 6-11) bash scripts/gpu_wave5.sh q1 \
        > /tmp/o/q1.txt 2>&1 < /dev/null &
    NUMBA_NUM_THREADS=1 setsid nohup $(pin 12-31) bash scripts/gpu_wave5.sh q2 \
        > /tmp/o/q2.txt 2>&1 < /dev/null &
fi
while [ $((SECONDS - T0)) -lt $END ] && ! { [ -e /tmp/o/q0.done ] && [ -e /tmp/o/q1.done ] && [ -e /tmp/o/q2.done ]; }; do
    sleep 5
done
log "waited $((SECONDS - T0)) s; done: $(ls /tmp/o/*.done 2>/dev/null | xargs -n1 basename 2>/dev/null | tr '\n' ' ')"
tail -n 2 /tmp/o/*log*.txt /tmp/o/q?.txt 2>/dev/null | cut -c1-300
ls /tmp/o/compare/results/compare 2>/dev/null | wc -l
for f in /tmp/o/startup_cuda*.json; do show_profile $f; done
cat /tmp/o/imports_*.txt 2>/dev/null
nvidia-smi --query-gpu=index,utilization.gpu,memory.used --format=csv
tar czf $OUT/wave5.tgz -C /tmp o 2>/dev/null
ls -la $OUT
