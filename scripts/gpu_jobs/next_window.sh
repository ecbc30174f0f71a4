# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 6 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-4519f57/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 42: L appended in place (removed entries NaN, compacted whole when GUB falls); 4519f57's trace put
# 0.5 ms of Levy n = 1,000's 2.08 ms an iteration and 6.3 of n = 10,000's 8.5 in compacting L.
# The device loop against the host loop and the CPU twin on a GPU first (many blocks: the simulator runs one)
(cd $R && timeout 330 python3 -m pytest -q -p no:cacheprovider -n 8 tests/test_devloop.py -k "on_a_gpu" \
  > $SOL/pytest_devloop_gpu.log 2>&1); say "pytest rc $?"
GPUBENCH_LOOP_TRACE=$SOL/loop_trace.jsonl timeout 120 python3 -m gpubench solve levy --dim 1000 --json \
  > $SOL/levy1000_trace.json 2> $SOL/levy1000_trace.err; say "levy1000 trace rc $?"
for k in 1 2; do
timeout 90 python3 -m gpubench solve levy --dim 1000 --json > $SOL/levy1000_plain$k.json 2> $SOL/levy1000_plain$k.err; say "levy1000 plain rc $?"
done
GPUBENCH_LOOP_TRACE=$SOL/loop_trace.jsonl timeout 130 python3 -m gpubench solve levy --dim 10000 --time-limit 110 \
  --json > $SOL/levy10000_trace.json 2> $SOL/levy10000_trace.err; say "levy10000 trace rc $?"
timeout 150 python3 -m gpubench solve rosenbrock --dim 1000 --time-limit 140 --json > $SOL/rosen1000.json \
  2> $SOL/rosen1000.err; say "rosenbrock rc $?"
touch $W/all.done
