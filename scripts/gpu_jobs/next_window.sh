# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 12 minutes (two calls of gpu_window.sh).  What ran before: results/gpu/solve-b3a8034/ and the windows before it (READMEs there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# 1. issue 42: second processes with the early CUDA context the default for the methods that always launch
# (b3a8034 without it: de-gpu 1.14-1.28 s, lbfgsb-gpu 1.05-1.59, tron-gpu 0.96-0.98, interval 0.89-1.20,
# subdomain-bnb 0.73-0.86)
timeout 300 python3 $R/benchmarks/profiling/startup_profile.py levy --dim 10 --backend cuda --method de-gpu \
  --method interval --method lbfgsb-gpu --method subdomain-bnb --method tron-gpu --cold --runs 3 --no-importtime \
  --out $SOL/startup_methods.json > $SOL/startup_methods.log 2>&1; say "startup_profile rc $?"
# 2. issue 42: the device loop with unsigned indices (fb370fc: Levy n = 1,000 1.966 / 1.986 s, n = 10,000
# 74.4 s, Rosenbrock n = 1,000 106.7 s; 900 / 9,000 / 80,548 iterations)
S() { name=$(echo "$*" | tr ' ' '_' | tr -d '.'); timeout 300 python3 -m gpubench solve "$@" --json > $SOL/$name.json 2> $SOL/$name.err; say "solve $*: rc $?"; }
S levy --dim 1000; mv $SOL/levy_--dim_1000.json $SOL/levy_--dim_1000_first.json; S levy --dim 1000
# 3. issue 43: de-gpu at (1000, 1e4) 0.269 ms against EvoX 0.502 (1.86x; target 2x): the fast kernel with 8
# elements a lane in flight and the stream kernel's 8-element variants, EvoX in the same run
timeout 400 python3 -m gpubench reproduce device_peers_de_evox --entries degpu,degpu_fast,degpu_fast_c8,degpu_stream_c8,degpu_stream_c8free,evox \
  --backend cuda > $SOL/de.log 2>&1; say "de entries rc $?"
# 4. issue 43: the hs45 batch with unsigned indices in TRON's device functions (1f9d28e: n = 32 3.75 ms specialize+shared)
timeout 400 python3 -m gpubench reproduce $R/benchmarks/profiling/hs45_occupancy.toml --entries shared,shared_flags \
  --backend cuda > $SOL/hs45.log 2>&1; say "hs45 rc $?"
# 5. issue 42: the longer device-loop rows
S levy --dim 10000
S rosenbrock --dim 1000
touch $W/all.done
