# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 2 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-f37de06/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 43: where torsion's fixed cost an iteration goes at 1e4 (f37de06's ncu: lf_reduced 59 us, lf_gate_push
# 30 us, lf_step 20 us): source counters and warp stalls of one launch of each, the bound driver
for k in lf_reduced lf_gate_push lf_step; do
  timeout 150 ncu --clock-control none --section SourceCounters --section WarpStateStats --section SpeedOfLight \
    --section LaunchStats --kernel-name regex:$k --launch-skip 3 --launch-count 1 -o $SOL/$k \
    python3 $R/scripts/gpu_lbfgsb_batched.py --sizes 10000 --iterations 4 --drivers bound > $SOL/ncu_$k.log 2>&1
  say "ncu $k rc $?"
  ncu --import $SOL/$k.ncu-rep --page source --csv --print-source sass > $SOL/${k}_sass.csv 2> $SOL/${k}_sass.err
  ncu --import $SOL/$k.ncu-rep --page details > $SOL/${k}_details.txt 2>&1
  rm -f $SOL/$k.ncu-rep; gzip -f $SOL/${k}_sass.csv
done
touch $W/all.done
