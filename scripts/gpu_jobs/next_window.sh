# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 4 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-d97f6d9/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# 1. paper 003's Tables 1 and 2: their kernels (gpubench/kernels/tron_gpu.py) load and store with while loops since
# 5785a4c; the stored records are older.  Fresh folders (copy them to results/ with a NOTES.md bullet).
for t in 1 2; do
  timeout 200 python3 -m gpubench reproduce kim_exatron_table$t --backend cuda --results $SOL/table$t \
    > $SOL/table$t.log 2>&1; say "table$t rc $?"
done
# 2. Table 3's shared/global parity (d97f6d9: 2.80 / 2.76 ms at n = 32): is it residency?  ncu's occupancy and
# launch sections of the generic kernel with the global workspace at n = 32 (the 12th launch: n = 8, 16, 32 of the
# shared entry first, then global's n = 8, 16, each a 2-problem warm-up and 3 repetitions... so skip 21)
timeout 200 ncu --clock-control none --section Occupancy --section LaunchStats --section SpeedOfLight \
  --kernel-name regex:'tron' --launch-skip 21 --launch-count 1 python3 -m gpubench reproduce kim_exatron_table3 \
  --backend cuda --results $SOL/table3_ncu > $SOL/ncu_table3_global.log 2>&1; say "ncu rc $?"
touch $W/all.done
