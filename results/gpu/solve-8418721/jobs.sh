# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 5 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-dfc4222/, solve-7e9d185/
# and the windows before them (READMEs there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# 1. issue 43: de-gpu at (1000, 1e4) 0.2762 ms against EvoX 0.5158 (1.87x; target 2x) and (100, 1e5) 0.78x
# (target 1.5x), both waiting on loads: the fast kernel under register caps of 128, 96 and 80 (136 uncapped:
# 15 warps an SM) and with 2 elements a lane under 96, the stream kernel under 128 with 4 and 2 elements;
# de-gpu auto, fast, stream and EvoX in the same run, into a fresh folder (no records carried)
timeout 420 python3 -m gpubench reproduce device_peers_de_evox --entries \
  degpu,degpu_fast,degpu_fast_r128,degpu_fast_r96,degpu_fast_r80,degpu_fast_c2_r96,degpu_stream,degpu_stream_c2,degpu_stream_r128,evox \
  --backend cuda > $SOL/de.log 2>&1; say "de entries rc $?"
# 2. issue 43: the hs45 batch with TRON's block reductions as warp shuffles when the block is one warp
# (7e9d185: n = 8 / 16 / 32 specialize+shared 1.03 / 1.35 / 3.42 ms; target 2 ms at n = 32); with fewer
# barriers the register caps may pay again (shared_flags_r128, global_flags_r96)
timeout 300 python3 -m gpubench reproduce $R/benchmarks/profiling/hs45_occupancy.toml \
  --entries shared,shared_flags,shared_flags_r128,global_flags_r96 \
  --backend cuda > $SOL/hs45.log 2>&1; say "hs45 rc $?"
# 3. issue 42: a cold tron-gpu process again (dfc4222: 23.9 s on a slow host; b3a8034: 18.4 and 19.4 s)
timeout 200 python3 $R/benchmarks/profiling/startup_profile.py levy --dim 10 --backend cuda --method tron-gpu \
  --cold --runs 2 --no-importtime --out $SOL/startup_tron.json > $SOL/startup_tron.log 2>&1; say "startup tron rc $?"
touch $W/all.done
