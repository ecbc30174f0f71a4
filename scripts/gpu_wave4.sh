# The fourth wave's runs on the two-GPU host (nvidia-h200-x2), the same command each time:
#     bash scripts/gpu_wave4.sh [SECONDS]        (default 560: what this command waits)
# from the repository root, with .whl carried (numpy 2.4, jaxopt, evox, dask, asv wheels; the
# commit in .whl/COMMIT, the repository as .whl/repo.bundle for asv).
#
# The first call on a machine restores the state the repository carries (the stored solver rows
# and paper 001's rows, so that only what is missing runs; Table 1 of paper 004's Lennard-Jones row, Table S12's chunks and records, the
# two-worker Table 1 run) into /tmp/o and starts two queues as their own process sessions
# (setsid), so they outlive the command while the machine is held:
#   chain0: GPU 0, cores 0-15: paper 001's rows (scripts/gpu_bnb.py parts 1 and 2), the asv GPU
#           benchmarks, Table S12's rigorous row;
#   chain1: GPU 1, cores 16-31: Rosenbrock n = 1,000 resumed, Table 1 through Dask on one GPU
#           (scripts/gpu_multi.py --workers 1), paper 004's Table 1 Ginzburg-Landau rows, the last
#           Nelder-Mead runs of Table S12, then paper 004's torsion side by side and multi-start.
# Unlike wave 3 nothing else loads the host: each queue has half the cores (16, as on the
# one-GPU host) and its own GPU, so host-bound timings are clean up to the other queue's memory
# traffic.  Every call waits (at most SECONDS) and packs /tmp/o into $OUT/wave4.tgz; a later
# call on the same machine only waits and packs again.  Every script is resumable, so on a
# fresh machine the same command restarts from what the repository carries.
# What ran (commit 3b34270): two commands on one machine, then a third on a fresh one (the
# reply to the second came after the 30 s idle limit), which repeated the queues' first steps
# before the session's device time ran out: chain0 never reached asv or the rigorous S12 row,
# and paper 001's part 2 stopped after 8 of 24 rows.  results/gpu/README.md lists what each stored.
set -u
export GPUBENCH_COMMIT=${GPUBENCH_COMMIT:-$(cat .whl/COMMIT 2>/dev/null || echo unknown)}
export HOME=/tmp/h
mkdir -p /tmp/o $HOME
T0=$SECONDS
log() { echo "[$(date +%T)] $*" | tee -a /tmp/o/phases.txt; }
# half the cores to each queue (taskset, where the host has it)
if command -v taskset >/dev/null; then PIN0="taskset -c 0-15" PIN1="taskset -c 16-31"; else PIN0= PIN1=; fi

chain0() {
    python3 $REPO/scripts/gpu_bnb.py /tmp/o/paper001 --part 1 --budget 480 > /tmp/o/bnb1_log.txt 2>&1
    log "bnb part 1 exit $?"
    python3 $REPO/scripts/gpu_bnb.py /tmp/o/paper001 --part 2 --budget 480 > /tmp/o/bnb2_log.txt 2>&1
    log "bnb part 2 exit $?"
    ( cd $REPO && git config --global --add safe.directory '*' && rm -rf .git && git init -q \
        && git fetch -q .whl/repo.bundle "+HEAD:refs/heads/main" && git symbolic-ref HEAD refs/heads/main
      export ASV_PYTHONPATH=$PYTHONPATH
      M=$(python3 -m benchmarks.tools machine); H=$(git rev-parse HEAD)
      python3 -m asv machine --yes --machine $M > /dev/null
      timeout 420 python3 -m asv run --python=same --set-commit-hash $H --machine $M --show-stderr \
          --bench 'Cuda|SecondProcess|LbfgsbGpu|TronHs45|DeGpu' > /tmp/o/asv_log.txt 2>&1
      log "asv exit $?"; tar czf /tmp/o/asv_results.tgz results/asv )
    mkdir -p /tmp/o/s12rig && [ -d /tmp/o/s12rig/tableS12 ] || cp -r $REPO/results/tableS12 /tmp/o/s12rig/
    timeout 300 python3 -m gpubench reproduce tableS12 --results /tmp/o/s12rig --backend cuda > /tmp/o/s12rig_log.txt 2>&1
    log "S12 rigorous row exit $?"
    for part in 1 2; do   # rows a budget cut, if any
        python3 $REPO/scripts/gpu_bnb.py /tmp/o/paper001 --part $part --budget 300 >> /tmp/o/bnb${part}_log.txt 2>&1
    done
    log "bnb reruns done"
}

