# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 4 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-6ae396f/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# 1. issue 43: torsion at the kernels as they land (f37de06's, the memory update's part moved to its own module
# in fe6697d), bound and graph alternated twice (f37de06: graph 0.32 / 0.49 / 0.79 / 1.44 ms an iteration)
timeout 200 python3 $R/scripts/gpu_lbfgsb_batched.py --sizes 10000,160000,1000000,4000000 --iterations 100 \
  --drivers bound,graph,bound,graph > $SOL/lbfgsb_graph.jsonl 2> $SOL/lbfgsb_graph.err; say "graph rc $?"
# 2. issue 42: gpubench's five methods' second processes, three each, a third host sample this session
# (abe28a0: 0.78-1.13 s; f37de06: 1.06-1.50 s on a slower host)
timeout 240 python3 $R/benchmarks/profiling/startup_profile.py levy --dim 10 --backend cuda --method de-gpu \
  --method interval --method lbfgsb-gpu --method subdomain-bnb --method tron-gpu --cold --runs 3 --no-importtime \
  --out $SOL/startup_methods.json > $SOL/startup_methods.log 2>&1; say "startup rc $?"
touch $W/all.done
