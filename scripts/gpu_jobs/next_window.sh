# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 4 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-486faaa/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# 1. issue 43: de-gpu's fast kernel folding a term in its crossover pass (degpu_fast, the new default) beside the
# same kernel folding in a pass of its own (degpu_fast_pass, the kernel before), its lane caps, auto and EvoX, in
# one run into a fresh folder (486faaa: auto against EvoX at (100, 1e5) 0.19 vs 0.20 ms a generation)
timeout 420 python3 -m gpubench reproduce device_peers_de_evox \
  --entries degpu,degpu_fast,degpu_fast_pass,degpu_fast_t4,degpu_fast_t8,degpu_fast_c1_r80,evox --backend cuda \
  --results $SOL/de > $SOL/de.log 2>&1; say "de rc $?"
# 2. ncu's source counters of the new kernel at (100, 1e5), as 486faaa's (de_src_sass.csv there)
timeout 100 ncu --clock-control none --section SourceCounters --section InstructionStats --section WarpStateStats \
  --section SpeedOfLight --kernel-name regex:'de_fast' --launch-skip 1 --launch-count 1 -o $SOL/de_src \
  python3 -m gpubench minimize shifted_rastrigin --dim 100 --method de-gpu --set np=100000 --set mode=fast \
  --set threads_per_member=16 --set max_evaluations=3100000 --set generations_per_launch=10 --backend cuda \
  > $SOL/ncu_de_src.log 2>&1; say "ncu de src rc $?"
ncu --import $SOL/de_src.ncu-rep --page source --csv --print-source sass > $SOL/de_src_sass.csv 2> $SOL/de_src_sass.err
ncu --import $SOL/de_src.ncu-rep --page details > $SOL/de_src_details.txt 2>&1; say "ncu pages done"
touch $W/all.done
