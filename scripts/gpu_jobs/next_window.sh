# The next GPU window's jobs (scripts/gpu_window.sh runs them one after another; $R the checkout's copy,
# $W the window's folder, $SOL its loose outputs).  Pack: bash scripts/gpu_pack.sh
# About 2 minutes.  What ran before: results/gpu/solve-70b446a/ and the windows before it (READMEs there).
set -u
T0=$SECONDS; say() { echo "[$((SECONDS-T0))s] $*"; }
nvidia-smi > $SOL/nvidia-smi.txt
python3 -c "import json; from gpubench.device.environment import capture; print(json.dumps(capture(), indent=1))" > $SOL/environment.json
# issue 42: where a second process's method.run goes on this host (195bd18: lbfgsb-gpu 0.84-0.89 s,
# subdomain-bnb 0.99-1.46, interval 0.54-0.83, against 0.03-0.3 s on a CPU-only host).  cProfile around
# gpubench.cli.main (the command's own exit, os._exit, would leave before cProfile writes)
for m in lbfgsb-gpu subdomain-bnb interval; do
  python3 -m gpubench minimize levy --dim 10 --method $m --backend cuda --json > /dev/null 2>&1; say "$m warm-up rc $?"
  timeout 60 python3 -c "import cProfile, pstats, sys; sys.argv = ['gpubench', 'minimize', 'levy', '--dim', '10', '--method', sys.argv[1], '--backend', 'cuda', '--json']
from gpubench import cli
cProfile.run('cli.main()', sys.argv[-1] if False else '/tmp/p.prof')
p = pstats.Stats('/tmp/p.prof', stream=sys.stderr); p.sort_stats('cumulative').print_stats(90); p.sort_stats('tottime').print_stats(40)" $m \
    > $SOL/prof_$m.json 2> $SOL/prof_$m.txt; say "$m profiled rc $?"
done
touch $W/all.done
