# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 5 minutes (one call of gpu_window.sh 500).  What ran before: results/gpu/solve-3eff09b/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 42: Levy 1,000 typed in (3eff09b: 1.022, 0.990, 0.983 s; the kernel about 0.88 s of them), three warm
# processes, then one under cProfile (the host's share) and one with the phase trace
for k in 1 2 3 4; do
timeout 150 python3 -m gpubench solve levy --dim 1000 --json > $SOL/levy1000_$k.json 2> $SOL/levy1000_$k.err; say "levy1000 $k rc $?"
done
timeout 60 python3 -m cProfile -o $SOL/levy1000.prof -m gpubench solve levy --dim 1000 --json > $SOL/levy1000_prof.json \
  2> $SOL/levy1000_prof.err; say "levy1000 cProfile rc $?"
GPUBENCH_LOOP_TRACE=$SOL/loop_trace.jsonl timeout 120 python3 -m gpubench solve levy --dim 1000 --json \
  > $SOL/levy1000_trace.json 2> $SOL/levy1000_trace.err; say "levy1000 traced rc $?"
# issue 42: the five methods' second processes (7f83926: 7 of 15 within 1 s)
timeout 240 python3 $R/benchmarks/profiling/startup_profile.py levy --dim 10 --backend cuda --method de-gpu \
  --method interval --method lbfgsb-gpu --method subdomain-bnb --method tron-gpu --cold --runs 3 \
  --out $SOL/startup_methods.json > $SOL/startup_methods.log 2>&1; say "startup rc $?"
touch $W/all.done
