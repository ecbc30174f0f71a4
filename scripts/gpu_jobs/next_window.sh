# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 4 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-6e8368c/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 43: torsion at the landing kernels (6e8368c: whole 4e6 runs 0.924-0.926 ms; the stored record at 6154c9f
# 0.197 / 0.225 / 0.409 / 0.934 ms, 8198918's on a slower host 0.213 / 0.251 / 0.431 / 0.961)
for k in 1 2; do
timeout 60 python3 $R/scripts/gpu_lbfgsb_batched.py --sizes 4000000 --iterations 3600 --drivers graph \
  --trace $SOL/lbfgsb_trace.jsonl >> $SOL/lbfgsb_whole.jsonl 2>> $SOL/lbfgsb_whole.err; say "whole rc $?"
done
gzip -f $SOL/lbfgsb_trace.jsonl
XLA_PYTHON_CLIENT_PREALLOCATE=false timeout 300 python3 -m gpubench reproduce device_peers_lbfgsb_jaxopt \
  --backend cuda --results $SOL/jaxopt > $SOL/jaxopt.log 2>&1; say "jaxopt rc $?"
# issue 42: gpubench's five methods' second processes, three each (7a98771: 0.77-1.47 s beyond the solve)
timeout 240 python3 $R/benchmarks/profiling/startup_profile.py levy --dim 10 --backend cuda --method de-gpu \
  --method interval --method lbfgsb-gpu --method subdomain-bnb --method tron-gpu --cold --runs 3 --no-importtime \
  --out $SOL/startup_methods.json > $SOL/startup_methods.log 2>&1; say "startup rc $?"
touch $W/all.done
