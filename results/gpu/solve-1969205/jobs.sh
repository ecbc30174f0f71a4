# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 5 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-5b16e7d/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# 1. paper 003's Table 2 at the current loops (its stored records are fd26777's: the solves' outer column loop
# became a while loop in 5b16e7d); a fresh folder, then copy to results/ with a NOTES.md bullet
timeout 120 python3 -m gpubench reproduce kim_exatron_table2 --backend cuda --results $SOL/table2 > $SOL/table2.log 2>&1
say "table2 rc $?"
# 2. issue 43: the hs45 batch a fourth time (5785a4c / d97f6d9 / 5b16e7d: shared_flags n = 32 1.95 / 2.07 / 1.86 ms)
timeout 150 python3 -m gpubench reproduce $R/benchmarks/profiling/hs45_occupancy.toml \
  --entries shared_flags,shared_flags_gersh --backend cuda --results $SOL/hs45 > $SOL/hs45.log 2>&1; say "hs45 rc $?"
# 3. issue 42: every method's second process (dfc4222: 0.79-1.59 s beyond the solve; target 1 s)
timeout 400 python3 $R/benchmarks/profiling/startup_profile.py levy --dim 10 --backend cuda --cold --runs 2 \
  --no-importtime --out $SOL/startup_methods.json > $SOL/startup_methods.log 2>&1; say "startup rc $?"
# 4. issue 43: where torsion's iteration goes, kernel by kernel (ncu: duration and DRAM bytes of every
# launch, the numba passes and CuPy's alike), the bound batched driver at 1e4 and 4e6, 4 iterations
for n in 10000 4000000; do
  timeout 150 ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,launch__grid_size \
    --csv --log-file $SOL/ncu_torsion_$n.csv python3 $R/scripts/gpu_lbfgsb_batched.py --sizes $n --iterations 4 \
    --drivers bound > $SOL/ncu_torsion_$n.log 2>&1; say "ncu torsion $n rc $?"
done
gzip -f $SOL/ncu_torsion_*.csv
touch $W/all.done
