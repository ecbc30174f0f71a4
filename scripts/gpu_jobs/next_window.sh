# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 7 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-c8ecc9a/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# 1. issue 43: the hs45 batch (10^4 problems, n = 8, 16, 32) with the preconditioner's shift jumping to what
# Gershgorin's theorem proves enough (shared_flags_gersh) beside the paper's doubling (shared_flags), one run
# (8418721: shared_flags n = 32 3.42 ms; the target 2 ms)
timeout 400 python3 -m gpubench reproduce $R/benchmarks/profiling/hs45_occupancy.toml \
  --entries shared_flags,shared_flags_gersh --backend cuda --results $SOL/hs45 > $SOL/hs45.log 2>&1; say "hs45 rc $?"
# 2. issue 41: Kowalik alone, cut as the CPU twin cuts (split 6), 40 s of search (the CPU twin certified it in 25 s)
timeout 150 python3 -m gpubench solve scipy_go.Kowalik --variant strong --gap-tol 1e-6 --tol 1e-7 --backend cuda \
  --split-dims 6 --time-limit 40 > $SOL/kowalik_s6_40.log 2>&1; say "kowalik rc $?"
touch $W/all.done
