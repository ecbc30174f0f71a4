# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 3 minutes.  What ran before: results/gpu/solve-46902c0/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 43: lf_reduced without the barrier after a tile's products (the next tile's vote is one; 6154c9f late
# at 4e6: 230 us): ncu of the same late launches, two whole runs, the 100-iteration figures, the record
timeout 150 ncu --clock-control none --launch-skip 20000 --launch-count 60 \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,launch__grid_size \
  --csv --log-file $SOL/ncu_late_4000000.csv python3 $R/scripts/gpu_lbfgsb_batched.py --sizes 4000000 --iterations 2600 \
  --drivers bound > $SOL/ncu_late_4000000.log 2>&1; say "ncu late rc $?"
gzip -f $SOL/ncu_late_*.csv
for k in 1 2; do
timeout 60 python3 $R/scripts/gpu_lbfgsb_batched.py --sizes 4000000 --iterations 3600 --drivers graph \
  --trace $SOL/lbfgsb_trace.jsonl >> $SOL/lbfgsb_whole.jsonl 2>> $SOL/lbfgsb_whole.err; say "whole rc $?"
done
gzip -f $SOL/lbfgsb_trace.jsonl
timeout 120 python3 $R/scripts/gpu_lbfgsb_batched.py --sizes 10000,160000,1000000,4000000 --iterations 100 \
  --drivers bound,graph > $SOL/lbfgsb_graph.jsonl 2> $SOL/lbfgsb_graph.err; say "graph rc $?"
XLA_PYTHON_CLIENT_PREALLOCATE=false timeout 300 python3 -m gpubench reproduce device_peers_lbfgsb_jaxopt \
  --backend cuda --results $SOL/jaxopt > $SOL/jaxopt.log 2>&1; say "jaxopt rc $?"
touch $W/all.done
