# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 2 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-a1d3883/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 43: the hs45 batch again (a1d3883: n = 32 3.32 ms with the paper's shift, 1.995 ms with Gershgorin's),
# with the register cap of 128 on top, one run, twice over (two folders)
for k in 1 2; do
  timeout 200 python3 -m gpubench reproduce $R/benchmarks/profiling/hs45_occupancy.toml \
    --entries shared_flags,shared_flags_gersh,shared_flags_gersh_r128 --backend cuda --results $SOL/hs45_$k \
    > $SOL/hs45_$k.log 2>&1; say "hs45 $k rc $?"
done
touch $W/all.done
