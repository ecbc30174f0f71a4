# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 4 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-e4be1dd/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# 1. issue 43: the hs45 batch with TRON's cooperative loops as while loops (no trip count by division:
# 22,120 -> 12,160 SASS instructions for shared_flags), generic, specialized, and with Gershgorin's shift
# (64c18ea: shared_flags n = 32 3.33 ms, shared_flags_gersh 1.98 / 2.04 ms)
timeout 300 python3 -m gpubench reproduce $R/benchmarks/profiling/hs45_occupancy.toml \
  --entries shared,shared_flags,shared_flags_gersh --backend cuda --results $SOL/hs45 > $SOL/hs45.log 2>&1
say "hs45 rc $?"
# 2. issue 42: a cold tron-gpu process with the smaller kernel (486faaa: 19.0 s; 8418721: 22.55 s)
timeout 200 python3 $R/benchmarks/profiling/startup_profile.py levy --dim 10 --backend cuda --method tron-gpu \
  --cold --runs 2 --no-importtime --out $SOL/startup_tron.json > $SOL/startup_tron.log 2>&1; say "startup tron rc $?"
touch $W/all.done
