# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 4 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-2c5b450/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# the device loop (L appended in place since 9b4a337, the folds in chunks of max(16, isqrt(n/4))) against the
# host loop and the CPU twin on every library function, many blocks (the simulator runs one)
(cd $R && timeout 200 python3 -m pytest -q -p no:cacheprovider -n 8 tests/test_devloop.py \
  -k "test_device_loop_is_the_host_loop_on_a_gpu" > $SOL/pytest_devloop_gpu.log 2>&1); say "pytest rc $?"
# issue 42: Rosenbrock n = 1,000 whole at main's head (bbe0a9e 98.1 s, 9b4a337 95.6 s; 80,548 iterations)
timeout 150 python3 -m gpubench solve rosenbrock --dim 1000 --time-limit 140 --json > $SOL/rosen1000.json \
  2> $SOL/rosen1000.err; say "rosenbrock rc $?"
timeout 60 python3 -m gpubench solve levy --dim 50 --json > $SOL/levy50.json 2> $SOL/levy50.err; say "levy50 rc $?"
timeout 60 python3 -m gpubench solve levy --dim 1000 --json > $SOL/levy1000.json 2> $SOL/levy1000.err; say "levy1000 rc $?"
touch $W/all.done
