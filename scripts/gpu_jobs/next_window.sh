# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 4 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-ee90294/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# the directed division as a quotient to nearest corrected by its exact remainder (no call): against libdevice's
# div.rm / div.rp bit for bit, and every op's enclosures against exact arithmetic
timeout 150 python3 -m gpubench.device.gpucheck --size 400000 --exact 10000 --out $SOL/interval_check.json \
  > $SOL/gpucheck.log 2>&1; say "gpucheck rc $?"
# issue 42 (ee90294: Levy 1,000 1.389 s, sweep 1,222 us an iteration; Rosenbrock 1.081 ms an iteration)
GPUBENCH_LOOP_TRACE=$SOL/loop_trace.jsonl timeout 120 python3 -m gpubench solve levy --dim 1000 --json \
  > $SOL/levy1000_trace.json 2> $SOL/levy1000_trace.err; say "levy1000 trace rc $?"
timeout 90 python3 -m gpubench solve levy --dim 1000 --json > $SOL/levy1000_plain.json 2> $SOL/levy1000_plain.err; say "levy1000 plain rc $?"
GPUBENCH_LOOP_TRACE=$SOL/loop_trace.jsonl timeout 60 python3 -m gpubench solve rosenbrock --dim 1000 \
  --max-iterations 15000 --json > $SOL/rosen1000_trace.json 2> $SOL/rosen1000_trace.err; say "rosenbrock trace rc $?"
touch $W/all.done
