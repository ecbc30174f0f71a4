# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack:
#     bash scripts/gpu_pack.sh results/scipy_go_certify/interval_strong-*.json
# About 10 minutes (two calls of gpu_window.sh).  What ran before: results/gpu/solve-ab04623/, solve-7e9d185/
# and the windows before them (READMEs there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# 1. issue 42: the five methods' second processes with the early context the default (ab04623: de-gpu and
# tron-gpu medians 0.89 / 0.87 s with it, 0.97 / 1.00 without; lbfgsb-gpu 0.94 either way)
timeout 300 python3 $R/benchmarks/profiling/startup_profile.py levy --dim 10 --backend cuda --method de-gpu \
  --method interval --method lbfgsb-gpu --method subdomain-bnb --method tron-gpu --cold --runs 3 --no-importtime \
  --out $SOL/startup_methods.json > $SOL/startup_methods.log 2>&1; say "startup_profile rc $?"
# 2. issue 41: certify reruns with the inherited bound (e873d5e: a child never below its parent, so GLB never
# falls): Thurber (b3a8034: GLB 196.13 after 2,204.79), EggHolder n = 5 (gap 0.0027), Kowalik, Watson
C=$GPUBENCH_RESULTS/scipy_go_certify
if [ "$(ls $C/interval_strong-*.json 2>/dev/null | wc -l)" -ge 290 ]; then
  mkdir -p $W/aside
  for c in Thurber-n7 EggHolder-n5 Kowalik-n4 Watson-n6; do mv $C/interval_strong-scipy_go.$c-full-r0-9ef896d8.json $W/aside/ 2>/dev/null; done
  timeout 900 python3 -m gpubench reproduce scipy_go_certify --entries interval_strong --backend cuda > $SOL/cert.log 2>&1; say "certify rc $?"
else say "certify skipped: carry results/scipy_go_certify/interval_strong-*.json"; fi
touch $W/all.done
