# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 2 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-a2fbaa0/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 43: the product's record at the landing kernels (lf_reduced's shared block sums, d0c0fa2): lbfgsb-gpu
# beside jaxopt in one run; a2fbaa0's script run: graph 0.20-0.22 / 0.27-0.28 / 0.55 / 1.41 ms an iteration
XLA_PYTHON_CLIENT_PREALLOCATE=false timeout 300 python3 -m gpubench reproduce device_peers_lbfgsb_jaxopt \
  --backend cuda --results $SOL/jaxopt > $SOL/jaxopt.log 2>&1; say "jaxopt rc $?"
touch $W/all.done
