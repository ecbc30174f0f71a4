# Run queues of `gpubench reproduce ID --backend cuda` on the GPU host, one queue per GPU, resumable across 10-minute commands.
#
#     bash scripts/gpu_queue.sh SECONDS "ID ID ..." ["ID ID ..." ...]
#
# An ID may name entries of its experiment: `fei2014_table4@approximate,exact` runs
# `gpubench reproduce fei2014_table4 --entries approximate,exact` (a table's GPU rows only).
#
# The item `asv-history` (or `asv-history%K/N`: every N-th commit from the K-th, one queue per GPU)
# runs the asv benchmarks of the commits packed into .whl/asv by `python -m benchmarks.history pack`
# (docs/benchmarks.md), each commit's own suite, into results/asv/<machine>/; stored commits are
# skipped, so it resumes.
# `ID@ENTRIES%K/N` runs share K of N (`--shard K/N`).  A queue that starts with `cpu:` runs on the
# host's CPU cores: no GPU is visible to it and no `--backend cuda` is passed (a table's CPU column,
# MAiNGO), and `cpu:ID@ENTRIES%N` (or `gN:ID@ENTRIES%N`, on GPU N) starts N such queues, share 1/N to N/N, side by side.  GPU queues
# are numbered apart from CPU queues.
#
# With one GPU queue, every GPU of the machine stays visible to it (an experiment whose cases use
# several GPUs at once, kim_exatron_table5, takes them all; the others use GPU 0); with several,
# queue i sees GPU i alone.  A queue written `gN:ID ...` sees GPU N alone, whatever its place: several
# such queues share one GPU (many short cases side by side) while another GPU keeps a queue whose
# timings must not be shared (the asv history).
# from the repository root on the host, with .whl/ carried (scripts/gpu_host_env.sh: the numpy
# 2.4 wheel and the peers; gpubench is installed into /tmp/gpb/<commit> and run from outside the
# checkout).  Each quoted list is the queue of one GPU (the first list GPU 0, the next GPU 1, ...).
# The first call on a machine copies the repository's records of the queued experiments, and
# those of the last pack if it is carried back as .whl/queue.tgz, into /tmp/q/results, then starts
# every queue as its own process session (setsid), so that it outlives the command while the
# machine is held.  Every call then waits at most SECONDS and packs /tmp/q/results into
# $OUT/queue.tgz; a later call on the same machine only waits and packs again.  A case is a record
# written atomically, and `gpubench reproduce` skips the stored ones, so a killed or timed-out
# queue loses at most the case it was running, and the next command (on any machine) continues;
# a resumable case (paper 004's Table 1) loses at most its last 30 s: its checkpoint, beside its
# record, is in the pack.
# Unpack the pack's results/ over the checkout's and commit the records.
#
# What travels to the GPU host is capped at 64 MiB, and the tracked results/ and reports/ (about
# 80 MB) exceed it: send a sparse checkout that keeps only the queued experiments' records, e.g.
#     git sparse-checkout set --no-cone '/*' '!/results/' '!/reports/' '/results/fei2014_table4/'
# and `git sparse-checkout disable` afterwards (the repository itself is unchanged).
set -u
WAIT=${1:?usage: bash scripts/gpu_queue.sh SECONDS \"ID ...\" [\"ID ...\" ...]}
shift
[ $# -ge 1 ] || { echo "gpu_queue: name at least one queue of experiment ids" >&2; exit 2; }
export GPUBENCH_COMMIT=${GPUBENCH_COMMIT:-$(cat .whl/COMMIT 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown)}
export HOME=/tmp/h
Q=${GPUBENCH_QUEUE_DIR:-/tmp/q}     # a test points it elsewhere
mkdir -p $Q/results $HOME
ROOT=$PWD
source scripts/gpu_host_env.sh || exit 1     # leaves us in /tmp/run, outside the checkout
export GPUBENCH_RESULTS=$Q/results
log() { echo "[$(date +%T)] $*" | tee -a $Q/queue.log; }

if [ ! -e $Q/started ]; then
    [ -e $ROOT/.whl/queue.tgz ] && tar -xzf $ROOT/.whl/queue.tgz -C $Q
    # a claim in the pack is the last machine's process, gone with it: its case (and the checkpoint
    # a resumable case left beside it) is taken up here, not left to a host that no longer runs it
    find $Q/results -name '.*.claim' -delete 2>/dev/null
    # expand `cpu:ID%N` (or `gN:ID%N`) into N queues, one share each
    queues=()
    for queue in "$@"; do
        case "$queue" in cpu:*|g[0-9]:*|g[0-9][0-9]:*) pre=1;; *) pre=;; esac
        if [ -n "$pre" ] && [ "${queue##*%}" != "$queue" ] && [ "${queue##*%}" -eq "${queue##*%}" ] 2>/dev/null; then
            nsh=${queue##*%}
            for k in $(seq 1 $nsh); do queues+=("${queue%\%*}%$k/$nsh"); done
        else
            queues+=("$queue")
        fi
    done
    # the asv history runs from a copy: the device tool replaces the carried checkout at every
    # command, and a queue whose folder was replaced under it could not start a process there
    case " $* " in *asv-history*) mkdir -p $Q/history && cp -r $ROOT/benchmarks $Q/history/ &&
                                  { [ ! -d $ROOT/.whl/asv ] || cp -r $ROOT/.whl/asv $Q/history/; };; esac
    ngpu=0
    for queue in "${queues[@]}"; do [ "${queue#cpu:}" = "$queue" ] && ngpu=$((ngpu + 1)); done
    i=0; g=0
    for queue in "${queues[@]}"; do
        cpu=; [ "${queue#cpu:}" != "$queue" ] && cpu=1 && queue=${queue#cpu:}
        pin=; case "$queue" in g[0-9]:*|g[0-9][0-9]:*) pin=${queue%%:*}; pin=${pin#g}; queue=${queue#*:};; esac
        for id in $queue; do
            id=${id%%@*}; id=${id%%%*}; [ "$id" = asv-history ] && id=asv
            [ -d $ROOT/results/$id ] && cp -rn $ROOT/results/$id $Q/results/
        done
        if [ -n "$cpu" ]; then
            log "queue $i on the CPU: $queue"
            vis=""; backend=""
        else
            vis=${CUDA_VISIBLE_DEVICES-all}; [ $ngpu -gt 1 ] && vis=$g
            [ -n "$pin" ] && vis=$pin || g=$((g + 1))
            log "queue $i on GPU $vis: $queue"
            backend="--backend cuda"
        fi
        ( if [ "$vis" != all ]; then export CUDA_VISIBLE_DEVICES=$vis; fi
          setsid bash -c "for id in $queue; do
            sh=\${id#*%}; [ \"\$sh\" = \"\$id\" ] && sh=; id=\${id%%%*}
            e=\${id#*@}; [ \"\$e\" = \"\$id\" ] && e=
            echo \"[\$(date +%T)] queue $i: \$id \$sh\"
            if [ \"\$id\" = asv-history ]; then
                (cd $Q/history && python3 -m benchmarks.history run $Q/history/asv --results $Q/results/asv --work /tmp/asvh-$i \${sh:+--shard \$sh})
            else
                python3 -m gpubench reproduce \${id%%@*} $backend \${e:+--entries \$e} \${sh:+--shard \$sh}
            fi || echo \"queue $i: \$id failed (\$?)\"
        done; echo \"[\$(date +%T)] queue $i: done\"; touch $Q/done.$i" >> $Q/queue.log 2>&1 < /dev/null & )
        i=$((i + 1))
    done
    echo $i > $Q/started
fi

n=$(cat $Q/started)
T0=$SECONDS
while [ $((SECONDS - T0)) -lt $WAIT ] && [ "$(ls $Q/done.* 2>/dev/null | wc -l)" -lt "$n" ]; do sleep ${GPUBENCH_QUEUE_POLL:-5}; done   # a test polls faster
log "$(ls $Q/done.* 2>/dev/null | wc -l) of $n queue(s) done; records: $(find $Q/results -name '*.json' | wc -l)"
tail -n 20 $Q/queue.log
mkdir -p ${OUT:-$ROOT/out}
tar -czf ${OUT:-$ROOT/out}/queue.tgz -C $Q results queue.log
