# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 4 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-ea0207b/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 42: the device loop's phases at main's head (ee90294's kernels: Levy 1,000 1,441 us an iteration, the
# sweep 1,222; Rosenbrock 1,000 1,081, the sweep 933), the baseline of the sweep's next change
GPUBENCH_LOOP_TRACE=$SOL/loop_trace.jsonl timeout 120 python3 -m gpubench solve levy --dim 1000 --json \
  > $SOL/levy1000_trace.json 2> $SOL/levy1000_trace.err; say "levy1000 trace rc $?"
GPUBENCH_LOOP_TRACE=$SOL/loop_trace.jsonl timeout 60 python3 -m gpubench solve rosenbrock --dim 1000 \
  --max-iterations 15000 --json > $SOL/rosen1000_trace.json 2> $SOL/rosen1000_trace.err; say "rosenbrock trace rc $?"
# issue 42: gpubench's five methods' second processes, three each (7a98771: 0.77-1.47 s beyond the solve)
timeout 240 python3 $R/benchmarks/profiling/startup_profile.py levy --dim 10 --backend cuda --method de-gpu \
  --method interval --method lbfgsb-gpu --method subdomain-bnb --method tron-gpu --cold --runs 3 --no-importtime \
  --out $SOL/startup_methods.json > $SOL/startup_methods.log 2>&1; say "startup rc $?"
touch $W/all.done
