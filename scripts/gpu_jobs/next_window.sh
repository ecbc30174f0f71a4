# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 4 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-903743a/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 43: torsion with lf_reduced in two phases (streamed x_c, then the flagged tiles' products)
# (903743a: graph 0.18 / 0.23-0.24 / 0.42 / 0.88 ms an iteration; record 0.180 / 0.203 / 0.413 / 1.066)
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
