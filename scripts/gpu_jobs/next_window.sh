# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 4 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-f28758a/ and
# solve-91f912a/ (READMEs there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# 1. issue 43: a second run of de-gpu auto and its fast kernel beside EvoX (f28758a: 47x, 5.6x, 1.03x, 2.50x at
# (10, 100), (100, 1e4), (100, 1e5), (1000, 1e4)), into its own folder so that it does not replace the stored run
timeout 300 python3 -m gpubench reproduce device_peers_de_evox --entries degpu,degpu_fast,evox --backend cuda \
  --results $SOL/de_again > $SOL/de_again.log 2>&1; say "de again rc $?"
# 2. issue 42: a cold tron-gpu process (8418721: 22.55 s; dfc4222: 23.85 s; the host's pace moves it by 2x)
timeout 200 python3 $R/benchmarks/profiling/startup_profile.py levy --dim 10 --backend cuda --method tron-gpu \
  --cold --runs 2 --no-importtime --out $SOL/startup_tron.json > $SOL/startup_tron.log 2>&1; say "startup tron rc $?"
# 3. issue 43: where de-gpu's fast kernel spends its instructions at (100, 1e5) on shifted Rastrigin (the de_evox
# rows' function): ncu's source counters (executed instructions and stall samples a SASS line), clocks left alone
timeout 150 ncu --clock-control none --section SourceCounters --section InstructionStats --section WarpStateStats \
  --section SpeedOfLight --kernel-name regex:'de_fast' --launch-skip 1 --launch-count 1 -o $SOL/de_src \
  python3 -m gpubench minimize shifted_rastrigin --dim 100 --method de-gpu --set np=100000 --set mode=fast \
  --set threads_per_member=16 --set max_evaluations=3100000 --set generations_per_launch=10 --backend cuda \
  > $SOL/ncu_de_src.log 2>&1; say "ncu de src rc $?"
ncu --import $SOL/de_src.ncu-rep --page source --csv --print-source sass > $SOL/de_src_sass.csv 2> $SOL/de_src_sass.err
say "sass page rc $? $(wc -l < $SOL/de_src_sass.csv) lines"
ncu --import $SOL/de_src.ncu-rep --page details > $SOL/de_src_details.txt 2>&1
touch $W/all.done
