# Quick start: `make demo` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
export GPUBENCH_CACHE ?= $(CURDIR)/.cache

.PHONY: demo test bench nightly report clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=23"
	$(BIN)/python -m pip install --quiet -e ".[test,scale,bench]"
	touch $(STAMP)

# Set up the virtual environment only.
.venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/gpubench demo

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q

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
# reports/asv/.  `make nightly PUBLISH_ONLY=1` only publishes what results/asv/ holds.
nightly: $(STAMP)
ifndef PUBLISH_ONLY
	$(BIN)/python -m benchmarks.tools warm >/dev/null
	$(ASV) machine --yes --machine "$(ASV_MACHINE)" >/dev/null
	$(ASV) run --python=same --set-commit-hash "$$(git rev-parse HEAD)" --show-stderr \
	    --machine "$(ASV_MACHINE)" $(NIGHTLY_ARGS); rc=$$?; $(ASV) publish; exit $$rc
else
	$(ASV) publish
endif

# Benchmark BASE and TARGET (default HEAD~1, HEAD) in this Python; exit 1 if any benchmark is
# worse by more than FACTOR.  e.g. make compare BASE=v0.1 BENCH='CpuSweep|CpuSolve'
compare: $(STAMP)
	$(BIN)/python -m benchmarks.tools compare "$(BASE)" "$(TARGET)" --factor $(FACTOR) \
	    --bench '$(BENCH)' --machine "$(ASV_MACHINE)"
