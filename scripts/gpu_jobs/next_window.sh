# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 6 minutes (one call of gpu_window.sh 520).  What ran before: results/gpu/solve-a81c164/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 42, typed in, default settings: cut points by a multiplication where parts is a power of two
# (a81c164: Levy 1,000 1.025 s and 1.017 s; Levy 50 0.037 s at 59d1273)
for k in 1 2 3; do
timeout 150 python3 -m gpubench solve levy --dim 1000 --json > $SOL/levy1000_$k.json 2> $SOL/levy1000_$k.err; say "levy1000 $k rc $?"
done
timeout 60 python3 -m gpubench solve levy --dim 50 --json > $SOL/levy50.json 2> $SOL/levy50.err; say "levy50 rc $?"
# where the solve's seconds outside the kernel go (host side, a warm process; cli.entry keeps the profile now)
timeout 60 python3 -m cProfile -o $SOL/levy1000.prof -m gpubench solve levy --dim 1000 --json > $SOL/levy1000_prof.json \
  2> $SOL/levy1000_prof.err; say "levy1000 cProfile rc $?"
# Levy 10,000 and Rosenbrock 1,000 to their end (a81c164: 20.0 s and 29.3 s)
timeout 90 python3 -m gpubench solve levy --dim 10000 --time-limit 80 --json > $SOL/levy10000.json \
  2> $SOL/levy10000.err; say "levy10000 rc $?"
timeout 150 python3 -m gpubench solve rosenbrock --dim 1000 --time-limit 120 --json > $SOL/rosen1000.json \
  2> $SOL/rosen1000.err; say "rosenbrock rc $?"
# the same search on the GPU as the host loop's and the CPU twin's (a81c164: every on_a_gpu test)
(cd /tmp && timeout 200 python3 -m pytest -q -p no:cacheprovider -n 8 $R/tests/test_devloop.py -k is_the_host_loop_on_a_gpu) \
  > $SOL/pytest_on_a_gpu.log 2>&1; say "pytest rc $?"
touch $W/all.done
