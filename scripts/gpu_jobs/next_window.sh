# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 2 minutes.  What ran before: results/gpu/solve-7a98771/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 43: a whole 4e6 run's iterations slow from 0.96 ms (its first 435) to 1.10-1.14 (7a98771's trace),
# with few hand-overs: every launch of two iterations past the first 1,400 (about 14 launches an iteration),
# at 4e6 and 1e6 (whose whole run does not slow)
for n in 4000000 1000000; do
timeout 150 ncu --clock-control none --launch-skip 20000 --launch-count 60 \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,launch__grid_size \
  --csv --log-file $SOL/ncu_late_$n.csv python3 $R/scripts/gpu_lbfgsb_batched.py --sizes $n --iterations 2600 \
  --drivers bound > $SOL/ncu_late_$n.log 2>&1; say "ncu late $n rc $?"
done
gzip -f $SOL/ncu_late_*.csv
touch $W/all.done
