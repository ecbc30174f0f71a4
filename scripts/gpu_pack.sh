# Assemble .gpurun/, the folder one GPU window carries (`run` with carry [".gpurun"]), here:
#
#     bash scripts/gpu_pack.sh [RESULT_PATH ...]
#
# It holds HEAD's code (git archive of what the host needs), the wheels of .whl/ (numpy 2.4 for
# numba-cuda and the peers: fetch them once with `bash scripts/gpu_pack.sh --wheels`), .whl/COMMIT,
# and the records named (paths under results/, e.g. results/kim_exatron_table5: the cases a
# window's `reproduce` must skip or resume).  The device tool sends at most 64 MiB: the size is
# printed, and a pack over 60 MiB is refused.  Then, before `run`: add `/.gpurun/` to
# .git/info/exclude once and hide results/ and reports/ from the tree that travels
# (`git sparse-checkout set --no-cone '/*' '!/results/' '!/reports/'`; `git sparse-checkout
# disable` afterwards); on the host: `cd .gpurun && bash scripts/gpu_window.sh 540 JOBS.sh`.
set -eu -o pipefail
if [ "${1:-}" = --wheels ]; then
    mkdir -p .whl
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
        --platform manylinux2014_x86_64 -d .whl numpy==2.4.6
    python3 -m pip download -q --no-deps -d .whl evox==1.4.0 evosax==0.3.2 jaxopt==0.8.5 dotmap==1.3.30
    ls .whl
    exit 0
fi
ls .whl/*.whl > /dev/null 2>&1 || { echo "gpu_pack: no wheels in .whl/ (bash scripts/gpu_pack.sh --wheels)" >&2; exit 2; }
for p in "$@"; do
    case "$p" in results/*) ;; *) echo "gpu_pack: $p is not under results/" >&2; exit 2;; esac
    [ -e "$p" ] || { echo "gpu_pack: no such path: $p" >&2; exit 2; }
done
rm -rf .gpurun && mkdir -p .gpurun
# what the host installs and runs (a path HEAD lacks is left out: git archive refuses it)
# tests/: its GPU-only tests (tests/test_devloop.py -k on_a_gpu ...) run in a window too
have=$(for p in gpubench functions baselines experiments scripts benchmarks tests pyproject.toml README.md asv.conf.json; do
    if git cat-file -e "HEAD:$p" 2>/dev/null; then echo "$p"; fi; done)
git archive HEAD $have | tar -x -C .gpurun
mkdir -p .gpurun/.whl && cp .whl/*.whl .gpurun/.whl/ && git rev-parse HEAD > .gpurun/.whl/COMMIT
for p in "$@"; do mkdir -p ".gpurun/$(dirname "$p")" && cp -r "$p" ".gpurun/$(dirname "$p")/"; done
size=$(du -sm .gpurun | cut -f1)
echo "gpu_pack: .gpurun holds $size MiB (commit $(cut -c1-7 .gpurun/.whl/COMMIT))"
[ "$size" -le 60 ] || { echo "gpu_pack: $size MiB is over what one window carries (64 MiB): name fewer records" >&2; exit 2; }
