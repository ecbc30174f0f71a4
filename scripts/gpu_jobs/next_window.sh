# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 4 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-5956f77/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 43: torsion with lf_pair and lf_move in 64 registers, lf_reduced uncapped (the landing kernels)
# (64a6a25, lf_reduced at 80 registers: 0.20 / 0.24 / 0.47-0.48 / 1.03-1.06; f6ba30c, lf_pair capped, a slow torsion f: 0.23 / 0.34 / 0.91 / 4.85; c14dfab, lf_pair 142 registers: 0.22 / 0.29 / 0.60-0.62 / 1.44; 9ff4d4c, 4 x 4 blocks in both: 0.21-0.27 / 0.27 / 0.53-0.56 / 1.21-1.22; d033409, a thread a product: 0.26 / 0.34 / 0.65 / 1.40; 9d8f4be, lane partials in local arrays: graph 0.22 / 0.32 / 0.56-0.58 / 1.24-1.28; 5956f77: graph 0.24-0.26 / 0.28-0.29 / 0.56-0.57 / 1.45-1.48 ms an iteration; ncu at 4e6: lf_reduced 452 us,
# lf_pair 300 us, lf_move 131 us)
timeout 200 python3 $R/scripts/gpu_lbfgsb_batched.py --sizes 10000,160000,1000000,4000000 --iterations 100 \
  --drivers bound,graph,bound,graph > $SOL/lbfgsb_graph.jsonl 2> $SOL/lbfgsb_graph.err; say "graph rc $?"
for n in 4000000 1000000; do
timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,launch__grid_size \
  --csv --log-file $SOL/ncu_torsion_$n.csv python3 $R/scripts/gpu_lbfgsb_batched.py --sizes $n --iterations 4 \
  --drivers bound > $SOL/ncu_torsion_$n.log 2>&1; say "ncu torsion $n rc $?"
done
gzip -f $SOL/ncu_torsion_*.csv
# the product's record, jaxopt in the same run (4ec9272: 0.224 / 0.259 / 0.579 / 1.559 ms; targets 0.5 / 0.5 / 0.6 / 1.0)
XLA_PYTHON_CLIENT_PREALLOCATE=false timeout 300 python3 -m gpubench reproduce device_peers_lbfgsb_jaxopt \
  --backend cuda --results $SOL/jaxopt > $SOL/jaxopt.log 2>&1; say "jaxopt rc $?"
touch $W/all.done
