# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's
# copy, $W the window's folder, $SOL its loose outputs).  Order: the unfinished rows first, then what
# a window cut short may lose (2026-11-28: issue 42's timings before the certify reruns, which end the window).  Pack: bash scripts/gpu_pack.sh results/kim_exatron_table5
# results/device_peers_cholesky results/scipy_go_certify/interval_strong-*.json (the 13659pegase
# checkpoint; jobs 2 and 5 move the cases to rerun aside).  A one-GPU machine, about 30 minutes:
# 6515rte about 7, then 13659pegase's rest about 3 (3,396 iterations at 43 ms, from iteration 37,730).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
T5=$GPUBENCH_RESULTS/kim_exatron_table5; mkdir -p $W/aside
# 1-2. paper 003's Table 5, alone on the host, in the experiment's order: 6515rte again (its record
# of 90f28c2 ran on a busy 4-GPU host; the verdict asks for a run alone), then 13659pegase from its checkpoint
mv $T5/admm-opf_6515rte-n6-full-r0-90892fbf.json $W/aside/ 2>/dev/null
python3 -m gpubench reproduce kim_exatron_table5 --backend cuda --entries admm --checkpoint-every 60 > $W/t5.log 2>&1; say "table 5 rc $?"
# 6. issue 42's typed-in solves, default settings (no --loop), as at 90f28c2 (results/gpu/solve-90f28c2)
S() { name=$(echo "$*" | tr ' ' '_' | tr -d '.'); timeout 300 python3 -m gpubench solve "$@" --json > $SOL/$name.json 2> $SOL/$name.err; say "solve $*: rc $?"; }
S levy --dim 50; S levy --dim 50; S levy --dim 1000; S levy --dim 10000 --time-limit 150; S rosenbrock --dim 1000 --time-limit 150
# 7. issue 42's cold tron-gpu (target 20 s) and second processes (target 1 s beyond the solve), alone
timeout 400 python3 $R/benchmarks/profiling/startup_profile.py levy --dim 10 --backend cuda --method tron-gpu --method de-gpu \
  --cold --runs 2 --no-importtime --out $SOL/startup_cold.json > $SOL/startup_cold.log 2>&1; say "startup cold rc $?"
# 3. the last Cholesky auto case (n = 32; a fresh machine compiles each n's unrolled kernel, ~7 s)
timeout 300 python3 -m gpubench reproduce device_peers_cholesky --backend cuda --entries auto,torch > $W/chol.log 2>&1; say "cholesky auto rc $?"
# 4. 10^4 L-BFGS-B starts of Levy n = 10 (issue 43's 0.2 s; 1.55 s at 1f9d28e with 32 threads a
# block): a start a block (threads = 1) leaves no warp holding starts whose iterations branch apart
for t in 32 8 1; do for k in 1 2; do timeout 60 python3 -m gpubench minimize levy --dim 10 --method lbfgsb-gpu \
  --set starts=10000 --set threads=$t --backend cuda --json > $SOL/min_levy10_lbfgsb_10000_t${t}_$k.json 2>&1; say "lbfgsb threads=$t rc $?"; done; done
# 4b. issue 43 after the middle matrix's one LU (4fadc8a, 146a58b): 19,169 -> 10,647 work-array accesses an
# iteration; if time follows them, 1.24 -> ~0.69 s (threads = 8), 1.55 -> ~0.86 s (32), 1.34 -> ~0.74 s
# (1,000 starts, 32); same bits: each start's iterations and f as in results/gpu/solve-31fe746/min_levy10_lbfgsb_10000_t*,
# and 70,038 iterations in all at 1,000 starts (startup_warm2)
for s in 10000 1000; do for t in 8 32; do timeout 60 python3 -m gpubench minimize levy --dim 10 --method lbfgsb-gpu --set starts=$s --set threads=$t --backend cuda --json > $SOL/min_levy10_lbfgsb_lu_${s}_t${t}.json 2>&1; say "lbfgsb lu starts=$s threads=$t rc $?"; done; done
# 5. the certify cases that cert41c's least-squares bounds may close (Kowalik the likeliest), and two
# certified fits to check for slowdowns: their records moved aside, the other 288 carried and skipped
C=$GPUBENCH_RESULTS/scipy_go_certify
if [ "$(ls $C/interval_strong-*.json 2>/dev/null | wc -l)" -ge 290 ]; then
  for c in Kowalik-n4 Thurber-n7 Ratkowsky01-n4 Watson-n6 Ratkowsky02-n3 Eckerle4-n3; do
    mv $C/interval_strong-scipy_go.$c-full-r0-9ef896d8.json $W/aside/ 2>/dev/null; done
  timeout 400 python3 -m gpubench reproduce scipy_go_certify --entries interval_strong --backend cuda > $W/cert.log 2>&1; say "certify rc $?"
else say "certify skipped: carry results/scipy_go_certify/interval_strong-*.json"; fi
touch $W/all.done
