# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another, never beside each
# other; $R the checkout's copy, $W the window's folder, $SOL its loose outputs; jobs run from
# /tmp/run, so a script of the checkout is named $R/...).  Order: the cheapest measurements of this
# session's changes first, the long ones last (a window cut short loses the end).  Pack:
#     bash scripts/gpu_pack.sh results/scipy_go_certify/interval_strong-*.json
# (job 3 moves the cases to rerun aside; the other records are carried so `reproduce` skips them).
# A one-GPU machine, about 30 minutes: jobs 1-2 about 3, job 3 about 5, job 4 about 6, job 5 about 1; the ncu jobs (2b) about 2.
# What ran before: results/gpu/solve-31fe746/ (its README and jobs.sh).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
mkdir -p $W/aside
# 1. issue 42, item 4: every method's cold process and two second processes in a fresh cache (targets:
# second <= 1 s beyond the solve, cold tron-gpu <= 20 s).  At 31fe746 (results/gpu/solve-31fe746,
# warm2): de-gpu 1.08-1.09, tron-gpu and lbfgsb-gpu 0.97-1.00, interval 0.77, subdomain-bnb 0.67 s;
# since then numba's BLAS probe is answered without scipy.linalg (blas_probe, ~0.1 s expected) and
# de-gpu's generator states come from numpy (no numba CPU target in a GPU process)
timeout 420 python3 $R/benchmarks/profiling/startup_profile.py levy --dim 10 --backend cuda --method all \
  --cold --runs 2 --no-importtime --out $SOL/startup_methods.json > $SOL/startup_methods.log 2>&1; say "startup rc $?"
# 2. issue 43: 10^4 L-BFGS-B starts of Levy n = 10 after the middle matrix's one LU (4fadc8a, 146a58b):
# 19,169 -> 10,647 work-array accesses an iteration; if time follows them, 1.24 -> ~0.69 s (threads = 8),
# 1.55 -> ~0.86 s (32), 1.34 -> ~0.74 s (1,000 starts, 32).  The same iterates: 699,819 iterations in
# all at 10^4 starts and f = 1.6024840790455995e-14 as at 31fe746, 70,038 at 1,000 starts
for s in 10000 1000; do for t in 8 32; do timeout 60 python3 -m gpubench minimize levy --dim 10 --method lbfgsb-gpu \
  --set starts=$s --set threads=$t --backend cuda --json > $SOL/min_levy10_lbfgsb_lu_${s}_t${t}.json 2> $SOL/min_levy10_lbfgsb_lu_${s}_t${t}.err
  say "lbfgsb lu starts=$s threads=$t rc $?"; done; done
# 2b. issue 43: where the time of a generation and of an L-BFGS-B launch goes (ncu, clocks left alone,
# METHOD.md): the stream kernel at (100, 1e5) (0.371 ms a generation at c82b8bf, 0.25-0.29 of the copy
# kernel's bandwidth: latency, not bytes; docs/peers.md), the fast kernel at (100, 1e4) (0.0383 ms, target
# 0.0339), and one launch of 10^4 Levy starts.  Warp stalls, issued instructions, occupancy.
NCU="ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section InstructionStats --section MemoryWorkloadAnalysis --launch-skip 1 --launch-count 1"
timeout 120 $NCU --kernel-name regex:'de_stream[^_]' python3 -m gpubench minimize rastrigin --dim 100 --method de-gpu \
  --set np=100000 --set mode=stream --set max_evaluations=3100000 --set generations_per_launch=10 --backend cuda \
  > $SOL/ncu_de_stream_100_1e5.log 2>&1; say "ncu de_stream rc $?"
timeout 120 $NCU --kernel-name regex:'de_fast' python3 -m gpubench minimize rastrigin --dim 100 --method de-gpu \
  --set np=10000 --set mode=fast --set max_evaluations=3010000 --set generations_per_launch=100 --backend cuda \
  > $SOL/ncu_de_fast_100_1e4.log 2>&1; say "ncu de_fast rc $?"
timeout 120 ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy \
  --section LaunchStats --section InstructionStats --section MemoryWorkloadAnalysis --kernel-name regex:'lbfgsb' --launch-count 1 \
  python3 -m gpubench minimize levy --dim 10 --method lbfgsb-gpu --set starts=10000 --set threads=8 --backend cuda \
  > $SOL/ncu_lbfgsb_levy10_1e4.log 2>&1; say "ncu lbfgsb rc $?"
# 3. issue 41: the least-squares fits left uncertified at 31fe746 (host loop: 239 / 64 / 37 / ? iterations
# in their 10 s) after branch cert's faster host work and the least-squares gate weighing its drops (b09b7b3:
# Kowalik certified on the CPU twin in 28 s, 372 iterations), and two certified fits to check for slowdowns:
# their records moved aside, the other 288 carried and skipped
C=$GPUBENCH_RESULTS/scipy_go_certify
if [ "$(ls $C/interval_strong-*.json 2>/dev/null | wc -l)" -ge 290 ]; then
  for c in Kowalik-n4 Watson-n6 Thurber-n7 Ratkowsky01-n4 Ratkowsky02-n3 Eckerle4-n3; do
    mv $C/interval_strong-scipy_go.$c-full-r0-9ef896d8.json $W/aside/ 2>/dev/null; done
  timeout 300 python3 -m gpubench reproduce scipy_go_certify --entries interval_strong --backend cuda > $SOL/cert.log 2>&1; say "certify rc $?"
else say "certify skipped: carry results/scipy_go_certify/interval_strong-*.json"; fi
# 4. issue 42, item 2: the device loop's register cap, warm typed-in Levy n = 1,000 at caps 128 (the
# sweep spill-free by ptxas), 64 (the default) and 96; iterations and regions must not move
timeout 420 python3 $R/benchmarks/profiling/loop_caps.py $SOL/loopcaps levy 1000 --caps 128,64,96 --carveouts -1 \
  > $SOL/loopcaps.log 2>&1; say "loop caps rc $?"
# 5. issue 42's typed-in solves, default settings (no --loop), as at 31fe746 (regressions)
S() { name=$(echo "$*" | tr ' ' '_' | tr -d '.'); timeout 300 python3 -m gpubench solve "$@" --json > $SOL/$name.json 2> $SOL/$name.err; say "solve $*: rc $?"; }
S levy --dim 50; S levy --dim 1000
touch $W/all.done
