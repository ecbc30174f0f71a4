# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 3 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-64c18ea/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 43: where TRON's hs45 kernel spends its time at n = 32 with Gershgorin's shift (about 2.0 ms against the
# 2 ms target): ncu's source counters of one 10^4-problem launch (the entry's launches: n = 8, 16, 32, each a
# 2-problem warm-up and 3 repetitions, so the 10th is n = 32's first repetition), clocks left alone
timeout 300 ncu --clock-control none --section SourceCounters --section InstructionStats --section WarpStateStats \
  --section SpeedOfLight --section Occupancy --section LaunchStats --kernel-name regex:'tron' --launch-skip 9 \
  --launch-count 1 -o $SOL/tron_src python3 -m gpubench reproduce $R/benchmarks/profiling/hs45_occupancy.toml \
  --entries shared_flags_gersh --backend cuda --results $SOL/hs45_ncu > $SOL/ncu_tron.log 2>&1; say "ncu rc $?"
ncu --import $SOL/tron_src.ncu-rep --page source --csv --print-source sass > $SOL/tron_src_sass.csv 2> $SOL/tron_src_sass.err
ncu --import $SOL/tron_src.ncu-rep --page details > $SOL/tron_src_details.txt 2>&1; say "pages done"
rm -f $SOL/tron_src.ncu-rep
touch $W/all.done
