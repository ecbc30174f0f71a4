# The runs of the third wave on a two-GPU host (nvidia-h200-x2), as back-to-back commands of
# under 10 minutes each:
#     bash scripts/gpu_wave3.sh 1|2|3|4
# What ran: phases 1 and 2 on one machine, then phase 4 on a fresh one (the first machine went
# back between commands, so phase 3, written for the same machine, never ran; phase 4 is its
# fresh-machine form with the S12 chunks carried in .gpu_state/s12).  results/gpu/README.md
# lists what each stored.
# from the repository root, with .whl carried (numpy 2.4, jaxopt, evox, dask, asv wheels; the
# commit in .whl/COMMIT, the repository as .whl/repo.bundle for asv).
#
# Each phase gives each GPU one queue (CUDA_VISIBLE_DEVICES), so no two timed GPU runs share a
# GPU, and runs the CPU-only chunks of Table S12 (scripts/host_s12.py) on 22 of the 32 cores
# beside them.  Every run is bounded by `timeout` so the phase ends inside its command; every
# script is resumable, so what a bound cuts continues in the next phase.  Outputs accumulate in
# /tmp/o (kept while the machine is held) and each phase packs them into $OUT/wave3.tgz.
# Rosenbrock n = 1,000 runs as its own process session (setsid), started in phase 1: it outlives
# the command that started it and checkpoints (deflated, a few MB) into /tmp/o/scale.
set -u
phase=$1
export GPUBENCH_COMMIT=${GPUBENCH_COMMIT:-$(cat .whl/COMMIT 2>/dev/null || echo unknown)}
source scripts/gpu_host_env.sh || exit 1
export ASV_PYTHONPATH=$PYTHONPATH HOME=/tmp/h
mkdir -p /tmp/o $HOME
T0=$SECONDS
END=${WAVE3_SECONDS:-570}
left() { echo $(( END - (SECONDS - T0) > 5 ? END - (SECONDS - T0) : 5 )); }
log() { echo "[$((SECONDS - T0)) s] $*" | tee -a /tmp/o/phases.txt; }
on() { local g=$1; shift; CUDA_VISIBLE_DEVICES=$g timeout $(left) "$@"; }
s12() { timeout $(left) python3 $REPO/scripts/host_s12.py /tmp/o/s12 --experiment tableS12 --budget $(( $(left) - 30 )) \
            --workers 22 > /tmp/o/s12_log_$phase.txt 2>&1; log "s12 exit $?"; }
compare() { on $1 python3 $REPO/scripts/gpu_compare.py /tmp/o/compare --budget $(( $(left) - 20 )) --workers 4 \
            >> /tmp/o/compare_log.txt 2>&1; log "compare on GPU $1 exit $?"; }
log "phase $phase on $(nvidia-smi -L | wc -l) GPU(s), commit $GPUBENCH_COMMIT"

if [ "$phase" = 1 ]; then
    mkdir -p /tmp/o/scale
    CUDA_VISIBLE_DEVICES=1 setsid nohup python3 $REPO/scripts/gpu_scale.py /tmp/o/scale --cases rosenbrock:1000 \
        --budget 1500 > /tmp/o/scale/log_rosenbrock.txt 2>&1 < /dev/null &
    s12 & S12=$!
    on 0 python3 $REPO/scripts/gpu_multi.py /tmp/o/multi --workers 1 --warm > /tmp/o/multi_w1.txt 2>&1
    log "one GPU exit $?"
    compare 0
    wait $S12
elif [ "$phase" = 2 ]; then
    s12 & S12=$!
    ( on 0 python3 $REPO/scripts/gpu_de.py /tmp/o/de --tables none --budget 240 > /tmp/o/de_log.txt 2>&1
      log "de exit $?"
      on 0 python3 $REPO/scripts/gpu_lbfgsb.py /tmp/o/lbfgsb > /tmp/o/lbfgsb_log.txt 2>&1
      log "lbfgsb exit $?" ) &
    while pgrep -f "gpu_scale.py /tmp/o/scale" >/dev/null && [ $(left) -gt 60 ]; do sleep 5; done
    log "rosenbrock: $(tail -n 1 /tmp/o/scale/log_rosenbrock.txt)"
    # asv only on a free GPU 1 (a timed run must not share it with Rosenbrock)
    pgrep -f "gpu_scale.py /tmp/o/scale" >/dev/null || ( cd $REPO && git config --global --add safe.directory '*' && rm -rf .git && git init -q \
        && git fetch -q .whl/repo.bundle "+HEAD:refs/heads/main" && git symbolic-ref HEAD refs/heads/main
      M=$(python3 -m benchmarks.tools machine); H=$(git rev-parse HEAD)
      python3 -m asv machine --yes --machine $M > /dev/null
      CUDA_VISIBLE_DEVICES=1 timeout $(( $(left) < 200 ? $(left) : 200 )) python3 -m asv run --python=same --set-commit-hash $H --machine $M \
          --show-stderr --bench 'CudaLargeSolve|SecondProcessSolve' > /tmp/o/asv_log.txt 2>&1
      log "asv exit $?"; tar czf /tmp/o/asv_results.tgz results/asv )
    compare 1
    wait
elif [ "$phase" = 4 ]; then
    # a fresh machine after the first two: the S12 chunks so far travel in .gpu_state/s12
    [ -d /tmp/o/s12 ] || cp -r $REPO/.gpu_state/s12 /tmp/o/s12
    s12 & S12=$!
    on 0,1 python3 $REPO/scripts/gpu_multi.py /tmp/o/multi --workers 2 --warm > /tmp/o/multi_w2.txt 2>&1
    log "two GPUs exit $?"
    on 1 python3 $REPO/scripts/gpu_bnb.py /tmp/o/paper001 --part 1 --sections lb100x,fig6ab,fig6cd,table1 \
        --budget $(( $(left) - 40 )) > /tmp/o/bnb1_log.txt 2>&1 &
    on 0 python3 $REPO/scripts/gpu_multi.py /tmp/o/multi --workers 1 > /tmp/o/multi_w1.txt 2>&1
    log "one GPU exit $?"
    wait
    grep -h -i "memory\|killed" /tmp/o/multi/w*.log | head -5
else
    s12 & S12=$!
    on 0,1 python3 $REPO/scripts/gpu_multi.py /tmp/o/multi --workers 2 > /tmp/o/multi_w2.txt 2>&1
    log "two GPUs exit $?"
    on 0 python3 $REPO/scripts/gpu_bnb.py /tmp/o/paper001 --part 1 --budget $(( $(left) - 60 )) > /tmp/o/bnb1_log.txt 2>&1 &
    on 1 python3 $REPO/scripts/gpu_bnb.py /tmp/o/paper001 --part 2 --budget $(( $(left) - 60 )) > /tmp/o/bnb2_log.txt 2>&1 &
    wait
    log "bnb done"
fi
log "phase $phase done"
tail -n 4 /tmp/o/*.txt /tmp/o/*/log*.txt 2>/dev/null | cut -c1-300
tar czf $OUT/wave3.tgz -C /tmp o 2>/dev/null
ls -la $OUT
