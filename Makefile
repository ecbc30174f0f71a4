# Quick start: `make demo` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
export GPUBENCH_CACHE ?= $(CURDIR)/.cache

.PHONY: demo test bench nightly report clean test-slow

# PYTHONWARNINGS: setuptools' "Editable installation" notice (gpubench/ is in the current folder,
# as it must be in a checkout) would be the only output of a quiet install
# The peers (`.[peers]`: EvoX on PyTorch, evosax and jaxopt on JAX) are installed too, so that their
# tests run (tests/test_peers.py).  PyTorch first, as the CPU build: on this project's machines
# `pip install torch==2.13.0` takes the CPU wheel lying on disk (about 30 s); left to EvoX's
# requirement, pip would take PyPI's newest build with several GB of CUDA packages.  Elsewhere set
# TORCH to a CPU build you can reach, or TORCH= and PEERS= to leave the peers out (their tests skip).
TORCH ?= torch==2.13.0
PEERS ?= ,peers
# --no-compile, then compileall on every core: pip byte-compiles what it installs one file at a time
# (about 40 s of the install's 67 s on 2 cores, 2026-11-29); compileall -j 0 writes the same .pyc files
# in about 24 s (PYTHONDONTWRITEBYTECODE does not stop it).  Its status is ignored as pip ignores a
# file that does not compile (some packages ship such files as test data).
PURELIB = $$($(BIN)/python -c "import sysconfig; print(sysconfig.get_path('purelib'))")
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=23"
	$(if $(TORCH),$(BIN)/python -m pip install --quiet --no-compile "$(TORCH)")
	PYTHONWARNINGS=ignore::UserWarning $(BIN)/python -m pip install --quiet --no-compile -e ".[test,scale,bench$(PEERS)]"
	$(BIN)/python -m compileall -q -j 0 $(PURELIB) > /dev/null 2>&1 || true
	touch $(STAMP)

# Set up the virtual environment only.
.venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/gpubench demo

# The paper-size cases (marked slow: 4^10 subregions an iteration on the CPU, minutes each) run
# in `make test-slow`; the paper's tables reproduce them at full size (gpubench reproduce).
# Bytecode on (env -u PYTHONDONTWRITEBYTECODE, which some machines set, CI's among them): without it every
# process the tests start compiles gpubench's modules and the generated forms again (tests/test_bad_inputs.py
# 19.8 s -> 6.8 s).  The generated modules are named by the hash of their text, so a stale .pyc cannot stand.
# NUMBA_OPT=1 was tried (2026-11-28): compiles about 12 % sooner, but the CPU code it makes runs slower
# (tests/test_devloop.py's simulator tests 9 s -> 55 s): the suite took 914 s against 891 s at O3.
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -n 2 -q --durations=30
test: $(STAMP)
	$(PYTEST) -m "not slow"

test-slow: $(STAMP)
	$(PYTEST) -m slow

clean:
	rm -rf $(VENV) .cache

# Rebuild every report (reports/*.md, .html, figures, index.md) from the stored results/ only.
report: $(STAMP)
	$(BIN)/gpubench report --all

# ---- asv performance tracking (docs/benchmarks.md) -------------------------------------------
# Every asv run benchmarks this Python (`--python=same`): nothing is rebuilt.
.PHONY: compare
ASV := $(BIN)/asv
ASV_MACHINE ?= $(shell $(BIN)/python -m benchmarks.tools machine)
# make bench: everything but the long nightly-only module
BENCH ?= ^(?!bench_nightly)
BASE ?= HEAD~1
TARGET ?= HEAD
FACTOR ?= 1.2

# Quick pass (one sample each) on this machine; results stay in .asv/quick, nothing is saved.
bench: $(STAMP)
	$(BIN)/python -m benchmarks.tools conf .asv/quick/asv.conf.json --results .asv/quick/results >/dev/null
	$(ASV) machine --yes --machine "$(ASV_MACHINE)" >/dev/null
	$(ASV) run --config .asv/quick/asv.conf.json --python=same --quick --show-stderr \
	    --machine "$(ASV_MACHINE)" --bench '$(BENCH)'

# Full set, results of the HEAD commit saved under results/asv/<machine>/, HTML published to
# reports/asv/ with the regressions asv flags between commits listed in reports/asv/regressions.md
# (and printed).  `make nightly PUBLISH_ONLY=1` only publishes what results/asv/ holds (e.g. the
# GPU host's history of many commits: `python -m benchmarks.history`, docs/benchmarks.md).
# results/asv/ and reports/asv/ are the GPU host's, tracked: on any other machine (an ASV_MACHINE
# not named gpuhost-*) both go to .asv/nightly/ instead, so a CPU run leaves them alone.
WARM ?= $(BIN)/python -m benchmarks.tools warm >/dev/null
REGRESSIONS ?= $(BIN)/python -m benchmarks.history regressions
nightly: $(STAMP)
	@m="$(ASV_MACHINE)"; case "$$m" in \
	  gpuhost-*) conf=asv.conf.json; html=reports/asv ;; \
	  *) conf=$$($(BIN)/python -m benchmarks.tools conf .asv/nightly/asv.conf.json \
	         --results .asv/nightly/results --html .asv/nightly/html) || exit 1; html=.asv/nightly/html; \
	     echo "make nightly: $$m is not a GPU host; results and HTML go to .asv/nightly/" ;; \
	esac; \
	publish() { $(ASV) publish --config "$$conf" >/dev/null && \
	    $(REGRESSIONS) "$$html" --out "$$html/regressions.md"; }; \
	if [ -n "$(PUBLISH_ONLY)" ]; then publish; exit 0; fi; \
	$(WARM) && $(ASV) machine --yes --machine "$$m" >/dev/null || exit 1; \
	$(ASV) run --config "$$conf" --python=same --set-commit-hash "$$(git rev-parse HEAD)" \
	    --show-stderr --machine "$$m" $(NIGHTLY_ARGS); rc=$$?; \
	publish; exit $$rc

# Benchmark BASE and TARGET (default HEAD~1, HEAD) in this Python; exit 1 if any benchmark is
# worse by more than FACTOR.  e.g. make compare BASE=v0.1 BENCH='CpuSweep|CpuSolve'
compare: $(STAMP)
	$(BIN)/python -m benchmarks.tools compare "$(BASE)" "$(TARGET)" --factor $(FACTOR) \
	    --bench '$(BENCH)' --machine "$(ASV_MACHINE)"
