# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 3 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-f28758a/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 43: where a generation of the fast kernel with its new defaults (2 elements a lane under 96 registers,
# e30abd3) goes, at the two sizes left or just met: (100, 1e5) with 16 lanes a member as auto chose it
# (0.1932 ms at f28758a, target 0.132) and (1000, 1e4) (0.2016 ms).  ncu, clocks left alone (METHOD.md).
NCU="ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section InstructionStats --section MemoryWorkloadAnalysis --launch-skip 1 --launch-count 1"
timeout 100 $NCU --kernel-name regex:'de_fast' python3 -m gpubench minimize rastrigin --dim 100 --method de-gpu \
  --set np=100000 --set mode=fast --set threads_per_member=16 --set max_evaluations=3100000 \
  --set generations_per_launch=10 --backend cuda > $SOL/ncu_de_fast_100_1e5_t16.log 2>&1; say "ncu de_fast 100 1e5 rc $?"
timeout 100 $NCU --kernel-name regex:'de_fast' python3 -m gpubench minimize rastrigin --dim 1000 --method de-gpu \
  --set np=10000 --set mode=fast --set max_evaluations=310000 --set generations_per_launch=10 --backend cuda \
  > $SOL/ncu_de_fast_1000_1e4.log 2>&1; say "ncu de_fast 1000 1e4 rc $?"
touch $W/all.done
