# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack:
#     bash scripts/gpu_pack.sh results/scipy_go_certify/interval_strong-*.json
# About 12 minutes (two calls of gpu_window.sh).  What ran before: results/gpu/solve-868809c/ and the windows before it (READMEs there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# 1. issue 42: second processes with the generated modules' bytecode written by gpubench (6d5fdbf; the host
# sets PYTHONDONTWRITEBYTECODE) and numpy's compiled at its install (868809c: de-gpu 1.43 / 1.25 s, interval
# 1.30 / 1.34, tron-gpu 1.41 / 1.07); three second processes each, the host's spread being ~0.3 s
timeout 300 python3 $R/benchmarks/profiling/startup_profile.py levy --dim 10 --backend cuda --method de-gpu \
  --method interval --method lbfgsb-gpu --method subdomain-bnb --method tron-gpu --cold --runs 3 --no-importtime \
  --out $SOL/startup_methods.json > $SOL/startup_methods.log 2>&1; say "startup_profile rc $?"
# 2. issue 43: L-BFGS-B starts with unsigned indices (1978510: group kernel SASS 36,212 -> 30,302, registers
# 246 -> 234); b86b7ee: 0.2378 s (10^4 starts, n = 10, 2 lanes), 1.747 s (1,000 starts, n = 100, 8 lanes)
M() { name=$1; shift; timeout 90 python3 -m gpubench minimize levy --method lbfgsb-gpu --backend cuda "$@" --json \
  > $SOL/min_$name.json 2> $SOL/min_$name.err; say "minimize $name rc $?"; }
M levy10_1e4 --dim 10 --set starts=10000
M levy10_1e4_b --dim 10 --set starts=10000
M levy100_1e3 --dim 100 --set starts=1000
# 3. issue 41: the certify entry's EggHolder n = 5 and 10 with the convexity floor through |u| (56ac5dc;
# 70b446a: gaps 0.0027 and 0.65), then Watson and Thurber (not rerun since 2348217 / 31fe746)
C=$GPUBENCH_RESULTS/scipy_go_certify
if [ "$(ls $C/interval_strong-*.json 2>/dev/null | wc -l)" -ge 290 ]; then
  mkdir -p $W/aside
  for c in EggHolder-n5 EggHolder-n10 Watson-n6 Thurber-n7; do mv $C/interval_strong-scipy_go.$c-full-r0-9ef896d8.json $W/aside/ 2>/dev/null; done
  timeout 600 python3 -m gpubench reproduce scipy_go_certify --entries interval_strong --backend cuda > $SOL/cert.log 2>&1; say "certify rc $?"
else say "certify skipped: carry results/scipy_go_certify/interval_strong-*.json"; fi
touch $W/all.done
