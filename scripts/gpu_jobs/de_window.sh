# GPU jobs for issue 43 (de-gpu against EvoX), for scripts/gpu_window.sh (run one after another, never
# beside other jobs; $R the checkout's copy, $W the window's folder, $SOL its loose outputs).  About
# 7 minutes.  Pack: bash scripts/gpu_pack.sh (no records: the reproduce writes into a fresh folder).
# What ran before: results/gpu/solve-a05499a/ (ncu), solve-a89fb72/ and solve-ee7994e/ (the entries).
# Since then (degpu branch): unsigned array indices, no 64-bit division or remainder a member in the
# stream and fast kernels: sm_90 member loop 2832 -> 2404 SASS (stream), 2194 -> 1868 (fast), by
# benchmarks/profiling/de_sass_counts.py; the same random draws and float operations.
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# 1. ncu of the two kernels, the commands of a05499a's window unchanged: instructions a member
# (a05499a: 1,903,371,118 / 1e6 member-generations for de_stream at (100, 1e5); 1,692,830,967 / 1e6 for
# de_fast at (100, 1e4)), registers, warps a scheduler.  Same bits: the stream run must print best f =
# 1199.412283 (counter-based draws, whatever the launch), the fast run 870.3382949 (its launch, 130-136
# registers, 3 blocks an SM, unchanged).
NCU="ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section InstructionStats --section MemoryWorkloadAnalysis --launch-skip 1 --launch-count 1"
timeout 120 $NCU --kernel-name regex:'de_stream[^_]' python3 -m gpubench minimize rastrigin --dim 100 --method de-gpu \
  --set np=100000 --set mode=stream --set max_evaluations=3100000 --set generations_per_launch=10 --backend cuda \
  > $SOL/ncu_de_stream_100_1e5.log 2>&1; say "ncu de_stream rc $? $(grep -h 'best f' $SOL/ncu_de_stream_100_1e5.log)"
timeout 120 $NCU --kernel-name regex:'de_fast' python3 -m gpubench minimize rastrigin --dim 100 --method de-gpu \
  --set np=10000 --set mode=fast --set max_evaluations=3010000 --set generations_per_launch=100 --backend cuda \
  > $SOL/ncu_de_fast_100_1e4.log 2>&1; say "ncu de_fast rc $? $(grep -h 'best f' $SOL/ncu_de_fast_100_1e4.log)"
# 2. the device_peers entries, one run, a fresh folder: auto, the stream and fast kernels with their
# default groups and 16 lanes, EvoX beside them (targets: 1.5x EvoX at (100, 1e5), 2x at (1000, 1e4))
timeout 480 python3 -m gpubench reproduce device_peers_de_evox --backend cuda --results $SOL/de \
  --entries degpu,degpu_stream,degpu_stream_t16,degpu_fast,degpu_fast_t16,evox \
  > $SOL/de.log 2>&1; say "de entries rc $?"
touch $W/all.done
