# The device loop's long rows with unsigned subscripts (issue 42; fb370fc: Rosenbrock n = 1,000 106.7 s,
# 80,548 iterations; Levy n = 10,000 74.4 s, 9,000 iterations), each typed in with --time-limit 150 as
# fb370fc ran them.  Pack with no records: bash scripts/gpu_pack.sh
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
S() { name=$(echo "$*" | tr ' ' '_' | tr -d '.'); timeout 300 python3 -m gpubench solve "$@" --json > $SOL/$name.json 2> $SOL/$name.err; say "solve $*: rc $?"; }
S rosenbrock --dim 1000 --time-limit 150
S levy --dim 10000 --time-limit 150
touch $W/all.done
