# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 5 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-48c0e75/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 42: where the device loop's iteration goes, phase by phase (GPUBENCH_LOOP_TRACE: the kernel's own
# clock after each grid sync); the untraced solve beside it for the trace's cost (fb370fc..7e9d185: 1.94-1.99 s)
timeout 90 python3 -m gpubench solve levy --dim 1000 --json > $SOL/levy1000_plain.json 2> $SOL/levy1000_plain.err; say "levy1000 plain rc $?"
for k in 1 2; do
GPUBENCH_LOOP_TRACE=$SOL/loop_trace.jsonl timeout 120 python3 -m gpubench solve levy --dim 1000 --json \
  > $SOL/levy1000_trace$k.json 2> $SOL/levy1000_trace$k.err; say "levy1000 trace rc $?"
done
GPUBENCH_LOOP_TRACE=$SOL/loop_trace.jsonl timeout 60 python3 -m gpubench solve rosenbrock --dim 1000 \
  --max-iterations 20000 --json > $SOL/rosen1000_trace.json 2> $SOL/rosen1000_trace.err; say "rosenbrock trace rc $?"
GPUBENCH_LOOP_TRACE=$SOL/loop_trace.jsonl timeout 130 python3 -m gpubench solve levy --dim 10000 --time-limit 110 \
  --json > $SOL/levy10000_trace.json 2> $SOL/levy10000_trace.err; say "levy10000 trace rc $?"
# the sweep alone (the host loop's sweep_split: the same evaluate_split_mv) under Nsight Compute
timeout 150 ncu --clock-control none --kernel-name regex:sweep_split --launch-skip 3 --launch-count 1 \
  --section SpeedOfLight --section LaunchStats --section Occupancy --section InstructionStats \
  --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
  python3 -m gpubench solve levy --dim 1000 --loop host --max-iterations 8 > $SOL/ncu_sweep_split.txt 2>&1; say "ncu rc $?"
touch $W/all.done
