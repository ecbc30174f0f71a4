# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack:
#     bash scripts/gpu_pack.sh results/scipy_go_certify/interval_strong-*.json
# About 3 minutes.  What ran before: results/gpu/solve-fb370fc/ and the windows before it (READMEs there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# 1. issue 43: L-BFGS-B starts at n = 100 (1,000 starts): 2 and 8 lanes beside fb370fc's 4 (2.107 s) and 1
# (6.167 s), to choose the default between 2 (best at n = 10, 10^4 starts: 0.238 s) and 4
M() { name=$1; shift; timeout 90 python3 -m gpubench minimize levy --method lbfgsb-gpu --backend cuda "$@" --json \
  > $SOL/min_$name.json 2> $SOL/min_$name.err; say "minimize $name rc $?"; }
M levy100_lanes2 --dim 100 --set starts=1000 --set lanes=2
M levy100_lanes8 --dim 100 --set starts=1000 --set lanes=8
# 2. issue 41: Kowalik at the certify experiment's shape after the chunked host bounds and the child
# screen (merged from branch cert): its list after the first iteration (3,727 before; 36 on the CPU twin)
timeout 120 python3 -m gpubench solve scipy_go.Kowalik --dim 4 --backend cuda --variant strong --split-dims 10 \
  --tol 1e-7 --gap-tol 1e-6 --time-limit 10 --json > $SOL/kowalik.json 2> $SOL/kowalik.err; say "kowalik rc $?"
C=$GPUBENCH_RESULTS/scipy_go_certify
mkdir -p $W/aside; mv $C/interval_strong-scipy_go.Kowalik-n4-full-r0-9ef896d8.json $W/aside/ 2>/dev/null
timeout 150 python3 -m gpubench reproduce scipy_go_certify --entries interval_strong --backend cuda > $SOL/cert.log 2>&1
say "certify rc $?"
touch $W/all.done
