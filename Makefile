# Two commands on a fresh machine: `make demo` and `make test` (see README).
# Both create .venv when needed and install the exact versions in requirements.lock;
# the stamp makes a re-run cheap when neither the lock nor pyproject.toml changed.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.mqcap-installed

.PHONY: venv demo test lint unit browser bench lock docs clean

venv: $(STAMP)

$(STAMP): requirements.lock pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $(STAMP)

demo: venv
	$(BIN)/mqcap demo

lint: venv
	$(BIN)/ruff check pipelines tests bench
	$(BIN)/ruff format --check pipelines tests bench
	$(BIN)/sqlfluff lint models --disable-progress-bar --processes 2

# The browser tests open the reports in headless Chromium (Debian's package).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing chromium for the browser tests"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# Coverage floor (percent of mqcap's statements, doctests included); see README "Development".
COVERAGE_FLOOR = 80

unit: venv browser
	$(BIN)/python -m pytest -n 2 --dist loadgroup --cov --cov-report=term --cov-fail-under=$(COVERAGE_FLOOR)

test: lint unit

bench: venv
	$(BIN)/python -m bench

docs: venv
	$(BIN)/mqcap build --docs

# Re-resolve the lock from pyproject.toml (needs the package index; run on purpose).
lock:
	rm -rf /tmp/mqcap-lock && $(PYTHON) -m venv /tmp/mqcap-lock
	/tmp/mqcap-lock/bin/pip install --quiet -e '.[dev]'
	{ echo "# Exact versions of every dependency (direct and transitive), installed by 'make venv'."; \
	  echo "# Regenerate on purpose with 'make lock' after changing pyproject.toml."; \
	  /tmp/mqcap-lock/bin/pip freeze --all --exclude-editable | grep -vE "^(mqcap|pip)=="; } > requirements.lock

clean:
	rm -rf $(VENV) data/warehouse.duckdb* reports/_output target logs
