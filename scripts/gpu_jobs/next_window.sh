# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 5 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-ea0207b/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 42: the sweep's entry offsets in shared memory (GPUBENCH_LOOP_SHARED_CC=1) against local memory (the
# default), phase by phase (ee90294: Levy 1,000 1,441 us an iteration, the sweep 1,222; Rosenbrock 1,000 1,081, 933)
for cc in 0 1; do
GPUBENCH_LOOP_SHARED_CC=$cc GPUBENCH_LOOP_TRACE=$SOL/loop_trace_cc$cc.jsonl timeout 120 python3 -m gpubench solve levy \
  --dim 1000 --json > $SOL/levy1000_cc$cc.json 2> $SOL/levy1000_cc$cc.err; say "levy1000 cc$cc rc $?"
GPUBENCH_LOOP_SHARED_CC=$cc GPUBENCH_LOOP_TRACE=$SOL/loop_trace_cc$cc.jsonl timeout 60 python3 -m gpubench solve rosenbrock \
  --dim 1000 --max-iterations 15000 --json > $SOL/rosen1000_cc$cc.json 2> $SOL/rosen1000_cc$cc.err; say "rosenbrock cc$cc rc $?"
done
# issue 42: gpubench's five methods' second processes, three each (7a98771: 0.77-1.47 s beyond the solve)
timeout 240 python3 $R/benchmarks/profiling/startup_profile.py levy --dim 10 --backend cuda --method de-gpu \
  --method interval --method lbfgsb-gpu --method subdomain-bnb --method tron-gpu --cold --runs 3 --no-importtime \
  --out $SOL/startup_methods.json > $SOL/startup_methods.log 2>&1; say "startup rc $?"
touch $W/all.done
