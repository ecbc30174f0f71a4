# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 3 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-4aaab59/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# the device loop (L appended in place since 9b4a337, the folds in chunks of max(16, isqrt(n/4))) against the
# host loop and the CPU twin on every library function, many blocks (the simulator runs one).  From outside
# the tree: pytest puts a test's rootdir first on sys.path, and the tree's gpubench/ (without the installed
# gpubench.functions mapping) would shadow the installed package (4aaab59's attempt)
(cd /tmp && timeout 240 python3 -m pytest -q -p no:cacheprovider -n 8 $R/tests/test_devloop.py \
  -k "test_device_loop_is_the_host_loop_on_a_gpu" > $SOL/pytest_devloop_gpu.log 2>&1); say "pytest rc $?"
touch $W/all.done
