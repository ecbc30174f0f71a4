# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another, never beside each
# other; $R the checkout's copy, $W the window's folder, $SOL its loose outputs; jobs run from
# /tmp/run, so a script of the checkout is named $R/...).  Pack: bash scripts/gpu_pack.sh
# (no records: every job writes into a fresh folder under $SOL).  About 3 minutes.
# What ran before: results/gpu/solve-a89fb72/ (its README and jobs.sh).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# 1. issue 42: Levy n = 1,000 typed in, the first process (it compiles and warms up), then a second
# one (cached: since 80380e1 its preload runs the device loop's first iteration outside the clock;
# before, warm-cache processes read 2.9-3.7 s and warmed-up ones 1.97-2.53 s), then the second
# process's phases
S() { name=$(echo "$*" | tr ' ' '_' | tr -d '.'); timeout 300 python3 -m gpubench solve "$@" --json > $SOL/$name.json 2> $SOL/$name.err; say "solve $*: rc $?"; }
S levy --dim 1000
cp $SOL/levy_--dim_1000.json $SOL/levy_--dim_1000_first.json
S levy --dim 1000
timeout 120 python3 $R/benchmarks/profiling/startup_profile.py levy --dim 1000 --backend cuda --method interval --runs 2 \
  --no-importtime --out $SOL/startup_levy1000.json > $SOL/startup_levy1000.log 2>&1; say "startup levy 1000 rc $?"
# 2. issue 43: de-gpu's mode auto with the 16-lane candidates (2bb5377), EvoX's compiled DE beside it, a fresh folder
timeout 300 python3 -m gpubench reproduce device_peers_de_evox --backend cuda --results $SOL/de --entries degpu,evox \
  > $SOL/de.log 2>&1; say "de auto rc $?"
touch $W/all.done
