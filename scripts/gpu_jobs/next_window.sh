# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 8 minutes (one call of gpu_window.sh 560).  What ran before: results/gpu/solve-7f83926/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 42: the samples of a subregion whose box bound exceeds GUB are skipped (spliced/subregion.py's note).
# Typed in, default settings (7f83926: Levy 1,000 1.421 s, the sweep 1,236 us an iteration; Rosenbrock 1,000
# 87.5 s at 4aaab59), each with the published iterations and regions
timeout 150 python3 -m gpubench solve levy --dim 1000 --json > $SOL/levy1000.json 2> $SOL/levy1000.err; say "levy1000 rc $?"
timeout 60 python3 -m gpubench solve levy --dim 1000 --json > $SOL/levy1000_again.json 2> $SOL/levy1000_again.err; say "levy1000 again rc $?"
timeout 60 python3 -m gpubench solve levy --dim 50 --json > $SOL/levy50.json 2> $SOL/levy50.err; say "levy50 rc $?"
timeout 90 python3 -m gpubench solve levy --dim 10000 --json > $SOL/levy10000.json 2> $SOL/levy10000.err; say "levy10000 rc $?"
timeout 200 python3 -m gpubench solve rosenbrock --dim 1000 --json > $SOL/rosen1000.json 2> $SOL/rosen1000.err; say "rosenbrock rc $?"
# the same search on the GPU: the device loop against the host loop and the CPU twin (17 passed, 1 xfailed at ea0207b)
(cd /tmp && timeout 240 python3 -m pytest -q -p no:cacheprovider -n 8 $R/tests/test_devloop.py -k on_a_gpu) \
  > $SOL/pytest_on_a_gpu.log 2>&1; say "pytest rc $?"
# the phases (7f83926: loop_trace_cc0.jsonl there)
GPUBENCH_LOOP_TRACE=$SOL/loop_trace.jsonl timeout 120 python3 -m gpubench solve levy --dim 1000 --json \
  > $SOL/levy1000_trace.json 2> $SOL/levy1000_trace.err; say "levy1000 traced rc $?"
touch $W/all.done
