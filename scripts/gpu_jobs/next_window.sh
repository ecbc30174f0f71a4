# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 7 minutes (one call of gpu_window.sh 560).  What ran before: results/gpu/solve-59d1273/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 42, typed in, default settings (59d1273: Levy 1,000 1.009 s and 1.025 s, its kernel 0.878 s of them)
timeout 150 python3 -m gpubench solve levy --dim 1000 --json > $SOL/levy1000.json 2> $SOL/levy1000.err; say "levy1000 rc $?"
timeout 60 python3 -m gpubench solve levy --dim 1000 --json > $SOL/levy1000_again.json 2> $SOL/levy1000_again.err; say "levy1000 again rc $?"
# where the solve's seconds outside the kernel go (host side, a warm process)
timeout 60 python3 -m cProfile -o $SOL/levy1000.prof -m gpubench solve levy --dim 1000 --json > $SOL/levy1000_prof.json \
  2> $SOL/levy1000_prof.err; say "levy1000 cProfile rc $?"
# Levy 10,000 and Rosenbrock 1,000 to their end, beyond the typed-in limit of 20 s (as ee90294 and 4aaab59)
timeout 200 python3 -m gpubench solve rosenbrock --dim 1000 --time-limit 180 --json > $SOL/rosen1000.json \
  2> $SOL/rosen1000.err; say "rosenbrock rc $?"
timeout 90 python3 -m gpubench solve levy --dim 10000 --time-limit 80 --json > $SOL/levy10000.json \
  2> $SOL/levy10000.err; say "levy10000 rc $?"
# the same search on the GPU: the device loop against the host loop and the CPU twin, with the extras
(cd /tmp && timeout 240 python3 -m pytest -q -p no:cacheprovider -n 8 $R/tests/test_devloop.py -k on_a_gpu) \
  > $SOL/pytest_on_a_gpu.log 2>&1; say "pytest rc $?"
touch $W/all.done
