# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 5 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-9b4a337/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 42: the sweep's idiv in two divisions (not eight), r's digits by mask and shift, the tables' folds in
# chunks of max(16, isqrt(n / 4)); 9b4a337: Levy 1,000 1.54 s (sweep 1,332 us, chunks 81 us an iteration)
GPUBENCH_LOOP_TRACE=$SOL/loop_trace.jsonl timeout 120 python3 -m gpubench solve levy --dim 1000 --json \
  > $SOL/levy1000_trace.json 2> $SOL/levy1000_trace.err; say "levy1000 trace rc $?"
timeout 90 python3 -m gpubench solve levy --dim 1000 --json > $SOL/levy1000_plain.json 2> $SOL/levy1000_plain.err; say "levy1000 plain rc $?"
GPUBENCH_LOOP_TRACE=$SOL/loop_trace.jsonl timeout 60 python3 -m gpubench solve rosenbrock --dim 1000 \
  --max-iterations 15000 --json > $SOL/rosen1000_trace.json 2> $SOL/rosen1000_trace.err; say "rosenbrock trace rc $?"
timeout 90 python3 -m gpubench solve levy --dim 10000 --time-limit 80 --json > $SOL/levy10000.json \
  2> $SOL/levy10000.err; say "levy10000 rc $?"
# the sweep alone (the host loop's sweep_split) under Nsight Compute: where its instructions and loads go
timeout 150 ncu --clock-control none --kernel-name regex:sweep_split --launch-skip 3 --launch-count 1 \
  --section InstructionStats --section MemoryWorkloadAnalysis_Tables --section SourceCounters --section WarpStateStats \
  --section SpeedOfLight --print-details all \
  python3 -m gpubench solve levy --dim 1000 --loop host --max-iterations 6 > $SOL/ncu_sweep_details.txt 2>&1; say "ncu rc $?"
timeout 150 ncu --clock-control none --kernel-name regex:sweep_split --launch-skip 3 --launch-count 1 \
  --metrics sass__inst_executed_per_opcode,smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_local_st.sum,smsp__sass_inst_executed_op_global_ld.sum,l1tex__t_sector_pipe_lsu_mem_local_op_ld_hit_rate.pct,l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct,smsp__inst_executed.sum \
  --print-metric-instances values \
  python3 -m gpubench solve levy --dim 1000 --loop host --max-iterations 6 > $SOL/ncu_sweep_metrics.txt 2>&1; say "ncu metrics rc $?"
touch $W/all.done
