# Loki Desktop — one entry point for people and CI.
#   make run    set up .venv/ when missing, then start the app
#   make test   set up .venv/ when missing, then run lint, types, import contracts and every test
#   make bench  print the performance figures against their budgets
#   make bundle build the standalone one-folder application (PyInstaller)

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench bundle clean

$(STAMP): pyproject.toml setup.py
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "Loki Desktop needs Python 3.11 or newer (found: $$($(PYTHON) --version))."; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/loki-desktop

lint: $(STAMP)
	$(BIN)/ruff check loki_desktop tests bench
	$(BIN)/ruff format --check loki_desktop tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports

test: lint
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m bench

bundle: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,bundle]'
	$(BIN)/python packaging/build_bundle.py

clean:
	rm -rf $(VENV) build dist .mypy_cache .pytest_cache .ruff_cache
