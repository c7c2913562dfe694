# GridPortal — the README's commands. `make run` and `make test` work on a fresh machine
# with Python 3.11, npm and make.
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
CHART  := static/vendor/chart.umd.min.js

.PHONY: setup run worker test test-fast lint format bench clean reliability native

# The engine's compiled modules: NATIVE_MODULES in setup.py, rebuilt when one of
# them (or setup.py) changes. Without a compiler one line is printed and the pure Python runs
# (the same sources; scheduler/_native.py never loads a build made from another source).
NATIVE_SRC := $(shell sed -n '/^NATIVE_MODULES = \[/,/^\]/s/^ *"\([^"]*\.py\)",*$$/\1/p' setup.py)
NATIVE     := build/native/.built

setup: $(STAMP) $(CHART) $(NATIVE)

# `make native`: (re)build the compiled modules only (after editing one of NATIVE_MODULES), one
# compiler per core (72 -> 34 s on 2 cores)
native: $(NATIVE)

$(NATIVE): $(STAMP) setup.py scheduler/_native.py $(NATIVE_SRC) $(wildcard scheduler/*/*.pxd)
	@mkdir -p build/native
	@if $(PY) -W ignore setup.py -q build_ext --inplace --parallel $$(nproc) >build/native/build.log 2>&1; then \
		grep '^gridportal:' build/native/build.log || true; \
	else \
		echo "gridportal: compiled kernel not built (see build/native/build.log); pure Python runs"; \
	fi
	@touch $@

$(STAMP): requirements.txt requirements-dev.txt
	@command -v $(PYTHON) >/dev/null || { echo "need $(PYTHON) on PATH"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $(STAMP)

# Chart.js from the npm registry (version pinned in package.json / package-lock.json).
$(CHART): package.json package-lock.json
	npm ci --no-audit --no-fund --silent
	mkdir -p static/vendor
	cp node_modules/chart.js/dist/chart.umd.min.js $(CHART)
	cp node_modules/chart.js/LICENSE.md static/vendor/chart.js.LICENSE.md

# Migrate, load demo data (queues one example experiment), then serve with a worker.
run: setup
	$(PY) manage.py migrate --noinput
	$(PY) manage.py seed_demo
	scripts/run-portal.sh

worker: setup
	$(VENV)/bin/celery -A gridportal worker --loglevel INFO

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: setup
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# The whole suite, lint included. With CI=1 every service (PostgreSQL, Redis, Chromium) is
# required: a test that needs one fails instead of skipping.
test: lint
	scripts/test.sh

# Fault, fuzz, access and packaging tests alone (private PostgreSQL/Redis/workers), then the
# figures they measured (the README's Reliability table).
reliability: setup
	GRIDPORTAL_FULL_TESTS=1 $(PY) -m pytest tests/reliability tests/portal/test_fuzz_uploads.py \
		tests/portal/test_ownership_matrix.py tests/scheduler/test_packaging.py
	cat var/reliability-figures.json

bench: setup
	for b in bench/bench_*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) node_modules var static/vendor build
	find scheduler -name '*.so' -delete

# Reproductions: run every preset that declares a seed's claims on the archive
# traces found in REPRO_TRACES — over the Celery workers when some are running (`make worker`),
# else in this process — and write var/reproduce/report.json + report.html and the scoreboard
# docs/reproductions.md + .json (verdict counts per seed, every claim, causes, deviations). The
# total time is printed. REPRO_MAX_MINUTES (default: unlimited) leaves out presets declared
# longer, e.g. `make reproduce REPRO_MAX_MINUTES=2` for the quick ones. In process, REPRO_JOBS=N
# runs a preset's independent passes (pricing: one per α) in N processes, with the same results.
REPRO_TRACES      ?= ../shared/data/traces
REPRO_MAX_MINUTES ?=
REPRO_JOBS        ?= 1
.PHONY: reproduce
reproduce: setup
	mkdir -p var/reproduce docs
	$(PY) manage.py migrate --noinput >/dev/null
	$(PY) manage.py reproduce --traces $(REPRO_TRACES) \
		$(if $(REPRO_MAX_MINUTES),--max-preset-minutes $(REPRO_MAX_MINUTES)) --jobs $(REPRO_JOBS) \
		--out var/reproduce/report.json --docs docs/reproductions
