# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 2 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-5785a4c/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# 1. issue 43: the hs45 batch again with TRON's while loops (5785a4c: n = 32 2.69 generic, 1.95 specialized,
# 1.34 with Gershgorin's shift)
timeout 200 python3 -m gpubench reproduce $R/benchmarks/profiling/hs45_occupancy.toml \
  --entries shared,shared_flags,shared_flags_gersh --backend cuda --results $SOL/hs45 > $SOL/hs45.log 2>&1
say "hs45 rc $?"
# 2. paper 003's Table 3 with the same kernel, into a fresh folder (its stored records are 7e9d185's and older)
timeout 200 python3 -m gpubench reproduce kim_exatron_table3 --backend cuda --results $SOL/table3 > $SOL/table3.log 2>&1
say "table3 rc $?"
touch $W/all.done
