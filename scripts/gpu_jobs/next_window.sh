# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack: bash scripts/gpu_pack.sh
# About 5 minutes.  What ran before: results/gpu/solve-b86b7ee/ and the windows before it (READMEs there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# 1. issue 42: a new process's cost beyond its solve, gpubench's own methods (a05499a: second processes
# 1.08-1.33 s, target 1 s; cold tron-gpu 20.7 s, target 20 s)
timeout 240 python3 benchmarks/profiling/startup_profile.py levy --dim 10 --backend cuda --method de-gpu \
  --method interval --method lbfgsb-gpu --method subdomain-bnb --method tron-gpu --cold --runs 2 --no-importtime \
  --out $SOL/startup_methods.json > $SOL/startup_methods.log 2>&1; say "startup_profile rc $?"
# 2. the same commands under cProfile, in a cache of their own: the first process cold, the second warm
# (where the H200 host's "command" phase, 0.25 s there against 0.01 s on a CPU-only host, goes)
export GPUBENCH_CACHE=$W/pc NUMBA_CACHE_DIR=$W/pc/numba; mkdir -p $NUMBA_CACHE_DIR
for m in tron-gpu de-gpu interval lbfgsb-gpu subdomain-bnb; do
  for run in cold warm; do
    timeout 120 python3 -m cProfile -o $SOL/prof_${m}_$run.prof -m gpubench minimize levy --dim 10 --method $m \
      --backend cuda --json > $SOL/prof_${m}_$run.json 2> $SOL/prof_${m}_$run.err; say "cProfile $m $run rc $?"
    python3 -c "import pstats,sys; p=pstats.Stats(sys.argv[1]); p.sort_stats('cumulative').print_stats(70); p.sort_stats('tottime').print_stats(40)" \
      $SOL/prof_${m}_$run.prof > $SOL/prof_${m}_$run.txt 2>&1
  done
done
unset GPUBENCH_CACHE NUMBA_CACHE_DIR
touch $W/all.done
