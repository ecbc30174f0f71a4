# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another, never beside each
# other; $R the checkout's copy, $W the window's folder, $SOL its loose outputs; jobs run from
# /tmp/run, so a script of the checkout is named $R/...).  Pack: bash scripts/gpu_pack.sh.  About 2 minutes.
# What ran before: results/gpu/solve-ee7994e/ (its README and jobs.sh).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 42, item 4: second processes with the host's own costs beside them (host_reference: bare python,
# numpy, numba, numba.cuda imports; 69daf663) and the command's imports timed apart (b225d86); one cache
# for all calls (the first run of each method compiles), then de-gpu and tron-gpu with and without
# GPUBENCH_EARLY_CONTEXT=1 (the CUDA context made beside the imports: b1fcf41, opt-in, unmeasured)
C=$W/startup-cache
P="python3 $R/benchmarks/profiling/startup_profile.py levy --dim 10 --backend cuda --no-importtime --cache $C"
timeout 200 $P --method de-gpu --method tron-gpu --method lbfgsb-gpu --method interval --runs 3 \
  --out $SOL/startup_methods.json > $SOL/startup_methods.log 2>&1; say "startup rc $?"
GPUBENCH_EARLY_CONTEXT=1 timeout 60 $P --method de-gpu --method tron-gpu --runs 3 --out $SOL/startup_early.json \
  > $SOL/startup_early.log 2>&1; say "startup early rc $?"
timeout 60 $P --method de-gpu --method tron-gpu --runs 3 --out $SOL/startup_plain.json > $SOL/startup_plain.log 2>&1
say "startup plain rc $?"
touch $W/all.done
