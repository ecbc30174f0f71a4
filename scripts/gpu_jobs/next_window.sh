# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another, never beside each
# other; $R the checkout's copy, $W the window's folder, $SOL its loose outputs; jobs run from
# /tmp/run, so a script of the checkout is named $R/...).  Pack: bash scripts/gpu_pack.sh
# (no records: every job writes into a fresh folder under $SOL).  About 7 minutes.
# What ran before: results/gpu/solve-a05499a/ (its README and jobs.sh).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# 1. issue 42: Levy n = 1,000 typed in, first on the machine (a05499a's window read 3.22 s where 31fe746's
# read 2.21 s with the same device loop), then the register cap 128 beside the default 64 (a05499a:
# 2.91 vs 3.23 s); iterations and regions must not move
S() { name=$(echo "$*" | tr ' ' '_' | tr -d '.'); timeout 300 python3 -m gpubench solve "$@" --json > $SOL/$name.json 2> $SOL/$name.err; say "solve $*: rc $?"; }
S levy --dim 1000
timeout 300 python3 $R/benchmarks/profiling/loop_caps.py $SOL/loopcaps levy 1000 --caps 128,64 --carveouts -1 \
  > $SOL/loopcaps.log 2>&1; say "loop caps rc $?"
# 2. issue 43: de-gpu's member groups of 4, 8, 16 lanes beside the default (32 at D >= 32) and EvoX's
# compiled DE, one run, a fresh folder (ncu at a05499a: ~1,900 warp instructions a member at
# (100, 1e5), 0.44 issued a cycle, 3 warps a scheduler)
timeout 480 python3 -m gpubench reproduce device_peers_de_evox --backend cuda --results $SOL/de \
  --entries degpu,degpu_stream,degpu_stream_t4,degpu_stream_t8,degpu_stream_t16,degpu_fast,degpu_fast_t4,degpu_fast_t8,degpu_fast_t16,evox \
  > $SOL/de.log 2>&1; say "de lanes rc $?"
# 3. issue 43: the batched Cholesky's auto kernel and torch side by side in one run (n = 1..32)
timeout 240 python3 -m gpubench reproduce device_peers_cholesky --backend cuda --results $SOL/chol --entries auto,torch \
  > $SOL/chol.log 2>&1; say "cholesky rc $?"
touch $W/all.done
