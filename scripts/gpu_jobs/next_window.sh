# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another, never beside each
# other; $R the checkout's copy, $W the window's folder, $SOL its loose outputs; jobs run from
# /tmp/run, so a script of the checkout is named $R/...).  Order: the cheapest measurements first, the
# long ones last (a window cut short loses the end).  Pack:
#     bash scripts/gpu_pack.sh results/scipy_go_certify/interval_strong-*.json
# About 16 minutes: jobs 1-3 about 3, job 4 about 3, job 5 about 4, job 6 about 6.
# What ran before: results/gpu/solve-057b3a5/ and the three windows before it (READMEs there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# 1. issue 42, item 4: numpy's import on this 16-core host (0.27-0.32 s a process at 057b3a5 against a
# bare interpreter's 0.06; numpy#29193: OpenBLAS's threads), with OPENBLAS_NUM_THREADS unset, 4 and 1
for t in unset 4 1; do for i in 1 2 3 4 5; do
  if [ $t = unset ]; then s=$( { /usr/bin/time -f %e python3 -c "import numpy" ; } 2>&1 )
  else s=$( { OPENBLAS_NUM_THREADS=$t /usr/bin/time -f %e python3 -c "import numpy" ; } 2>&1 ); fi
  echo "OPENBLAS_NUM_THREADS=$t import numpy $s s"; done; done > $SOL/numpy_import.log 2>&1; say "numpy import done"
# 2. issue 42: Levy n = 1,000 and 10,000, Rosenbrock n = 1,000 typed in (since 80380e1 a second process's
# clock holds the search only: 2.22 s both processes at ee7994e), then the register cap 128 beside 64 in
# second processes (before the preload: 2.91 / 3.23 s, 3.56 / 3.67 s)
S() { name=$(echo "$*" | tr ' ' '_' | tr -d '.'); timeout 300 python3 -m gpubench solve "$@" --json > $SOL/$name.json 2> $SOL/$name.err; say "solve $*: rc $?"; }
S levy --dim 1000; S levy --dim 1000
timeout 300 python3 $R/benchmarks/profiling/loop_caps.py $SOL/loopcaps levy 1000 --caps 128,64 --carveouts -1 \
  > $SOL/loopcaps.log 2>&1; say "loop caps rc $?"
# 3. issue 43: 10^4 L-BFGS-B starts of Levy n = 10 (0.869 s at a05499a, threads = 8; target 0.2 s)
for t in 8 32; do timeout 60 python3 -m gpubench minimize levy --dim 10 --method lbfgsb-gpu --set starts=10000 \
  --set threads=$t --backend cuda --json > $SOL/min_levy10_lbfgsb_${t}.json 2> $SOL/min_levy10_lbfgsb_${t}.err
  say "lbfgsb threads=$t rc $?"; done
# ... and a start per group of lanes (73d4972: opt-in `lanes`, the same bits under the simulator; lane 0's
# work an iteration 3.5x under one thread's at 8 lanes by the simulator's line count; registers cap the
# residency): the same 699,819 iterations and f = 1.6024840790455995e-14 expected in every run
for v in "lanes=4" "lanes=8" "lanes=16" "lanes=8 --set registers=128"; do name=$(echo $v | tr ' =' '__' | tr -d '-')
  timeout 90 python3 -m gpubench minimize levy --dim 10 --method lbfgsb-gpu --set starts=10000 --set $v --backend cuda \
    --json > $SOL/min_levy10_lbfgsb_$name.json 2> $SOL/min_levy10_lbfgsb_$name.err; say "lbfgsb $v rc $?"; done
# 4. issue 42's long typed-in solves
S levy --dim 10000 --time-limit 150; S rosenbrock --dim 1000 --time-limit 150
# 5. issue 41: the least-squares fits left uncertified (Kowalik 125 its in 10 s at a05499a on a slow
# host CPU, 239 at 31fe746; the CPU twin certifies it in 28 s) and the two not run since 31fe746
C=$GPUBENCH_RESULTS/scipy_go_certify
if [ "$(ls $C/interval_strong-*.json 2>/dev/null | wc -l)" -ge 290 ]; then
  mkdir -p $W/aside
  for c in Kowalik-n4 Watson-n6 Thurber-n7 Ratkowsky01-n4; do
    mv $C/interval_strong-scipy_go.$c-full-r0-9ef896d8.json $W/aside/ 2>/dev/null; done
  timeout 420 python3 -m gpubench reproduce scipy_go_certify --entries interval_strong --backend cuda > $SOL/cert.log 2>&1; say "certify rc $?"
else say "certify skipped: carry results/scipy_go_certify/interval_strong-*.json"; fi
touch $W/all.done
