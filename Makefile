# The README's two commands:
#   make        create .venv, install the pinned dependencies and fairlib, register the
#               'fairlib' Jupyter kernel, fetch the trace excerpts the notebooks read where they
#               are not found (a network failure is reported, not fatal: the trace notebooks then
#               run on labelled synthetic data), then run every notebook in full mode (run_all.py;
#               every notebook runs even when one fails; the exit status says whether all passed), then
#               build the book into build/site (make site)
#   make test   create .venv if missing, check the code with ruff and mypy, then run the whole test suite on two workers (pytest-xdist: the tests of
#               a file on one worker, the paper notebooks' quick runs spread one by one)
#   make test-paper KEY=<key>   one paper's loop, every test its files can affect (so green here is green in make
#               test): ruff, mypy, its tests (fairlib/repro/catalog.py), the repository-wide checks (catalog.PAPER_CHECKS:
#               notebook form and quick run, import graph, guide, docs and README blocks, book, citation, claims
#               registries, warm-up), the doctests, API contract, numpydoc docstrings and own tests of every module
#               it adds or changes, and the registry-wide tests of the mechanisms and games it introduces; every
#               step runs, the exit status says whether all passed
#   make site   build the book (build/site/index.html; Jupyter Book, book/) from the committed executed
#               notebooks in executed/, the claims ledger and docs/; nothing is re-executed, so it installs
#               the packages (.venv) and registers the 'fairlib' Jupyter kernel but compiles no numba kernel; it
#               ends by saying how to open or serve the book and how to re-run the notebooks quickly
#   make install   only create .venv, register the 'fairlib' Jupyter kernel and compile every numba kernel once
#               into the keyed cache
#               (python -m fairlib.repro.warm --jobs 2: two compiling processes; e.g. on a Dask worker machine;
#               see README, Running at scale)
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.fairlib-installed
PIPSTAMP := $(VENV)/.fairlib-packages-installed
# cffconvert validates CITATION.cff in the tests; it pins jsonschema < 4, which the notebook tool chain outgrew, so it
# lives in a small environment of its own inside .venv
CFFCONVERT := $(VENV)/cffconvert/bin/cffconvert

.PHONY: all install fetch run site quick verify test test-paper bench clean-build
all: run

install: $(STAMP)

# the packages and the 'fairlib' Jupyter kernel every notebook names (what the book needs: it executes nothing, so it
# needs no compiled numba kernel; with the Jupyter kernel, run_all.py can run the notebooks right after make site)
$(PIPSTAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; v = sys.version_info[:2]; sys.exit(0 if v == (3, 11) else "fairlib needs Python 3.11, found %d.%d at $(PYTHON); set PYTHON=/path/to/python3.11" % v)'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,book]'
	$(BIN)/python -m ipykernel install --sys-prefix --name fairlib --display-name "fairlib (.venv)" >/dev/null
	@touch $@

$(STAMP): $(PIPSTAMP)
	$(BIN)/python -m fairlib.repro.warm --jobs 2
	@touch $@

fetch: $(STAMP)
	$(BIN)/python -m fairlib.traces.fetch --notebooks

# the book is built even when a notebook failed (from the executed copies there are); non-zero if either failed
run: fetch
	status=0; $(BIN)/python run_all.py || status=1; $(BIN)/python book/build.py || status=1; exit $$status

site: $(PIPSTAMP)
	$(BIN)/python book/build.py
	@echo
	@echo "The book is build/site/index.html: open it in a browser, or serve it and open http://localhost:8000 with"
	@echo "    $(BIN)/python -m http.server -d build/site"
	@echo "Re-run every notebook in quick mode (outputs under build/) with"
	@echo "    $(BIN)/python run_all.py --quick"

# re-run every notebook into build/verify and compare with the committed tables and claims
verify: $(STAMP)
	$(BIN)/python run_all.py --verify

quick: $(STAMP)
	$(BIN)/python run_all.py --quick

$(CFFCONVERT): | $(STAMP)
	$(PYTHON) -m venv $(VENV)/cffconvert
	$(VENV)/cffconvert/bin/python -m pip install --quiet cffconvert==2.0.0

# a crashed test worker ends the run at once: under --dist loadgroup, pytest-xdist 3.8 can wait forever after it
# replaces one (pytest-dev/pytest-xdist#1378)
test: $(STAMP) $(CFFCONVERT)
	$(BIN)/ruff check fairlib tests benchmarks run_all.py book
	$(BIN)/ruff format --check fairlib tests benchmarks run_all.py book
	$(BIN)/mypy
	$(BIN)/python -m pytest -n 2 --dist loadgroup --no-loadscope-reorder --max-worker-restart 0

test-paper: $(STAMP) $(CFFCONVERT)
	@test -n "$(KEY)" || { echo "usage: make test-paper KEY=<key> (keys: $(BIN)/python -m fairlib.repro.catalog)"; exit 2; }
	@tests=$$($(BIN)/python -m fairlib.repro.catalog --tests $(KEY)) || exit 2; \
	mechs=$$($(BIN)/python -m fairlib.repro.catalog --mechanisms $(KEY)); \
	modules=$$($(BIN)/python -m fairlib.repro.catalog --modules $(KEY)); \
	status=0; set -x; $(BIN)/ruff check fairlib tests benchmarks run_all.py book || status=1; \
	$(BIN)/ruff format --check fairlib tests benchmarks run_all.py book || status=1; \
	$(BIN)/mypy || status=1; \
	$(BIN)/python -m pytest -p no:cacheprovider -n 2 --dist loadgroup --no-loadscope-reorder --max-worker-restart 0 \
	  $$tests --paper $(KEY) || status=1; \
	if [ -n "$$modules" ]; then $(BIN)/python -m pytest -p no:cacheprovider --doctest-modules $$modules || status=1; \
	  $(BIN)/python -m pytest -p no:cacheprovider -o addopts="-ra --strict-markers" tests/test_api_contract.py \
	  tests/test_docstrings.py --contract-modules "$$(echo $$modules)" || status=1; fi; \
	if [ -n "$$mechs" ]; then $(BIN)/python -m pytest -p no:cacheprovider -o addopts="-ra --strict-markers" \
	  -m "registry or games" -k "$$mechs" tests || status=1; fi; \
	set +x; if [ $$status -ne 0 ]; then echo "make test-paper: some step failed (every step ran; see above)"; fi; \
	exit $$status

# every benchmark, side by side with its baselines; writes benchmarks/results/*.json and renders docs/performance.md
bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python -m benchmarks

clean-build:
	rm -rf build
