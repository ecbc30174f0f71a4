# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 3 minutes.  What ran before: results/gpu/solve-b21e9a0/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 43: lf_reduced's column, free flag and r loaded at once (b21e9a0 late at 4e6: 305 us, 1.7 TB/s), in
# blocks of 256 (as the other passes) and of 128 threads: ncu of the same late launches, whole runs traced
for rt in 256 128; do
timeout 150 ncu --clock-control none --launch-skip 20000 --launch-count 60 \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,launch__grid_size \
  --csv --log-file $SOL/ncu_late_4000000_r$rt.csv python3 $R/scripts/gpu_lbfgsb_batched.py --sizes 4000000 --iterations 2600 \
  --drivers bound --reduced-threads $rt > $SOL/ncu_late_4000000_r$rt.log 2>&1; say "ncu late $rt rc $?"
done
gzip -f $SOL/ncu_late_*.csv
for rt in 256 128 256 128; do
timeout 60 python3 $R/scripts/gpu_lbfgsb_batched.py --sizes 4000000 --iterations 3600 --drivers graph --reduced-threads $rt \
  --trace $SOL/lbfgsb_trace.jsonl >> $SOL/lbfgsb_whole.jsonl 2>> $SOL/lbfgsb_whole.err; say "whole $rt rc $?"
done
gzip -f $SOL/lbfgsb_trace.jsonl
for rt in 256 128; do
timeout 120 python3 $R/scripts/gpu_lbfgsb_batched.py --sizes 10000,160000,1000000 --iterations 100 \
  --drivers graph --reduced-threads $rt >> $SOL/lbfgsb_graph.jsonl 2>> $SOL/lbfgsb_graph.err; say "graph $rt rc $?"
done
touch $W/all.done
