# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 1 minute.  What ran before: results/gpu/solve-8198918/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 43: main's head (8198918's kernels, lf_step's and lf_direction's box step one shared device function):
# the 100-iteration figures at the four sizes and two whole 4e6 runs (8198918: 0.950 and 0.945 ms an iteration)
timeout 120 python3 $R/scripts/gpu_lbfgsb_batched.py --sizes 10000,160000,1000000,4000000 --iterations 100 \
  --drivers bound,graph > $SOL/lbfgsb_graph.jsonl 2> $SOL/lbfgsb_graph.err; say "graph rc $?"
for k in 1 2; do
timeout 60 python3 $R/scripts/gpu_lbfgsb_batched.py --sizes 4000000 --iterations 3600 --drivers graph \
  --trace $SOL/lbfgsb_trace.jsonl >> $SOL/lbfgsb_whole.jsonl 2>> $SOL/lbfgsb_whole.err; say "whole rc $?"
done
gzip -f $SOL/lbfgsb_trace.jsonl
touch $W/all.done
