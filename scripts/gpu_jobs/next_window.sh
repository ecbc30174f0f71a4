# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack:
#     bash scripts/gpu_pack.sh results/scipy_go_certify/interval_strong-*.json
# About 9 minutes.  What ran before: results/gpu/solve-30822d2/ and the windows before it (READMEs there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 41: the certify entry's uncertified cases last run before the strong variant's chunked host bounds,
# child screen and cleared-first least-squares bound (EggHolder n = 5 and 10, Cola, Xor at 169b322/2348217,
# Rana n = 10 at f3c7052), each 10 s as the experiment says
C=$GPUBENCH_RESULTS/scipy_go_certify
if [ "$(ls $C/interval_strong-*.json 2>/dev/null | wc -l)" -ge 290 ]; then
  mkdir -p $W/aside
  for c in EggHolder-n5 EggHolder-n10 Xor-n9 Rana-n10 Cola-n17; do
    mv $C/interval_strong-scipy_go.$c-full-r0-9ef896d8.json $W/aside/ 2>/dev/null; done
  timeout 520 python3 -m gpubench reproduce scipy_go_certify --entries interval_strong --backend cuda > $SOL/cert.log 2>&1; say "certify rc $?"
else say "certify skipped: carry results/scipy_go_certify/interval_strong-*.json"; fi
touch $W/all.done
