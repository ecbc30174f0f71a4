# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 6 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-1969205/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# 1. issue 43: torsion with a batch's iteration as one CUDA graph launch, beside the bound launches it
# replaces (1969205's ncu: about 0.27 ms of kernels an iteration at 1e4 against 0.68 ms measured), twice
timeout 200 python3 $R/scripts/gpu_lbfgsb_batched.py --sizes 10000,160000,1000000,4000000 --iterations 100 \
  --drivers bound,graph,bound,graph > $SOL/lbfgsb_graph.jsonl 2> $SOL/lbfgsb_graph.err; say "graph rc $?"
# 2. the product's record of it: lbfgsb-gpu (the graph by default for torsion's stencil) beside jaxopt
XLA_PYTHON_CLIENT_PREALLOCATE=false timeout 300 python3 -m gpubench reproduce device_peers_lbfgsb_jaxopt \
  --backend cuda --results $SOL/jaxopt > $SOL/jaxopt.log 2>&1; say "jaxopt rc $?"
# 3. issue 42: every method's second process (the last window ran `solve` only: --method all was missing)
timeout 330 python3 $R/benchmarks/profiling/startup_profile.py levy --dim 10 --backend cuda --method all --cold \
  --runs 2 --no-importtime --out $SOL/startup_methods.json > $SOL/startup_methods.log 2>&1; say "startup rc $?"
touch $W/all.done
