# Loki Desktop — one entry point for people and CI.
#   make run    set up .venv/ when missing, then start the app
#   make test   set up .venv/ when missing, then run lint, types, import contracts and every test
#   make bench  print the performance figures against their budgets
#   make reference  install esbuild and TypeScript (npm, tests only): the check corpus is
#               compared with them (make test does it when npm is there)
#   make bundle build the standalone one-folder application (PyInstaller)

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

REFERENCE := tests/reference/node_modules/.package-lock.json

.PHONY: run test lint bench bundle clean reference

$(STAMP): pyproject.toml
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

reference: $(REFERENCE)

$(REFERENCE): tests/reference/package.json tests/reference/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		npm ci --prefix tests/reference --ignore-scripts --no-audit --no-fund --loglevel=error; \
	else echo "npm not found: the check corpus is not compared with esbuild and TypeScript"; fi

test: lint reference
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m bench

bundle: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,bundle]'
	$(BIN)/python packaging/build_bundle.py

clean:
	rm -rf $(VENV) build dist .mypy_cache .pytest_cache .ruff_cache
