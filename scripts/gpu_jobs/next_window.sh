# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another, never beside each
# other; $R the checkout's copy, $W the window's folder, $SOL its loose outputs; jobs run from
# /tmp/run, so a script of the checkout is named $R/...).  Order: the cheapest measurements first, the
# long ones last (a window cut short loses the end).  Pack:
#     bash scripts/gpu_pack.sh results/scipy_go_certify/interval_strong-*.json
# About 9 minutes.  What ran before: results/gpu/solve-fff6266/ and the windows before it (READMEs there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# 1. issue 42: where numpy's 0.3 s import goes on this host (OPENBLAS_NUM_THREADS ruled out at fff6266)
for i in 1 2; do python3 -X importtime -c "import numpy" 2> $SOL/numpy_importtime_$i.log; done
python3 -X importtime -c "from numba import cuda" 2> $SOL/numba_cuda_importtime.log; say "importtime done"
# 2. issue 42: Levy n = 1,000 typed in at the new default register cap 128 (9471962; 1.99 s at fff6266 by
# loop_caps), a first process (compiles) then a second
S() { name=$(echo "$*" | tr ' ' '_' | tr -d '.'); timeout 300 python3 -m gpubench solve "$@" --json > $SOL/$name.json 2> $SOL/$name.err; say "solve $*: rc $?"; }
S levy --dim 1000; mv $SOL/levy_--dim_1000.json $SOL/levy_--dim_1000_first.json; S levy --dim 1000
# 3. issue 43: L-BFGS-B starts, lanes = 4 now the default (0.362 s at fff6266): 2 lanes and a 128 cap
# beside it, and n = 100 (1,000 starts) a thread a start against the default
M() { name=$1; shift; timeout 90 python3 -m gpubench minimize levy --method lbfgsb-gpu --backend cuda "$@" --json \
  > $SOL/min_$name.json 2> $SOL/min_$name.err; say "minimize $name rc $?"; }
M levy10_lanes4 --dim 10 --set starts=10000
M levy10_lanes2 --dim 10 --set starts=10000 --set lanes=2
M levy10_lanes4_r128 --dim 10 --set starts=10000 --set registers=128
M levy100_lanes1 --dim 100 --set starts=1000 --set lanes=1 --set threads=8
M levy100_lanes4 --dim 100 --set starts=1000
# ... and where a lanes = 4 launch's time goes (ncu of a later launch, its cap grown: a05499a's lanes = 1
# launch had 10 % occupancy at 228 registers)
timeout 120 ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy \
  --section LaunchStats --section InstructionStats --section MemoryWorkloadAnalysis --kernel-name regex:'lbfgsb' \
  --launch-skip 3 --launch-count 1 python3 -m gpubench minimize levy --dim 10 --method lbfgsb-gpu --set starts=10000 \
  --backend cuda > $SOL/ncu_lbfgsb_levy10_1e4_lanes4.log 2>&1; say "ncu lbfgsb lanes 4 rc $?"
# 4. issue 43: de-gpu after its unsigned indices and no 64-bit division / remainder a member (467f52d;
# static SASS of the member loop 2,832 -> 2,404 stream, 2,194 -> 1,868 fast; the same draws and float
# operations).  ncu as a05499a (1,903,371,118 instructions / 1e6 member-generations then; the run must
# print best f = 1199.412283, as before), then the device_peers entries beside EvoX in a fresh folder
NCU="ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section InstructionStats --section MemoryWorkloadAnalysis --launch-skip 1 --launch-count 1"
timeout 120 $NCU --kernel-name regex:'de_stream[^_]' python3 -m gpubench minimize rastrigin --dim 100 --method de-gpu \
  --set np=100000 --set mode=stream --set max_evaluations=3100000 --set generations_per_launch=10 --backend cuda \
  > $SOL/ncu_de_stream_100_1e5.log 2>&1; say "ncu de_stream rc $? $(grep -h 'best f' $SOL/ncu_de_stream_100_1e5.log)"
timeout 300 python3 -m gpubench reproduce device_peers_de_evox --backend cuda --results $SOL/de \
  --entries degpu,degpu_stream,degpu_stream_t16,degpu_fast,evox > $SOL/de.log 2>&1; say "de entries rc $?"
touch $W/all.done
