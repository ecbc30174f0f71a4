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
