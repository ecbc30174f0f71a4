# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 5 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-8babc19/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 43: torsion at the landing kernels again (8babc19: graph 0.19 / 0.23 / 0.43-0.44 / 0.91-0.92 ms an iteration;
# record 0.231 / 0.253 / 0.438 / 1.115, and 903743a's 0.180 / 0.203 / 0.413 / 1.066 four minutes before)
timeout 200 python3 $R/scripts/gpu_lbfgsb_batched.py --sizes 10000,160000,1000000,4000000 --iterations 100 \
  --drivers bound,graph,bound,graph > $SOL/lbfgsb_graph.jsonl 2> $SOL/lbfgsb_graph.err; say "graph rc $?"
# a whole 4e6 run traced (every host read: where a whole run's time goes, 1.07-1.12 ms against the steady
# 0.91), as shipped and with the batch after a hand-over halved (fused.SHRINK) and 32 iterations a batch
for opts in "--shrink 0" "--shrink 0.5" "--shrink 0.5 --batch 32" "--shrink 0 --batch 32"; do
timeout 60 python3 $R/scripts/gpu_lbfgsb_batched.py --sizes 4000000 --iterations 3600 --drivers graph $opts \
  --trace $SOL/lbfgsb_trace.jsonl >> $SOL/lbfgsb_whole.jsonl 2>> $SOL/lbfgsb_whole.err; say "whole $opts rc $?"
done
gzip -f $SOL/lbfgsb_trace.jsonl
for n in 4000000; do
timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,launch__grid_size \
  --csv --log-file $SOL/ncu_torsion_$n.csv python3 $R/scripts/gpu_lbfgsb_batched.py --sizes $n --iterations 4 \
  --drivers bound > $SOL/ncu_torsion_$n.log 2>&1; say "ncu torsion $n rc $?"
done
gzip -f $SOL/ncu_torsion_*.csv
# the product's record, jaxopt in the same run (targets 0.5 / 0.5 / 0.6 / 1.0 ms)
XLA_PYTHON_CLIENT_PREALLOCATE=false timeout 300 python3 -m gpubench reproduce device_peers_lbfgsb_jaxopt \
  --backend cuda --results $SOL/jaxopt > $SOL/jaxopt.log 2>&1; say "jaxopt rc $?"
# issue 42: gpubench's five methods' second processes, three each (5956f77: 0.73-1.34 s beyond the solve)
timeout 240 python3 $R/benchmarks/profiling/startup_profile.py levy --dim 10 --backend cuda --method de-gpu \
  --method interval --method lbfgsb-gpu --method subdomain-bnb --method tron-gpu --cold --runs 3 --no-importtime \
  --out $SOL/startup_methods.json > $SOL/startup_methods.log 2>&1; say "startup rc $?"
touch $W/all.done
