# One GPU window of mixed jobs, resumable across 10-minute device commands (beside gpu_queue.sh,
# which runs queues of `gpubench reproduce` only).
#
#     bash scripts/gpu_window.sh SECONDS JOBS.sh
#
# JOBS.sh is a bash script of product commands (`gpubench reproduce / solve / minimize`, the
# profiling scripts), run one after another, never beside each other: a timing must not share
# its host (2026-11-28: Table 5's batch timings stalled while one-GPU jobs ran beside it).  It
# runs from a copy of the checkout ($R = $W/tree, W=/tmp/q: the device tool replaces the checkout at every
# command) with scripts/gpu_host_env.sh sourced, GPUBENCH_RESULTS=$W/results (the checkout's
# results/ copied in first, so `reproduce` skips stored cases and resumes from a carried
# checkpoint), and $SOL=$W/results/gpu/solve-<commit> for loose outputs; its last step should
# `touch $W/all.done`.  The first call starts it as its own process session (it outlives the
# command while the machine is held); every call waits at most SECONDS, or until all.done, and
# packs what changed under $W since the start into $OUT: res.tgz (records, logs) and ckpt.tar
# (checkpoints, the largest).  Unpack both over the checkout and commit the records; keep the
# checkpoint of an unfinished case in results/ so the next window's `reproduce` goes on from it.
# Stop a job early with `pkill -TERM -f "[g]pubench reproduce ID"` (a case saves its checkpoint).
# The window's JOBS.sh and this script's logs belong in results/gpu/solve-<commit>/ with the records.
set -u
WAIT=${1:?usage: bash scripts/gpu_window.sh SECONDS JOBS.sh}
JOBS=${2:?usage: bash scripts/gpu_window.sh SECONDS JOBS.sh}
[ -f "$JOBS" ] || { echo "gpu_window: no job file $JOBS" >&2; exit 2; }
W=${GPUBENCH_WINDOW_DIR:-/tmp/q}      # a test points it elsewhere
mkdir -p $W/results
if [ ! -e $W/started ]; then
    rm -rf $W/tree; mkdir -p $W/tree; cp -r $(ls -A | grep -v "^.git$") $W/tree/; cp "$JOBS" $W/tree/.window-jobs.sh
    [ -d results ] && cp -rn results/. $W/results/
    touch $W/marker; sleep 1
    (cd $W/tree && W=$W setsid bash -c "export GPUBENCH_COMMIT=\$(cat .whl/COMMIT 2>/dev/null || echo unknown) HOME=/tmp/h
        mkdir -p \$HOME; source scripts/gpu_host_env.sh || exit 1
        export GPUBENCH_RESULTS=$W/results R=$W/tree W=$W SOL=$W/results/gpu/solve-\${GPUBENCH_COMMIT:0:7}
        mkdir -p \$SOL; bash $W/tree/.window-jobs.sh" > $W/window.log 2>&1 < /dev/null &)
    touch $W/started
fi
T0=$SECONDS
while [ $((SECONDS - T0)) -lt $WAIT ] && [ ! -e $W/all.done ]; do sleep ${GPUBENCH_WINDOW_POLL:-5}; done
echo "== window.log"; tail -n 40 $W/window.log
mkdir -p ${OUT:-out}
OUTD=$(cd ${OUT:-out} && pwd)
(cd $W && find results -newer marker -type f ! -name '*.checkpoint.npz' ! -name '.*' > list.txt
 tar -czf $OUTD/res.tgz -T list.txt window.log
 find results -newer marker -type f -name '*.checkpoint.npz' > ck.txt
 if [ -s ck.txt ]; then tar -cf $OUTD/ckpt.tar -T ck.txt; fi)
ls -la $OUTD
