# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 2 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-fd26777/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# TRON's counted loops as while loops too (chol_left's inner product: 16 -> 4.5 SASS instructions a multiply-add)
# 1. issue 43: the hs45 batch (d97f6d9: n = 32 2.78 generic, 2.07 specialized, 1.40 with Gershgorin's shift)
timeout 150 python3 -m gpubench reproduce $R/benchmarks/profiling/hs45_occupancy.toml \
  --entries shared,shared_flags,shared_flags_gersh --backend cuda --results $SOL/hs45 > $SOL/hs45.log 2>&1
say "hs45 rc $?"
# 2. paper 003's Tables 1 and 3 (fd26777: Table 1 right/left 0.899, the paper 1.207; Table 3 global/shared 0.985)
for t in 1 3; do
  timeout 120 python3 -m gpubench reproduce kim_exatron_table$t --backend cuda --results $SOL/table$t \
    > $SOL/table$t.log 2>&1; say "table$t rc $?"
done
# 3. issue 42: a cold tron-gpu (5785a4c: 15.7 s)
timeout 100 python3 $R/benchmarks/profiling/startup_profile.py levy --dim 10 --backend cuda --method tron-gpu \
  --cold --runs 2 --no-importtime --out $SOL/startup_tron.json > $SOL/startup_tron.log 2>&1; say "startup tron rc $?"
touch $W/all.done
