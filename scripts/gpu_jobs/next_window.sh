# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack:
#     bash scripts/gpu_pack.sh results/scipy_go_certify/interval_strong-*.json
# About 8 minutes.  What ran before: results/gpu/solve-63e7a8d/ and the windows before it (READMEs there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# 1. issue 41: Kowalik at the certify experiment's shape; at 63e7a8d 48 iterations in 10 s, sweep 0.69 s,
# host 9.32 s (about 190 ms of host work an iteration): timing.host_seconds after the host-side changes
timeout 120 python3 -m gpubench solve scipy_go.Kowalik --dim 4 --backend cuda --variant strong --split-dims 10 \
  --tol 1e-7 --gap-tol 1e-6 --time-limit 10 --json > $SOL/kowalik.json 2> $SOL/kowalik.err; say "kowalik rc $?"
# 2. issue 43: L-BFGS-B with lanes = 0 (auto, f3bb27a): 10^4 starts at n = 10 should take 2 lanes (0.238 s at
# fb370fc), 1,000 at n = 100 8 lanes (1.740 s at 63e7a8d); then a 168-register cap (12 one-warp blocks an SM
# instead of 8) at 2 and 4 lanes: does residency beyond 8 warps pay at 10^4 starts?
M() { name=$1; shift; timeout 90 python3 -m gpubench minimize levy --method lbfgsb-gpu --backend cuda "$@" --json \
  > $SOL/min_$name.json 2> $SOL/min_$name.err; say "minimize $name rc $?"; }
M levy10_auto --dim 10 --set starts=10000
M levy100_auto --dim 100 --set starts=1000
M levy10_lanes2_r168 --dim 10 --set starts=10000 --set lanes=2 --set registers=168
M levy10_lanes4_r168 --dim 10 --set starts=10000 --set lanes=4 --set registers=168
# 3. issue 41: the certify entry's least-squares fits again (Kowalik, Watson, Thurber, Ratkowsky01), each 10 s
C=$GPUBENCH_RESULTS/scipy_go_certify
if [ "$(ls $C/interval_strong-*.json 2>/dev/null | wc -l)" -ge 290 ]; then
  mkdir -p $W/aside
  for c in Kowalik-n4 Watson-n6 Thurber-n7 Ratkowsky01-n4; do
    mv $C/interval_strong-scipy_go.$c-full-r0-9ef896d8.json $W/aside/ 2>/dev/null; done
  timeout 400 python3 -m gpubench reproduce scipy_go_certify --entries interval_strong --backend cuda > $SOL/cert.log 2>&1; say "certify rc $?"
else say "certify skipped: carry results/scipy_go_certify/interval_strong-*.json"; fi
touch $W/all.done
