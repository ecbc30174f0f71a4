# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack with no records:
#     bash scripts/gpu_pack.sh
# About 8 minutes (one call of gpu_window.sh).  What ran before: results/gpu/solve-c8ecc9a/ (README there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
S="--variant strong --gap-tol 1e-6 --tol 1e-7 --backend cuda"
# issue 41: Kowalik alone, cut as the CPU twin cuts (split 6) with 40 s of search: the CPU twin certified it in
# 25 s (372 iterations); at c8ecc9a, sharing the host with five compiling processes, the GPU's host loop made 138
# iterations in 10 s.  Does it certify given the time, and at what pace alone?
timeout 200 python3 -m gpubench solve scipy_go.Kowalik $S --split-dims 6 --time-limit 40 > $SOL/kowalik_s6_40.log 2>&1
say "kowalik rc $?"
# issue 41: Watson alone at the certify entry's settings (its warm-up outlasted 480-900 s when shared)
timeout 330 python3 -m gpubench solve scipy_go.Watson $S --split-dims 10 --time-limit 10 > $SOL/watson.log 2>&1
say "watson rc $?"
touch $W/all.done
