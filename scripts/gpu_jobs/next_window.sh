# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack: bash scripts/gpu_pack.sh
# About 4 minutes.  What ran before: results/gpu/solve-195bd18/, solve-b86b7ee/ (READMEs there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 43: L-BFGS-B starts spread over the resident warps (spread = true, the new default) against packed
# (spread = false, as before), each pair in this one run; same iterates expected in each pair
M() { name=$1; shift; timeout 90 python3 -m gpubench minimize levy --method lbfgsb-gpu --backend cuda "$@" --json \
  > $SOL/min_$name.json 2> $SOL/min_$name.err; say "minimize $name rc $?"; }
M levy10_1e4_spread --dim 10 --set starts=10000
M levy10_1e4_packed --dim 10 --set starts=10000 --set spread=false
M levy10_1e4_spread_b --dim 10 --set starts=10000
M levy100_1e3_spread --dim 100 --set starts=1000
M levy100_1e3_packed --dim 100 --set starts=1000 --set spread=false
M levy10_1e3_spread --dim 10 --set starts=1000
M levy10_1e3_packed --dim 10 --set starts=1000 --set spread=false
M levy10_1e4_lanes4_spread --dim 10 --set starts=10000 --set lanes=4
M levy10_1e4_lanes8_spread --dim 10 --set starts=10000 --set lanes=8
touch $W/all.done
