# The README's two commands:
#   make        create .venv, install the pinned dependencies and fairlib, register the
#               'fairlib' Jupyter kernel, then run every notebook in full mode (run_all.py)
#   make test   create .venv if missing, then run the whole test suite
#   make install   only create .venv (e.g. on a Dask worker machine; see README, Running at scale)
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.fairlib-installed

.PHONY: all install run quick test bench clean-build
all: run

install: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; v = sys.version_info[:2]; sys.exit(0 if v == (3, 11) else "fairlib needs Python 3.11, found %d.%d at $(PYTHON); set PYTHON=/path/to/python3.11" % v)'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/python -m ipykernel install --sys-prefix --name fairlib --display-name "fairlib (.venv)" >/dev/null
	@touch $@

run: $(STAMP)
	$(BIN)/python run_all.py

quick: $(STAMP)
	$(BIN)/python run_all.py --quick

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python -m benchmarks

clean-build:
	rm -rf build
