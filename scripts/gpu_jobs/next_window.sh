# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 7 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-abe28a0/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# 1. issue 43: torsion with the small algebra staged by whole blocks (abe28a0: bound 0.50 / 0.81 / 1.10 /
# 1.77 ms, graph 0.46 / 0.80 / 1.08 / 1.75 ms an iteration at 1e4 / 1.6e5 / 1e6 / 4e6), twice each
timeout 200 python3 $R/scripts/gpu_lbfgsb_batched.py --sizes 10000,160000,1000000,4000000 --iterations 100 \
  --drivers bound,graph,bound,graph > $SOL/lbfgsb_graph.jsonl 2> $SOL/lbfgsb_graph.err; say "graph rc $?"
# 2. the kernels' times after the change (ncu, the bound driver, 4 iterations), at 1e4 and 1.6e5
for n in 10000 160000; do
  timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,launch__grid_size \
    --csv --log-file $SOL/ncu_torsion_$n.csv python3 $R/scripts/gpu_lbfgsb_batched.py --sizes $n --iterations 4 \
    --drivers bound > $SOL/ncu_torsion_$n.log 2>&1; say "ncu torsion $n rc $?"
done
gzip -f $SOL/ncu_torsion_*.csv
# 3. the product's record: lbfgsb-gpu beside jaxopt in one run
XLA_PYTHON_CLIENT_PREALLOCATE=false timeout 300 python3 -m gpubench reproduce device_peers_lbfgsb_jaxopt \
  --backend cuda --results $SOL/jaxopt > $SOL/jaxopt.log 2>&1; say "jaxopt rc $?"
# 4. issue 42: gpubench's five methods' second processes, three each (abe28a0: 0.78-1.13 s)
timeout 240 python3 $R/benchmarks/profiling/startup_profile.py levy --dim 10 --backend cuda --method de-gpu \
  --method interval --method lbfgsb-gpu --method subdomain-bnb --method tron-gpu --cold --runs 3 --no-importtime \
  --out $SOL/startup_methods.json > $SOL/startup_methods.log 2>&1; say "startup rc $?"
touch $W/all.done
