# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack: bash scripts/gpu_pack.sh
# About 1.5 minutes.  What ran before: results/gpu/solve-ac54d57/ and the windows before it (READMEs there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 42: a second process with the carried wheels compiled to bytecode at their install (gpu_host_env.sh;
# 195bd18 without: de-gpu 1.39 / 1.76 s, interval 1.78 / 1.29, tron-gpu 1.66 / 1.22)
find /tmp/site/numpy -name "*.pyc" | wc -l > $SOL/numpy_pyc_count.txt
python3 -X importtime -c "import numpy" 2> $SOL/numpy_importtime.log; say "numpy importtime"
timeout 150 python3 $R/benchmarks/profiling/startup_profile.py levy --dim 10 --backend cuda --method de-gpu \
  --method interval --method tron-gpu --cold --runs 2 --no-importtime \
  --out $SOL/startup_methods.json > $SOL/startup_methods.log 2>&1; say "startup_profile rc $?"
touch $W/all.done
