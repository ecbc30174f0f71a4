# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 4 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-8418721/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 43: de-gpu with its fast kernel's new defaults (2 elements a lane under 96 registers, e30abd3, chosen by
# 8418721's run: 0.2047 ms at (1000, 1e4) against EvoX 0.5114), auto (which now probes that kernel against the
# stream kernel), the old default (c4, no cap), the caps at 4 elements, 2 and 1 element under 80 and 64, and
# EvoX, all in one run into a fresh folder
timeout 480 python3 -m gpubench reproduce device_peers_de_evox --entries \
  degpu,degpu_fast,degpu_fast_c4,degpu_fast_r128,degpu_fast_r96,degpu_fast_r80,degpu_chunk2,degpu_fast_c8,degpu_fast_c2_r96,degpu_fast_c2_r80,degpu_fast_c1_r80,degpu_fast_c1_r64,degpu_stream,evox \
  --backend cuda > $SOL/de.log 2>&1; say "de entries rc $?"
touch $W/all.done
