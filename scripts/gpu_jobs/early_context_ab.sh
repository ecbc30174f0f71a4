# The early CUDA context, on and off, in one window (issue 42): a warm cache first, then second processes of
# tron-gpu, de-gpu and lbfgsb-gpu with GPUBENCH_EARLY_CONTEXT=0 and with the default (on for these methods),
# alternated three times so that the host's drift falls on both.  Pack with no records: bash scripts/gpu_pack.sh
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
C=/tmp/early_cache
P() { timeout 200 python3 $R/benchmarks/profiling/startup_profile.py levy --dim 10 --backend cuda --method tron-gpu \
  --method de-gpu --method lbfgsb-gpu --cache $C --no-importtime "$@"; }
P --runs 1 --out $SOL/ab_warm.json > $SOL/ab_warm.log 2>&1; say "warm rc $?"
for i in 1 2 3; do
  GPUBENCH_EARLY_CONTEXT=0 P --runs 2 --out $SOL/ab_off_$i.json > $SOL/ab_off_$i.log 2>&1; say "off $i rc $?"
  P --runs 2 --out $SOL/ab_on_$i.json > $SOL/ab_on_$i.log 2>&1; say "on $i rc $?"
done
touch $W/all.done
