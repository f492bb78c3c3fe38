# Two commands on a fresh machine: `make demo` and `make test` (see README).
# Both create .venv when needed and install the exact versions in requirements.lock;
# the stamp makes a re-run cheap when neither the lock nor pyproject.toml changed.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.mqcap-installed
DEV_STAMP := $(VENV)/.mqcap-dev-installed
SPARK_STAMP := $(VENV)/.mqcap-spark-installed

.PHONY: venv dev spark demo test coverage lint lint-beside unit browser bench lock docs clean

# mqcap's compiled parsers (native/: Rust without dependencies, so built offline, about 2 s),
# loaded by mqcap/parsers/_native.py. Without cargo mqcap parses everything in Python (the same
# rows, slower; tests/test_native.py then fails, saying so). A build error stops make.
CARGO ?= $(shell command -v cargo 2>/dev/null || echo $(HOME)/.cargo/bin/cargo)
NATIVE_LIB := pipelines/mqcap/_lib/libmqcap_native.so

# Runtime only (requirements.lock): what `mqcap` needs to run, and the compiled parsers.
venv: $(STAMP) $(NATIVE_LIB)

$(NATIVE_LIB): native/Cargo.toml $(wildcard native/src/*.rs)
	@if test -x "$(CARGO)"; then \
	  echo "building mqcap's compiled parsers (native/: cargo build --release --offline)"; \
	  $(CARGO) build --quiet --release --offline --manifest-path native/Cargo.toml \
	    && mkdir -p $(@D) && cp native/target/release/libmqcap_native.so $@.tmp && mv $@.tmp $@; \
	else echo "cargo not found: mqcap parses in Python (no compiled parsers)"; fi

# The locked wheels go in with uv (parallel downloads and unpacking: about 10 s for the runtime
# and test locks here, against pip's 60 s), itself pinned and kept apart from the
# venv (.venv/.uv). Where uv cannot be had or fails, pip installs the same locks (a line per
# package). Either prints what it installs; nothing is resolved again, the locks are exact.
# Both write the packages' bytecode (.pyc) at install (pip does by default, uv with
# --compile-bytecode): where PYTHONDONTWRITEBYTECODE is set, as on this machine, Python never
# caches what it compiles, and every process compiled GX, dbt, pandas and scipy from source
# again (`import great_expectations` 10.5 s against 3.5-4 s with the bytecode written).
UV_VERSION := 0.13.9
UV := $(VENV)/.uv/bin/uv
PIP := $(BIN)/python -m pip install --disable-pip-version-check --progress-bar off
INSTALL = if test -x $(UV); then $(UV) pip install --compile-bytecode --python $(BIN)/python $(1) \
  || { echo "uv failed: installing with pip instead"; $(PIP) $(1); }; else $(PIP) $(1); fi

$(UV):
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(PIP) --quiet --target $(VENV)/.uv uv==$(UV_VERSION) >/dev/null 2>&1 \
	  || echo "uv $(UV_VERSION) could not be installed: pip installs the locks"

$(STAMP): requirements.lock pyproject.toml | $(UV)
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "installing mqcap's runtime ($$(grep -c '==' requirements.lock) packages, requirements.lock) into $(VENV)"
	@$(call INSTALL,-r requirements.lock)
	$(PIP) --quiet --no-deps --no-build-isolation -e .
	@touch $(STAMP)

# Test and lint tools on top (requirements-dev.lock); coverage tooling goes there too.
dev: $(DEV_STAMP) $(NATIVE_LIB)

$(DEV_STAMP): $(STAMP) requirements-dev.lock
	@echo "installing the test and lint tools ($$(grep -c '==' requirements-dev.lock) packages, requirements-dev.lock)"
	@$(call INSTALL,-r requirements-dev.lock)
	@touch $(DEV_STAMP)

# The Spark engine's extra (requirements-spark.lock: pyspark, dbt-spark); the tests install it
# so CI runs the Spark tests; `make demo` does not. Java 17 must be on the machine. With pip:
# pyspark is a source distribution, and pip keeps the wheel it builds (5 s the next time) where
# uv built it again on every install (19 s, and half a gigabyte more in its cache each time).
spark: $(SPARK_STAMP)

$(SPARK_STAMP): $(STAMP) requirements-spark.lock
	@echo "installing the Spark engine ($$(grep -c '==' requirements-spark.lock) packages, requirements-spark.lock)"
	$(PIP) -r requirements-spark.lock
	@touch $(SPARK_STAMP)

# mqcap's own code, and the tests, compiled too (an editable install compiles nothing; a file
# changed since is compiled again here, the rest are skipped).
COMPILE_OWN = $(BIN)/python -m compileall -q pipelines/mqcap tests >/dev/null

demo: venv
	@$(COMPILE_OWN)
	$(BIN)/mqcap demo

lint: dev
	$(BIN)/ruff check pipelines tests bench
	$(BIN)/ruff format --check pipelines tests bench
	$(BIN)/sqlfluff lint models --disable-progress-bar --processes 2
	@if test -x "$(CARGO)" && $(CARGO) clippy --version >/dev/null 2>&1; then \
	  $(CARGO) fmt --manifest-path native/Cargo.toml --check \
	  && $(CARGO) clippy --quiet --release --offline --manifest-path native/Cargo.toml -- -D warnings \
	  && $(CARGO) test --quiet --release --offline --manifest-path native/Cargo.toml; \
	else echo "cargo clippy not found: native/ not linted"; fi

# The browser tests open the reports in headless Chromium (Debian's package).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing chromium for the browser tests"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# Coverage floor (percent of mqcap's statements, doctests included); see README "Development".
# Measured with COVERAGE=1 (`make test COVERAGE=1`, or `make coverage`): tracing every Python
# call of the test processes, the report kernels and the mqcap runs they start makes GX, the
# kernels and the suite as a whole about half again slower. CI measured it too until the CI run
# passed its 40 minutes (56.2 min on 2026-11-28 with coverage; docs/developer.md "Tests"): CI
# now runs the suite untraced, and `make coverage` is the measure (last: 93.09 %).
COVERAGE_FLOOR = 80
COVERAGE ?=
COV_ARGS = $(if $(COVERAGE),--cov --cov-report=term --cov-fail-under=$(COVERAGE_FLOOR),)

# CI (CI=true) runs every test; `make test` elsewhere leaves out the soaks (tests marked `soak`:
# the Spark engine's multi-build tests, the standalone Spark cluster, the thread-count stress)
# and the tests marked `ci` (the wheel installed in a fresh venv, the seeded kill chain, parsing
# on Spark executors) so that it answers in minutes (docs/developer.md "Tests"). Run them here
# with `make unit CI_ONLY=` or by naming them to pytest.
# The seeded kill chain (docs/reliability.md) kills `mqcap run` 100 times under CI, 5 (every
# phase once, one lane) when run otherwise.
KILL_CHAIN ?= $(if $(CI),100,5)
CI_ONLY ?= $(if $(CI),,-m "not soak and not ci")
# The fault-injection matrix (tests/test_reliability_faults.py): a cover by default (every input
# format with three faults, every fault at least once: 51 of 184 cases, 17 of 68 environment
# cases), all of it under CI.
FAULT_MATRIX ?= $(if $(CI),full,cover)
# The incremental-equals-full test (tests/test_incremental_build.py): its first step in
# `make test` (3 dbt builds), all six under CI (13 builds; the first step once).
INCREMENTAL_STEPS ?= $(if $(CI),6,1)

# Whole modules per worker (--dist loadfile): a module's fixtures (a warehouse, a render) are
# built once; tests/conftest.py orders them longest first, and --no-loadscope-reorder keeps that
# order (xdist would otherwise hand out the modules with the most tests first).
# WORKERS: pytest-xdist workers. 3 for make test on this 2-core machine: the tests wait on dbt,
# Spark, the report kernels and locks, and a third worker fills those waits (a fresh-clone make
# test took 17.3 min with 3 against 19.7-20.2 min with 2 on 2026-11-27; CPU 175 % of 200 % with
# 2; with 4, pytest took 1,115 s against 941 s with 3 in one later session, 2,076 CPU-s
# against 1,851). 2 under CI: fresh-clone CI=true runs took 45.5 min with 2 and 53.0 min with 3 in one
# session (CPU 152 % and 155 %: with 3 the Spark JVMs and dbt slowed each other); on 2026-11-29
# 46.9 min with 3 against 47.2 with 2, the same (docs/developer.md "Tests").
WORKERS ?= $(if $(CI),2,3)
unit: dev spark browser
	@$(COMPILE_OWN)
	MQCAP_KILL_CHAIN=$(KILL_CHAIN) MQCAP_FAULT_MATRIX=$(FAULT_MATRIX) MQCAP_INCREMENTAL_STEPS=$(INCREMENTAL_STEPS) \
	  $(BIN)/python -m pytest -n $(WORKERS) --dist loadfile --no-loadscope-reorder --durations=25 \
	  $(CI_ONLY) $(COV_ARGS)

# `make test` runs lint beside the suite, not before it: sqlfluff alone took 78 s of a fresh
# clone's 16 minutes (68 CPU-s on one core at a time, the other idle). Niced, lint takes the CPU
# the suite leaves (pytest uses about 185 % of the two cores); its output is kept in
# $(LINT_LOG) and printed as one block when it ends, and a lint failure fails `make test` as
# before (make waits for the suite, then stops with lint's status). Lint's make is given no
# jobserver (MAKEFLAGS unset): cargo warned that it could not open the one -j2's make names.
LINT_LOG := $(VENV)/.lint.log
test: dev spark browser
	@$(MAKE) --no-print-directory -j2 lint-beside unit

# (a dry run, `make -n test`, runs this recipe because it names $(MAKE): it only says what it
# would do, as lint's own recipe would under -n)
DRY_RUN = $(findstring n,$(firstword -$(MAKEFLAGS)))
lint-beside: dev
	@if test -n "$(DRY_RUN)"; then echo "nice -n 10 $(MAKE) lint > $(LINT_LOG) (beside the tests)"; exit 0; fi; \
	  status=0; env -u MAKEFLAGS -u MFLAGS nice -n 10 $(MAKE) --no-print-directory lint \
	  > $(LINT_LOG) 2>&1 || status=$$?; \
	  echo "---- make lint (run beside the tests; its output, $(LINT_LOG)) ----"; \
	  cat $(LINT_LOG); echo "---- make lint: $$( [ $$status = 0 ] && echo passed || echo FAILED ) ----"; \
	  exit $$status

# The whole suite as CI runs it (CI=true: the soaks too), measured by coverage, with its floor.
coverage:
	$(MAKE) test CI=true COVERAGE=1

bench: dev spark
	$(BIN)/python -m bench

# The user guide (docs/, mkdocs.yml) to site/index.html, built offline, then the warehouse's dbt
# docs (mqcap build --docs: dbt-docs.html beside the reports).
docs: dev
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict
	@echo "user guide: site/index.html"
	$(BIN)/mqcap build --docs

# Re-resolve both locks from pyproject.toml (needs the package index; run on purpose):
# requirements.lock = what mqcap needs at run time, requirements-dev.lock = the rest of '.[dev]'.
lock:
	rm -rf /tmp/mqcap-lock && $(PYTHON) -m venv /tmp/mqcap-lock
	/tmp/mqcap-lock/bin/pip install --quiet -e '.[dev]'
	/tmp/mqcap-lock/bin/python tools/split_lock.py

clean:
	rm -rf $(VENV) data/warehouse.duckdb* data/*.mqcap data/demo reports/_output target logs
