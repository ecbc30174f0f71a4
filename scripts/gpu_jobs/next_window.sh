# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack:
#     bash scripts/gpu_pack.sh results/scipy_go_certify/interval_strong-*.json
# About 8 minutes.  What ran before: results/gpu/solve-868809c/ and the windows before it (READMEs there).
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
# 2. issue 41: the certify entry's least-squares fits not rerun since fff6266 / 31fe746 (Thurber, Watson)
C=$GPUBENCH_RESULTS/scipy_go_certify
if [ "$(ls $C/interval_strong-*.json 2>/dev/null | wc -l)" -ge 290 ]; then
  mkdir -p $W/aside
  for c in Watson-n6 Thurber-n7; do mv $C/interval_strong-scipy_go.$c-full-r0-9ef896d8.json $W/aside/ 2>/dev/null; done
  timeout 240 python3 -m gpubench reproduce scipy_go_certify --entries interval_strong --backend cuda > $SOL/cert.log 2>&1; say "certify rc $?"
else say "certify skipped: carry results/scipy_go_certify/interval_strong-*.json"; fi
touch $W/all.done