chain1() {
    python3 $REPO/scripts/gpu_scale.py /tmp/o/scale --cases rosenbrock:1000 --budget 1200 > /tmp/o/scale/log_rosenbrock.txt 2>&1
    log "rosenbrock exit $?: $(tail -n 1 /tmp/o/scale/log_rosenbrock.txt)"
    timeout 600 python3 $REPO/scripts/gpu_multi.py /tmp/o/multi --workers 1 --warm > /tmp/o/multi_w1.txt 2>&1
    log "one GPU table1 exit $?"
    python3 $REPO/scripts/gpu_lbfgsb.py /tmp/o/lbfgsb_t1 --only table1 --table1-budget 600 > /tmp/o/lbfgsb_t1_log.txt 2>&1
    log "fei2014 table1 GPU rows exit $?"
    timeout 300 python3 $REPO/scripts/host_s12.py /tmp/o/s12 --experiment tableS12 --budget 240 --workers 16 \
        > /tmp/o/s12_log.txt 2>&1
    log "S12 chunks exit $?"
    timeout 600 python3 $REPO/scripts/gpu_lbfgsb.py /tmp/o/lbfgsb > /tmp/o/lbfgsb_log.txt 2>&1
    log "lbfgsb side by side exit $?"
}

if [ "${1:-}" = chain0 ] || [ "${1:-}" = chain1 ]; then
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
    log "start on $(nvidia-smi -L | wc -l) GPU(s), $(nproc) cores, commit $GPUBENCH_COMMIT"
    mkdir -p /tmp/o/scale/checkpoints /tmp/o/lbfgsb_t1 /tmp/o/multi /tmp/o/s12
    zcat results/gpu/scale/solver_h200.jsonl.gz > /tmp/o/scale/solver_h200.jsonl   # stored cases are skipped, not redone
    mkdir -p /tmp/o/paper001/rows && cp results/paper001/h200/rows/*.json /tmp/o/paper001/rows/  # only missing rows run
    cp results/gpu/lbfgsb/fei2014_table1_gpu.json /tmp/o/lbfgsb_t1/   # Lennard-Jones: kept, not redone
    cp results/gpu/multi/multi_gpu.jsonl /tmp/o/multi/                # the two-worker run: K=1 is compared with it
    cp -r results/gpu/s12/chunks /tmp/o/s12/
    CUDA_VISIBLE_DEVICES=0 NUMBA_NUM_THREADS=16 setsid nohup $PIN0 bash scripts/gpu_wave4.sh chain0 \
        > /tmp/o/chain0.txt 2>&1 < /dev/null &
    CUDA_VISIBLE_DEVICES=1 NUMBA_NUM_THREADS=16 setsid nohup $PIN1 bash scripts/gpu_wave4.sh chain1 \
        > /tmp/o/chain1.txt 2>&1 < /dev/null &
fi
while [ $((SECONDS - T0)) -lt $END ] && ! { [ -e /tmp/o/chain0.done ] && [ -e /tmp/o/chain1.done ]; }; do sleep 5; done
log "waited $((SECONDS - T0)) s; chain0 done: $([ -e /tmp/o/chain0.done ] && echo yes || echo no), chain1 done: $([ -e /tmp/o/chain1.done ] && echo yes || echo no)"
tail -n 3 /tmp/o/*.txt /tmp/o/scale/log*.txt 2>/dev/null | cut -c1-300
nvidia-smi --query-gpu=index,utilization.gpu,memory.used --format=csv
tar czf $OUT/wave4.tgz -C /tmp o 2>/dev/null
ls -la $OUT
