# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 3 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-3fe0e16/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# 1. issue 43: torsion with lf_reduced's block sums in shared memory (3fe0e16: graph 0.32 / 0.46-0.49 / 0.74-0.76 /
# 1.39-1.40 ms an iteration at 1e4 / 1.6e5 / 1e6 / 4e6), bound and graph alternated twice
timeout 200 python3 $R/scripts/gpu_lbfgsb_batched.py --sizes 10000,160000,1000000,4000000 --iterations 100 \
  --drivers bound,graph,bound,graph > $SOL/lbfgsb_graph.jsonl 2> $SOL/lbfgsb_graph.err; say "graph rc $?"
# 2. every launch's time and DRAM bytes at 1e6 (ncu, the bound driver, 4 iterations)
timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,launch__grid_size \
  --csv --log-file $SOL/ncu_torsion_1000000.csv python3 $R/scripts/gpu_lbfgsb_batched.py --sizes 1000000 --iterations 4 \
  --drivers bound > $SOL/ncu_torsion_1000000.log 2>&1; say "ncu torsion rc $?"
gzip -f $SOL/ncu_torsion_*.csv
touch $W/all.done
